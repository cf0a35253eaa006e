"""Certificates of DP-Ditto's uploads and the measurement of Theorem 1's constants."""

import math

import numpy as np
import pytest
import torch

from repro.papers.dp_ditto import privacy as pv
from repro.papers.dp_ditto import theory as th
from repro.papers.dp_ditto.constants import largest_hessian_eigenvalue, pl_constant


def _certs(eps, T, n_split=2625, n_held=2625, clip=20.0, N=20):
    sigma = [th.sigma_u(eps, 0.01, T, N, clip, n_split)] * N
    return pv.job_certificates(eps, clip, T, 0.01, sigma, [n_split] * N, [n_held] * N)


def test_eq7_reading_matches_the_rdp_diagnostic_and_is_T_and_C_invariant():
    c = _certs(10.0, 30)
    # reference diagnostic: z = 0.37169 per upload, 30 releases -> eps_RDP ~ 150.6
    assert c["eq7"].noise_std / c["eq7"].sensitivity == pytest.approx(0.371692, rel=1e-5)
    assert c["eq7"].certified_epsilon == pytest.approx(150.6, rel=0.02)
    for T, C in ((5, 20.0), (100, 10.0)):
        assert _certs(10.0, T, clip=C)["eq7"].certified_epsilon == pytest.approx(c["eq7"].certified_epsilon, rel=1e-3)


def test_sum_reading_is_the_aggregate_view_and_clip_reading_is_vacuous():
    c = _certs(10.0, 30)
    assert c["sum"].certified_epsilon == pytest.approx(13.97, rel=0.01)  # sigma_z on the sum, Delta s of eq. (7)
    assert _certs(100.0, 30)["sum"].certified_epsilon == pytest.approx(639.9, rel=0.01)
    assert c["clip"].certified_epsilon > 1e8 and c["clip"].flagged and c["eq7"].flagged


def test_held_reading_charges_a_subsample_for_its_smaller_dataset():
    full, sub = _certs(10.0, 20), _certs(10.0, 20, n_held=100)
    assert full["eq7_held"].certified_epsilon == pytest.approx(full["eq7"].certified_epsilon)
    assert sub["eq7"].certified_epsilon == pytest.approx(full["eq7"].certified_epsilon)
    assert sub["eq7_held"].certified_epsilon > 100 * sub["eq7"].certified_epsilon
    note = pv.figure_note({10.0: sub})
    assert "eps 10 (paper's nominal)" in note and "samples held" in note


def test_pl_constant_of_a_quadratic_is_its_curvature():
    mu = 0.7
    w = np.linspace(3.0, 0.0, 40)
    f, g2 = 0.5 * mu * w**2, (mu * w) ** 2
    assert pl_constant(f, g2, gap_floor=0.05) == pytest.approx(mu)


def test_power_iteration_finds_the_largest_hessian_eigenvalue():
    from repro.engine.data import ClientData
    from repro.models import build_model

    g = torch.Generator().manual_seed(0)
    x = torch.randn(30, 3, generator=g)
    y = torch.randint(0, 2, (30,), generator=g)
    data = ClientData.from_client_arrays([x], [y])
    model = build_model("mlr", in_features=3, num_classes=2)
    theta = model.init(g).double()
    lam = float(largest_hessian_eigenvalue(model, theta, data, iterations=200, generator=torch.Generator().manual_seed(1))[0])

    def loss(w):
        return torch.nn.functional.cross_entropy(model.forward(w.unsqueeze(0), x.double().unsqueeze(0))[0], y)

    H = torch.autograd.functional.hessian(loss, theta[0])
    assert lam == pytest.approx(float(torch.linalg.eigvalsh(H).max()), rel=1e-4)


def test_search_handles_a_violated_assumption():
    c = th.ConvergenceConstants(mu=0.3)  # mu < (2 - 2 lambda)/(2 - lambda): eps_L > 1
    assert th.eps_l(c) > 1 and th.check_assumptions(c)
    t_star, h_star = th.search_t_star(c, 200)
    assert t_star == 1 and math.isfinite(h_star)


def test_job_certificates_carry_the_tight_reading():
    c = pv.job_certificates(1.0, 20.0, 2, 0.01, sigma=[0.9597 * 2 * 20 / 2625] * 3, split=[2625] * 3, held=[100] * 3)
    assert c["eq7_tight"].certified_epsilon < c["eq7"].certified_epsilon
    assert c["eq7_tight"].certified_epsilon == pytest.approx(3.92, abs=0.01)  # the table's value at nominal eps = 1
