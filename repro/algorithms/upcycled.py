"""Upcycled-FL's server-only even step (Mao et al., ota_jammer eq. 9; Upcycled-FL, osu-srml).

Odd iterations are ordinary FedProx rounds (clients train on data with the proximal term, eq. 6, and
the server aggregates, eq. 8). Even iterations touch no data: the server extrapolates along the last
global update::

    w^{2m} = w^{2m-1} + mu/(mu + lambda_m) * (w^{2m-1} - w^{2m-2})          # eq. (9)

so 2M iterations cost M data accesses (and, with private uploads, M privacy releases: Lemma 1 —
the even step is post-processing of released values).

Example
-------
>>> import torch
>>> even_step(torch.tensor([2.0]), torch.tensor([1.0]), 0.4)
tensor([2.4000])
>>> even_step_coefficients(0.1, [0.15, 0.4, 0.9, 1.9]).round(6).tolist()
[0.4, 0.2, 0.1, 0.05]
"""

from __future__ import annotations

import numpy as np

__all__ = ["even_step", "even_step_coefficients"]


def even_step_coefficients(mu: float, lambdas) -> np.ndarray:
    """``mu/(mu + lambda_m)`` for each ``lambda_m`` (mu > 0, lambda_m >= 0)."""
    lam = np.asarray(lambdas, dtype=float)
    if mu <= 0 or np.any(lam < 0):
        raise ValueError(f"need mu > 0 and every lambda >= 0, got mu={mu!r}, lambdas={lam.tolist()}")
    return mu / (mu + lam)


def even_step(w_odd, w_before, coefficient: float):
    """Eq. (9): ``w_odd + c (w_odd - w_before)`` (tensors or arrays of one shape; returns a new one)."""
    if not (coefficient >= 0):
        raise ValueError(f"extrapolation coefficient must be >= 0, got {coefficient!r}")
    return w_odd + coefficient * (w_odd - w_before)
