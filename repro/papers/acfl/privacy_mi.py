"""Mutual-information DP of ACFL's Stage-1 upload (Definition 1, Theorem 1, Remark 2).

No DP library implements eps-MI-DP, so the paper's closed form (eq. 17) and its inverse live here,
named after the paper. Logarithms are natural, so eps is in nats (README: decisions).

Guarantee (Theorem 1): if every data entry has absolute value <= 1 (assumption A1) and device i
uploads ``X^T X + N1`` and ``X^T Y + N2`` with all entries of N1 i.i.d. N(0, sigma1^2) and of N2
i.i.d. N(0, sigma2^2), the upload is eps-MI-DP with

    eps = (d - 1/2) * log(1 + 1/sigma1^2) + (o/2) * log(1 + 1/sigma2^2).        (17)

It covers the one-shot Stage-1 upload only; the per-iteration gradients are not protected.
"""

from __future__ import annotations

import numpy as np


def _check_dims(d, o) -> None:
    if not (np.ndim(d) == 0 and d >= 1):
        raise ValueError(f"feature dimension d must be >= 1, got {d!r}")
    if not (np.ndim(o) == 0 and o >= 1):
        raise ValueError(f"output dimension o must be >= 1, got {o!r}")


def acfl_mi_dp_epsilon(sigma1_sq, sigma2_sq, d: int, o: int):
    """eps of Theorem 1 (eq. 17), in nats, for noise variances ``sigma1_sq`` (on X^T X) and
    ``sigma2_sq`` (on X^T Y); arrays broadcast. Strictly decreasing in both variances, -> 0 as
    both -> infinity (Remark 2, eq. 23)."""
    _check_dims(d, o)
    s1 = np.asarray(sigma1_sq, dtype=float)
    s2 = np.asarray(sigma2_sq, dtype=float)
    if np.any(s1 <= 0) or np.any(s2 <= 0):
        raise ValueError(f"noise variances must be > 0 (eps is infinite at 0), got {sigma1_sq!r}, {sigma2_sq!r}")
    eps = (d - 0.5) * np.log1p(1.0 / s1) + 0.5 * o * np.log1p(1.0 / s2)
    return eps if eps.ndim else float(eps)


def acfl_sigma2_for_epsilon(epsilon, d: int, o: int):
    """Inverse of eq. (17) for sigma1^2 = sigma2^2 = sigma^2: the noise variance giving exactly
    ``epsilon`` nats of MI-DP, ``sigma^2 = 1 / (exp(eps / (d - 1/2 + o/2)) - 1)``."""
    _check_dims(d, o)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(eps <= 0):
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
    sigma2 = 1.0 / np.expm1(eps / (d - 0.5 + 0.5 * o))
    return sigma2 if sigma2.ndim else float(sigma2)
