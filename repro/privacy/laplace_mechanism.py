"""The Laplace mechanism as a pure upload transform (eqs. (6)-(7) of Lin et al., ISIT 2024).

``laplace_scale(s, eps) = s / eps`` is the scale ``eta`` of Laplace noise ``p(x) = e^{-|x|/eta} / (2 eta)``
that makes a query of l1-sensitivity ``s`` satisfy ``eps``-DP (pure DP, delta = 0). The noise
variance is ``2 eta^2``. ``add_laplace_noise`` adds independent noise to a stacked ``[m, ...]`` update
with one scale per client, drawn from an explicit generator.
"""

from __future__ import annotations

import numpy as np


def laplace_scale(sensitivity, epsilon):
    """``eta = sensitivity / epsilon`` (vectorised); both must be positive."""
    s = np.asarray(sensitivity, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(s <= 0):
        raise ValueError(f"sensitivity must be > 0, got {sensitivity!r}")
    if np.any(eps <= 0):
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
    out = s / eps
    return float(out) if out.ndim == 0 else out


def laplace_variance(scale):
    """Variance ``2 eta^2`` of Laplace(0, eta)."""
    return 2.0 * np.square(scale)


def add_laplace_noise(update: np.ndarray, scale, rng: np.random.Generator) -> np.ndarray:
    """Return ``update + Laplace(0, scale)`` noise; ``scale`` is a scalar or one value per client
    (broadcast along the leading client axis of ``update``)."""
    update = np.asarray(update, dtype=float)
    scale = np.asarray(scale, dtype=float)
    if np.any(scale < 0):
        raise ValueError(f"Laplace scale must be >= 0, got {scale!r}")
    if scale.ndim == 1:
        if update.ndim == 0 or scale.shape[0] != update.shape[0]:
            raise ValueError(f"one scale per client needs update of shape [{scale.shape[0]}, ...], got {update.shape}")
        scale = scale.reshape(scale.shape + (1,) * (update.ndim - 1))
    return update + scale * rng.laplace(0.0, 1.0, size=update.shape)
