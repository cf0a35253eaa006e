"""R-bit codes of the quantizer (6)-(8) as this paper transmits them, and their bit accounting (Table III).

The quantizer is the engine's (:mod:`repro.privacy.quantize`): levels ``chi_k = -A + k Delta``,
``Delta = 2A/(2^R - 1)``, code ``k = clip(round((x + A)/Delta), 0, 2^R - 1)``; a channel bit flip keeps
the decoded value inside ``[-A, A]`` ((17), (19)). The effective bits ``B_q`` and the run-length
overhead ``B_o`` are :mod:`repro.privacy.bits`' (README, decisions: Table III encoding).
"""

from __future__ import annotations

import torch

from repro.privacy.bits import effective_bits, run_length_overhead, signed_code_bits  # noqa: F401 (re-exported)
from repro.privacy.quantize import dequantize_uniform, step_size, uniform_indices

quant_step = step_size


def encode(x: torch.Tensor, amplitude, bits: int) -> torch.Tensor:
    """Natural-binary R-bit codes ``[rows, D]`` of ``x`` over ``[-A, A]`` (A a float or one per row)."""
    return uniform_indices(x, amplitude, bits)


def decode(codes: torch.Tensor, amplitude, bits: int, dtype=torch.float32) -> torch.Tensor:
    """Levels ``-A + k Delta`` of the codes."""
    return dequantize_uniform(codes, amplitude, bits, dtype)


def overhead_bits(widths: torch.Tensor) -> torch.Tensor:
    """``B_o`` per row: 4-bit width + Elias-gamma run length per maximal run of equal ``B_q``, per element, <= 4."""
    return run_length_overhead(widths)
