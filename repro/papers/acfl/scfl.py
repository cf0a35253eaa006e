"""SCFL [24] (Sun et al., IEEE TWC 2023) as a RECONSTRUCTED baseline: the package's own, not the paper's.

The ACFL paper fixes (Sec. I, II, V): each device uploads a random projection of its data plus additive
noise; the server builds a global coded dataset from the local ones "instead of retaining all the
received coded datasets to save its storage", and "the global dataset is then assembled as the sum of
these local coded datasets" (Sec. II); fixed aggregation weight 0.5 (as NA); full-batch gradients; local
coded datasets of the same size as ACFL's (c = d rows, so c(d+o) = d(d+o) numbers); noise "calculated
according to Theorem 2 in [24]" for the target eps. Neither [24]'s projection nor its Theorem 2 are
given, so those choices are the package's and the method is labelled "SCFL (reconstructed)" in the
figures and the claims (README: decisions table).

Encoding: device i draws a projection ``G_i`` (c x m) with i.i.d. N(0, 1/c) entries (E[G_i^T G_i] = I_m)
and uploads ``X~_i = G_i X_i + Z_i``, ``Y~_i = G_i Y_i + Z'_i``, noise entries i.i.d. N(0, sigma^2).

Global coded dataset (``aggregation``):

- ``sum`` (default, the paper's Sec. II): X~ = sum_i X~_i, Y~ = sum_i Y~_i (a c-row sketch), HX = X~^T X~ -
  c N sigma^2 I_d, HY = X~^T Y~ (unbiased: the cross terms of independent projections have mean 0, and the
  last term removes E[Z^T Z]). With c = d = 10 the sketch is nearly singular and carries the noise of all
  N uploads: the fixed point of alpha = 0.5 lies above the starting loss at eps = 1.
- ``composite`` (package alternative, a more generous baseline): the Gram sums of every upload, HX =
  sum_i X~_i^T X~_i - N c sigma^2 I_d, HY = sum_i X~_i^T Y~_i, an (N c)-row sketch of the data (also unbiased).

Privacy map (the package's, not [24]'s Theorem 2): the max-entropy argument of the ACFL paper's proof of
Theorem 1 (eqs. (21)-(22)) applied to the c coded entries in which one data entry appears, each with a
projection coefficient of variance 1/c: ``eps = (c/2) ln(1 + 1/(c sigma^2))`` (``conservative``), or
the rank-one bound ``ln(1 + 1/sigma^2)/2`` for a known projection (``rank_one``).
"""

from __future__ import annotations

import numpy as np

PRIVACY_MAPS = ("conservative", "rank_one")
AGGREGATIONS = ("sum", "composite")


def _check_map(variant: str) -> None:
    if variant not in PRIVACY_MAPS:
        raise ValueError(f"unknown SCFL privacy map {variant!r}; allowed: {', '.join(PRIVACY_MAPS)}")


def scfl_epsilon_fallback(sigma2, c: int, variant: str = "conservative"):
    """eps (nats, MI-DP) of the reconstructed SCFL upload for noise variance ``sigma2`` (package's map)."""
    _check_map(variant)
    s = np.asarray(sigma2, float)
    if np.any(s <= 0):
        raise ValueError(f"sigma^2 must be > 0, got {sigma2!r}")
    eps = 0.5 * c * np.log1p(1.0 / (c * s)) if variant == "conservative" else 0.5 * np.log1p(1.0 / s)
    return eps if eps.ndim else float(eps)


def scfl_sigma2_for_epsilon_fallback(epsilon, c: int, variant: str = "conservative"):
    """Noise variance of the reconstructed SCFL for a target eps, the inverse of
    :func:`scfl_epsilon_fallback`: ``(1/c) / (exp(2 eps / c) - 1)`` (conservative) or
    ``1 / (exp(2 eps) - 1)`` (rank_one). Replace this one function by [24]'s Theorem 2 when known."""
    _check_map(variant)
    e = np.asarray(epsilon, float)
    if np.any(e <= 0):
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
    s = (1.0 / c) / np.expm1(2.0 * e / c) if variant == "conservative" else 1.0 / np.expm1(2.0 * e)
    return s if s.ndim else float(s)


def draw_scfl_code(rng: np.random.Generator, N: int, m: int, d: int, o: int, c: int):
    """The ``scfl_code`` stream: projections (N, c, m) ~ N(0, 1/c) and standard normals for the
    additive noise, (N, c, d) and (N, c, o)."""
    if c < 1:
        raise ValueError(f"SCFL projection size c must be >= 1, got {c!r}")
    proj = rng.standard_normal((N, c, m)) / np.sqrt(c)
    return proj, rng.standard_normal((N, c, d)), rng.standard_normal((N, c, o))


def entry_sensitivity(proj) -> float:
    """L2 sensitivity of one device's upload to one data entry in [-1, 1] (the neighbour notion of the
    paper's Definition 1): the entry enters c coded values through one projection column, so a change
    of at most 2 moves the upload by 2 ||G_i[:, j]||; the largest over devices and columns."""
    return float(2.0 * np.sqrt((np.asarray(proj) ** 2).sum(axis=1).max()))


def scfl_coded_pair(X, Y, proj, zx, zy, sigma2, debias: bool = True, aggregation: str = "sum"):
    """The global coded pair (HX (R, d, d), HY (R, d, o)) of the reconstructed SCFL for noise
    variances ``sigma2`` (R,), all sharing one draw of projections and standard normals.

    X (N, m, d), Y (N, m, o); proj (N, c, m); zx (N, c, d); zy (N, c, o). With ``debias`` the noise
    bias of the Gram matrix is removed, so E[HX] = sum_i X_i^T X_i and E[HY] = sum_i X_i^T Y_i.
    """
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"unknown SCFL aggregation {aggregation!r}; allowed: {', '.join(AGGREGATIONS)}")
    N, c = proj.shape[0], proj.shape[1]
    d = X.shape[-1]
    s2 = np.asarray(sigma2, float)
    s = np.sqrt(s2)[:, None, None, None]
    GX, GY = proj @ X, proj @ Y                                      # (N, c, d), (N, c, o)
    if aggregation == "composite":
        Xt = GX[None] + s * zx[None]                                 # (R, N, c, d): every device's upload
        Yt = GY[None] + s * zy[None]
        HX = np.einsum("rnca,rncb->rab", Xt, Xt)
        HY = np.einsum("rnca,rncb->rab", Xt, Yt)
    else:
        Xt = GX.sum(0)[None] + s[:, 0] * zx.sum(0)[None]             # (R, c, d): X~ = sum_i X~_i
        Yt = GY.sum(0)[None] + s[:, 0] * zy.sum(0)[None]
        HX = Xt.transpose(0, 2, 1) @ Xt
        HY = Xt.transpose(0, 2, 1) @ Yt
    if debias:
        HX = HX - (c * N * s2)[:, None, None] * np.eye(d)[None]
    return HX, HY
