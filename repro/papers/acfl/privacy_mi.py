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


def amplitude_constrained_information(snr_amplitude: float, iterations: int = 300) -> float:
    """Mutual information (nats) achieved on ``Y = A X + Z``, ``|X| <= 1``, ``Z ~ N(0, 1)``, ``A = snr_amplitude``,
    by the input law that Blahut-Arimoto finds on a grid of [-1, 1] (a lower bound on the channel's capacity:
    it is the information of one admissible input law, computed by quadrature on a fine output grid)."""
    A = float(snr_amplitude)
    if not A > 0 or not np.isfinite(A):
        raise ValueError(f"the amplitude must be finite and > 0, got {snr_amplitude!r}")
    x = np.linspace(-1.0, 1.0, int(min(801, max(41, np.ceil(4 * A) + 1))))
    dy = 0.05
    y = np.arange(-A - 8.0, A + 8.0 + dy, dy)
    W = np.exp(-0.5 * (y[None, :] - A * x[:, None]) ** 2)
    W /= W.sum(axis=1, keepdims=True)                               # channel rows on the output grid
    logW = np.log(np.maximum(W, 1e-300))
    r = np.full(len(x), 0.5 / len(x))
    r[[0, -1]] += 0.25                                              # start near the low-SNR optimum (mass at +-1)
    for _ in range(iterations):
        q = r @ W
        D = (W * (logW - np.log(np.maximum(q, 1e-300))[None, :])).sum(axis=1)
        r = r * np.exp(D - D.max())
        r /= r.sum()
    q = r @ W
    D = (W * (logW - np.log(np.maximum(q, 1e-300))[None, :])).sum(axis=1)
    return float(r @ D)


def worst_case_entry_information(sigma2: float, d: int, o: int) -> tuple[float, float]:
    """Bounds (nats) on the quantity Theorem 1 bounds by eq. (17): the largest I(X_jk; upload | other entries)
    (Definition 1) for sigma1^2 = sigma2^2 = ``sigma2`` and entries in [-1, 1] (A1).

    Given the other entries, X_jk enters the upload (eqs. 2-3) as ``X_jk u + noise`` in the 2(d-1) + o entries
    of row/column k of X^T X and row k of X^T Y (gain ||u||^2 <= 2(d-1) + o, largest with the other entries at
    +-1) and as ``X_jk^2 + noise`` in the diagonal entry; the noise is independent across entries. So
    I <= I(X; ||u|| X + Z) + I(X; X^2 + Z') <= ln(1 + (2(d-1) + o)/sigma^2)/2 + ln(1 + 1/(4 sigma^2))/2
    (Gaussian bounds under E X^2 <= 1 and Var X^2 <= 1/4), and I >= the information of the Blahut-Arimoto
    input law on the linear part alone, with the other entries at +-1. Returns (lower, upper)."""
    _check_dims(d, o)
    s2 = float(sigma2)
    if not s2 > 0:
        raise ValueError(f"sigma^2 must be > 0, got {sigma2!r}")
    gain2 = 2.0 * (d - 1) + o
    upper = 0.5 * np.log1p(gain2 / s2) + 0.5 * np.log1p(0.25 / s2)
    lower = amplitude_constrained_information(np.sqrt(gain2 / s2))
    return lower, float(upper)
