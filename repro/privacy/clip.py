"""Per-client L2 clipping of stacked flattened parameters or updates ``[N, P]``.

``clip_rows(x, C)`` returns ``x_n / max(1, ||x_n||_2 / C_n)`` for every row (eq. (5) of DP-Ditto,
eq. (2) of WPFL, the update clipping of ota_jammer E1), so every output row has norm <= C_n and
rows already inside the ball are unchanged.
"""

from __future__ import annotations

import torch

from repro.privacy.chain import Transform, per_client


def row_norms(x: torch.Tensor) -> torch.Tensor:
    """L2 norm of every row of ``x`` ``[N, P]`` -> ``[N]`` (accumulated in float64 for float32 input)."""
    return torch.linalg.vector_norm(x, dim=1, dtype=torch.float64).to(x.dtype)


def clip_rows(x: torch.Tensor, max_norm) -> torch.Tensor:
    """Scale each row of ``x`` ``[N, P]`` to L2 norm at most ``max_norm`` (a float or ``[N]``, > 0)."""
    c = per_client(max_norm, x, "max_norm")
    if (isinstance(c, float) and not c > 0) or (isinstance(c, torch.Tensor) and not bool((c > 0).all())):
        raise ValueError(f"max_norm must be > 0, got {max_norm!r}")
    if x.dim() != 2:
        raise ValueError(f"clip_rows expects a stacked [N, P] tensor, got shape {tuple(x.shape)}")
    norms = row_norms(x).unsqueeze(1)
    factor = torch.clamp(norms / c, min=1.0)
    return x / factor


def clip_l2(max_norm) -> Transform:
    """Upload transform: per-client L2 clipping to ``max_norm`` (float or per-client ``[N]``)."""

    def apply(x: torch.Tensor, rng=None) -> torch.Tensor:
        return clip_rows(x, max_norm)

    apply.__name__ = f"clip_l2({max_norm if isinstance(max_norm, float) else '...'})"
    return apply
