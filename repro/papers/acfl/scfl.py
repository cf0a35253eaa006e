"""SCFL [24] (Sun et al., IEEE TWC 2023) as a RECONSTRUCTED stand-in (guide section 6.2).

The ACFL paper fixes only: random projection plus additive noise per device, the global coded
dataset is the sum of the local ones, fixed weight 0.5, full-batch gradients, local coded datasets
of ACFL's size, noise chosen by "Theorem 2 in [24]" for the target eps. Neither [24]'s encoding
details nor its Theorem 2 are given, so everything below is a reconstruction, labelled
"SCFL (reconstructed)" in figures and claims. The single entry point used by the experiments is
:func:`scfl_coded_pair`; the privacy map is :func:`scfl_sigma2_for_epsilon_fallback`.

Encoding (D12): device i draws a projection ``G_i`` (c x m) with i.i.d. N(0, 1/c) entries
(E[G_i^T G_i] = I_m) and uploads ``X~_i = G_i X_i + Z_i``, ``Y~_i = G_i Y_i + Z'_i`` with noise entries
i.i.d. N(0, sigma^2). The server sums them, X~ = sum X~_i, Y~ = sum Y~_i, and uses the coded gradient
``X~^T (X~ W - Y~) - c N sigma^2 W`` (the last term removes E[Z^T Z], so the gradient is unbiased,
as [24] states). In the shared kernel: HX = X~^T X~ - c N sigma^2 I_d, HY = X~^T Y~.
"""

from __future__ import annotations

import numpy as np

PRIVACY_MAPS = ("conservative", "rank_one")


def _check_map(variant: str) -> None:
    if variant not in PRIVACY_MAPS:
        raise ValueError(f"unknown SCFL privacy map {variant!r}; allowed: {', '.join(PRIVACY_MAPS)}")


def scfl_epsilon_fallback(sigma2, c: int, variant: str = "conservative"):
    """eps (nats) of the reconstructed SCFL upload. ``conservative``: the max-entropy argument of
    eqs. (21)-(22) applied to the c coded entries in which X_{1,1} appears with a projection
    coefficient of variance 1/c, ``(c/2) ln(1 + 1/(c sigma^2))``; ``rank_one``: ``ln(1 + 1/sigma^2)/2``."""
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


def scfl_coded_pair(X, Y, proj, zx, zy, sigma2, debias: bool = True):
    """The global coded pair (HX (R, d, d), HY (R, d, o)) of the reconstructed SCFL for noise
    variances ``sigma2`` (R,), all sharing one draw of projections and standard normals.

    X (N, m, d), Y (N, m, o); proj (N, c, m); zx (N, c, d); zy (N, c, o). With ``debias`` the
    c N sigma^2 I_d bias of X~^T X~ is removed, so E[HX] = sum_i X_i^T X_i and E[HY] = sum_i X_i^T Y_i.
    """
    N, c = proj.shape[0], proj.shape[1]
    d = X.shape[-1]
    s = np.sqrt(np.asarray(sigma2, float))[:, None, None]
    Xt = (proj @ X).sum(0)[None] + s * zx.sum(0)[None]  # X~ = sum_i G_i X_i + Z_i, (R, c, d)
    Yt = (proj @ Y).sum(0)[None] + s * zy.sum(0)[None]
    HX = Xt.transpose(0, 2, 1) @ Xt
    if debias:
        HX = HX - (c * N * np.asarray(sigma2, float))[:, None, None] * np.eye(d)[None]
    return HX, Xt.transpose(0, 2, 1) @ Yt
