"""Monte-Carlo estimate of the loss difference (the paper's "simulation").

Fast path (vectorised numpy, common random numbers): for every client ``i`` and age ``a`` the
deviation ``d_i(a) = W_i - (1/n) sum_j v(Z_ij^(t_agg))`` of one replicate is drawn *exactly* from
``Multinomial(n, vec J_{i,a})`` over the 16 (collected, target) value pairs; one unit-Laplace draw
per (replicate, client) is scaled by ``eta_i = s / eps_c,i``. Then, with ``p_i = 1/m``,

    L(W~, D^(t_agg)) - L(w*, D^(t_agg)) = (W~ - w*)^2,   W~ - w* = (1/m) sum_i (d_i + N_i),

so one replicate costs a gather and a sum, and the same draws serve every schedule and budget.
Data and noise come from separate streams (``data`` and ``dp_noise``) of one run seed; random
schedules from the ``scheduling`` stream.

Reference path (:func:`chain_loss_difference`): step every record's chain slot by slot, compute the
local means, the noisy aggregate, ``w*`` and the empirical losses literally. Used by the unit tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repro.papers.age_dp.markov_database import MarkovEnergyDatabase


@dataclass(frozen=True)
class MonteCarloDraws:
    """Common random numbers of one seed: ``deviations[R, m, T]`` and ``unit_laplace[R, m]``."""

    deviations: np.ndarray
    unit_laplace: np.ndarray

    @property
    def replicates(self) -> int:
        return self.deviations.shape[0]


def draw_monte_carlo(db: MarkovEnergyDatabase, n: int, replicates: int, data_rng: np.random.Generator,
                     noise_rng: np.random.Generator, chunk: int = 8192) -> MonteCarloDraws:
    """Draw ``d_i(a)`` for every (replicate, client, age) and the unit Laplace noise (chunked in R)."""
    if replicates < 2:
        raise ValueError(f"need at least 2 Monte-Carlo replicates, got {replicates}")
    if n < 1:
        raise ValueError(f"records per client must be >= 1, got {n}")
    J = db.pair_laws()
    m, T, K, _ = J.shape
    pvals = J.reshape(m, T, K * K)
    pvals = pvals / pvals.sum(axis=-1, keepdims=True)
    v = db.value_array
    pair_diff = (v[:, None] - v[None, :]).reshape(K * K)
    dev = np.empty((replicates, m, T))
    for start in range(0, replicates, chunk):
        r = min(chunk, replicates - start)
        counts = data_rng.multinomial(n, pvals, size=(r, m, T))      # [r, m, T, K*K]
        dev[start:start + r] = counts @ pair_diff / n
    return MonteCarloDraws(deviations=dev, unit_laplace=noise_rng.laplace(0.0, 1.0, size=(replicates, m)))


def _replicate_errors(draws: MonteCarloDraws, ages: np.ndarray, eps_c: np.ndarray, sensitivity: float) -> np.ndarray:
    """``W~ - w*`` per replicate; ``ages``/``eps_c`` are ``[m]`` (fixed schedule) or ``[R, m]`` (per replicate)."""
    R, m, T = draws.deviations.shape
    ages = np.broadcast_to(np.asarray(ages), (R, m))
    eps_c = np.broadcast_to(np.asarray(eps_c, dtype=float), (R, m))
    if np.any(ages < 0) or np.any(ages >= T):
        raise ValueError(f"ages must lie in [0, {T - 1}]")
    d = np.take_along_axis(draws.deviations, ages[..., None], axis=2)[..., 0]
    return (d + (sensitivity / eps_c) * draws.unit_laplace).mean(axis=1)


def mc_loss_difference(draws: MonteCarloDraws, ages, eps_c, sensitivity: float) -> tuple[float, float]:
    """Monte-Carlo mean of ``(W~ - w*)^2`` and its standard error ``std / sqrt(R)``."""
    sq = _replicate_errors(draws, np.asarray(ages), np.asarray(eps_c), sensitivity) ** 2
    return float(sq.mean()), float(sq.std(ddof=1) / np.sqrt(sq.size))


def mc_loss_all_schedules(draws: MonteCarloDraws, schedules: np.ndarray, eps_c: np.ndarray, sensitivity: float,
                          replicates: int | None = None, chunk: int = 100) -> np.ndarray:
    """MC estimate of the loss difference for every schedule (``[S, m]`` ages and budgets), with the
    same draws for all (common random numbers). Used by the ``sim_objective = mc`` variant."""
    R = draws.replicates if replicates is None else min(replicates, draws.replicates)
    dev, lap = draws.deviations[:R], draws.unit_laplace[:R]
    m = schedules.shape[1]
    out = np.empty(len(schedules))
    clients = np.arange(m)
    for start in range(0, len(schedules), chunk):
        a = schedules[start:start + chunk]                     # [c, m]
        eta = sensitivity / eps_c[start:start + chunk]         # [c, m]
        d = dev[:, clients[None, :], a].sum(axis=-1)           # [R, c]
        noise = lap @ eta.T                                    # [R, c]
        out[start:start + chunk] = (((d + noise) / m) ** 2).mean(axis=0)
    return out


def chain_loss_difference(db: MarkovEnergyDatabase, ages, eps_c, n: int, sensitivity: float, replicates: int,
                          data_rng: np.random.Generator, noise_rng: np.random.Generator) -> dict:
    """Reference simulator: literal ``L(W~, D^(t_agg)) - L(w*, D^(t_agg))`` per replicate.

    Returns ``{"loss_gap": [R], "squared_error": [R]}`` where ``squared_error = (W~ - w*)^2``; the two
    agree to rounding for the squared loss with equal weights (the identity behind (G1)).
    """
    collected, target = db.sample_record_paths(ages, n, replicates, data_rng)   # [R, m, n]
    m = db.num_clients
    local = collected.mean(axis=-1)                                            # local ERM: sample means
    noise = (sensitivity / np.asarray(eps_c, dtype=float)) * noise_rng.laplace(0.0, 1.0, size=(replicates, m))
    w_tilde = (local + noise).mean(axis=1)                                     # (1/m) sum_i (W_i + N_i)
    w_star = target.mean(axis=(1, 2))                                          # ERM on D^(t_agg)

    def empirical_loss(w):                                                     # L(w, D) = sum_i p_i mean_j (w - z)^2
        return (((w[:, None, None] - target) ** 2).mean(axis=-1)).mean(axis=-1)

    return {"loss_gap": empirical_loss(w_tilde) - empirical_loss(w_star), "squared_error": (w_tilde - w_star) ** 2}
