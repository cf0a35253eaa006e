"""Small operations on stacked flat parameters ``[N, P]`` that several algorithms share."""

from __future__ import annotations

import torch


def weighted_mean(x: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """``sum_n w_n x_n`` for ``x`` ``[N, P]`` and ``weights`` ``[N]`` (not renormalised)."""
    return weights.to(x.dtype) @ x


def mix(weights: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Per-client mixtures ``[M, P]`` = ``weights`` ``[M, N]`` @ ``x`` ``[N, P]`` (APPLE, FedAMP)."""
    return weights.to(x.dtype) @ x


def pairwise_sq_distances(x: torch.Tensor) -> torch.Tensor:
    """``D[i, j] = ||x_i - x_j||^2`` for ``x`` ``[N, P]`` (FedAMP's attention), computed in float64
    from the Gram matrix, clamped at 0 and exactly 0 on the diagonal."""
    xd = x.double()
    sq = (xd * xd).sum(1)
    d = (sq.unsqueeze(1) + sq.unsqueeze(0) - 2.0 * (xd @ xd.T)).clamp_(min=0.0)
    d.fill_diagonal_(0.0)
    return d
