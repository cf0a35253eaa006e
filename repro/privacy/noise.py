"""Gaussian and Laplace noise on stacked uploads ``[N, P]`` with a per-client scale.

Noise is drawn *standard* (N(0, 1), or Laplace with unit scale b = 1) from an explicit generator and
then multiplied by the client's scale, so runs that differ only in sigma share noise directions
(common random numbers, DP-Ditto §2.4). A scale of 0 gives exactly ``x``.
"""

from __future__ import annotations

import torch

from repro.engine.rng import generator_for
from repro.privacy.chain import Transform, per_client


def _check_scale(scale, name):
    if isinstance(scale, torch.Tensor):
        if bool((scale < 0).any()) or not bool(torch.isfinite(scale).all()):
            raise ValueError(f"{name} must be finite and >= 0 for every client, got {scale.flatten().tolist()[:8]}")
    elif not (scale >= 0 and scale < float("inf")):
        raise ValueError(f"{name} must be finite and >= 0, got {scale!r}")


def add_gaussian(x: torch.Tensor, sigma, generator: torch.Generator) -> torch.Tensor:
    """``x + sigma_n * xi``, ``xi ~ N(0, I)`` per row; ``sigma`` a float or ``[N]``."""
    s = per_client(sigma, x, "sigma")
    _check_scale(s, "sigma")
    xi = torch.randn(x.shape, generator=generator, dtype=x.dtype, device=x.device)
    return torch.addcmul(x, xi, s if isinstance(s, torch.Tensor) else torch.tensor(s, dtype=x.dtype, device=x.device))


def add_laplace(x: torch.Tensor, scale, generator: torch.Generator) -> torch.Tensor:
    """``x + b_n * L``, ``L`` standard Laplace (density exp(-|l|)/2) per element; ``scale`` b a float or ``[N]``.

    Drawn by inversion from one uniform per element: ``L = -sign(u) * log(1 - 2|u|)``, u ~ U(-1/2, 1/2).
    """
    b = per_client(scale, x, "scale")
    _check_scale(b, "scale")
    u = torch.rand(x.shape, generator=generator, dtype=x.dtype, device=x.device) - 0.5
    lap = -torch.sign(u) * torch.log1p(-2.0 * u.abs())
    return x + lap * b


def gaussian_noise(sigma, purpose: str = "dp_noise") -> Transform:
    """Upload transform adding N(0, sigma_n^2) to every coordinate of client n's row."""

    def apply(x: torch.Tensor, rng) -> torch.Tensor:
        return add_gaussian(x, sigma, generator_for(rng, purpose))

    apply.__name__ = "gaussian_noise"
    return apply


def laplace_noise(scale, purpose: str = "dp_noise") -> Transform:
    """Upload transform adding Laplace(0, b_n) to every coordinate of client n's row."""

    def apply(x: torch.Tensor, rng) -> torch.Tensor:
        return add_laplace(x, scale, generator_for(rng, purpose))

    apply.__name__ = "laplace_noise"
    return apply
