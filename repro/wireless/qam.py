"""M-QAM bit errors and their application to quantized uploads as independent bit flips.

The bit error rate is the textbook square-M-QAM approximation (as printed in the wpfl_minmax paper,
eq. (13)):

    e(gamma) = (2 sqrt(M) - 2) / (sqrt(M) log2 sqrt(M)) * Q( sqrt(3 gamma log2 M / (M - 1)) ),

with ``Q`` the standard normal tail. An R-bit word is received wrong with probability
``rho = 1 - (1 - e)^R`` (eq. (14)). :func:`flip_bits` draws exactly that error model on stacked
``[rows, D]`` integer code words: every bit flips independently with its row's probability ``e``.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.stats import norm


def qam_ber(snr_linear, order: int = 256) -> np.ndarray:
    """Bit error rate of square ``order``-QAM at linear SNR ``snr_linear`` (eq. (13)), elementwise."""
    m = int(order)
    root = math.isqrt(m)
    if root * root != m or m < 4:
        raise ValueError(f"QAM order must be a square >= 4 (e.g. 16, 64, 256), got {order}")
    snr = np.asarray(snr_linear, dtype=np.float64)
    if np.any(snr < 0):
        raise ValueError("SNR must be non-negative (linear scale)")
    factor = (2.0 * root - 2.0) / (root * math.log2(root))
    return factor * norm.sf(np.sqrt(3.0 * snr * math.log2(m) / (m - 1.0)))


def word_error_probability(ber, bits: int) -> np.ndarray:
    """``1 - (1 - e)^bits`` computed stably (eq. (14)): probability that an R-bit word is wrong."""
    if bits < 1:
        raise ValueError(f"bits must be >= 1, got {bits}")
    e = np.asarray(ber, dtype=np.float64)
    if np.any((e < 0) | (e > 1)):
        raise ValueError("bit error rate must lie in [0, 1]")
    with np.errstate(divide="ignore"):
        return -np.expm1(bits * np.log1p(-np.minimum(e, 1.0 - 1e-300)))


def flip_bits(codes: torch.Tensor, ber, bits: int, rng: np.random.Generator) -> tuple[torch.Tensor, np.ndarray]:
    """Flip every one of the ``bits`` low bits of each code independently with probability ``ber[row]``.

    ``codes``: integer tensor ``[rows, D]`` with values in ``[0, 2^bits)``; ``ber``: scalar or ``[rows]``.
    Returns ``(received_codes, n_erroneous_per_row)``. Exact sampling, cost O(rows + #errors):
    the number of wrong words per row is Binomial(D, rho); their positions are uniform without
    replacement; each wrong word's error pattern is drawn conditioned on at least one flip (lowest
    flipped bit from a truncated geometric law, the bits above it i.i.d. Bernoulli(e)).
    """
    if codes.dim() != 2:
        raise ValueError(f"codes must be [rows, D], got shape {tuple(codes.shape)}")
    rows, dim = codes.shape
    e = np.broadcast_to(np.asarray(ber, dtype=np.float64), (rows,)).copy()
    rho = word_error_probability(e, bits)
    out = codes.clone()
    flat = out.view(-1)
    n_err = rng.binomial(dim, rho)
    for r in range(rows):  # rows = scheduled clients (<= K); the per-element work is vectorised
        k = int(n_err[r])
        if k == 0:
            continue
        pos = rng.choice(dim, size=k, replace=False)
        u = rng.random(k)
        # lowest flipped bit j: P(J = j | J < R) = (1-e)^j e / rho
        if e[r] >= 1.0:
            j = np.zeros(k, dtype=np.int64)
        else:
            j = np.floor(np.log1p(-u * rho[r]) / np.log1p(-e[r])).astype(np.int64)
        j = np.clip(j, 0, bits - 1)
        upper = rng.random((k, bits)) < e[r]
        weights = (1 << np.arange(bits, dtype=np.int64))
        above = np.arange(bits)[None, :] > j[:, None]
        mask = (1 << j) | ((upper & above).astype(np.int64) @ weights)
        idx = torch.from_numpy(pos.astype(np.int64) + r * dim)
        flat[idx] = flat[idx] ^ torch.from_numpy(mask).to(out.dtype)
    return out, n_err
