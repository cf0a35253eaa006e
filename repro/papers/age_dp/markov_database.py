"""The time-varying Markov energy database of the toy example (§II-B, §IV-A).

Each client ``i`` holds ``n`` records; each record is one path of a 4-state chain on the values
``v = (20, 50, 100, 200)`` Wh with the printed *cyclic* per-step matrix (200 -> 20 wrap-around)

    P_i = [[1-q, q, 0, 0], [0, 1-q, q, 0], [0, 0, 1-q, q], [q, 0, 0, 1-q]],   q = q_i.

Slots are ``1..t_agg``; client ``i`` collects at ``t_c,i``, so its data have age ``a = t_agg - t_c,i``.

Anchoring (README: decisions):

- ``"time"`` (default): the chain starts at slot 1 with law ``pi_i``; the collected law is
  ``pi_i P_i^(t_agg-1-a)`` and the target law at ``t_agg`` is ``pi_i P_i^(t_agg-1)`` whatever ``a``.
- ``"collection"`` (literal reading): the collected law is ``pi_i``, the target law ``pi_i P_i^a``.

Every analytic quantity is a function of the pair law of one record,
``J_{i,a}(x, y) = law_c(x) * (P_i^a)(x, y)`` (collected value x, value at t_agg y).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ANCHORS = ("time", "collection")


def cyclic_transition_matrix(q: float, num_states: int = 4) -> np.ndarray:
    """The printed per-step matrix: stay with ``1-q``, move one state up with ``q`` (last wraps to first)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"transition probability q must lie in [0, 1], got {q}")
    P = (1.0 - q) * np.eye(num_states)
    P += q * np.roll(np.eye(num_states), 1, axis=1)
    return P


@dataclass(frozen=True)
class MarkovEnergyDatabase:
    """Clients' Markov data model. ``q[i]``, ``initial_laws[i]`` per client; ``values`` per state."""

    values: tuple[float, ...] = (20.0, 50.0, 100.0, 200.0)
    q: tuple[float, ...] = (0.1, 0.3, 0.6)
    initial_laws: tuple[tuple[float, ...], ...] = ((0.8, 0.2, 0, 0), (0, 0.1, 0.5, 0.4), (0.2, 0.3, 0.5, 0))
    t_agg: int = 10
    anchor: str = "time"
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        k = len(self.values)
        if self.anchor not in ANCHORS:
            raise ValueError(f"unknown chain_anchor {self.anchor!r}; allowed: {', '.join(ANCHORS)}")
        if int(self.t_agg) != self.t_agg or self.t_agg < 1:
            raise ValueError(f"t_agg must be a positive integer, got {self.t_agg!r}")
        if len(self.initial_laws) != len(self.q):
            raise ValueError(f"need one initial law per client: {len(self.q)} q values, {len(self.initial_laws)} laws")
        for i, law in enumerate(self.initial_laws):
            law = np.asarray(law, dtype=float)
            if law.shape != (k,) or np.any(law < 0) or not np.isclose(law.sum(), 1.0):
                raise ValueError(f"initial law of client {i + 1} must be a probability vector of length {k}, got {law.tolist()}")

    # ------------------------------------------------------------------ basic objects
    @property
    def num_clients(self) -> int:
        return len(self.q)

    @property
    def num_states(self) -> int:
        return len(self.values)

    @property
    def value_array(self) -> np.ndarray:
        return np.asarray(self.values, dtype=float)

    def transition_matrices(self) -> np.ndarray:
        """``[m, K, K]`` per-step matrices."""
        return np.stack([cyclic_transition_matrix(q, self.num_states) for q in self.q])

    def matrix_powers(self) -> np.ndarray:
        """``[m, t_agg, K, K]``: ``P_i^a`` for ages ``a = 0..t_agg-1``."""
        if "powers" not in self._cache:
            P = self.transition_matrices()
            out = np.empty((self.num_clients, self.t_agg, self.num_states, self.num_states))
            out[:, 0] = np.eye(self.num_states)
            for a in range(1, self.t_agg):
                out[:, a] = out[:, a - 1] @ P
            self._cache["powers"] = out
        return self._cache["powers"]

    def collected_laws(self) -> np.ndarray:
        """``[m, t_agg, K]``: law of a record's value at collection, for each client and age."""
        pi0 = np.asarray(self.initial_laws, dtype=float)
        if self.anchor == "collection":
            return np.repeat(pi0[:, None, :], self.t_agg, axis=1)
        powers = self.matrix_powers()
        # collected at slot t_c = t_agg - a, i.e. after t_agg - 1 - a steps from slot 1
        steps = self.t_agg - 1 - np.arange(self.t_agg)
        return np.einsum("mk,makl->mal", pi0, powers[:, steps])

    def pair_laws(self) -> np.ndarray:
        """``[m, t_agg, K, K]``: ``J_{i,a}(x, y) = law_c(x) P_i^a(x, y)``."""
        return self.collected_laws()[..., :, None] * self.matrix_powers()

    def target_laws(self) -> np.ndarray:
        """``[m, t_agg, K]``: law of a record's value at ``t_agg`` (column sums of J)."""
        return self.pair_laws().sum(axis=-2)

    # ------------------------------------------------------------------ reference sampler
    def sample_record_paths(self, ages, n: int, replicates: int, rng: np.random.Generator):
        """Reference sampler : step every record's chain slot by slot.

        Returns ``(collected, target)`` values, each ``[replicates, m, n]``: the value of each record at its
        client's collection slot ``t_agg - a_i`` and at ``t_agg``. Under ``anchor = "collection"`` the
        chain is started at the collection slot with law ``pi_i``.
        """
        ages = np.asarray(ages)
        if ages.shape != (self.num_clients,) or np.any(ages < 0) or np.any(ages >= self.t_agg):
            raise ValueError(f"ages must be {self.num_clients} integers in [0, {self.t_agg - 1}], got {ages.tolist()}")
        m, K = self.num_clients, self.num_states
        P = self.transition_matrices()
        cum_P = np.cumsum(P, axis=-1)  # [m, K, K]
        pi0 = np.asarray(self.initial_laws, dtype=float)
        first_slot = np.ones(m, dtype=int) if self.anchor == "time" else self.t_agg - ages
        state = np.empty((replicates, m, n), dtype=int)
        for i in range(m):
            state[:, i, :] = rng.choice(K, size=(replicates, n), p=pi0[i])
        collected = np.full((replicates, m, n), -1, dtype=int)
        clients = np.arange(m)[None, :, None]
        for slot in range(1, self.t_agg + 1):
            active = (slot > first_slot)[None, :, None]
            u = rng.random((replicates, m, n))
            nxt = (u[..., None] > cum_P[clients, state]).sum(axis=-1)
            nxt = np.minimum(nxt, K - 1)
            state = np.where(active, nxt, state)
            at_collection = (slot == self.t_agg - ages)[None, :, None]
            collected = np.where(at_collection, state, collected)
        v = self.value_array
        return v[collected], v[state]
