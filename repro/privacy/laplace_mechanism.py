"""The Laplace mechanism as a pure upload transform (eqs. (6)-(7) of Lin et al., ISIT 2024).

``laplace_scale(s, eps) = s / eps`` is the scale ``eta`` of Laplace noise ``p(x) = e^{-|x|/eta} / (2 eta)``
that makes a query of l1-sensitivity ``s`` satisfy ``eps``-DP (pure DP, delta = 0). The noise
variance is ``2 eta^2``. ``add_laplace_noise`` adds independent noise to a stacked ``[m, ...]`` update
with one scale per client, drawn from an explicit generator. ``certified_laplace_epsilon`` is the epsilon
dp-accounting's privacy-loss-distribution accountant certifies for such releases (the value a figure
shows beside a paper's nominal epsilon).
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


#: delta at which a pure-DP Laplace release is certified by dp-accounting's PLD (its pessimistic
#: discretisation gives inf at delta = 0; at 1e-12 it returns s / eta to ~1e-12)
PURE_DP_DELTA = 1e-12


def certified_laplace_epsilon(scale, sensitivity, releases: int = 1, delta: float = PURE_DP_DELTA) -> float:
    """Epsilon that dp-accounting's privacy-loss-distribution accountant certifies for ``releases``
    compositions of the Laplace mechanism with noise scale ``scale`` on a query of l1-sensitivity
    ``sensitivity`` (pure DP: the value is ``releases * sensitivity / scale`` up to the accountant's
    discretisation, read at ``delta`` = :data:`PURE_DP_DELTA`). ``inf`` for a zero scale."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    eta, s = float(scale), float(sensitivity)
    if not (s > 0 and np.isfinite(s)):
        raise ValueError(f"sensitivity must be a finite number > 0, got {sensitivity!r}")
    if not eta >= 0 or not np.isfinite(eta):
        raise ValueError(f"Laplace scale must be a finite number >= 0, got {scale!r}")
    if isinstance(releases, bool) or int(releases) != releases or releases < 1:
        raise ValueError(f"releases must be an integer >= 1, got {releases!r}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    if eta == 0:
        return float("inf")
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3 * s / eta)
    acc.compose(dp_accounting.LaplaceDpEvent(eta / s), int(releases))
    return float(acc.get_epsilon(delta))
