"""Quantization-assisted Gaussian mechanism (wpfl_minmax, Theorem 1, eqs. (22)-(25)).

Mechanism (22): ``M_Q(u) = Q(u + z)`` with ``u`` clipped to L2 norm ``C`` (so ``|u_i| <= C``),
``z ~ N(0, sigma^2 I)`` and a deterministic R-bit quantizer over ``[-(C + 3 sigma), C + 3 sigma]``
whose maximum rounding error is ``E = (C + 3 sigma) / (2^R - 1)`` (eq. (7)). Theorem 1 counts the
rounding error as privacy noise and states, for ``T0`` uploads per client (basic composition)
and mini-batch sampling rate ``q``:

    psi1  = Q((2C + 3s - E)/s) - Q((2C + 3s + E)/s)                  (24b)
    psi   = (1 - q) psi1 + q (1 - 2 Q(E/s))                           (24a)
    psi1' = Q((2C + 3s - E)/s)                                        (24d)
    psi'  = (1 - q) psi1' + q Q((3s - E)/s)                           (24c)
    delta_Q = T0 max{psi - psi1 e^(eps/T0), psi' - psi1' e^(eps/T0)}  (23)

Guarantee as stated by the paper: ``M_Q`` composed over ``T0`` uploads is ``(eps_Q, delta_Q)``-DP.
``delta_Q`` decreases in ``sigma``; :func:`wpfl_sigma_dp` inverts it by Brent's method.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr  # standard normal CDF; Q(x) = ndtr(-x) (scipy.stats is slow to import)


def quantizer_max_error(clip: float, sigma: float, bits: int = 16) -> float:
    """Eq. (7): ``E_L^max = (C + 3 sigma) / (2^R - 1)`` (half a quantization step)."""
    return (clip + 3.0 * sigma) / (2.0**bits - 1.0)


def _psi_terms(sigma: float, clip: float, bits: int, q: float):
    s = float(sigma)
    e = quantizer_max_error(clip, s, bits)
    def qf(x):
        return ndtr(-x)

    psi1 = qf((2 * clip + 3 * s - e) / s) - qf((2 * clip + 3 * s + e) / s)  # (24b)
    psi = (1 - q) * psi1 + q * (1 - 2 * qf(e / s))  # (24a)
    psi1p = qf((2 * clip + 3 * s - e) / s)  # (24d)
    psip = (1 - q) * psi1p + q * qf((3 * s - e) / s)  # (24c)
    return psi, psi1, psip, psi1p


def wpfl_delta(sigma: float, clip: float, uploads: int, epsilon: float = 1.0, bits: int = 16, q: float = 0.01) -> float:
    """Eq. (23)/(25): ``delta_Q`` of the quantization-assisted Gaussian mechanism over ``uploads`` = T0."""
    if sigma <= 0:
        raise ValueError(f"sigma must be > 0, got {sigma}")
    if clip <= 0 or uploads < 1 or not 0 < q <= 1 or bits < 1:
        raise ValueError(f"need clip > 0, uploads >= 1, 0 < q <= 1, bits >= 1; got {clip}, {uploads}, {q}, {bits}")
    psi, psi1, psip, psi1p = _psi_terms(sigma, clip, bits, q)
    growth = math.exp(epsilon / uploads)
    return uploads * max(psi - psi1 * growth, psip - psi1p * growth)


def wpfl_epsilon_at_zero_delta(sigma: float, clip: float, uploads: int, bits: int = 16, q: float = 0.01) -> float:
    """``eps_Q`` with ``delta_Q = 0``: ``T0 max{ln(psi/psi1), ln(psi'/psi1')}`` (inf if psi1 underflows)."""
    psi, psi1, psip, psi1p = _psi_terms(sigma, clip, bits, q)
    with np.errstate(divide="ignore"):
        return uploads * max(np.log(psi) - np.log(psi1) if psi1 > 0 else math.inf,
                             np.log(psip) - np.log(psi1p) if psi1p > 0 else math.inf)


def wpfl_delta_floor(clip: float, uploads: int, bits: int = 16, q: float = 0.01) -> float:
    """``lim_{sigma -> inf} delta_Q = T0 q Q(3)``: targets at or below it have no solution."""
    return uploads * q * ndtr(-3.0)


def wpfl_sigma_dp(delta: float, clip: float, uploads: int, epsilon: float = 1.0, bits: int = 16, q: float = 0.01,
                  lo: float = 1e-7, hi: float = 100.0, xtol: float = 1e-14, rtol: float = 1e-12) -> float:
    """The ``sigma_DP`` with ``delta_Q(sigma) = delta`` (Theorem 1 by a 1-D search, Table II).

    Raises ``ValueError`` when ``delta`` is not attained on ``[lo, hi]`` (e.g. at or below the floor
    :func:`wpfl_delta_floor`, or R too small).
    """
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    f = lambda s: wpfl_delta(s, clip, uploads, epsilon, bits, q) - delta  # noqa: E731
    f_lo, f_hi = f(lo), f(hi)
    if f_lo < 0 or f_hi > 0:
        raise ValueError(
            f"delta_Q = {delta} not attained for sigma in [{lo}, {hi}] (delta_Q ranges {f_hi + delta:.3g}..{f_lo + delta:.3g};"
            f" floor T0 q Q(3) = {wpfl_delta_floor(clip, uploads, bits, q):.3g}); lower T0 or raise delta or R")
    return float(brentq(f, lo, hi, xtol=xtol, rtol=rtol, maxiter=500))


def wpfl_sigma_small_sigma_approx(delta: float, clip: float, uploads: int, bits: int = 16, q: float = 0.01) -> float:
    """Closed form for ``sigma << C``: ``T0 q sqrt(2/pi) C / ((2^R - 1) delta)`` (within ~1 % of the search)."""
    return uploads * q * math.sqrt(2 / math.pi) * clip / ((2.0**bits - 1.0) * delta)
