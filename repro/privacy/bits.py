"""Bit accounting of quantised uploads (wpfl_minmax Table III; its README, bits).

For R-bit indices ``k`` (grid over ``[-A, A]``, levels symmetric about 0): signed level
``m = k - (2^R - 1)/2`` (a half-integer, never 0), magnitude index ``j = |m| - 1/2`` in
``0 .. 2^(R-1) - 1``, and the *effective* bits of the element ``B_q = 1 (sign) + bit_length(j)``
(1 .. R). Overhead of signalling the varying widths: split each upload's ``B_q`` sequence into maximal
runs of equal width; each run costs 4 bits (its width) + Elias-gamma(run length) =
``4 + 2 floor(log2 L) + 1``; ``B_o = min(4, run bits / |w|)`` per element (4 = an explicit 4-bit width
per element). Transmitted bits per element ``min(R, mean B_q + B_o)``.

For signed integer codes (dithering: ``k`` any integer), ``signed_code_bits`` gives ``1 + bit_length(|k|)``.

Example
-------
>>> import torch
>>> k = torch.tensor([[0, 7, 8, 15, 15, 15]])       # R = 4: levels -7.5 .. 7.5
>>> effective_bits(k, 4).tolist()
[[4, 1, 1, 4, 4, 4]]
"""

from __future__ import annotations

import torch


def bit_length(j: torch.Tensor) -> torch.Tensor:
    """Number of binary digits of non-negative integers (``bit_length(0) = 0``), exact below 2^53:
    the exponent of ``frexp`` (``j = m 2^e`` with ``m`` in [0.5, 1))."""
    return torch.frexp(j.to(torch.float64)).exponent.to(torch.int64)


def effective_bits(indices: torch.Tensor, bits: int) -> torch.Tensor:
    """``B_q`` per element (int64, same shape): 1 sign bit + bit_length of the magnitude index."""
    if not isinstance(bits, int) or not 1 <= bits <= 24:
        raise ValueError(f"bits R must be an integer in 1..24, got {bits!r}")
    k = indices.to(torch.int32)
    top = 2**bits - 1
    lo, hi = torch.aminmax(k)
    if int(lo) < 0 or int(hi) > top:
        raise ValueError(f"indices must lie in 0..{top} for R={bits}")
    j = (2 * k - top).abs_().sub_(1).bitwise_right_shift_(1)  # |m| - 1/2 with m = k - (2^R - 1)/2
    return 1 + torch.frexp(j.to(torch.float32)).exponent.to(torch.int64)  # exact: j < 2^23


def signed_code_bits(codes: torch.Tensor) -> torch.Tensor:
    """``1 + bit_length(|k|)`` per element for signed integer codes (sign + magnitude)."""
    return 1 + bit_length(codes.to(torch.int64).abs())


def elias_gamma_length(n: torch.Tensor) -> torch.Tensor:
    """Length in bits of the Elias-gamma code of positive integers: ``2 floor(log2 n) + 1``."""
    if bool((n < 1).any()):
        raise ValueError("Elias-gamma codes positive integers only")
    return 2 * (bit_length(n) - 1) + 1


def run_length_overhead(widths: torch.Tensor, width_bits: int = 4) -> torch.Tensor:
    """Per row of ``widths`` ``[N, P]``: ``min(width_bits, sum over maximal equal-width runs of
    (width_bits + EliasGamma(run length)) / P)`` bits per element (float64 ``[N]``)."""
    if widths.dim() != 2 or widths.shape[1] == 0:
        raise ValueError(f"widths must be [N, P] with P >= 1, got {tuple(widths.shape)}")
    n, p = widths.shape
    small = widths.to(torch.int16) if widths.dtype not in (torch.int8, torch.int16, torch.uint8) else widths
    start = torch.ones((n, p), dtype=torch.bool, device=widths.device)
    torch.ne(small[:, 1:], small[:, :-1], out=start[:, 1:])  # every row starts a run at column 0
    begins = start.reshape(-1).nonzero().flatten()
    ends = torch.cat([begins[1:], torch.tensor([n * p], device=widths.device)])
    row = begins // p
    ends = torch.minimum(ends, (row + 1) * p)
    lengths = ends - begins
    run_bits = (width_bits + elias_gamma_length(lengths)).to(torch.float64)
    per_row = torch.zeros(n, dtype=torch.float64, device=widths.device).index_add_(0, row, run_bits)
    return torch.clamp(per_row / p, max=float(width_bits))


def upload_bits(indices: torch.Tensor, bits: int) -> dict[str, torch.Tensor]:
    """Per-upload (row) bit summary of R-bit indices ``[N, P]``: mean ``B_q``, ``B_o``, and
    ``transmitted = min(R, B_q + B_o)`` bits per element (float64 ``[N]`` each)."""
    bq = effective_bits(indices, bits)
    mean_bq = bq.to(torch.float64).mean(1)
    bo = run_length_overhead(bq)
    return {"effective": mean_bq, "overhead": bo, "transmitted": torch.clamp(mean_bq + bo, max=float(bits))}
