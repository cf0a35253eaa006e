"""Convergence coefficients and the Stage-2 learning-rate problems of wpfl_minmax (Sec. IV-VI).

Everything here is numpy and vectorised over clients. Equation numbers are the paper's; the
printed ``-u eta_F`` of (26) is read as ``-mu eta_F`` (as in (28b)).

Notation: the paper's Lemma 1 (26) has Young's-inequality weights ``phi_1, phi_2`` (here ``phi1``,
``phi2``); Theorem 2 (28) has ``varphi_1, varphi_2`` (here ``vphi1``, ``vphi2``). All four are "any
positive constants"; C11 of problem P (``0 < eps_F < 1``) restricts them (see :func:`eps_fl`).

Structure of P7 (see :func:`phi_terms`): ``Phi_n = A(eta) + Psi(eta) X_n`` with the gradient term
``A = (1 + lambda^3) eta^2 G_n`` and the noise weight ``X_n = Gamma2 rho_{n,G} + Gamma3 + D``,
``D = (G0^2 + M mu)^2 / mu^2 eps_F``. Since ``eps_F >= 1 - mu^2 / (4 L^2)`` is close to 1 for every
admissible choice of the constants, ``D`` alone exceeds ``A`` by orders of magnitude, so the minimiser
of P7 is close to the minimiser of ``Psi(eta, lambda(eta))``, which depends on ``mu`` and ``eps_P`` only.

* (28b) FL contraction ``eps_F(eta_F)``; P5's closed form ``eta_F = mu / (2 (1 + phi1) L^2)``.
* (30a) PL contraction ``eps_P``, (30b) ``Psi``, (30d) ``G_n``, (34) the per-round PL bias ``Phi_n``.
* (28d), (28e), (35a), (35b): the constants ``Gamma0, Gamma1, Gamma2, Gamma3``.
* (37) ``lambda(eta)`` making ``eps_P`` equal to its target; (38) the feasible set
  ``Omega0 u Omega1``; (39) problem P7 solved by a grid + golden-section search (convex per interval,
  Theorem 5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BoundConstants:
    """Free constants of the bounds (README, decisions): Young's-inequality weights and Assumption 1."""

    phi1: float = 1.0  # phi_1 of Lemma 1 (26)
    phi2: float = 1e-3  # phi_2 of Lemma 1 (26)
    vphi1: float = 1e-3  # varphi_1 of Theorem 2 (28)
    vphi2: float = 1.0  # varphi_2 of Theorem 2 (28)
    M: float = 1.0  # Assumption 1: ||u_n* - w*|| <= M


# --- Stage 2a: FL learning rate -----------------------------------------------------------------

def eps_fl(eta_f, mu: float, L: float, k: BoundConstants = BoundConstants()):
    """(28b) ``eps_F = (1 + phi_1)((1 + varphi_2) + (1 + varphi_1) L^2 eta^2 - mu eta)``."""
    eta = np.asarray(eta_f, dtype=np.float64)
    return (1 + k.vphi1) * ((1 + k.phi2) + (1 + k.phi1) * L**2 * eta**2 - mu * eta)


def eta_fl_optimal(mu: float, L: float, k: BoundConstants = BoundConstants()) -> float:
    """P5 closed form: the minimiser of (28b), ``mu / (2 (1 + varphi_1) L^2)``."""
    if mu <= 0 or L <= 0:
        raise ValueError(f"need mu > 0 and L > 0, got mu={mu}, L={L}")
    return mu / (2 * (1 + k.phi1) * L**2)


# --- Stage 2b: PL learning rate and weight ------------------------------------------------------

def eps_pl(eta_p, lam, mu: float):
    """(30a) ``eps_P = 1 - eta ((1 - lambda/2) mu + lambda) + eta^2``."""
    eta, lam = np.asarray(eta_p, float), np.asarray(lam, float)
    return 1 - eta * ((1 - lam / 2) * mu + lam) + eta**2


def psi_pl(eta_p, lam):
    """(30b) ``Psi = (eta^2 + 1) lambda^2 + eta^3 / lambda``."""
    eta, lam = np.asarray(eta_p, float), np.asarray(lam, float)
    return (eta**2 + 1) * lam**2 + eta**3 / lam


def g_pl(lam, g0: float, mu: float, k: BoundConstants = BoundConstants()):
    """(30d) ``G_n = ((1 - lambda/2) G0 + lambda (G0/mu + M))^2``."""
    lam = np.asarray(lam, float)
    return ((1 - lam / 2) * g0 + lam * (g0 / mu + k.M)) ** 2


def eps_pl_target(mu: float, fraction: float = 0.99) -> float:
    """The common PL contraction target ``1 - f mu^2 / 4`` (README, decisions; f < 1 keeps Omega0 open)."""
    return 1 - fraction * mu**2 / 4


def lambda_of_eta(eta, mu: float, eps_p: float):
    """(37) ``lambda(eta) = ((1 - eps_P)/eta + eta - mu) / (1 - mu/2)``: solves (30a) = eps_P for lambda."""
    eta = np.asarray(eta, float)
    return ((1 - eps_p) / eta + eta - mu) / (1 - mu / 2)


def feasible_intervals(mu: float, eps_p: float) -> list[tuple[float, float]]:
    """(38): the eta ranges where ``0 < lambda(eta) < 2`` and ``0 < eta < 1``: ``Omega0 = (eta1, eta2)``,
    ``Omega1 = (eta3, 1)`` when ``eps_P <= 2 - mu``. Needs ``mu < 2`` and ``1 - mu^2/4 <= eps_P < 1``."""
    if not 0 < mu < 2:
        raise ValueError(f"need 0 < mu < 2, got {mu}")
    if not (1 - mu**2 / 4 <= eps_p < 1):
        raise ValueError(f"need 1 - mu^2/4 <= eps_P < 1, got eps_P={eps_p} (mu={mu})")
    eta1 = 1 - math.sqrt(eps_p)
    root = math.sqrt(max(mu**2 - 4 * (1 - eps_p), 0.0))
    eta2, eta3 = (mu - root) / 2, (mu + root) / 2
    out = [(eta1, eta2)]
    if eps_p <= 2 - mu and eta3 < 1:
        out.append((eta3, 1.0))
    return out


@dataclass(frozen=True)
class ModelBoundInputs:
    """Per-configuration inputs of the Gamma constants (paper model's |w|, even with a reduced model)."""

    num_params: int
    clip: float
    sigma: float
    e_local: float  # E_L^max
    e_global: float  # E_G^max


def gamma0(m: ModelBoundInputs, k: BoundConstants = BoundConstants()) -> float:
    """(28d)."""
    s2e2 = m.sigma**2 + m.e_local**2
    return (1 + 1 / k.vphi1) * (2 * (1 + 1 / k.vphi2) * m.clip**2 + 2 * m.num_params * (1 + k.vphi2) * s2e2
                                + 2 * m.num_params * (m.clip**2 - m.e_local**2))


def gamma1(m: ModelBoundInputs, k: BoundConstants = BoundConstants()) -> float:
    """(28e)."""
    return (m.num_params * (1 + k.vphi1) * (1 + 1 / k.phi1 + 1 / k.phi2) * (m.sigma**2 + m.e_local**2)
            + 2 * m.num_params * (1 + 1 / k.vphi1) * m.e_global**2)


def h1(rho, k: BoundConstants = BoundConstants()):
    """(28c) ``h1(rho) = 2(1 + 1/phi1)(1 + phi2) rho + (1 + phi1)(1 + 1/varphi1 + 1/varphi2)``."""
    return 2 * (1 + 1 / k.vphi1) * (1 + k.vphi2) * np.asarray(rho, float) + (1 + k.vphi1) * (1 + 1 / k.phi1 + 1 / k.phi2)


def gamma2(theta_l: float, m: ModelBoundInputs, k: BoundConstants = BoundConstants()) -> float:
    """(35a) ``Gamma2 = 2(1 + 1/phi1)(1 + phi2) Theta_L + Gamma0``."""
    return 2 * (1 + 1 / k.vphi1) * (1 + k.vphi2) * theta_l + gamma0(m, k)


def gamma3(theta_l: float, m: ModelBoundInputs, k: BoundConstants = BoundConstants()) -> float:
    """(35b) ``Gamma3 = (1 + phi1)(1 + 1/varphi1 + 1/varphi2) Theta_L + Gamma1``."""
    return (1 + k.vphi1) * (1 + 1 / k.phi1 + 1 / k.phi2) * theta_l + gamma1(m, k)


def theta_l_min(rho_selected, m: ModelBoundInputs, bits: int = 16) -> float:
    """Lemma 1's ``Theta_L = [2C^2 + (2 - beta^2)|w|(C + 3 sigma)^2 - |w| sigma^2] mean_{N_t} rho_{n,L}``."""
    rho = np.asarray(rho_selected, float)
    if rho.size == 0:
        return 0.0
    beta = 1 / (2.0**bits - 1)
    w = m.num_params
    return float((2 * m.clip**2 + (2 - beta**2) * w * (m.clip + 3 * m.sigma) ** 2 - w * m.sigma**2) * rho.mean())


def phi_pl(eta, lam, rho_g, *, g0: float, mu: float, eps_f: float, gam2: float, gam3: float,
           k: BoundConstants = BoundConstants()):
    """(34) ``Phi_n = (1 + lambda^3) eta^2 G_n + Psi (Gamma2 rho_G + Gamma3 + (G0^2 + M mu)^2 / mu^2 eps_F)``.

    Broadcasts over ``eta``, ``lam`` and ``rho_g`` (mean of eps_F over N_t = eps_F: equal eta_F).
    """
    eta, lam, rho = np.asarray(eta, float), np.asarray(lam, float), np.asarray(rho_g, float)
    drift = (g0**2 + k.M * mu) ** 2 / mu**2 * eps_f
    return (1 + lam**3) * eta**2 * g_pl(lam, g0, mu, k) + psi_pl(eta, lam) * (gam2 * rho + gam3 + drift)


def phi_terms(eta, lam, rho_g, *, g0: float, mu: float, eps_f: float, gam2: float, gam3: float,
              k: BoundConstants = BoundConstants()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two parts of (34): ``A = (1 + lambda^3) eta^2 G_n`` (gradient term), ``Psi`` and the noise
    weight ``X = Gamma2 rho_G + Gamma3 + (G0^2 + M mu)^2 / mu^2 eps_F``; ``Phi = A + Psi X``."""
    eta, lam, rho = np.asarray(eta, float), np.asarray(lam, float), np.asarray(rho_g, float)
    a = (1 + lam**3) * eta**2 * g_pl(lam, g0, mu, k)
    x = gam2 * rho + gam3 + (g0**2 + k.M * mu) ** 2 / mu**2 * eps_f
    return a, psi_pl(eta, lam), x


def constants_from_gradients(local_grads: np.ndarray, mu: float) -> tuple[float, float]:
    """Assumption 1's ``G0`` and ``M`` from the full local gradients ``[N, P]`` of a model (at ``w0``).

    ``G0 = max_n ||grad F_n||``; ``M``: by mu-strong convexity of ``F_n``, ``||u_n* - w*|| <=
    ||grad F_n(w*)|| / mu`` and ``grad F(w*) = 0``, so ``M ~ max_n ||grad F_n - mean_m grad F_m|| / mu``
    (the heterogeneity of the local gradients, evaluated where they are measured).
    """
    g = np.asarray(local_grads, dtype=np.float64)
    if g.ndim != 2 or g.shape[0] < 1:
        raise ValueError(f"local_grads must be [N, P], got shape {g.shape}")
    if not mu > 0:
        raise ValueError(f"mu must be > 0, got {mu}")
    g0 = float(np.linalg.norm(g, axis=1).max())
    m = float(np.linalg.norm(g - g.mean(0, keepdims=True), axis=1).max() / mu)
    return g0, m


_GOLD = (math.sqrt(5) - 1) / 2


def solve_p7(rho_g, *, g0: float, mu: float, eps_p: float, eps_f: float, gam2: float, gam3: float,
             k: BoundConstants = BoundConstants(), grid: int = 512, golden_iters: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Problem P7 (39) for all clients at once: ``min_{eta in Omega0 u Omega1} Phi_n(eta, lambda(eta))``.

    Per non-empty interval: ``grid`` log-spaced points (ends shrunk by 1e-9 relative), then
    ``golden_iters`` golden-section steps inside the best grid cell; the better interval wins.
    Returns ``(eta_P, lambda, Phi)`` arrays shaped like ``rho_g``.
    """
    rho = np.atleast_1d(np.asarray(rho_g, float))
    f = lambda e: phi_pl(e, lambda_of_eta(e, mu, eps_p), rho[:, None], g0=g0, mu=mu, eps_f=eps_f,  # noqa: E731
                         gam2=gam2, gam3=gam3, k=k)
    best_eta = np.full(rho.shape, np.nan)
    best_val = np.full(rho.shape, np.inf)
    for lo, hi in feasible_intervals(mu, eps_p):
        a, b = lo * (1 + 1e-9), hi * (1 - 1e-9)
        if not a < b:
            continue
        xs = np.geomspace(a, b, grid)
        vals = f(np.broadcast_to(xs, (rho.size, grid)))
        j = np.argmin(vals, axis=1)
        left = xs[np.maximum(j - 1, 0)]
        right = xs[np.minimum(j + 1, grid - 1)]
        for _ in range(golden_iters):
            x1 = right - _GOLD * (right - left)
            x2 = left + _GOLD * (right - left)
            f1, f2 = f(x1[:, None])[:, 0], f(x2[:, None])[:, 0]
            go_left = f1 < f2
            right = np.where(go_left, x2, right)
            left = np.where(go_left, left, x1)
        cand = np.where(f1 < f2, x1, x2)
        cval = np.minimum(f1, f2)
        grid_best = vals[np.arange(rho.size), j]
        cand = np.where(grid_best < cval, xs[j], cand)
        cval = np.minimum(grid_best, cval)
        better = cval < best_val
        best_eta = np.where(better, cand, best_eta)
        best_val = np.where(better, cval, best_val)
    lam = lambda_of_eta(best_eta, mu, eps_p)
    return best_eta.reshape(np.shape(rho_g) or (1,)), lam.reshape(np.shape(rho_g) or (1,)), best_val.reshape(np.shape(rho_g) or (1,))


def lipschitz_and_convexity(config: str) -> tuple[float, float]:
    """Footnote of Sec. VII: ``(L, mu)`` per model-dataset configuration."""
    table = {"dnn_mnist": (1.32, 0.27), "mlr_mnist": (0.43, 0.13), "cnn_fmnist": (0.29, 0.05), "cnn_cifar10": (0.33, 0.09)}
    if config not in table:
        raise ValueError(f"unknown configuration {config!r}; allowed: {', '.join(table)}")
    return table[config]
