"""Cooperative jammer (CJ) for over-the-air FL privacy (ota_jammer paper, Thms 2/4, Appendix B).

When the receiver noise alone gives a weaker privacy level than the target, a jammer transmits
``x_CJ = alpha_CJ n_CJ`` with ``n_CJ ~ N(0, I_d)``. The target (eq. 21 <= epsilon with the same noise in
every transmission) needs a total model-domain noise variance per transmission of::

    a = -L + sqrt(L^2 + epsilon L)                      # eq. (23)/(27)
    sigma_req^2 = M L / (2 |D|^2 a^2)
    alpha_CJ >= (alpha_u / |h_CJ|) sqrt(sigma_req^2 - sigma_c^2/alpha_u^2)   # eq. (22)/(26)

At the bound the model-domain jammer std ``sqrt(sigma_req^2 - sigma_c^2/alpha_u^2)`` does not depend on
``h_CJ`` or ``alpha_u``; ``h_CJ`` only changes the jammer's transmit power ``alpha_CJ^2 d``.

Example
-------
>>> v = required_noise_variance(1.0, 1e-5, 80, 16421)
>>> round(math.sqrt(v), 7)                           # M = 80, |D| = 16,421
0.0026693
"""

from __future__ import annotations

import math

import numpy as np

from repro.privacy.ota_accounting import log_inv_delta

__all__ = ["eq23_a", "required_noise_variance", "jammer_needed", "jammer_model_std", "jammer_min_amplitude",
           "jammer_power"]


def eq23_a(epsilon: float, delta: float) -> float:
    """Eq. (23)/(27): ``a = -L + sqrt(L^2 + epsilon L)``; ``a^2/L`` equals ``S*(epsilon, delta)``."""
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    L = log_inv_delta(delta)
    return -L + math.sqrt(L * L + epsilon * L)


def required_noise_variance(epsilon: float, delta: float, num_transmissions: int, dataset_size: int) -> float:
    """Total model-domain noise variance per transmission for ``epsilon`` after M transmissions."""
    if num_transmissions <= 0 or dataset_size <= 0:
        raise ValueError(f"need M > 0 and |D| > 0, got {num_transmissions!r}, {dataset_size!r}")
    a = eq23_a(epsilon, delta)
    return num_transmissions * log_inv_delta(delta) / (2.0 * dataset_size ** 2 * a * a)


def jammer_needed(required_variance: float, channel_noise_var: float) -> bool:
    """True when the receiver noise alone (``sigma_c^2/alpha_u^2``) is below the required variance."""
    return required_variance > channel_noise_var


def jammer_model_std(required_variance: float, channel_noise_var: float, kappa: float = 1.0) -> float:
    """Model-domain jammer std ``kappa sqrt(max(sigma_req^2 - sigma_ch^2, 0))``.

    ``kappa`` multiplies the amplitude bound of eq. (22) (the paper's experiments: 7x the bound, D8).
    """
    if kappa < 0:
        raise ValueError(f"kappa must be >= 0, got {kappa!r}")
    return kappa * math.sqrt(max(required_variance - channel_noise_var, 0.0))


def jammer_min_amplitude(alpha_u: float, channel_abs, required_variance: float, noise_std: float = 1.0):
    """Eq. (22)/(26): ``alpha_CJ = (alpha_u/|h_CJ|) sqrt(sigma_req^2 - sigma_c^2/alpha_u^2)`` (0 if not needed)."""
    h = np.asarray(channel_abs, float)
    if np.any(h <= 0) or alpha_u <= 0:
        raise ValueError("need |h_CJ| > 0 and alpha_u > 0")
    extra = max(required_variance - (noise_std / alpha_u) ** 2, 0.0)
    return alpha_u / h * math.sqrt(extra)


def jammer_power(amplitude, num_params: int):
    """Jammer transmit energy per transmission ``E||alpha_CJ n_CJ||^2 = alpha_CJ^2 d``."""
    return np.asarray(amplitude, float) ** 2 * num_params
