"""M-QAM bit errors and their application to quantized uploads as independent bit flips.

The bit error rate is the textbook approximation for Gray-coded square M-QAM (Cho & Yoon 2002, the
wpfl_minmax paper's [38] and its eq. (13)) in terms of the SNR per *bit* ``Eb/N0``:

    e = (2 sqrt(M) - 2) / (sqrt(M) log2 sqrt(M)) * Q( sqrt(3 log2 M / (M - 1) * Eb/N0) ),

with ``Q`` the standard normal tail. The wpfl_minmax paper prints it with the receive SNR ``gamma`` of
its eq. (12), ``P |h|^2 / sigma0^2``, in place of ``Eb/N0``. That ``gamma`` is the SNR per *symbol*
(``Es/N0`` at one symbol per second per hertz), and ``Eb/N0 = gamma / log2 M``: read as printed, (13) is
``log2 M`` (9.03 dB for 256-QAM) optimistic. :func:`qam_ber` takes the SNR per symbol by default
(``snr_per="symbol"``: ``Q(sqrt(3 gamma / (M - 1)))``); ``snr_per="bit"`` is the formula as printed
with ``gamma`` read as ``Eb/N0``. An R-bit word is received wrong with probability
``rho = 1 - (1 - e)^R`` (eq. (14)). :func:`flip_bits` draws exactly that error model on stacked
``[rows, D]`` integer code words: every bit flips independently with its row's probability ``e``.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.special import ndtr  # standard normal CDF; Q(x) = ndtr(-x) (scipy.stats is slow to import)


SNR_PER = ("symbol", "bit")


def qam_ber(snr_linear, order: int = 256, snr_per: str = "symbol") -> np.ndarray:
    """Bit error rate of Gray-coded square ``order``-QAM, elementwise (eq. (13)).

    ``snr_linear`` is the SNR per symbol ``Es/N0`` (``snr_per="symbol"``, the receive SNR of eq. (12)) or
    per bit ``Eb/N0`` (``snr_per="bit"``: eq. (13) as printed, which takes eq. (12)'s SNR as ``Eb/N0``).

    >>> round(float(qam_ber(10 ** 2.84)), 4), round(float(qam_ber(10 ** 2.84 / 8, snr_per="bit")), 4)
    (0.001, 0.001)
    """
    if snr_per not in SNR_PER:
        raise ValueError(f"snr_per must be one of {SNR_PER}, got {snr_per!r}")
    m = int(order)
    root = math.isqrt(m)
    if root * root != m or m < 4:
        raise ValueError(f"QAM order must be a square >= 4 (e.g. 16, 64, 256), got {order}")
    snr = np.asarray(snr_linear, dtype=np.float64)
    if np.any(snr < 0):
        raise ValueError("SNR must be non-negative (linear scale)")
    factor = (2.0 * root - 2.0) / (root * math.log2(root))
    ebn0 = snr / math.log2(m) if snr_per == "symbol" else snr
    return factor * ndtr(-np.sqrt(3.0 * ebn0 * math.log2(m) / (m - 1.0)))


def word_error_probability(ber, bits: int) -> np.ndarray:
    """``1 - (1 - e)^bits`` computed stably (eq. (14)): probability that an R-bit word is wrong."""
    if bits < 1:
        raise ValueError(f"bits must be >= 1, got {bits}")
    e = np.asarray(ber, dtype=np.float64)
    if np.any((e < 0) | (e > 1)):
        raise ValueError("bit error rate must lie in [0, 1]")
    with np.errstate(divide="ignore"):
        return -np.expm1(bits * np.log1p(-np.minimum(e, 1.0 - 1e-300)))


def bit_error_pattern(rows: int, dim: int, ber, bits: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sparse draw of independent bit flips on ``rows`` words-vectors of ``dim`` R-bit words.

    Every bit flips with its row's probability ``ber[row]``. Returns ``(row, position, xor_mask,
    n_erroneous_per_row)`` of the erroneous words only. Exact sampling, cost O(rows + #errors): the
    number of wrong words per row is Binomial(dim, rho), their positions uniform without replacement,
    each wrong word's pattern conditioned on at least one flip (lowest flipped bit from a truncated
    geometric law, the bits above it i.i.d. Bernoulli(e)).
    """
    e = np.broadcast_to(np.asarray(ber, dtype=np.float64), (rows,)).copy()
    rho = word_error_probability(e, bits)
    n_err = rng.binomial(dim, rho)
    out_r, out_p, out_m = [], [], []
    weights = (1 << np.arange(bits, dtype=np.int64))
    for r in range(rows):  # the per-element work is vectorised
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
        above = np.arange(bits)[None, :] > j[:, None]
        out_r.append(np.full(k, r, dtype=np.int64))
        out_p.append(pos.astype(np.int64))
        out_m.append((1 << j) | ((upper & above).astype(np.int64) @ weights))
    cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0, np.int64)  # noqa: E731
    return cat(out_r), cat(out_p), cat(out_m), n_err


def flip_bits(codes: torch.Tensor, ber, bits: int, rng: np.random.Generator) -> tuple[torch.Tensor, np.ndarray]:
    """Flip every one of the ``bits`` low bits of each code independently with probability ``ber[row]``.

    ``codes``: integer tensor ``[rows, D]`` with values in ``[0, 2^bits)``; ``ber``: scalar or ``[rows]``.
    Returns ``(received_codes, n_erroneous_per_row)`` (the pattern of :func:`bit_error_pattern`).
    """
    if codes.dim() != 2:
        raise ValueError(f"codes must be [rows, D], got shape {tuple(codes.shape)}")
    rows, dim = codes.shape
    r, pos, mask, n_err = bit_error_pattern(rows, dim, ber, bits, rng)
    out = codes.clone()
    if len(r):
        flat = out.view(-1)
        idx = torch.from_numpy(pos + r * dim).to(out.device)
        flat[idx] = flat[idx] ^ torch.from_numpy(mask).to(out.device, out.dtype)
    return out, n_err
