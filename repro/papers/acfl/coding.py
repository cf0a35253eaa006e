"""Stage 1 of ACFL: coded local datasets with additive noise (eqs. 2-3) and the global coded
dataset (eq. 4), plus the coded gradient (eq. 8).

Device i uploads once ``H_X^(i) = X^T X + N1^(i)`` (d x d) and ``H_Y^(i) = X^T Y + N2^(i)`` (d x o);
all entries of N1 are i.i.d. N(0, sigma1^2) (N1 is NOT symmetric and is never symmetrised, D14),
all entries of N2 i.i.d. N(0, sigma2^2). The noise is drawn once and kept for the whole run (D13).
"""

from __future__ import annotations

import numpy as np


def local_coded_datasets(A_dev, b_dev, z1, z2, sigma1_sq: float, sigma2_sq: float):
    """Eqs. (2)-(3) per device: ``(A_i + sigma1 z1_i, b_i + sigma2 z2_i)`` with standard normals
    z1 (N, d, d), z2 (N, d, o)."""
    if sigma1_sq < 0 or sigma2_sq < 0:
        raise ValueError(f"noise variances must be >= 0, got {sigma1_sq!r}, {sigma2_sq!r}")
    return A_dev + np.sqrt(sigma1_sq) * z1, b_dev + np.sqrt(sigma2_sq) * z2


def global_coded_dataset(HX_dev, HY_dev):
    """Eq. (4): the server keeps only the sums over devices."""
    return HX_dev.sum(axis=-3), HY_dev.sum(axis=-3)


def global_coded_dataset_for_levels(A_dev, b_dev, z1, z2, sigma1_sq, sigma2_sq):
    """Eqs. (2)-(4) for several noise levels at once with the SAME standard-normal draws (paired
    runs): returns HX (R, d, d), HY (R, d, o). Uses sum_i (A_i + s z_i) = A + s sum_i z_i."""
    s1 = np.sqrt(np.asarray(sigma1_sq, float))[:, None, None]
    s2 = np.sqrt(np.asarray(sigma2_sq, float))[:, None, None]
    if np.any(~np.isfinite(s1)) or np.any(~np.isfinite(s2)):
        raise ValueError(f"noise variances must be finite and >= 0, got {sigma1_sq!r}, {sigma2_sq!r}")
    return A_dev.sum(0)[None] + s1 * z1.sum(0)[None], b_dev.sum(0)[None] + s2 * z2.sum(0)[None]


def coded_gradient(HX, HY, W):
    """G^S_t = H~_X W_t - H~_Y (eq. 8); batched over leading dimensions."""
    return HX @ W - HY


def draw_stage1_normals(rng: np.random.Generator, N: int, d: int, o: int):
    """Standard normals of the ``dp_noise`` stream: z1 (N, d, d), z2 (N, d, o)."""
    return rng.standard_normal((N, d, d)), rng.standard_normal((N, d, o))
