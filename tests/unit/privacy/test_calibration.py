"""Calibration against published values and an independent implementation of Balle & Wang's formula."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from repro.privacy import calibration as cal


def test_classic_gaussian_sigma_formula():
    # sqrt(2 ln(1.25e5)) = 4.8448 for delta = 1e-5, sensitivity 1
    assert cal.gaussian_sigma_classic(0.5, 1e-5) == pytest.approx(2 * 4.844805262605389, rel=1e-12)
    assert cal.gaussian_sigma_classic(0.5, 1e-5, sensitivity=2.0) == pytest.approx(4 * 4.844805262605389, rel=1e-12)


@pytest.mark.parametrize("eps", [1.0, 8.0, 16.0, 1e6])
def test_classic_gaussian_refuses_epsilon_outside_its_theorem(eps):
    """Dwork & Roth Thm A.1 holds for eps < 1; at eps = 16, delta = 1e-5 the formula gives 0.3028 where the
    exact calibration needs 0.3442 (not private), so every eps >= 1 is refused, naming the exact sigma."""
    with pytest.raises(ValueError, match=r"outside the classic formula's validity 0 < epsilon < 1 .*gaussian_sigma_analytic"):
        cal.gaussian_sigma_classic(eps, 1e-5)
    with pytest.raises(ValueError, match="outside the classic formula's validity"):
        cal.sigma_for_epsilon(eps, 1e-5, method="classic")


def test_classic_failure_at_large_epsilon_is_real():
    """The refused case is a real violation: the classic sigma at eps = 16 is below the exact one."""
    classic_formula = math.sqrt(2 * math.log(1.25e5)) / 16
    assert classic_formula == pytest.approx(0.3028, abs=1e-4)
    assert cal.gaussian_sigma_analytic(16.0, 1e-5) == pytest.approx(0.3442, abs=1e-4)
    assert cal.gaussian_epsilon_analytic(classic_formula, 1e-5) > 16.0


@settings(max_examples=30, deadline=None)
@given(eps=st.floats(1e-3, 0.999), log_delta=st.floats(-12, -1.5), sens=st.floats(0.01, 100.0))
def test_classic_never_below_the_exact_accountant(eps, log_delta, sens):
    """Where the classic formula is allowed, it is never less noise than Balle & Wang's exact calibration
    (an independent accountant: dp-accounting), so the release it calibrates is (eps, delta)-DP."""
    delta = 10.0**log_delta
    classic = cal.gaussian_sigma_classic(eps, delta, sens)
    assert classic >= cal.gaussian_sigma_analytic(eps, delta, sens) * (1 - 1e-9)
    assert cal.gaussian_delta_analytic(classic, eps, sens) <= delta * (1 + 1e-6)


def test_analytic_gaussian_is_tighter_and_matches_balle_wang_formula():
    sigma = cal.gaussian_sigma_analytic(1.0, 1e-5)
    assert sigma == pytest.approx(3.7306, abs=1e-4)  # Balle & Wang 2018: analytic calibration at eps=1, delta=1e-5
    assert sigma < math.sqrt(2 * math.log(1.25e5))   # the classic formula's value at eps = 1 (4.8448)
    assert cal.gaussian_sigma_analytic(0.5, 1e-5) < cal.gaussian_sigma_classic(0.5, 1e-5)
    # the library's sigma satisfies the paper's Thm 8 with equality (independent scipy implementation)
    assert cal.gaussian_delta_analytic(sigma, 1.0) == pytest.approx(1e-5, rel=1e-6)
    assert cal.gaussian_epsilon_analytic(sigma, 1e-5) == pytest.approx(1.0, rel=1e-8)


@settings(max_examples=20, deadline=None)
@given(eps=st.floats(0.05, 8.0), log_delta=st.floats(-10, -2), sens=st.floats(0.1, 10.0))
def test_analytic_roundtrip_and_sensitivity_scaling(eps, log_delta, sens):
    delta = 10.0**log_delta
    sigma = cal.gaussian_sigma_analytic(eps, delta, sens)
    assert sigma == pytest.approx(sens * cal.gaussian_sigma_analytic(eps, delta), rel=1e-9)
    assert cal.gaussian_delta_analytic(sigma, eps, sens) == pytest.approx(delta, rel=1e-5)


def test_moments_accountant_reproduces_abadi_et_al_2016():
    # Abadi et al. 2016, Sec. 3.1: q = 0.01, sigma = 4, T = 10,000, delta = 1e-5 -> eps ~ 1.26
    eps = cal.rdp_epsilon(4.0, 1e-5, 10_000, sampling_rate=0.01, conversion="classic")
    assert eps == pytest.approx(1.26, abs=0.005)
    assert cal.rdp_epsilon(4.0, 1e-5, 10_000, sampling_rate=0.01) < eps  # improved conversion is tighter


def test_rdp_curve_matches_dp_accounting_published_test_values():
    # dp-accounting's rdp_privacy_accountant_test: q = 0.01, z = 2.5, 50 compositions
    orders, rdp = cal.rdp_curve(2.5, 50, sampling_rate=0.01, orders=[1.5, 2.5, 5, 50, 100])
    expected = [6.70579741e-04, 1.08548710e-03, 2.18075656e-03, 2.38460375e-02, 1.67416308e02]
    assert rdp == pytest.approx(expected, rel=1e-6)
    # plain Gaussian: RDP(alpha) = T alpha / (2 z^2)
    _, rdp = cal.rdp_curve(3.0, 7, orders=[2.0, 10.0])
    assert rdp == pytest.approx([7 * 2 / 18, 7 * 10 / 18], rel=1e-9)


@pytest.mark.parametrize("steps,q", [(100, 1.0), (1000, 0.05)])
def test_rdp_inverse_is_the_smallest_private_noise(steps, q):
    z = cal.rdp_noise_multiplier(2.0, 1e-5, steps, q)
    assert cal.rdp_epsilon(z, 1e-5, steps, q) <= 2.0
    assert cal.rdp_epsilon(z * 0.999, 1e-5, steps, q) > 2.0


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: cal.gaussian_sigma_classic(0.0, 1e-5), "epsilon must be a finite number > 0, got 0.0"),
        (lambda: cal.gaussian_sigma_analytic(-1.0, 1e-5), "epsilon .* got -1.0"),
        (lambda: cal.gaussian_sigma_analytic(1.0, 1.0), r"delta must lie in the open interval \(0, 1\), got 1.0"),
        (lambda: cal.gaussian_sigma_classic(0.5, 0.0), "delta .* got 0.0"),
        (lambda: cal.rdp_epsilon(1.0, 1e-5, 0), "steps .* integer >= 1, got 0"),
        (lambda: cal.rdp_epsilon(1.0, 1e-5, 10, sampling_rate=0.0), r"q must lie in \(0, 1\], got 0.0"),
        (lambda: cal.rdp_epsilon(1.0, 1e-5, 10, sampling_rate=1.5), r"got 1.5"),
        (lambda: cal.rdp_noise_multiplier(math.inf, 1e-5, 10), "epsilon .* got inf"),
        (lambda: cal.sigma_for_epsilon(1.0, 1e-5, method="magic"), "allowed: classic, analytic, rdp"),
    ],
)
def test_invalid_inputs_raise_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
