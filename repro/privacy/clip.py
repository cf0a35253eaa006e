"""Per-client L2 clipping of stacked flattened parameters or updates ``[N, P]``: the package's one clipping.

``clip_rows(x, C)`` returns ``x_n / max(1, ||x_n||_2 / C_n)`` for every row (eq. (5) of DP-Ditto,
eq. (2) of WPFL, the update clipping of ota_jammer's Assumption 1), so every output row has norm
<= C_n and rows already inside the ball are unchanged.
"""

from __future__ import annotations

import torch

from repro.privacy.chain import Transform, generator_of, per_client


def row_norms(x: torch.Tensor) -> torch.Tensor:
    """L2 norm of every row of ``x`` ``[N, P]`` -> ``[N]`` (torch's vectorised reduction, pairwise
    accumulation: relative error ~1e-7 in float32 even for millions of entries)."""
    return torch.linalg.vector_norm(x, dim=1)


def clip_rows(x: torch.Tensor, max_norm, link=None) -> torch.Tensor:
    """Scale each row of ``x`` ``[N, P]`` to L2 norm at most ``max_norm`` (a float, one value per row, or one per
    client of the population picked by ``link.clients``; > 0)."""
    c = per_client(max_norm, x, "max_norm", link)
    if (isinstance(c, float) and not c > 0) or (isinstance(c, torch.Tensor) and not bool((c > 0).all())):
        raise ValueError(f"max_norm must be > 0, got {max_norm!r}")
    if x.dim() != 2:
        raise ValueError(f"clip_rows expects a stacked [N, P] tensor, got shape {tuple(x.shape)}")
    norms = row_norms(x).unsqueeze(1)
    factor = torch.clamp(norms / c, min=1.0)
    return x / factor


def clip_factors(x: torch.Tensor, max_norm, link=None) -> torch.Tensor:
    """Per-row multipliers ``1 / max(1, ||x_n|| / C_n)`` (``[N]``)."""
    c = per_client(max_norm, x, "max_norm", link)
    if (isinstance(c, float) and not c > 0) or (isinstance(c, torch.Tensor) and not bool((c > 0).all())):
        raise ValueError(f"max_norm must be > 0, got {max_norm!r}")
    c = c.flatten() if isinstance(c, torch.Tensor) else c
    return 1.0 / torch.clamp(row_norms(x) / c, min=1.0)


def clip_and_gaussian(x: torch.Tensor, max_norm, sigma, generator: torch.Generator, link=None) -> torch.Tensor:
    """Fused ``add_gaussian(clip_rows(x, C), sigma, generator)``: one read pass for the norms and one
    streaming pass that scales, draws the noise and adds it (same numbers as the two steps)."""
    from repro.privacy.noise import add_gaussian

    return add_gaussian(x, sigma, generator, row_scale=clip_factors(x, max_norm, link), link=link)


def clipped_gaussian(max_norm, sigma, purpose: str = "dp_noise") -> Transform:
    """Upload transform ``clip_l2(C)`` then ``gaussian_noise(sigma)``, fused (DP-Ditto's, WPFL's upload)."""
    def apply(x: torch.Tensor, link) -> torch.Tensor:
        return clip_and_gaussian(x, max_norm, sigma, generator_of(link, purpose), link)

    apply.__name__ = "clipped_gaussian"
    return apply


def clip_l2(max_norm) -> Transform:
    """Upload transform: per-client L2 clipping to ``max_norm`` (float or per-client ``[N]``)."""

    def apply(x: torch.Tensor, link=None) -> torch.Tensor:
        return clip_rows(x, max_norm, link)

    apply.__name__ = f"clip_l2({max_norm if isinstance(max_norm, float) else '...'})"
    return apply
