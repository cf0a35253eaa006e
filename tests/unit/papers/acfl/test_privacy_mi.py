"""Theorem 1 (eq. 17) and its inverse against values computed from the formula; the Stage-1 sensitivity."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repro.papers.acfl.privacy_mi import acfl_mi_dp_epsilon, acfl_sigma2_for_epsilon
from repro.papers.acfl.scfl import scfl_epsilon_fallback, scfl_sigma2_for_epsilon_fallback


@pytest.mark.parametrize("sigma2, eps", [(0.01, 66.9192), (0.1, 34.7695), (1.0, 10.0506), (10.0, 1.3820)])
def test_epsilon_of_sigma2_d10_o10(sigma2, eps):
    assert acfl_mi_dp_epsilon(sigma2, sigma2, 10, 10) == pytest.approx(eps, abs=1e-4)


@pytest.mark.parametrize("eps, sigma2", [(1, 14.00575), (5, 2.428679), (10, 1.007021), (20, 0.3364555),
                                         (50, 0.03284490), (100, 1.012290e-3)])
def test_inverse_map_d10_o10(eps, sigma2):
    assert acfl_sigma2_for_epsilon(eps, 10, 10) == pytest.approx(sigma2, rel=1e-6)


def test_closed_forms_at_sigma2_one():
    assert acfl_mi_dp_epsilon(1.0, 1.0, 100, 10) == pytest.approx(104.5 * math.log(2), rel=1e-12)
    assert acfl_mi_dp_epsilon(1.0, 1.0, 100, 10) == pytest.approx(72.43388, abs=1e-5)
    assert acfl_mi_dp_epsilon(1.0, 1.0, 10, 10) == pytest.approx(14.5 * math.log(2), rel=1e-12)


def test_vanishes_for_huge_noise():  # Remark 2, eq. (23)
    assert acfl_mi_dp_epsilon(1e8, 1e8, 10, 10) == pytest.approx(1.45e-7, rel=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-6, 1e6), st.integers(1, 300), st.integers(1, 300))
def test_round_trip(sigma2, d, o):
    eps = acfl_mi_dp_epsilon(sigma2, sigma2, d, o)
    assert acfl_sigma2_for_epsilon(eps, d, o) == pytest.approx(sigma2, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.floats(1e-4, 1e4), st.floats(1.001, 10.0))
def test_strictly_decreasing_in_each_variance(s, factor):
    assert acfl_mi_dp_epsilon(s * factor, 1.0, 10, 10) < acfl_mi_dp_epsilon(s, 1.0, 10, 10)
    assert acfl_mi_dp_epsilon(1.0, s * factor, 10, 10) < acfl_mi_dp_epsilon(1.0, s, 10, 10)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="variances must be > 0"):
        acfl_mi_dp_epsilon(0.0, 1.0, 10, 10)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        acfl_sigma2_for_epsilon(-1.0, 10, 10)
    with pytest.raises(ValueError, match="dimension d"):
        acfl_mi_dp_epsilon(1.0, 1.0, 0, 10)


@pytest.mark.parametrize("eps, sigma2", [(1, 0.451666), (5, 0.0581977), (10, 0.0156518), (20, 1.86574e-3),
                                         (50, 4.54020e-6), (100, 2.06115e-10)])
def test_scfl_fallback_map(eps, sigma2):
    assert scfl_sigma2_for_epsilon_fallback(eps, 10) == pytest.approx(sigma2, rel=1e-5)
    assert scfl_epsilon_fallback(scfl_sigma2_for_epsilon_fallback(eps, 10), 10) == pytest.approx(eps, rel=1e-9)


def test_scfl_rank_one_variant_and_unknown_map():
    s = scfl_sigma2_for_epsilon_fallback(2.0, 10, "rank_one")
    assert s == pytest.approx(1 / np.expm1(4.0))
    assert scfl_epsilon_fallback(s, 10, "rank_one") == pytest.approx(2.0)
    with pytest.raises(ValueError, match="allowed: conservative, rank_one"):
        scfl_sigma2_for_epsilon_fallback(1.0, 10, "nope")


def test_stage1_entry_sensitivity_is_attained():
    """One entry X_{1,1} in [-1, 1] moves the upload (X^T X, X^T Y) by at most 2 sqrt(2(d-1) + o) in L2,
    attained with entries at +-1; no pair (a, b) in [-1, 1]^2 moves it further."""
    import math

    from repro.papers.acfl.runs import acfl_entry_sensitivity

    d, o = 4, 3
    X, Y = np.ones((5, d)), np.ones((5, o))
    Xp = X.copy()
    Xp[0, 0] = -1.0
    moved = np.sqrt(np.sum((X.T @ X - Xp.T @ Xp) ** 2) + np.sum((X.T @ Y - Xp.T @ Y) ** 2))
    assert moved == pytest.approx(acfl_entry_sensitivity(d, o)) and acfl_entry_sensitivity(10, 10) == pytest.approx(2 * math.sqrt(28))
    grid = np.linspace(-1, 1, 41)
    worst = 0.0
    for a in grid:
        for b in grid:
            Xa, Xb = X.copy(), X.copy()
            Xa[0, 0], Xb[0, 0] = a, b
            worst = max(worst, np.sum((Xa.T @ Xa - Xb.T @ Xb) ** 2) + np.sum((Xa.T @ Y - Xb.T @ Y) ** 2))
    assert math.sqrt(worst) <= acfl_entry_sensitivity(d, o) + 1e-12


def test_blahut_arimoto_information_known_values():
    from repro.papers.acfl.privacy_mi import amplitude_constrained_information

    # binary +-A is optimal for A <= 1.6: I(BPSK, SNR 0 dB) = 0.48592 bits
    assert amplitude_constrained_information(1.0) == pytest.approx(0.48592 * math.log(2), abs=2e-4)
    # low SNR: I <= A^2 / 2 (power bound), and the binary law gets close to it
    a = 0.2
    assert 0.9 * a**2 / 2 < amplitude_constrained_information(a) <= a**2 / 2


@pytest.mark.parametrize("sigma2", [0.01, 0.1, 1.0, 10.0, 14.0, 1e3])
def test_theorem1_information_bounds_sandwich_and_stay_below_eq17(sigma2):
    from repro.papers.acfl.privacy_mi import worst_case_entry_information

    lo, hi = worst_case_entry_information(sigma2, 10, 10)
    assert 0 < lo <= hi <= acfl_mi_dp_epsilon(sigma2, sigma2, 10, 10)
    # the upper bound: Gaussian bounds on the linear part (gain 2(d-1)+o) and the squared entry
    assert hi == pytest.approx(0.5 * math.log1p(28 / sigma2) + 0.5 * math.log1p(0.25 / sigma2), rel=1e-12)
