"""R-bit codes of the quantizer (6)-(8) and the effective-bit accounting of Table III (guide §2.2, §6.4).

The quantizer itself is the engine's (``repro.privacy.quantize``): levels ``chi_k = -A + k Delta``,
``Delta = 2A/(2^R - 1)``, code ``k = clip(round((x + A)/Delta), 0, 2^R - 1)``. :func:`encode` /
:func:`decode` name its natural-binary codes as this paper uses them; a channel bit flip keeps the
decoded value inside ``[-A, A]`` ((17), (19)).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from repro.privacy.quantize import dequantize_uniform, step_size, uniform_indices


def _amp(a):
    return float(a) if not isinstance(a, torch.Tensor) else a


def encode(x: torch.Tensor, amplitude, bits: int) -> torch.Tensor:
    """Natural-binary R-bit codes ``[rows, D]`` of ``x`` over ``[-A, A]`` (engine quantizer; A a float
    or one per row)."""
    return uniform_indices(x, _amp(amplitude), bits)


def decode(codes: torch.Tensor, amplitude, bits: int, dtype=torch.float32) -> torch.Tensor:
    """Levels ``-A + k Delta`` of the codes (engine dequantizer)."""
    return dequantize_uniform(codes, _amp(amplitude), bits, dtype)


quant_step = step_size


def effective_bits(codes: torch.Tensor, bits: int) -> torch.Tensor:
    """``B_q`` per element (§6.4): signed level ``m = k - (2^R - 1)/2``, magnitude ``j = |m| - 1/2``,
    ``B_q = 1 (sign) + bit_length(j)``; in 1..R."""
    two_m = 2 * codes - (2**bits - 1)  # 2m, odd
    j = (two_m.abs() - 1) // 2
    return 1 + bit_length(j)


def bit_length(j: torch.Tensor) -> torch.Tensor:
    """Number of bits of non-negative integers below 2^53 (0 -> 0), via the float exponent (frexp)."""
    _, exponent = torch.frexp(j.to(torch.float64))
    return exponent.to(torch.int64)


def elias_gamma_length(n: np.ndarray) -> np.ndarray:
    """Length of the Elias-gamma code of positive integers: ``2 floor(log2 n) + 1``."""
    n = np.asarray(n, dtype=np.int64)
    return 2 * (np.floor(np.log2(n)).astype(np.int64)) + 1


def overhead_bits(widths: torch.Tensor) -> torch.Tensor:
    """``B_o`` per row (§6.4): maximal runs of equal width, each 4 bits + Elias-gamma(run length),
    divided by the row length and capped at 4 bits per element."""
    rows, dim = widths.shape
    out = torch.empty(rows, dtype=torch.float64)
    w = widths.numpy()
    for r in range(rows):
        change = np.flatnonzero(np.diff(w[r])) + 1
        starts = np.concatenate([[0], change])
        lengths = np.diff(np.concatenate([starts, [dim]]))
        total = 4 * lengths.size + elias_gamma_length(lengths).sum()
        out[r] = min(4.0, total / dim)
    return out
