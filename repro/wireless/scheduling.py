"""OFDMA client selection and subchannel assignment.

A schedule is a pair of integer arrays ``(clients, subchannels)`` of equal length: client
``clients[j]`` transmits on subchannel ``subchannels[j]``; each client and each subchannel appears
at most once. Policies:

* :func:`min_error_assignment` -- minimum total word-error probability (wpfl_minmax problem P3,
  eq. (33)), solved by the Hungarian/Kuhn-Munkres algorithm (``scipy.optimize.linear_sum_assignment``)
  on a rectangular cost matrix, filling ``min(K, #eligible)`` subchannels.
* :class:`RoundRobin` -- cyclic pointer over client indices, skipping ineligible clients.
* :func:`random_schedule` -- uniform clients without replacement, random subchannel permutation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

RATE_CONSTRAINTS = ("penalty", "hard", "off")
TIE_BREAK = 1e-12


def assignment_cost(word_error: np.ndarray, snr: np.ndarray | None = None, rate: np.ndarray | None = None,
                    min_rate: float | None = None, rate_constraint: str = "penalty", tie_break: bool = True) -> np.ndarray:
    """Cost ``[N, K]`` of giving subchannel k to client n (wpfl_minmax eq. (21) and its README decisions).

    ``rho_{n,k}`` plus ``1e-12 / (1 + log2(1 + gamma))`` (prefers higher rates among pairs whose
    rho underflows to 0) plus, for ``rate_constraint='penalty'``, ``K + 1`` per pair violating
    ``r >= r_min`` (C5 made lexicographic); ``'hard'`` sets those pairs to ``inf``; ``'off'`` ignores C5.
    """
    if rate_constraint not in RATE_CONSTRAINTS:
        raise ValueError(f"rate_constraint {rate_constraint!r} not in {RATE_CONSTRAINTS}")
    cost = np.array(word_error, dtype=np.float64, copy=True)
    if tie_break:
        if snr is None:
            raise ValueError("tie_break needs the SNR")
        cost += TIE_BREAK / (1.0 + np.log2(1.0 + np.asarray(snr)))
    if rate_constraint != "off" and min_rate is not None:
        if rate is None:
            raise ValueError("a rate constraint needs the rates")
        bad = np.asarray(rate) < min_rate
        if rate_constraint == "penalty":
            cost += (cost.shape[1] + 1.0) * bad
        else:
            cost = np.where(bad, np.inf, cost)
    return cost


def min_error_assignment(cost: np.ndarray, eligible: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Minimum-total-cost matching of ``min(K, #eligible)`` eligible clients to distinct subchannels.

    ``cost``: ``[N, K]``; ``eligible``: boolean ``[N]`` (default all). Exact (Kuhn-Munkres). Pairs with
    infinite cost are never used; if they would be needed the matching is shrunk to the finite part.
    Returns ``(clients, subchannels)`` sorted by subchannel.
    """
    cost = np.asarray(cost, dtype=np.float64)
    if cost.ndim != 2:
        raise ValueError(f"cost must be [N, K], got shape {cost.shape}")
    n, _ = cost.shape
    elig = np.ones(n, bool) if eligible is None else np.asarray(eligible, bool)
    if elig.shape != (n,):
        raise ValueError(f"eligible must have shape ({n},), got {elig.shape}")
    idx = np.flatnonzero(elig)
    if idx.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    sub = cost[idx]
    finite = np.isfinite(sub)
    if not finite.all():
        big = (np.abs(sub[finite]).max() if finite.any() else 1.0) * 1e6 + 1e6
        sub = np.where(finite, sub, big)
    rows, cols = linear_sum_assignment(sub)
    keep = finite[rows, cols]
    rows, cols = rows[keep], cols[keep]
    order = np.argsort(cols)
    return idx[rows[order]].astype(np.int64), cols[order].astype(np.int64)


@dataclass
class RoundRobin:
    """Cyclic selection over client indices, skipping ineligible clients; subchannel j -> j-th selected."""

    num_clients: int
    num_subchannels: int
    pointer: int = field(default=0)

    def __call__(self, eligible: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        elig = np.asarray(eligible, bool)
        take = min(self.num_subchannels, int(elig.sum()))
        chosen = []
        p = self.pointer
        while len(chosen) < take:
            if elig[p % self.num_clients]:
                chosen.append(p % self.num_clients)
            p += 1
        self.pointer = p % self.num_clients
        return np.asarray(chosen, np.int64), np.arange(take, dtype=np.int64)


def random_schedule(eligible: np.ndarray, num_subchannels: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``min(K, #eligible)`` eligible clients uniformly without replacement on a random subchannel permutation."""
    idx = np.flatnonzero(np.asarray(eligible, bool))
    take = min(num_subchannels, idx.size)
    clients = rng.choice(idx, size=take, replace=False) if take else np.zeros(0, np.int64)
    subs = rng.permutation(num_subchannels)[:take]
    return np.asarray(clients, np.int64), np.asarray(subs, np.int64)
