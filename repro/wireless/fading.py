"""Small-scale fading on stacked client tensors, drawn from an explicit generator.

Rayleigh fading: ``h ~ CN(0, scale)``, so ``|h|`` is Rayleigh and ``|h|^2 ~ Exp(mean=scale)``.
Block fading: one draw per (round, client), constant within the round.
"""

from __future__ import annotations

import math

import torch


def rayleigh_coefficients(shape, generator: torch.Generator, scale: float = 1.0, dtype=torch.complex64, device="cpu") -> torch.Tensor:
    """Complex coefficients ``h ~ CN(0, scale)`` (``E|h|^2 = scale``)."""
    if scale <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    real_dtype = torch.float32 if dtype == torch.complex64 else torch.float64
    std = math.sqrt(scale / 2.0)
    re = torch.randn(shape, generator=generator, dtype=real_dtype, device=device) * std
    im = torch.randn(shape, generator=generator, dtype=real_dtype, device=device) * std
    return torch.complex(re, im)


def rayleigh_power_gains(shape, generator: torch.Generator, scale: float = 1.0, dtype=torch.float64, device="cpu") -> torch.Tensor:
    """Power gains ``|h|^2 ~ Exp(mean=scale)`` drawn directly (inverse-CDF of a uniform)."""
    if scale <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    u = torch.rand(shape, generator=generator, dtype=dtype, device=device)
    return -scale * torch.log1p(-u)
