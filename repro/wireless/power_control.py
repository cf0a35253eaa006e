"""Power control for over-the-air (OTA) aggregation with channel-noise privacy (ota_jammer paper).

Two schemes on block-Rayleigh-fading channels, both with channel inversion by the clients:

*Proposed, decentralised* (Mao et al., eqs. 13-14, 17): client i sends ``x_i = alpha_i Delta_i`` with
``alpha_i = alpha_u p_i / (|h_i| tau s_i)``; ``s_i >= 1`` shrinks the signal only when the power budget
(11) would be exceeded, using only the client's own ``|h_i|`` and ``p_i``::

    s_i = max(1, alpha_u p_i / (|h_i| sqrt(P_i)))        # smallest feasible s_i when ||Delta_i|| <= tau

The server factor ``alpha_u`` is constant over rounds and calibrated from the privacy target
(:func:`server_factor_for_target`).

*Baseline [13]* (Liu & Simeone, JSAC 2021, reconstructed: its text is not available here): a common alignment gain
``beta_m`` limited by the weakest client, ``beta_max = min_i P_i |h_i|^2 / p_i^2``, and an offline adaptive
allocation ``beta_m = min(beta_max_m, c gamma^{(M-m)/2})`` whose constant ``c`` is found by bisection so
the privacy budget ``sum_m beta_m <= B`` holds with equality (:func:`adaptive_common_gains`).

All arrays are numpy; shapes ``[K]`` per round or ``[M, K]`` for a whole run.
"""

from __future__ import annotations

import math

import numpy as np

from repro.privacy.ota_accounting import liu_simeone_rdp_budget, ma_budget

__all__ = [
    "power_budget_from_snr", "server_factor_for_target", "power_feasibility_factors", "client_amplitudes",
    "transmit_energy_ratio", "common_gain_cap", "adaptive_common_gains", "baseline_gain_budget",
]


def power_budget_from_snr(snr_db: float, num_params: int, noise_var: float = 1.0) -> float:
    """``P_i = 10^{SNR_dB/10} d sigma_c^2`` from ``SNR_i = P_i/(d sigma_c^2)`` (the paper's Sec. V, as in [13])."""
    if num_params <= 0 or noise_var <= 0:
        raise ValueError(f"need num_params > 0 and noise_var > 0, got {num_params!r}, {noise_var!r}")
    return 10.0 ** (snr_db / 10.0) * num_params * noise_var


def server_factor_for_target(epsilon: float, delta: float, num_transmissions: int, dataset_size: int,
                             noise_std: float = 1.0) -> float:
    """Constant server factor ``alpha_u = sigma_c |D| sqrt(2 S*(eps, delta)/M)`` (eqs. 21/25).

    Guarantee: with receiver noise only (no jammer), M transmissions at this ``alpha_u`` give exactly
    ``epsilon`` in the paper's bound (21) at ``delta``.
    """
    if num_transmissions <= 0 or dataset_size <= 0 or noise_std <= 0:
        raise ValueError(f"need M > 0, |D| > 0, sigma_c > 0; got {num_transmissions!r}, {dataset_size!r}, {noise_std!r}")
    return noise_std * dataset_size * math.sqrt(2.0 * ma_budget(epsilon, delta) / num_transmissions)


def power_feasibility_factors(alpha_u: float, weights, channel_abs, power_budget) -> np.ndarray:
    """Eq. (14) with (11): ``s_i = max(1, alpha_u p_i / (|h_i| sqrt(P_i)))`` (>= 1, elementwise)."""
    p = np.asarray(weights, dtype=float)
    h = np.asarray(channel_abs, dtype=float)
    P = np.asarray(power_budget, dtype=float)
    if np.any(h <= 0):
        raise ValueError("channel magnitudes |h_i| must be > 0")
    if np.any(P <= 0) or alpha_u <= 0:
        raise ValueError(f"power budgets and alpha_u must be > 0, got alpha_u={alpha_u!r}")
    return np.maximum(1.0, alpha_u * p / (h * np.sqrt(P)))


def client_amplitudes(alpha_u: float, weights, channel_abs, tau: float, s) -> np.ndarray:
    """Eq. (14): ``alpha_i = alpha_u p_i / (|h_i| tau s_i)`` (phase compensation makes ``h_i alpha_i`` real)."""
    if tau <= 0:
        raise ValueError(f"tau must be > 0, got {tau!r}")
    return alpha_u * np.asarray(weights, float) / (np.asarray(channel_abs, float) * tau * np.asarray(s, float))


def transmit_energy_ratio(amplitudes, update_norms, power_budget) -> np.ndarray:
    """``||x_i||^2 / P_i`` with ``x_i = alpha_i Delta_i`` (eq. 13); constraint (11) is ratio <= 1."""
    a = np.asarray(amplitudes, float)
    return (a * np.asarray(update_norms, float)) ** 2 / np.asarray(power_budget, float)


# ---------------------------------------------------------------------------------------------
# Baseline [13]


def common_gain_cap(weights, channel_gains_sq, power_budget) -> np.ndarray:
    """``beta_max = min_i P_i |h_i|^2 / p_i^2`` over the last axis (the weakest client limits the gain)."""
    p = np.asarray(weights, float)
    g = np.asarray(channel_gains_sq, float)
    return np.min(np.asarray(power_budget, float) * g / p ** 2, axis=-1)


def baseline_gain_budget(epsilon: float, delta: float, dataset_size: int, noise_var: float = 1.0,
                         accountant: str = "ls") -> float:
    """The allowed ``sum_m beta_m`` of [13]'s scheme for the privacy target.

    ``ls`` ([13]-style, replace-one sensitivity 2/|D|): ``sum 4 beta/(|D|^2 sigma_c^2) <= R_dp(eps, delta)``.
    ``ma`` (ablation, the paper's accountant): ``sum beta/(2 |D|^2 sigma_c^2) <= S*(eps, delta)``.
    """
    if accountant == "ls":
        return liu_simeone_rdp_budget(epsilon, delta) * dataset_size ** 2 * noise_var / 4.0
    if accountant == "ma":
        return 2.0 * ma_budget(epsilon, delta) * dataset_size ** 2 * noise_var
    raise ValueError(f"unknown accountant {accountant!r}; allowed: ls, ma")


def adaptive_common_gains(beta_max, budget: float, gamma: float = 1.0, tol: float = 1e-12) -> np.ndarray:
    """Offline adaptive allocation ``beta_m = min(beta_max_m, c gamma^{(M-m)/2})``, m = 1..M.

    ``c`` is found by bisection so ``sum_m beta_m = budget``; if ``sum beta_max <= budget`` already,
    ``beta_m = beta_max_m``. Guarantee: ``0 < beta_m <= beta_max_m`` and ``sum beta_m <= budget (1 + tol)``.
    """
    bmax = np.asarray(beta_max, float).ravel()
    if bmax.size == 0 or np.any(bmax <= 0):
        raise ValueError("beta_max must be a non-empty array of values > 0")
    if budget <= 0:
        raise ValueError(f"budget must be > 0, got {budget!r}")
    if not (0.0 < gamma <= 1.0):
        raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
    if bmax.sum() <= budget:
        return bmax.copy()
    M = bmax.size
    shape = gamma ** ((M - np.arange(1, M + 1)) / 2.0)
    total = lambda c: np.minimum(bmax, c * shape).sum()  # noqa: E731  (increasing in c)
    lo, hi = 0.0, budget / shape.min()
    while total(hi) < budget:  # pragma: no cover - cannot happen since sum(bmax) > budget
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if total(mid) > budget:
            hi = mid
        else:
            lo = mid
        if hi - lo <= tol * hi:
            break
    return np.minimum(bmax, lo * shape)
