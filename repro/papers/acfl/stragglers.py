"""The straggler model (eqs. 5-6): every device independently fails to report in every iteration
with probability p; a straggler sends nothing.

The indicators are derived from shared uniforms, ``I = 1[U >= p]``, so runs with different p (and
every method) use common random numbers (decision D6): a device that reports at p = 0.4 also
reports at p = 0.2 in the same iteration.
"""

from __future__ import annotations

import numpy as np


def straggler_uniforms(rng: np.random.Generator, T: int, N: int) -> np.ndarray:
    """Uniforms U of shape (T, N) from the ``straggler`` stream; iteration t uses row t-1."""
    return rng.random((T, N))


def straggler_mask(uniforms: np.ndarray, p) -> np.ndarray:
    """I_t^(i) = 1[U >= p] (eq. 5-6): True where the device reports. ``p`` broadcasts against
    ``uniforms``; Pr(I = 1) = 1 - p."""
    p = np.asarray(p, dtype=float)
    if np.any((p < 0) | (p >= 1)):
        raise ValueError(f"straggler probability p must lie in [0, 1), got {p!r}")
    return uniforms >= p
