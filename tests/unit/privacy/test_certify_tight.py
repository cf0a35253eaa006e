"""The exact epsilon of composed Gaussian releases (repro.privacy.certify.tight_gaussian_epsilon)."""

import math

import pytest

from repro.privacy.certify import certified_gaussian_epsilon, tight_gaussian_epsilon


@pytest.mark.parametrize("z,T,delta", [(0.96, 2, 0.01), (0.96, 20, 0.01), (4.0, 1, 0.01), (1.0, 10, 1e-5)])
def test_exact_value_matches_the_pld_accountant_and_lies_below_rdp(z, T, delta):
    exact = tight_gaussian_epsilon(z, T, delta)
    pld = certified_gaussian_epsilon(z, 1.0, T, delta, accountant="pld")
    assert exact == pytest.approx(pld, rel=2e-3)  # PLD: discretisation 1e-3, pessimistic
    assert exact <= pld + 1e-9
    assert exact < certified_gaussian_epsilon(z, 1.0, T, delta)  # RDP is an upper bound


def test_composition_is_one_gaussian_with_mu_sqrt_T_over_z():
    assert tight_gaussian_epsilon(0.5, 4, 1e-5) == pytest.approx(tight_gaussian_epsilon(0.25, 1, 1e-5), rel=1e-9)
    assert tight_gaussian_epsilon(0.0, 3, 1e-5) == math.inf
