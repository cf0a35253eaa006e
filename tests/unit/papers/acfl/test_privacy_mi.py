"""Theorem 1 (eq. 17) and its inverse against the guide's section 3.1 values (claims C1, C2)."""

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
