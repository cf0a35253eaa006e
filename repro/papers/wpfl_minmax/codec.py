"""R-bit uniform quantizer codes and the effective-bit accounting of Table III (guide §2.2, §6.4).

Quantizer (6)-(8): levels ``chi_k = -A + k Delta``, ``Delta = 2A/(2^R - 1)``, ``k = 0..2^R - 1``;
the code of ``x`` is ``clip(round((x + A)/Delta), 0, 2^R - 1)`` (nearest level; out-of-range values
go to the end levels). In range, ``|x - Q(x)| <= Delta/2``. Codes are natural binary words, so a
channel bit flip keeps the decoded value inside ``[-A, A]`` ((17), (19)).
"""

from __future__ import annotations

import math

import numpy as np
import torch


def quant_step(amplitude, bits: int):
    """``Delta = 2A / (2^R - 1)``."""
    return 2.0 * amplitude / (2.0**bits - 1.0)


def encode(x: torch.Tensor, amplitude, bits: int) -> torch.Tensor:
    """Codes ``[rows, D]`` (int64) of ``x`` on the R-bit grid over ``[-A, A]`` (A scalar or per row)."""
    if bits < 1 or bits > 31:
        raise ValueError(f"bits must be in 1..31, got {bits}")
    a = torch.as_tensor(amplitude, dtype=torch.float64).reshape(-1, *([1] * (x.dim() - 1))) if torch.as_tensor(amplitude).dim() else torch.as_tensor(float(amplitude), dtype=torch.float64)
    step = 2.0 * a / (2.0**bits - 1.0)
    k = torch.round((x.double() + a) / step)
    return k.clamp_(0, 2**bits - 1).to(torch.int64)


def decode(codes: torch.Tensor, amplitude, bits: int, dtype=torch.float32) -> torch.Tensor:
    """Levels ``-A + k Delta`` of the codes."""
    a = torch.as_tensor(amplitude, dtype=torch.float64).reshape(-1, *([1] * (codes.dim() - 1))) if torch.as_tensor(amplitude).dim() else torch.as_tensor(float(amplitude), dtype=torch.float64)
    step = 2.0 * a / (2.0**bits - 1.0)
    return (-a + codes.double() * step).to(dtype)


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
