"""Eqs. (42)-(43): the practical adaptive weight (claim C9)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repro.papers.acfl import policy, theory


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 200), st.integers(1, 50), st.integers(1, 50), st.floats(0.01, 0.95), st.floats(0.1, 100),
       st.floats(0.1, 10), st.floats(1e-4, 1e4), st.floats(1e-4, 1e4))
def test_eq43_equals_eq36_with_true_constants(N, d, o, p, beta, C, s1, s2):
    k = theory.BoundConstants(N=N, d=d, o=o, p=p, beta=beta, C=C)
    a43 = policy.adaptive_weight(beta**2, C**2, p, d, o, s1, s2)
    assert a43 == pytest.approx(theory.alpha_star(s1, s2, k), rel=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.floats(0, 1e12), st.floats(0, 1e12), st.floats(0, 0.99), st.floats(0, 1e6))
def test_weight_in_unit_interval(b2, c2, p, s):
    a = policy.adaptive_weight(b2, c2, p, 10, 10, s, s)
    assert 0.0 <= a <= 1.0


def test_guards():
    assert policy.adaptive_weight(np.nan, 1.0, 0.2, 10, 10, 1.0, 1.0) == 1.0  # nothing received (D15)
    assert policy.adaptive_weight(0.0, 0.0, 0.2, 10, 10, 0.0, 0.0) == 1.0  # zero denominator
    assert policy.adaptive_weight(0.0, 1.0, 0.2, 10, 10, 1.0, 1.0) == 0.0  # converged: gradients vanish
    np.testing.assert_allclose(policy.estimate_beta2([6.0, 3.0], [3, 0]), [2.0, np.nan])
