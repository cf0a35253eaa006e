"""Privacy of over-the-air FL whose only noise is the receiver's (Mao, Yin, Yener, Liu; ota_jammer).

The paper's moments accountant in closed form (Thms 1/3, eqs. 20/21 and 24/25) and its inverse,
beside cross-checks from ``dp-accounting`` (RDP and PLD accountants), which give tighter (smaller)
epsilons for the same noise. The closed form is the paper's number; the library is the check.

Setting: per transmission m the parameter server observes the model-domain sum of the clients'
scaled updates plus Gaussian noise of std ``sigma_m`` (receiver noise ``sigma_c/alpha_u``, plus
the cooperative jammer's contribution). Client i's sensitivity is ``1/(s_i^m |D|)``. The Gaussian
log-moment is ``lambda(lambda+1) Delta^2/(2 sigma^2)``; composing M transmissions gives an RDP
curve ``RDP(alpha) = S * alpha`` and the tail bound minimised over ``lambda``::

    epsilon = S + 2 sqrt(S L),   S = (1/(2|D|^2)) sum_m 1/((s^m)^2 sigma_m^2),   L = ln(1/delta)

Example
-------
>>> S = ma_budget(6.52, 1e-5)                      # S*(eps, delta) = (sqrt(L+eps) - sqrt(L))^2
>>> round(ma_epsilon(S, 1e-5), 6)
6.52
>>> round(ma_epsilon(S, 1e-2), 4)                  # the same noise read at delta = 0.01 (paper: "4.4")
4.3913
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

__all__ = [
    "log_inv_delta", "ma_epsilon", "ma_budget", "ma_rate", "ma_epsilon_for_noise",
    "ma_epsilon_per_client", "ma_epsilon_numeric", "dp_accounting_epsilon", "equivalent_noise_std",
    "liu_simeone_rdp_budget", "liu_simeone_cinv", "liu_simeone_epsilon",
]


def log_inv_delta(delta: float) -> float:
    """``L = ln(1/delta)``; delta must lie in the open interval (0, 1) (Thm 1 prints [0, 1]; ln(1/delta) must be finite and positive)."""
    if not (isinstance(delta, (int, float)) and 0.0 < float(delta) < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return math.log(1.0 / float(delta))


def _check_nonneg(name: str, value: float) -> float:
    value = float(value)
    if not (value >= 0.0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def ma_epsilon(rate: float, delta: float) -> float:
    """Eq. (21)/(25): ``epsilon = S + 2 sqrt(S L)`` for the composed RDP slope ``S`` (>= 0)."""
    rate = _check_nonneg("S (RDP slope)", rate)
    L = log_inv_delta(delta)
    return rate + 2.0 * math.sqrt(rate * L)


def ma_budget(epsilon: float, delta: float) -> float:
    """Inverse of :func:`ma_epsilon`: the largest ``S`` with ``S + 2 sqrt(S L) <= epsilon``.

    ``S*(epsilon, delta) = (sqrt(L + epsilon) - sqrt(L))^2``; it equals ``a^2/L`` with ``a`` of eq. (23).
    """
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    L = log_inv_delta(delta)
    return (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2


def ma_rate(noise_stds: Sequence[float] | np.ndarray, dataset_size: int,
            power_factors: Sequence[float] | np.ndarray | None = None) -> float:
    """The RDP slope ``S = (1/(2|D|^2)) sum_m 1/((s^m)^2 sigma_m^2)`` (eq. 20; s = 1 gives eq. 21).

    ``noise_stds`` are the model-domain noise stds of the M transmissions (all > 0); ``power_factors``
    the client's s^m (>= 1), or None for the all-client bound.
    """
    sig = np.asarray(noise_stds, dtype=float).ravel()
    if dataset_size <= 0:
        raise ValueError(f"dataset_size |D| must be > 0, got {dataset_size!r}")
    if sig.size == 0 or np.any(~np.isfinite(sig)) or np.any(sig <= 0):
        raise ValueError("noise_stds must be a non-empty sequence of finite values > 0 "
                         "(a noiseless transmission has no finite privacy)")
    if power_factors is None:
        s = np.ones_like(sig)
    else:
        s = np.broadcast_to(np.asarray(power_factors, dtype=float), sig.shape)
        if np.any(s < 1.0):
            raise ValueError(f"power-feasibility factors s must be >= 1, got min {s.min()!r}")
    return float(np.sum(1.0 / (s * sig) ** 2) / (2.0 * dataset_size ** 2))


def ma_epsilon_for_noise(noise_stds, dataset_size: int, delta: float) -> float:
    """Eq. (21)/(25): the epsilon bound that holds for every client, from the realised noise stds."""
    return ma_epsilon(ma_rate(noise_stds, dataset_size), delta)


def ma_epsilon_per_client(noise_stds, dataset_size: int, delta: float, power_factors) -> np.ndarray:
    """Eq. (20)/(24): per-client epsilons from the realised ``s_i^m``, array ``[M, K]`` -> ``[K]``.

    Guarantee: every entry is <= :func:`ma_epsilon_for_noise` of the same noise (because s >= 1).
    """
    s = np.asarray(power_factors, dtype=float)
    sig = np.asarray(noise_stds, dtype=float).ravel()
    if s.ndim == 1:
        s = s[:, None]
    if s.shape[0] != sig.size:
        raise ValueError(f"power_factors has {s.shape[0]} rounds but noise_stds has {sig.size}")
    return np.array([ma_epsilon(ma_rate(sig, dataset_size, s[:, k]), delta) for k in range(s.shape[1])])


def ma_epsilon_numeric(rate: float, delta: float) -> float:
    """Numerical ``min_{lambda>0} (S lambda (lambda+1) + L)/lambda``: checks the closed form (eq. 21).

    Golden-section search on ``log lambda`` (the objective is convex in lambda); numpy only, so a
    training run can afford it.
    """
    rate = _check_nonneg("S (RDP slope)", rate)
    L = log_inv_delta(delta)
    if rate == 0.0:
        return 0.0
    f = lambda t: rate * (math.exp(t) + 1.0) + L * math.exp(-t)  # noqa: E731  (t = log lambda)
    t0 = 0.5 * math.log(L / rate)
    lo, hi = t0 - 7.0, t0 + 7.0
    g = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = f(a), f(b)
    for _ in range(200):
        if hi - lo < 1e-13:
            break
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = f(b)
    return float(min(fa, fb))


def equivalent_noise_std(noise_stds) -> float:
    """``sqrt(M / sum_m 1/sigma_m^2)``: M releases at this one std compose to exactly the same RDP (and
    Gaussian-DP) curve as the M releases at ``sigma_m`` with a common sensitivity (e.g. [13]'s noise,
    which changes every round)."""
    sig = np.asarray(noise_stds, dtype=float).ravel()
    if sig.size == 0 or np.any(~np.isfinite(sig)) or np.any(sig <= 0):
        raise ValueError("noise_stds must be a non-empty sequence of finite values > 0")
    return float(math.sqrt(sig.size / np.sum(1.0 / sig ** 2)))


def dp_accounting_epsilon(noise_multiplier: float, steps: int, delta: float, accountant: str = "rdp",
                          pld_discretization: float = 1e-4) -> float:
    """Epsilon of ``steps`` Gaussian mechanisms with ``noise_multiplier = sigma_m |D|`` by dp-accounting.

    ``accountant``: ``"rdp"`` (RdpAccountant, default orders) or ``"pld"`` (PLDAccountant). These use
    tighter RDP->DP conversions than the paper's eq. (21), so they return a smaller epsilon.
    """
    import dp_accounting
    from dp_accounting import pld, rdp

    if noise_multiplier <= 0 or steps <= 0:
        raise ValueError(f"need noise_multiplier > 0 and steps > 0, got {noise_multiplier!r}, {steps!r}")
    log_inv_delta(delta)
    event = dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(noise_multiplier), int(steps))
    if accountant == "rdp":
        acc = rdp.RdpAccountant()
    elif accountant == "pld":
        acc = pld.PLDAccountant(value_discretization_interval=pld_discretization)
    else:
        raise ValueError(f"unknown accountant {accountant!r}; allowed: rdp, pld")
    acc.compose(event)
    return float(acc.get_epsilon(delta))


# ---------------------------------------------------------------------------------------------
# Baseline [13] (Liu & Simeone, "Privacy for free", JSAC 2021): its (epsilon, delta) accountant.


def liu_simeone_cinv(delta: float) -> float:
    """``C^{-1}(1/delta)`` with ``C(x) = sqrt(pi) x exp(x^2)`` (increasing on x > 0).

    Solves ``log C(x) = ln(1/delta)`` by bisection (``log C`` is increasing), to machine precision.
    """
    target = log_inv_delta(delta)
    f = lambda x: 0.5 * math.log(math.pi) + math.log(x) + x * x - target  # noqa: E731
    lo, hi = 1e-300, 1.0
    while f(hi) < 0:
        hi *= 2.0
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 4e-16 * hi:
            break
    return 0.5 * (lo + hi)


def liu_simeone_rdp_budget(epsilon: float, delta: float) -> float:
    """``R_dp(epsilon, delta) = (sqrt(epsilon + C^{-1}(1/delta)^2) - C^{-1}(1/delta))^2`` ([13]).

    The [13]-style constraint is ``sum_m Delta_m^2 beta_m / sigma_c^2 <= R_dp`` with the replace-one
    sensitivity ``Delta = 2/|D|``.
    """
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    c = liu_simeone_cinv(delta)
    return (math.sqrt(epsilon + c * c) - c) ** 2


def liu_simeone_epsilon(rdp_sum: float, delta: float) -> float:
    """Inverse of :func:`liu_simeone_rdp_budget`: the epsilon [13]'s accountant gives a run whose
    ``sum_m Delta^2 beta_m / sigma_c^2`` (replace-one Delta = 2/|D|) equals ``rdp_sum``:
    ``epsilon = R + 2 C^{-1}(1/delta) sqrt(R)``."""
    r = _check_nonneg("R (sum of squared sensitivity over noise variance)", rdp_sum)
    c = liu_simeone_cinv(delta)
    return r + 2.0 * c * math.sqrt(r)
