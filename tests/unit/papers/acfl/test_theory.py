"""Lemma 2, Theorems 2-3, Remark 1 and the Fig. 1 reference table (values computed from eqs. 17, 33-38)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from repro.papers.acfl import theory
from repro.papers.acfl.privacy_mi import acfl_mi_dp_epsilon, acfl_sigma2_for_epsilon

K1 = theory.BoundConstants()  # Fig. 1 constants
REFERENCE = [  # eps, sigma^2, alpha*, B*, B(0.1), B(0.5), B(0.9)   (computed from eqs. 17, 34, 36, 38)
    (1, 104.001, 9.71149e-5, 10.22220064, 33.06, 582.06, 1863.3),
    (2, 51.7516, 1.95144e-4, 10.22217886, 21.565, 294.69, 932.22),
    (5, 20.404, 4.94806e-4, 10.22211227, 14.669, 122.28, 373.6),
    (10, 9.95797, 1.01334e-3, 10.22199704, 12.371, 64.824, 187.45),
    (20, 4.74094, 2.12606e-3, 10.22174976, 11.223, 36.131, 94.486),
    (50, 1.62972, 6.15982e-3, 10.22085337, 10.539, 19.019, 39.044),
    (100, 0.623554, 0.0159409, 10.21867981, 10.317, 13.485, 21.114),
    (200, 0.173031, 0.055157, 10.20996511, 10.218, 11.007, 13.086),
    (500, 8.42715e-3, 0.545171, 10.10107315, 10.182, 10.102, 10.152),
    (1000, 6.98397e-5, 0.993133, 10.00152592, 10.180, 10.056, 10.003),
]


def B(alpha, s2):
    return theory.convergence_bound(theory.bound_u(s2, s2, alpha, K1), 1.0, 1000)


@pytest.mark.parametrize("row", REFERENCE, ids=lambda r: f"eps={r[0]}")
def test_fig1_reference_table(row):
    eps, s2, a_star, b_star, b01, b05, b09 = row
    sigma2 = acfl_sigma2_for_epsilon(eps, 100, 10)
    assert sigma2 == pytest.approx(s2, rel=1e-5)
    assert theory.alpha_star(sigma2, sigma2, K1) == pytest.approx(a_star, rel=1e-5)
    assert theory.convergence_bound(theory.u_tilde(sigma2, sigma2, K1), 1.0, 1000) == pytest.approx(b_star, rel=1e-6)
    for a, ref in ((0.1, b01), (0.5, b05), (0.9, b09)):
        assert B(a, sigma2) == pytest.approx(ref, rel=5e-4)


def test_fig1_closed_forms_and_spot_values():
    s = np.logspace(-4, 4, 50)
    np.testing.assert_allclose(theory.alpha_star(s, s, K1), 1 / (1 + 99 * s), rtol=1e-13)
    b_star = theory.convergence_bound(theory.u_tilde(s, s, K1), 1.0, 1000)
    np.testing.assert_allclose(b_star, 92 / 9 - 2 / 9 * theory.alpha_star(s, s, K1), rtol=1e-13)
    np.testing.assert_allclose(B(0.0, s), 92 / 9, rtol=1e-13)
    np.testing.assert_allclose(B(1.0, s), 10 + 22 * s, rtol=1e-13)
    assert B(0.5, 1.0) == pytest.approx(15.5556, abs=1e-4) and B(1.0, 1.0) == pytest.approx(32.0)
    assert theory.alpha_star(0.01, 0.01, K1) == pytest.approx(0.502513, abs=1e-6)
    assert theory.convergence_bound(theory.u_tilde(0.01, 0.01, K1), 1, 1000) == pytest.approx(10.110553, abs=1e-6)


@pytest.mark.parametrize("alpha, eps", [(0.1, 259.673), (0.5, 481.240), (0.9, 709.917)])
def test_touch_points(alpha, eps):
    s = theory.touch_sigma2(alpha, K1)
    assert acfl_mi_dp_epsilon(s, s, 100, 10) == pytest.approx(eps, abs=1e-3)
    assert theory.alpha_star(s, s, K1) == pytest.approx(alpha, rel=1e-12)


constants = st.builds(theory.BoundConstants, N=st.integers(1, 200), d=st.integers(1, 200), o=st.integers(1, 200),
                      p=st.floats(0.01, 0.95), beta=st.floats(0.1, 100.0), C=st.floats(0.1, 10.0))


@settings(max_examples=50, deadline=None)
@given(constants, st.floats(1e-4, 1e4), st.floats(1e-4, 1e4))
def test_alpha_star_minimises_u_and_u_tilde_is_the_minimum(k, s1, s2):
    a = theory.alpha_star(s1, s2, k)
    assert 0 < a < 1
    assert theory.u_tilde(s1, s2, k) == pytest.approx(theory.bound_u(s1, s2, a, k), rel=1e-12)
    res = minimize_scalar(lambda x: theory.bound_u(s1, s2, x, k), bounds=(0, 1), method="bounded", options={"xatol": 1e-10})
    # where u is flat in alpha the numerical argmin is imprecise: compare the values attained instead
    assert theory.bound_u(s1, s2, a, k) <= res.fun * (1 + 1e-12)


def test_u_tilde_increasing_in_noise():  # Remark 4
    s = np.logspace(-4, 4, 100)
    assert np.all(np.diff(theory.u_tilde(s, s, K1)) > 0)


def test_straggler_factor():
    assert theory.straggler_factor(0.5, 0.2) - 1 == pytest.approx(0.0625)
    a = np.linspace(0, 1, 11)
    np.testing.assert_allclose(theory.straggler_factor(a, 0.3), 1 + 0.3 * (1 - a) ** 2 / 0.7, rtol=1e-13)


def test_lemma2_bound_dominates_exact_moment_with_max_norms():
    rng = np.random.default_rng(0)
    G = rng.normal(size=(7, 4, 3))
    W = rng.normal(size=(4, 3))
    exact = theory.exact_second_moment((G.sum(0) ** 2).sum(), (G**2).sum(), (W**2).sum(), 0.3, 0.2, 7, 4, 3, 0.5, 2.0)
    bound = theory.lemma2_second_moment_bound(0.3, 0.2, 7, (G**2).sum((1, 2)).max(), 4, 3, 0.5, 2.0, (W**2).sum())
    assert exact <= bound


def test_remark1_overhead():
    assert theory.stage1_upload_bits(32, 10, 10, 100) == 640_000
    assert theory.training_upload_bits(32, 10, 10, 100, 1000) == 320_000_000
    assert theory.training_upload_bits(32, 10, 10, 100, 1000) // theory.stage1_upload_bits(32, 10, 10, 100) == 500
    assert theory.expected_training_upload_bits(32, 10, 10, 100, 1000, 0.2) == pytest.approx(256e6)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"alpha must lie in \[0, 1\]"):
        theory.bound_u(1.0, 1.0, 1.5)
    with pytest.raises(ValueError, match="straggler probability"):
        theory.BoundConstants(p=1.0)


def test_theorem2_rows_cover_fresh_noise_and_algorithm1():
    from repro import experiment as ex
    from repro.papers.acfl import checks

    params = {**ex.load_params("acfl", "smoke"), "thm2_repetitions": 2}
    rows = {r["check"]: r["value"] for r in checks.theorem2_rows(params, seed=0)}
    for name in ("alpha_0.5", "acfl"):
        for mode in checks.THM2_NOISE_MODES:
            mean, bound = rows[f"thm2_mean_dist2_{name}_{mode}"], rows[f"thm2_bound_{name}_{mode}"]
            assert mean > 0 and bound > 0 and rows[f"thm2_margin_{name}_{mode}"] == pytest.approx(bound / mean)
    # with the noise drawn once, the fixed weight keeps a bias the redrawn noise averages out
    assert rows["thm2_mean_dist2_alpha_0.5_alg1"] > rows["thm2_mean_dist2_alpha_0.5_fresh"]
