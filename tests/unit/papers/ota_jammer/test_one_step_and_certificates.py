"""The one-step local rule (per-sample clipping) and the certificates of the privacy table."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from repro.models import build_model
from repro.papers.ota_jammer import privacy, theory
from repro.papers.ota_jammer.one_step import clipped_mean_gradients, one_step_updates, reference_per_sample_gradients
from repro.privacy import ota_accounting as acc
from repro.privacy.certify import certified_gaussian_epsilon

D = 16421


@pytest.mark.parametrize("name,kw", [("mlp", dict(in_features=12, hidden=6)), ("mlr", dict(in_features=12))])
def test_clipped_mean_gradients_match_autograd(name, kw):
    g = torch.Generator().manual_seed(0)
    model = build_model(name, num_classes=4, **kw)
    theta = model.init(g)[0] * 4
    x, y, sizes = torch.randn(13, 12, generator=g), torch.randint(0, 4, (13,), generator=g), torch.tensor([4, 1, 6, 2])
    got, norms = clipped_mean_gradients(model, theta, x, y, sizes, clip=0.5)
    ref = reference_per_sample_gradients(model, theta, x, y)
    assert torch.allclose(norms, ref.norm(dim=1), rtol=1e-5)
    clipped = ref * torch.clamp(0.5 / ref.norm(dim=1), max=1.0).unsqueeze(1)
    want = torch.stack([b.mean(0) for b in clipped.split(sizes.tolist())])
    assert torch.allclose(got, want, atol=1e-6)


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.floats(0.05, 5.0), st.floats(0.01, 2.0))
def test_one_step_sensitivity_is_the_papers(seed, clip, tau):
    """Adding one sample to a client (fixed 1/|D_i| normalisation, Appendix A) moves its update by <= tau/|D_i|,
    and every update has norm <= tau: the sensitivity behind eqs. (20)/(21)."""
    g = torch.Generator().manual_seed(seed)
    model = build_model("mlp", in_features=8, hidden=5, num_classes=3)
    theta = model.init(g)[0] * 3
    x, y = torch.randn(9, 8, generator=g), torch.randint(0, 3, (9,), generator=g)
    sizes = torch.tensor([5, 4])
    upd, _ = one_step_updates(model, theta, x, y, sizes, clip, tau)
    assert float(upd.norm(dim=1).max()) <= tau * (1 + 1e-5)
    # the same client data plus one sample, normalised by the original |D_1| = 5
    x2, y2 = torch.cat([x[:5], torch.randn(1, 8, generator=g), x[5:]]), torch.cat([y[:5], torch.tensor([1]), y[5:]])
    grad2, _ = clipped_mean_gradients(model, theta, x2, y2, torch.tensor([6, 4]), clip)
    moved = (-(tau / clip) * grad2[0] * 6 / 5 - upd[0]).norm()
    assert float(moved) <= tau / 5 * (1 + 1e-5)


def _result(mu2_update, mu2_one, sigma, M=20, eps=6.52):
    return {"mu2_update": mu2_update, "mu2_one_step": mu2_one, "noise_std_eff": sigma, "num_transmissions": M,
            "epsilon": eps, "frac_clipped": 1.0}


def test_certificates_of_the_two_sensitivities():
    cal = theory.calibrate(20, D, 6.52, 1e-5)
    sigma = cal.total_std
    p_max = max(theory.FEMNIST_TRAIN_SIZES) / D
    res = _result(20 * (2 * p_max / sigma) ** 2, 20 * (1 / (D * sigma)) ** 2, sigma)
    params = {"eps0": 6.52}
    epochs = privacy.configuration({"data": "femnist", "mode": "proposed", "local_rule": "epochs", "cj_epsilon": None,
                                    "eps0": 6.52, "delta0": 1e-5}, params)
    one = privacy.configuration({"data": "femnist", "mode": "proposed", "local_rule": "one_step", "cj_epsilon": None,
                                 "eps0": 6.52, "delta0": 1e-5}, params)
    c_epochs, c_one = privacy.certificate(epochs, [res]), privacy.certificate(one, [res])
    # one step: dp-accounting certifies below the paper's closed form (its tail bound is looser)
    assert c_one.certified_epsilon == pytest.approx(5.878, abs=0.02) and c_one.certified_epsilon < 6.52
    assert not c_one.flagged
    # E epochs: 2 |D_max| = 3,900 x the paper's sensitivity, epsilon ~ 1e7
    assert c_epochs.sensitivity / c_one.sensitivity == pytest.approx(2 * max(theory.FEMNIST_TRAIN_SIZES), rel=1e-9)
    assert c_epochs.flagged and c_epochs.certified_epsilon > 1e6
    assert privacy.certificate(epochs, [res], one_step_sensitivity=True).certified_epsilon == pytest.approx(
        c_one.certified_epsilon, rel=1e-12)


def test_least_private_run_is_certified():
    cfg = privacy.Configuration(("x",), "x", "x", "fig", 1.0, "src", 1e-5, True)
    runs = [_result(1.0, 0.5, 0.1), _result(1.0, 2.0, 0.1)]
    assert privacy.certificate(cfg, runs).certified_epsilon == pytest.approx(
        certified_gaussian_epsilon(1.0, math.sqrt(2.0 / 20), 20, 1e-5), rel=1e-9)


@settings(max_examples=30)
@given(st.lists(st.floats(1e-4, 1e-1), min_size=1, max_size=40))
def test_equivalent_noise_std_composes_like_the_rounds(sig):
    s_eff = acc.equivalent_noise_std(sig)
    assert acc.ma_rate([s_eff] * len(sig), D) == pytest.approx(acc.ma_rate(sig, D), rel=1e-9)
    assert min(sig) * (1 - 1e-12) <= s_eff <= max(sig) * (1 + 1e-12)


@pytest.mark.parametrize("eps,delta", [(6.52, 1e-5), (4.4, 1e-2), (0.15, 1e-2)])
def test_liu_simeone_epsilon_inverts_its_budget(eps, delta):
    assert acc.liu_simeone_epsilon(acc.liu_simeone_rdp_budget(eps, delta), delta) == pytest.approx(eps, rel=1e-9)


def test_baseline_under_its_own_accountant_reads_2_29_under_the_papers():
    """[13] calibrated with its own accountant at (6.52, 1e-5), read with eq. (21): 2.29 (a 2.7x larger noise std)."""
    budget_ls = acc.liu_simeone_rdp_budget(6.52, 1e-5) * D ** 2 / 4.0  # sum of beta_m, sigma_c = 1
    eps_ma = acc.ma_epsilon(budget_ls / (2 * D ** 2), 1e-5)
    assert eps_ma == pytest.approx(2.285, abs=0.005)
    assert math.sqrt(acc.ma_budget(6.52, 1e-5) * 2 * D ** 2 / budget_ls) == pytest.approx(2.655, abs=0.01)


def test_jammer_labels_both_values():
    """Figs 6-8 say eps = 1 / 0.5 / 0.1; the jammer at 7x its amplitude bound gives 0.142 / 0.071 / 0.014."""
    got = [theory.calibrate(20, D, 6.52, 1e-5, e, 1e-5, 7.0).epsilon for e in (1.0, 0.5, 0.1)]
    assert got == pytest.approx([0.14232, 0.07103, 0.014261], abs=1e-4)
    assert np.all(np.array(got) < np.array([1.0, 0.5, 0.1]) / 5)
