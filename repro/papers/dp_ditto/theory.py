"""Analytic results of the DP-Ditto paper (Zhao et al., "Convergence-Privacy-Fairness Trade-Off in PFL").

Equation numbers are the paper's. Three groups:

* eq. (7)-(8): the Gaussian noise calibration of DP-Ditto (``sensitivity``, ``sigma_u``, ``sigma_z``),
  and a privacy diagnostic (the (eps, delta) an RDP accountant actually certifies for that noise).
* Theorem 1, eqs. (14)-(19): the convergence upper bound h(T, lambda) of the personalised models,
  its linear lower bound h_Low(T) and the 1-D search for T* (Sec. 4.2), with two errata
  fixed (README) (eq. (17): eps_Low -> eps_L / eps_G; eq. (18b): the constant term is
  +K/(1-eps) + beta*phi_L*T/(1-eps)^2).
* Theorems 2-3 and Corollary 1, eqs. (29)-(32): the fairness measure R(lambda) of personalised
  Bayesian linear regression, the cubic whose root in [0, 1] gives alpha_0* and lambda*, and the
  closed form of Lemma 3. ``corrected=True`` replaces the printed first term 2 d sigma_B^2 of (31)
  by 2 d sigma_B^4 (the variance of a squared Gaussian); the printed form is the default.

Everything here is numpy/scipy only (no torch), so it is cheap to import.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

# ---------------------------------------------------------------------------------------------
# eq. (7)-(8): noise calibration


def _check_positive(name: str, value: float) -> None:
    if not (value > 0):
        raise ValueError(f"{name} must be > 0, got {value!r}")


def sensitivity(clip: float, num_samples: int) -> float:
    """Eq. (7): L2 sensitivity Delta_s = 2C/|D_n| of a clipped local model (one sample replaced)."""
    _check_positive("clip C", clip)
    _check_positive("num_samples |D_n|", num_samples)
    return 2.0 * clip / num_samples


def sigma_u(epsilon: float, delta: float, rounds: int, num_clients: int, clip: float, num_samples: int) -> float:
    """Eq. (8): per-client noise std sigma_u = Delta_s sqrt(2 T N ln(1/delta)) / (eps N).

    ``rounds`` is the horizon T (every round's noise depends on T, not on t). ``epsilon = inf``
    gives 0 (non-private Ditto).
    """
    if math.isinf(epsilon) and epsilon > 0:
        return 0.0
    _check_positive("epsilon", epsilon)
    if not (0 < delta < 1):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    _check_positive("rounds T", rounds)
    _check_positive("num_clients N", num_clients)
    ds = sensitivity(clip, num_samples)
    return ds * math.sqrt(2.0 * rounds * num_clients * math.log(1.0 / delta)) / (epsilon * num_clients)


def sigma_z(epsilon: float, delta: float, rounds: int, num_clients: int, clip: float, num_samples: int) -> float:
    """Eq. (8): std of the summed noise z^t = sum_n z_n^t, sigma_z = sqrt(N) sigma_u = Delta_s sqrt(2T ln(1/delta))/eps."""
    return math.sqrt(num_clients) * sigma_u(epsilon, delta, rounds, num_clients, clip, num_samples)


def rdp_epsilon(noise_multiplier: float, rounds: int, delta: float) -> float:
    """Diagnostic (README, privacy): epsilon certified by the RDP accountant of ``dp-accounting`` for
    ``rounds`` compositions of the Gaussian mechanism with noise multiplier sigma/Delta_s, no
    subsampling. Eq. (8) assumes sampling rate q = 1/N although every client takes part in every
    round, so this is much larger than the nominal epsilon; reported, never asserted."""
    import dp_accounting
    from dp_accounting import rdp

    _check_positive("noise_multiplier", noise_multiplier)
    acc = rdp.RdpAccountant()
    acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier), int(rounds))
    return float(acc.get_epsilon(delta))


# ---------------------------------------------------------------------------------------------
# Theorem 1: h(T, lambda)


@dataclass(frozen=True)
class ConvergenceConstants:
    """Constants of Assumption 1 and the DP set-up entering Theorem 1.

    Defaults are an illustrative set (not from the paper, which gives none; not measured): MLR/MNIST,
    lambda = 0.1, eps = 100, delta = 0.01.
    """

    lam: float = 0.1
    epsilon: float = 100.0
    delta: float = 0.01
    num_clients: int = 20
    clip: float = 20.0
    eta_g: float = 0.005
    eta_l: float = 0.005
    dim: int = 7850
    num_samples: int = 2625
    mu: float = 30.0
    smooth: float = 200.0  # L
    g0: float = 1.0
    m_gap: float = 1.0  # M = max ||u_n* - omega*||
    psi1: float = 2.3  # F(omega^0) - F(omega*)
    psi2: float = 10.0  # ||varpi^0 - varpi*||^2

    def with_(self, **kw) -> "ConvergenceConstants":
        return replace(self, **kw)


def eps_g(c: ConvergenceConstants) -> float:
    """Lemma 2: contraction of the global model, eps_G = 1 - 2 mu eta_G + mu eta_G^2 L."""
    return 1.0 - 2.0 * c.mu * c.eta_g + c.mu * c.eta_g**2 * c.smooth


def eps_l(c: ConvergenceConstants) -> float:
    """Lemma 1: contraction of the personalised model, eps_L = 1 - eta_L((1 - lam/2) mu + lam) + eta_L."""
    return 1.0 - c.eta_l * ((1.0 - c.lam / 2.0) * c.mu + c.lam) + c.eta_l


def d_eps_l_d_lambda(c: ConvergenceConstants) -> float:
    """d eps_L / d lambda = eta_L (mu/2 - 1): eps_L increases with lambda iff mu > 2 (claim 17)."""
    return c.eta_l * (c.mu / 2.0 - 1.0)


def g_const(c: ConvergenceConstants) -> float:
    """G = ((1 - lam/2) G0 + lam (G0/mu + M))^2 (Lemma 1)."""
    return ((1.0 - c.lam / 2.0) * c.g0 + c.lam * (c.g0 / c.mu + c.m_gap)) ** 2


def beta_const(c: ConvergenceConstants) -> float:
    """beta = (4 eta_L^2 lam^2 + 2 eta_L lam^2)/mu (Lemma 1); zero at lam = 0 (eq. (11))."""
    return (4.0 * c.eta_l**2 * c.lam**2 + 2.0 * c.eta_l * c.lam**2) / c.mu


def k_const(c: ConvergenceConstants) -> float:
    """K = (1 + lam^2) eta_L^2 G."""
    return (1.0 + c.lam**2) * c.eta_l**2 * g_const(c)


def phi_l(c: ConvergenceConstants) -> float:
    """phi_L = sigma_z^2 d L / (2 T N^2) = Delta_s^2 L d ln(1/delta) / (N^2 eps^2) (T cancels); 0 at eps = inf."""
    if math.isinf(c.epsilon):
        return 0.0
    ds = sensitivity(c.clip, c.num_samples)
    return ds**2 * c.smooth * c.dim * math.log(1.0 / c.delta) / (c.num_clients**2 * c.epsilon**2)


def check_assumptions(c: ConvergenceConstants) -> list[str]:
    """Violations of Assumption 1 (empty list when all hold)."""
    out = []
    if not 0 <= c.lam <= 2:
        out.append(f"lambda={c.lam} not in [0, 2]")
    if c.eta_g > 2.0 / c.smooth:
        out.append(f"eta_G={c.eta_g} > 2/L={2.0 / c.smooth}")
    if c.lam < 2 and not c.mu > (2 - 2 * c.lam) / (2 - c.lam):
        out.append(f"mu={c.mu} <= (2-2lam)/(2-lam)={(2 - 2 * c.lam) / (2 - c.lam)}")
    return out


@dataclass(frozen=True)
class HCoefficients:
    """Eq. (16b): h = (H1 + H2 T) eps_L^T + (H3 + H4 T) eps_G^T + H5 T + H6 (case eps_L != eps_G)."""

    eps_l: float
    eps_g: float
    h1: float
    h2: float
    h3: float
    h4: float
    h5: float
    h6: float


def h_coefficients(c: ConvergenceConstants) -> HCoefficients:
    """Eq. (16b) coefficients (requires eps_L != eps_G and eps_L, eps_G != 1)."""
    el, eg = eps_l(c), eps_g(c)
    if abs(el - eg) < 1e-10:
        raise ValueError(f"eps_L = eps_G = {el}: use the degenerate form (15)/(18), not (16)")
    b, k, ph = beta_const(c), k_const(c), phi_l(c)
    return HCoefficients(
        eps_l=el,
        eps_g=eg,
        h1=c.psi2 + b * c.psi1 / (el - eg) - k / (1 - el),
        h2=-b * ph / ((1 - el) * (el - eg)),
        h3=-b * c.psi1 / (el - eg),
        h4=b * ph / ((1 - eg) * (el - eg)),
        h5=b * ph / ((1 - eg) * (1 - el)),
        h6=k / (1 - el),
    )


def h_bound(T, c: ConvergenceConstants, phi: float | None = None):
    """Theorem 1, eq. (14) (eq. (15) when |eps_L - eps_G| < 1e-10): the convergence upper bound
    h(T, lambda) of E||varpi_n^T - varpi_n*||^2 after T aggregations. Vectorised over ``T``.

    ``phi`` overrides phi_L (``phi=0`` gives the bound without DP noise).
    """
    T = np.asarray(T, dtype=float)
    el, eg = eps_l(c), eps_g(c)
    b, k = beta_const(c), k_const(c)
    ph = phi_l(c) if phi is None else float(phi)
    elT, elT1 = el**T, el ** (T - 1)
    base = elT * c.psi2 + k * (elT - 1) / (el - 1)
    if abs(el - eg) < 1e-10:  # eq. (15)
        e = el
        dp = ((T - 1) * e ** (T - 1) - (e ** (T - 1) - 1) / (e - 1)) * ph * T / (e - 1)
        return base + b * (T * e ** (T - 1) * c.psi1 + dp)
    egT, egT1 = eg**T, eg ** (T - 1)
    dp = ((elT1 - egT1) / (el / eg - 1) - (elT1 - 1) / (el - 1)) * ph * T / (eg - 1)
    return base + b * ((elT - egT) / (el - eg) * c.psi1 + dp)


def h_bound_16(T, c: ConvergenceConstants):
    """Eq. (16a) written with the coefficients (16b); equals (14)."""
    T = np.asarray(T, dtype=float)
    H = h_coefficients(c)
    return (H.h1 + H.h2 * T) * H.eps_l**T + (H.h3 + H.h4 * T) * H.eps_g**T + H.h5 * T + H.h6


def min_a_t_rt(a: float, r: float) -> float:
    """min over T >= 0 of a T r^T for 0 < r < 1: a/(e (-ln r)) when a < 0, else 0 (at T = 0)."""
    if not 0 < r < 1:
        raise ValueError(f"ratio r must be in (0, 1), got {r!r}")
    return a / (math.e * (-math.log(r))) if a < 0 else 0.0


def h_low_offset(c: ConvergenceConstants) -> float:
    """H0 of eq. (17) (erratum fixed: eps_Low -> eps_L in case eps_L > eps_G, eps_G otherwise).

    Each term of (16a) is bounded below on T >= 0: H1 eps_L^T >= min(H1, 0); H3 eps_G^T >= min(H3, 0);
    a T r^T >= min_T a T r^T; H6 stays. This reproduces the printed case rules in both cases.
    """
    H = h_coefficients(c)
    return (min(H.h1, 0.0) + min_a_t_rt(H.h2, H.eps_l) + min(H.h3, 0.0) + min_a_t_rt(H.h4, H.eps_g) + H.h6)


def h_low(T, c: ConvergenceConstants):
    """Eq. (17): the linear lower bound h_Low(T) = H0 + H5 T of h(T, lambda)."""
    H = h_coefficients(c)
    return h_low_offset(c) + H.h5 * np.asarray(T, dtype=float)


def t_prime(c: ConvergenceConstants) -> float:
    """T' = (H1 + H3 + H6 - H0)/H5 = (h(0) - H0)/H5: beyond T', h_Low(T) > h(0) so T* < T'."""
    H = h_coefficients(c)
    return (H.h1 + H.h3 + H.h6 - h_low_offset(c)) / H.h5 if H.h5 > 0 else math.inf


def h_low_degenerate(T, c: ConvergenceConstants):
    """Eq. (19) corrected (case eps_L = eps_G = eps): h_Low = H0'' + H3'' T^2 eps^T + beta phi_L T/(1-eps)^2.

    H1'' = Psi2 - K/(1-eps), H2'' = (beta/eps)(Psi1 - eps phi_L/(1-eps)^2), H3'' = -beta phi_L/(eps(1-eps)),
    H0'' = K/(1-eps) + [min_T H2'' T eps^T if H2'' < 0] + [H1'' if H1'' < 0].
    """
    T = np.asarray(T, dtype=float)
    e, b, k, ph = eps_l(c), beta_const(c), k_const(c), phi_l(c)
    h1 = c.psi2 - k / (1 - e)
    h2 = (b / e) * (c.psi1 - e * ph / (1 - e) ** 2)
    h3 = -b * ph / (e * (1 - e))
    h0 = k / (1 - e) + min_a_t_rt(h2, e) + min(h1, 0.0)
    return h0 + h3 * T**2 * e**T + b * ph * T / (1 - e) ** 2


def search_t_star(c: ConvergenceConstants, t_max: int = 5000) -> tuple[int, float]:
    """Sec. 4.2: T* = argmin of h(T, lambda) over integers T in [1, min(T', t_max)] (step 1).

    T' is astronomically large for plausible constants, so the search is capped at ``t_max``; when
    eps_L or eps_G >= 1 (Assumption 1 violated) T' is undefined and the search runs to ``t_max``.
    Returns (T*, h(T*)).
    """
    upper = t_max
    el, eg = eps_l(c), eps_g(c)
    if abs(el - eg) >= 1e-10 and el < 1 and eg < 1:  # T' needs Theorem 1's lower bound (eps_L, eps_G < 1)
        tp = t_prime(c)
        if math.isfinite(tp):
            upper = int(min(t_max, max(1, math.floor(tp))))
    Ts = np.arange(1, upper + 1)
    h = h_bound(Ts, c)
    i = int(np.argmin(h))
    return int(Ts[i]), float(h[i])


def dp_part_of_h(T, c: ConvergenceConstants):
    """The DP-induced part h(T, lambda; phi_L) - h(T, lambda; 0) (text after Theorem 1)."""
    return h_bound(T, c) - h_bound(T, c, phi=0.0)


# ---------------------------------------------------------------------------------------------
# Theorems 2-3, Corollary 1: fairness of personalised Bayesian linear regression


@dataclass(frozen=True)
class FairnessSetup:
    """Constants of the linear model (22)-(24) with X_n^T X_n = rho I and the data statistics G1, G2.

    Defaults are the README's reference example (D18, not from the paper): N = 20, d = 10, b = rho = 100,
    sigma^2 = 1, zeta^2 = 0.1, C = 5, T = 30, delta = 0.01, G1 = 400, G2 = 2e5.
    """

    num_clients: int = 20
    dim: int = 10
    b: int = 100
    rho: float = 100.0
    noise_var: float = 1.0  # sigma^2
    zeta2: float = 0.1  # zeta^2
    clip: float = 5.0
    rounds: int = 30
    delta: float = 0.01
    g1: float = 400.0
    g2: float = 2e5

    def with_(self, **kw) -> "FairnessSetup":
        return replace(self, **kw)


def s1(f: FairnessSetup) -> float:
    """S1 = sigma^2 / (N (sigma^2 + rho zeta^2)) (Theorem 2)."""
    return f.noise_var / (f.num_clients * (f.noise_var + f.rho * f.zeta2))


def sigma_w2(f: FairnessSetup) -> float:
    """Eq. (30): sigma_w^2 = ((N-1)/(sigma^2/rho + N zeta^2) + rho/sigma^2)^-1."""
    return 1.0 / ((f.num_clients - 1) / (f.noise_var / f.rho + f.num_clients * f.zeta2) + f.rho / f.noise_var)


def fairness_sigma_z2(f: FairnessSetup, epsilon: float) -> float:
    """sigma_z^2 = Delta_s^2 2 T ln(1/delta)/eps^2 with Delta_s = 2C/b (eq. (8) with |D_n| = b)."""
    if math.isinf(epsilon):
        return 0.0
    return sigma_z(epsilon, f.delta, f.rounds, f.num_clients, f.clip, f.b) ** 2


def alpha0_of_lambda(lam, f: FairnessSetup):
    """alpha_0(lambda) = b lam / ((2 - lam) rho + b lam) (Theorem 2); maps [0, 2] onto [0, 1]."""
    lam = np.asarray(lam, dtype=float)
    return f.b * lam / ((2.0 - lam) * f.rho + f.b * lam)


def lambda_of_alpha0(a0, f: FairnessSetup):
    """Inverse of ``alpha0_of_lambda``: lambda = 2 rho alpha_0 / ((1 - alpha_0) b + rho alpha_0)."""
    a0 = np.asarray(a0, dtype=float)
    return 2.0 * f.rho * a0 / ((1.0 - a0) * f.b + f.rho * a0)


def fairness_r(lam, f: FairnessSetup, sz2: float, corrected: bool = False):
    """Theorem 2, eq. (31): the fairness measure R(lambda) (variance over clients of the personalised
    models' loss); ``sz2`` = sigma_z^2. ``corrected`` uses 2 d sigma_B^4 for the first term."""
    a0 = alpha0_of_lambda(lam, f)
    N = f.num_clients
    sb2 = sigma_w2(f) + a0**2 * sz2 / N**2
    gap = s1(f) - a0 / N
    first = 2 * f.dim * (sb2**2 if corrected else sb2)
    return first + 4 * sb2 * gap**2 * f.g1 + gap**4 * (f.g2 - f.g1**2)


def d_fairness_d_sigma_z2(lam, f: FairnessSetup):
    """dR/d sigma_z^2 of the printed (31) = (2d + 4 (S1 - S2 alpha_0)^2 G1) alpha_0^2 / N^2 >= 0 (claim 21)."""
    a0 = alpha0_of_lambda(lam, f)
    return (2 * f.dim + 4 * (s1(f) - a0 / f.num_clients) ** 2 * f.g1) * a0**2 / f.num_clients**2


def cubic_coefficients(f: FairnessSetup, sz2: float, corrected: bool = False) -> tuple[float, float, float, float]:
    """Theorem 3, eq. (32) expanded: c3 a^3 + c2 a^2 + c1 a + c0 = dR/d alpha_0 (= 0 at alpha_0*).

    s = sigma_z^2/N^2, K2 = G2 - G1^2. With ``corrected`` the first term's derivative
    8 d s alpha_0 (sigma_w^2 + alpha_0^2 s) replaces 4 d s alpha_0.
    """
    N, d, G1 = f.num_clients, f.dim, f.g1
    S1, S2, sw2 = s1(f), 1.0 / N, sigma_w2(f)
    s = sz2 / N**2
    K2 = f.g2 - G1**2
    c3 = 16 * G1 * s * S2**2 + 4 * S2**4 * K2
    c2 = -24 * G1 * s * S1 * S2 - 12 * S1 * S2**3 * K2
    c1 = 8 * G1 * s * S1**2 + 8 * S2**2 * G1 * sw2 + 12 * S1**2 * S2**2 * K2
    c0 = -8 * S1 * S2 * G1 * sw2 - 4 * S1**3 * S2 * K2
    if corrected:
        c3 += 8 * d * s**2
        c1 += 8 * d * s * sw2
    else:
        c1 += 4 * d * s
    return c3, c2, c1, c0


def alpha0_roots(f: FairnessSetup, sz2: float, corrected: bool = False) -> list[float]:
    """Real roots of the cubic (32) in [0, 1] (companion-matrix eigenvalues)."""
    roots = np.roots(cubic_coefficients(f, sz2, corrected))
    real = [float(r.real) for r in roots if abs(r.imag) <= 1e-9 * max(1.0, abs(r))]
    return sorted(r for r in real if -1e-12 <= r <= 1 + 1e-12)


def optimal_lambda(f: FairnessSetup, epsilon: float, corrected: bool = False) -> tuple[float, float]:
    """Theorem 3: (alpha_0*, lambda*) minimising R (the paper says "maximizes": erratum).

    Requires the unique root in [0, 1] that C < sqrt(d)/(2 N S1) guarantees; raises otherwise.
    """
    sz2 = fairness_sigma_z2(f, epsilon)
    roots = alpha0_roots(f, sz2, corrected)
    if len(roots) != 1:
        raise ValueError(f"expected one root of (32) in [0, 1] at eps={epsilon}, found {roots} "
                         f"(condition C < sqrt(d)/(2 N S1) = {uniqueness_bound(f):.4g}, C = {f.clip})")
    a = roots[0]
    return a, float(lambda_of_alpha0(a, f))


def uniqueness_bound(f: FairnessSetup) -> float:
    """Theorem 3: a unique lambda* exists if C < sqrt(d) / (2 N S1)."""
    return math.sqrt(f.dim) / (2 * f.num_clients * s1(f))


def personalised_closed_form(u_hat: np.ndarray, z: np.ndarray, lam: float, rho: float, b: int) -> np.ndarray:
    """Lemma 3, eq. (29): varpi_n*(lam) for every n given û (rows u_hat[n]) and DP noise z (rows), X_n^T X_n = rho I."""
    N = u_hat.shape[0]
    total = u_hat.sum(0)
    own = ((2 - lam) * rho / b + lam / N) * u_hat
    others = (lam / N) * (total[None, :] - u_hat)
    noise = (lam / N) * z.sum(0)[None, :]
    return b / ((2 - lam) * rho + b * lam) * (own + others + noise)


def personalised_general_form(X: list[np.ndarray], Y: list[np.ndarray], z: np.ndarray, lam: float) -> np.ndarray:
    """Eq. (45a): varpi_n* = ((2-lam) X_n^T X_n/b + lam I)^-1 ((2-lam) X_n^T Y_n/b + lam omega~*), with
    û_n from (25), ũ_n = û_n + z_n (27) and omega~* from (28)."""
    d = X[0].shape[1]
    grams = [x.T @ x for x in X]
    u_hat = [np.linalg.solve(g, x.T @ y) for g, x, y in zip(grams, X, Y)]
    total_gram = sum(grams)
    omega = np.linalg.solve(total_gram, sum(g @ (u + zn) for g, u, zn in zip(grams, u_hat, z)))
    out = []
    for x, y, g in zip(X, Y, grams):
        b = x.shape[0]
        out.append(np.linalg.solve((2 - lam) * g / b + lam * np.eye(d), (2 - lam) * x.T @ y / b + lam * omega))
    return np.stack(out)
