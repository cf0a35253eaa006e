"""Expected values (from the paper's equations) and properties of the ota_jammer accountant, power control and jammer."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from repro.papers.ota_jammer import theory as th
from repro.privacy import ota_accounting as acc
from repro.privacy.clip import clip_rows
from repro.wireless import jammer as cj
from repro.wireless import ota
from repro.wireless import power_control as pc

D, M_PAPER, M_QUICK = 16421, 80, 20
REL = 1e-4


def test_constants_section_3_1():
    d = th.mlp_num_params()
    assert d == 155_830
    assert pc.power_budget_from_snr(1.0, d) == pytest.approx(196_178.35, rel=1e-7)
    assert math.sqrt(pc.power_budget_from_snr(1.0, d)) == pytest.approx(442.920, rel=1e-5)
    p = np.array(th.FEMNIST_TRAIN_SIZES) / D
    assert sum(th.FEMNIST_TRAIN_SIZES) == D and sum(th.FEMNIST_TEST_SIZES) == 1924
    assert p.min() == pytest.approx(0.004811, abs=1e-6) and p.max() == pytest.approx(0.118750, abs=1e-6)
    assert np.sum(p ** 2) == pytest.approx(0.033811, abs=1e-6)
    assert [th.even_step_coefficient(0.1, lam) for lam in (0.15, 0.4, 0.9, 1.9)] == pytest.approx([0.4, 0.2, 0.1, 0.05])


@pytest.mark.parametrize("eps,delta,L,S,a,sreqD", [
    (6.52, 1e-5, 11.512925, 0.728375, 2.895812, 7.4106),
    (4.4, 1e-2, 4.605170, 0.730846, 1.834577, 7.3980),
    (1.0, 1e-5, 11.512925, 0.020820, 0.489590, 43.832),
    (0.5, 1e-5, 11.512925, 0.005314, 0.247343, 86.761),
    (0.1, 1e-5, 11.512925, 0.000216, 0.049892, 430.12),
])
def test_calibration_table_section_3_2(eps, delta, L, S, a, sreqD):
    assert acc.log_inv_delta(delta) == pytest.approx(L, rel=REL)
    assert acc.ma_budget(eps, delta) == pytest.approx(S, rel=2e-3)  # table printed to 3-4 digits
    assert cj.eq23_a(eps, delta) == pytest.approx(a, rel=REL)
    assert cj.eq23_a(eps, delta) ** 2 / acc.log_inv_delta(delta) == pytest.approx(acc.ma_budget(eps, delta), rel=1e-12)
    sreq80 = math.sqrt(cj.required_noise_variance(eps, delta, M_PAPER, D))
    assert sreq80 * D == pytest.approx(sreqD, rel=REL)
    assert math.sqrt(cj.required_noise_variance(eps, delta, M_QUICK, D)) == pytest.approx(sreq80 / 2, rel=1e-12)


def test_iid_row_and_no_cj_calibration():
    assert math.sqrt(cj.required_noise_variance(0.15, 1e-2, 80, 1)) == pytest.approx(182.43, rel=REL)
    assert math.sqrt(cj.required_noise_variance(0.15, 1e-2, 20, 1)) == pytest.approx(91.213, rel=REL)
    for M, alpha, norm in [(80, 2215.88, 0.17815), (20, 4431.77, 0.08907)]:
        cal = th.calibrate(M, D, 6.52, 1e-5)
        assert cal.alpha_u == pytest.approx(alpha, rel=REL)
        assert math.sqrt(155_830) * cal.total_std == pytest.approx(norm, rel=REL)
        assert cal.epsilon == pytest.approx(6.52, abs=1e-9)  # claim C1
    S = acc.ma_budget(6.52, 1e-5)
    assert acc.ma_epsilon(S, 1e-2) == pytest.approx(4.3913, abs=1e-4)  # claim C2
    assert acc.ma_epsilon(acc.ma_budget(4.4, 1e-2), 1e-5) == pytest.approx(6.5323, abs=1e-4)


def test_jammer_needed_only_below_channel_privacy():  # claim C3
    ch_var = th.calibrate(80, D, 6.52, 1e-5).channel_std ** 2
    for eps in (1.0, 0.5, 0.1):
        assert cj.jammer_needed(cj.required_noise_variance(eps, 1e-5, 80, D), ch_var)
    for eps in (6.52, 7.0, 10.0):
        assert not cj.jammer_needed(cj.required_noise_variance(eps, 1e-5, 80, D), ch_var * (1 + 1e-12))


@pytest.mark.parametrize("eps,at_bound,achieved,var_reading,amp_ratio", [
    (1.0, 2.6308e-3, 0.14232, 0.37776, 40.81),
    (0.5, 5.2642e-3, 0.07103, 0.18833, 81.65),
    (0.1, 2.6190e-2, 0.014261, 0.037755, 406.2),
])
def test_jammer_section_3_3(eps, at_bound, achieved, var_reading, amp_ratio):
    cal1 = th.calibrate(80, D, 6.52, 1e-5, eps, 1e-5, kappa=1.0)
    assert cal1.jammer_std == pytest.approx(at_bound, rel=REL)
    assert cal1.epsilon == pytest.approx(eps, abs=1e-9)  # claim C4: the bound meets the target exactly
    cal7 = th.calibrate(80, D, 6.52, 1e-5, eps, 1e-5, kappa=7.0)
    assert cal7.jammer_std == pytest.approx(7 * at_bound, rel=REL)
    assert cal7.epsilon == pytest.approx(achieved, abs=1e-4)  # claim C5
    assert th.achieved_epsilon_kappa(eps, 1e-5, 7.0, variance_reading=True) == pytest.approx(var_reading, abs=1e-4)
    # independent of M and |D|
    assert th.calibrate(20, 5000, 6.52, 1e-5, eps, 1e-5, 7.0).epsilon == pytest.approx(achieved, abs=1e-4)
    # the amplitude bound (22) at |h_CJ| = 1, times 7
    amp = 7 * cj.jammer_min_amplitude(cal1.alpha_u, 1.0, cal1.required_var)
    assert amp == pytest.approx(amp_ratio, rel=2e-3)
    # model-domain jammer std at the bound does not depend on |h_CJ|
    for h in (0.1, 2.0):
        assert cj.jammer_min_amplitude(cal1.alpha_u, h, cal1.required_var) * h / cal1.alpha_u == pytest.approx(at_bound, rel=REL)


@pytest.mark.parametrize("M,coef,p_shrink,mean_sum", [(80, 5.0029, 0.0157, 0.983), (20, 10.006, 0.053, 0.944)])
def test_power_control_stats_section_3_4(M, coef, p_shrink, mean_sum):
    st_ = th.power_control_stats(M, draws=20_000)
    assert st_["coef"] == pytest.approx(coef, rel=REL)
    assert st_["p_shrink"] == pytest.approx(p_shrink, abs=0.005)
    assert st_["mean_sum_p_over_s"] == pytest.approx(mean_sum, abs=0.005)


def test_dp_accounting_cross_check_section_3_5():
    for z, M in [(7.4106, 80), (3.7053, 20)]:
        assert acc.ma_rate([z / D] * M, D) == pytest.approx(0.728375, rel=REL)
    rdp5, rdp2 = acc.dp_accounting_epsilon(7.4106, 80, 1e-5), acc.dp_accounting_epsilon(7.4106, 80, 1e-2)
    assert rdp5 == pytest.approx(5.878, abs=0.02) and rdp2 == pytest.approx(3.521, abs=0.02)
    pld5 = acc.dp_accounting_epsilon(7.4106, 80, 1e-5, "pld")
    pld2 = acc.dp_accounting_epsilon(7.4106, 80, 1e-2, "pld")
    assert pld5 == pytest.approx(5.450, abs=0.02) and pld2 == pytest.approx(2.988, abs=0.02)
    assert max(rdp5, pld5) < 6.52 and max(rdp2, pld2) < 4.3913  # library is tighter than the closed form


@pytest.mark.parametrize("eps,delta,cinv,rdp,ratio", [
    (6.52, 1e-5, 3.13040, 0.826878, 0.1419), (4.4, 1e-2, 1.84885, 0.897307, 0.1535), (0.15, 1e-2, 1.84885, 0.001610, 0.1675)])
def test_baseline_constants_section_3_6(eps, delta, cinv, rdp, ratio):
    assert acc.liu_simeone_cinv(delta) == pytest.approx(cinv, rel=REL)
    assert acc.liu_simeone_rdp_budget(eps, delta) == pytest.approx(rdp, rel=2e-3)
    r = pc.baseline_gain_budget(eps, delta, D, accountant="ls") / pc.baseline_gain_budget(eps, delta, D, accountant="ma")
    assert r == pytest.approx(ratio, abs=1e-4)


def test_baseline_common_gain_cap_statistics():
    rng = np.random.default_rng(0)
    p = np.array(th.FEMNIST_TRAIN_SIZES) / D
    P = pc.power_budget_from_snr(1.0, th.mlp_num_params())
    g = rng.exponential(1.0, size=(20_000, 50))
    bmax = pc.common_gain_cap(p, g, P)
    a2 = th.calibrate(80, D, 6.52, 1e-5).alpha_u ** 2
    assert np.mean(bmax < a2) == pytest.approx(0.570, abs=0.01)
    assert np.median(a2 / np.minimum(bmax, a2)) == pytest.approx(1.22, abs=0.02)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.05, 5.0), min_size=3, max_size=30), st.floats(0.01, 0.99), st.floats(0.9, 1.0))
def test_adaptive_gains_meet_budget(bmax, frac, gamma):
    bmax = np.array(bmax)
    budget = frac * bmax.sum()
    beta = pc.adaptive_common_gains(bmax, budget, gamma)
    assert np.all(beta <= bmax * (1 + 1e-12)) and np.all(beta > 0)
    assert beta.sum() == pytest.approx(budget, rel=1e-8)
    assert np.array_equal(pc.adaptive_common_gains(bmax, 2 * bmax.sum(), gamma), bmax)


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-6, 10.0), st.sampled_from([1e-5, 1e-3, 1e-2, 0.3]))
def test_closed_form_equals_numeric_min(S, delta):  # claim C7 (closed form)
    assert acc.ma_epsilon(S, delta) == pytest.approx(acc.ma_epsilon_numeric(S, delta), rel=1e-9)
    assert acc.ma_epsilon(acc.ma_budget(acc.ma_epsilon(S, delta), delta), delta) == pytest.approx(acc.ma_epsilon(S, delta), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.integers(0, 10_000))
def test_per_client_epsilon_below_bound(M, K, seed):  # claim C7 (eq. 20 <= eq. 21)
    rng = np.random.default_rng(seed)
    sig = rng.uniform(1e-4, 1e-2, M)
    s = 1 + rng.exponential(1.0, (M, K)) * (rng.random((M, K)) < 0.5)
    per = acc.ma_epsilon_per_client(sig, D, 1e-5, s)
    assert np.all(per <= acc.ma_epsilon_for_noise(sig, D, 1e-5) * (1 + 1e-12))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(100.0, 20_000.0))
def test_power_constraint_holds_after_clipping(seed, alpha_u):  # claim C7 (power constraint 11)
    rng = np.random.default_rng(seed)
    K, d = 8, 16
    p = rng.dirichlet(np.ones(K))
    h = np.sqrt(rng.exponential(1.0, K)) + 1e-9
    P = pc.power_budget_from_snr(1.0, d)
    s = pc.power_feasibility_factors(alpha_u, p, h, P)
    upd = clip_rows(torch.from_numpy(rng.normal(0, 3, (K, d))), 1.0)
    ratio = pc.transmit_energy_ratio(pc.client_amplitudes(alpha_u, p, h, 1.0, s), upd.norm(dim=1).numpy(), P)
    assert np.all(s >= 1) and np.all(ratio <= 1 + 1e-9)


def test_ota_aggregate_matches_channel_domain():
    g = torch.Generator().manual_seed(3)
    K, d, tau, alpha_u = 6, 12, 1.0, 50.0
    p = torch.rand(K, generator=g, dtype=torch.float64)
    p = p / p.sum()
    h = torch.complex(torch.randn(K, generator=g, dtype=torch.float64), torch.randn(K, generator=g, dtype=torch.float64))
    upd = clip_rows(torch.randn(K, d, generator=g, dtype=torch.float64), tau)
    s = torch.from_numpy(pc.power_feasibility_factors(alpha_u, p.numpy(), h.abs().numpy(), 4.0))
    amp = torch.from_numpy(pc.client_amplitudes(alpha_u, p.numpy(), h.abs().numpy(), tau, s.numpy()))
    z = torch.randn(d, generator=g, dtype=torch.float64)
    y = ota.receive_channel_domain(upd, h, amp, alpha_u, z=z.to(torch.complex128))
    model = ota.ota_aggregate(upd, p, tau, s, noise=z, noise_std=1.0 / alpha_u)
    assert torch.allclose(y.real, model, atol=1e-12) and torch.allclose(y.imag, torch.zeros(d, dtype=torch.float64), atol=1e-12)
    assert ota.effective_noise_std(alpha_u, 1.0, 2.0, 0.5) == pytest.approx(math.sqrt(1 / alpha_u ** 2 + 1 / alpha_u ** 2))


def test_convergence_terms_increase_as_epsilon_falls():  # claim C18
    tot = [th.convergence_terms(e, smoothness=2.0, num_params=1000, num_transmissions=80, dataset_size=D)["total"]
           for e in (6.0, 3.0, 1.0, 0.5, 0.1)]
    assert all(b > a for a, b in zip(tot, tot[1:]))


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, float("nan")])
def test_bad_delta_is_rejected(bad):
    with pytest.raises(ValueError, match="delta"):
        acc.log_inv_delta(bad)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="epsilon"):
        acc.ma_budget(0.0, 1e-5)
    with pytest.raises(ValueError, match="s must be >= 1"):
        acc.ma_rate([1.0], 10, [0.5])
    with pytest.raises(ValueError, match="accountant"):
        pc.baseline_gain_budget(1.0, 1e-5, 10, accountant="xx")
    with pytest.raises(ValueError, match="max_norm"):
        clip_rows(torch.ones(2, 2), 0.0)


def test_lambda_schedule_quick_and_paper():
    sched = [[1, 25, 0.15], [26, 50, 0.4], [51, 75, 0.9], [76, 80, 1.9]]
    lam20 = th.lambda_schedule(20, sched)
    assert list(lam20) == [0.15] * 6 + [0.4] * 6 + [0.9] * 6 + [1.9] * 2
    lam80 = th.lambda_schedule(80, sched)
    assert list(lam80[[0, 24, 25, 49, 50, 74, 75, 79]]) == [0.15, 0.15, 0.4, 0.4, 0.9, 0.9, 1.9, 1.9]
