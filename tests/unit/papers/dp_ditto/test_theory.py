"""Theory of DP-Ditto against independently computed reference values (README D17, D18)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repro.papers.dp_ditto import theory as th

C2 = th.ConvergenceConstants()  # Fig. 2 constants


def test_building_blocks_match_reference():
    assert th.eps_g(C2) == pytest.approx(0.85, rel=1e-12)
    assert th.eps_l(C2) == pytest.approx(0.862, rel=1e-12)
    assert th.g_const(C2) == pytest.approx(1.1095111, rel=1e-7)
    assert th.beta_const(C2) == pytest.approx(3.366667e-6, rel=1e-6)
    assert th.sensitivity(20, 2625) == pytest.approx(0.01523810, rel=1e-6)
    assert th.phi_l(C2) == pytest.approx(4.197075e-4, rel=1e-6)
    assert th.check_assumptions(C2) == []


def test_h_coefficients_match_reference():
    H = th.h_coefficients(C2)
    for got, want in [(H.h1, 10.000442), (H.h2, -8.532700e-7), (H.h3, -6.452778e-4), (H.h4, 7.850084e-7),
                      (H.h5, 6.826160e-8), (H.h6, 2.030084e-4)]:
        assert got == pytest.approx(want, rel=1e-6)
    assert th.h_low_offset(C2) == pytest.approx(-4.443832e-4, rel=1e-6)
    assert th.t_prime(C2) == pytest.approx(1.4650e8, rel=1e-4)


def test_h_values_and_t_star():
    h = th.h_bound([0, 1, 10, 57, 342, 1000], C2)
    for got, want in zip(h, [10.0, 8.620036, 2.265200, 2.315137e-3, 2.263538e-4, 2.712700e-4]):
        assert got == pytest.approx(want, rel=1e-6)
    t_star, h_star = th.search_t_star(C2)
    assert t_star == 114 and h_star == pytest.approx(2.112347e-4, rel=1e-6)
    assert [th.search_t_star(C2.with_(epsilon=e))[0] for e in (1, 10, 20, 1000)] == [52, 83, 92, 145]


def test_16a_equals_14_and_lower_bound_holds():
    T = np.arange(0, 5001)
    np.testing.assert_allclose(th.h_bound_16(T, C2), th.h_bound(T, C2), rtol=1e-9)
    assert np.all(th.h_bound(T, C2) >= th.h_low(T, C2))


def test_degenerate_form_15_limit_by_eta():
    # a configuration with eps_L = eps_G: set eta_G so that eps_G equals eps_L (solve the quadratic)
    c = C2
    el = th.eps_l(c)
    # mu L eta^2 - 2 mu eta + (1 - el) = 0
    a, b, cc = c.mu * c.smooth, -2 * c.mu, 1 - el
    eta_g = (-b - math.sqrt(b * b - 4 * a * cc)) / (2 * a)
    ce = c.with_(eta_g=eta_g)
    assert abs(th.eps_g(ce) - el) < 1e-12
    T = np.array([1, 3, 10, 50, 114])
    exact = th.h_bound(T, ce)
    pert = th.h_bound(T, c.with_(eta_g=eta_g * (1 + 1e-7)))
    np.testing.assert_allclose(exact, pert, rtol=1e-4)
    assert np.all(th.h_low_degenerate(T, ce) <= exact + 1e-12)


def test_claim17_sign_of_eps_l_slope():
    for mu, sign in [(30, 1), (2, 0), (1.5, -1)]:
        c = C2.with_(mu=mu)
        slope = th.d_eps_l_d_lambda(c)
        assert np.sign(slope) == sign
        assert th.eps_l(c.with_(lam=0.6)) - th.eps_l(c.with_(lam=0.5)) == pytest.approx(0.1 * slope, abs=1e-15)


def test_claim18_lambda0_bound_independent_of_eps():
    c0 = C2.with_(lam=0.0)
    assert th.beta_const(c0) == 0.0
    T = np.arange(0, 200)
    np.testing.assert_array_equal(th.h_bound(T, c0.with_(epsilon=1.0)), th.h_bound(T, c0.with_(epsilon=math.inf)))


@pytest.mark.parametrize("mu", [2.0, 30.0])
def test_claim20_dp_part_increases_with_lambda(mu):
    lams = [0.05, 0.1, 0.2, 0.5, 1.0, 1.5, 1.9]
    for T in (10, 50, 114, 300):
        parts = [float(th.dp_part_of_h(T, C2.with_(mu=mu, lam=l))) for l in lams]
        assert all(b > a for a, b in zip(parts, parts[1:])), (mu, T, parts)


F = th.FairnessSetup()


def test_fairness_building_blocks():
    assert th.s1(F) == pytest.approx(1 / 220, rel=1e-12)
    assert th.sigma_w2(F) == pytest.approx(9.136364e-3, rel=1e-6)
    assert th.uniqueness_bound(F) == pytest.approx(17.3925, rel=1e-5)
    assert th.fairness_sigma_z2(F, 1.0) == pytest.approx(2.7631, rel=1e-4)


@pytest.mark.parametrize("eps,a0,lam_p,lam_c", [
    (0.1, 2.66289e-4, 5.33e-4, 0.023312),
    (1.0, 2.002512e-2, 0.040050, 0.170071),
    (10.0, 8.759824e-2, 0.175196, 0.181693),
    (100.0, 9.087474e-2, 0.181749, 0.181817),
    (math.inf, 1 / 11, 0.181818, 0.181818),
])
def test_optimal_lambda_table(eps, a0, lam_p, lam_c):
    a, lam = th.optimal_lambda(F, eps)
    assert a == pytest.approx(a0, rel=1e-4)
    assert lam == pytest.approx(lam_p, rel=2e-3)  # the table prints 3-6 significant digits
    assert th.optimal_lambda(F, eps, corrected=True)[1] == pytest.approx(lam_c, rel=1e-4)
    for corrected in (False, True):
        assert len(th.alpha0_roots(F, th.fairness_sigma_z2(F, eps), corrected)) == 1
        grid = np.linspace(0, 2, 400001)
        r = th.fairness_r(grid, F, th.fairness_sigma_z2(F, eps), corrected)
        assert abs(grid[np.argmin(r)] - th.optimal_lambda(F, eps, corrected)[1]) < 1e-5


def test_alpha0_at_infinity_exact():
    a, _ = th.optimal_lambda(F, math.inf)
    assert a == pytest.approx(F.noise_var / (F.noise_var + F.rho * F.zeta2), rel=1e-12)


def test_corollary1_lambda_star_non_decreasing_in_eps():
    for corrected in (False, True):
        lams = [th.optimal_lambda(F, e, corrected)[1] for e in (0.1, 1, 10, 100, math.inf)]
        assert all(b >= a - 1e-15 for a, b in zip(lams, lams[1:]))


@given(st.floats(0.0, 2.0))
@settings(max_examples=50, deadline=None)
def test_claim21_r_increasing_in_sigma_z2(lam):
    assert th.d_fairness_d_sigma_z2(lam, F) >= 0
    r1, r2 = th.fairness_r(lam, F, 1.0), th.fairness_r(lam, F, 2.0)
    assert r2 >= r1
    assert r2 - r1 == pytest.approx(float(th.d_fairness_d_sigma_z2(lam, F)), rel=1e-9, abs=1e-15)


@given(st.floats(0.0, 1.0))
@settings(max_examples=50, deadline=None)
def test_alpha_lambda_maps_are_inverse(a):
    assert float(th.alpha0_of_lambda(th.lambda_of_alpha0(a, F), F)) == pytest.approx(a, abs=1e-12)


def test_claim24_lemma3_closed_form_equals_general_form():
    rng = np.random.default_rng(0)
    N, d, b, rho = 5, 4, 12, 3.0
    X = []
    for _ in range(N):
        q, _ = np.linalg.qr(rng.normal(size=(b, d)))
        X.append(math.sqrt(rho) * q)
    Y = [x @ rng.normal(size=d) + 0.1 * rng.normal(size=b) for x in X]
    z = rng.normal(size=(N, d))
    u_hat = np.stack([np.linalg.solve(x.T @ x, x.T @ y) for x, y in zip(X, Y)])
    for lam in (0.0, 0.3, 1.0, 1.9):
        np.testing.assert_allclose(th.personalised_closed_form(u_hat, z, lam, rho, b),
                                   th.personalised_general_form(X, Y, z, lam), atol=1e-10)


@pytest.mark.parametrize("eps,su,sz", [(1, 5.663881e-2, 2.532965e-1), (10, 5.663881e-3, 2.532965e-2),
                                       (20, 2.831941e-3, 1.266482e-2), (100, 5.663881e-4, 2.532965e-3)])
def test_claim25_noise_anchors(eps, su, sz):
    u = th.sigma_u(eps, 0.01, 30, 20, 20, 2625)
    z = th.sigma_z(eps, 0.01, 30, 20, 20, 2625)
    assert u == pytest.approx(su, rel=1e-6) and z == pytest.approx(sz, rel=1e-6)
    assert z**2 == pytest.approx(20 * u**2, rel=1e-12)


def test_quick_profile_noise_and_infinity():
    assert th.sigma_u(10, 0.01, 20, 20, 20, 100) == pytest.approx(0.121394, rel=1e-5)
    assert th.sigma_u(math.inf, 0.01, 20, 20, 20, 100) == 0.0


def test_bad_inputs_name_the_value():
    with pytest.raises(ValueError, match="delta"):
        th.sigma_u(1.0, 1.5, 10, 20, 20, 100)
    with pytest.raises(ValueError, match="epsilon"):
        th.sigma_u(-1.0, 0.01, 10, 20, 20, 100)


@pytest.mark.parametrize("eps,want", [(1, 4.58), (10, 150.6), (20, 520.4)])
def test_rdp_diagnostic(eps, want):
    z = th.sigma_u(eps, 0.01, 30, 20, 20, 2625) / th.sensitivity(20, 2625)
    assert th.rdp_epsilon(z, 30, 0.01) == pytest.approx(want, rel=0.02)
