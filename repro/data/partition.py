"""Partitioners: how a labelled dataset is split over federated clients.

One small class per scheme (in the style of flwr-datasets' partitioners). Each is configured once,
validated on construction, and ``split(labels)`` returns one int64 index array per client (indices
into ``labels``, sorted ascending). With an integer seed (or a ``numpy.random.SeedSequence``),
``split`` is a pure function of ``(labels, arguments, seed)``: the same call gives the same split.
Pass ``RngStreams(seed).int_seed("partition")`` from a run to use its partition stream.

=============================  ============================================================  ==================
scheme                         rule                                                          every sample used
=============================  ============================================================  ==================
:class:`IIDPartitioner`        uniform random, sizes differ by at most one                   yes
:class:`PathologicalPartitioner` PFLlib ``pat``: each class to the next clients with class     yes
                               budget left, k classes per client, equal chunks
:class:`DirichletPartitioner`  PFLlib ``dir``: per class ~ Dir(alpha), capped, retried        yes
:class:`LabelSkewPartitioner`  given per-client sizes and class sets (FedProx-style)          no (a subset)
=============================  ============================================================  ==================

:func:`train_test_split_per_client` then splits each client's indices by a fraction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

Seed = "int | np.random.SeedSequence | np.random.Generator"


class PartitionError(ValueError):
    """A partition that cannot be made with the given arguments (the message says which and why)."""


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, a numpy SeedSequence or Generator; got {seed!r}")
    return np.random.default_rng(int(seed))


def _check_positive_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def _check_labels(labels) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1:
        raise ValueError(f"labels must be a 1-D array of class ids; got shape {y.shape}")
    if y.size and not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"labels must be integers; got dtype {y.dtype}")
    return y.astype(np.int64, copy=False)


def _finish(parts) -> list[np.ndarray]:
    return [np.sort(np.asarray(p, dtype=np.int64)) for p in parts]


def label_counts(indices_per_client: Sequence[np.ndarray], labels, num_classes: int | None = None) -> np.ndarray:
    """Clients-by-classes matrix of sample counts (int64 ``[num_clients, num_classes]``)."""
    y = _check_labels(labels)
    c = int(num_classes if num_classes is not None else (y.max(initial=-1) + 1))
    return np.stack([np.bincount(y[idx], minlength=c)[:c] for idx in indices_per_client]) if len(indices_per_client) else np.zeros((0, c), np.int64)


@dataclass(frozen=True)
class IIDPartitioner:
    """Uniformly random split into ``num_clients`` parts whose sizes differ by at most one.

    Example::

        >>> parts = IIDPartitioner(num_clients=3, seed=0).split(np.arange(10) % 2)
        >>> [len(p) for p in parts]
        [4, 3, 3]
    """

    num_clients: int
    seed: object = 0

    def __post_init__(self):
        _check_positive_int("num_clients", self.num_clients)
        _rng(self.seed)

    def split(self, labels) -> list[np.ndarray]:
        y = _check_labels(labels)
        if y.size < self.num_clients:
            raise PartitionError(f"cannot give {self.num_clients} clients at least one sample each from {y.size} samples")
        perm = _rng(self.seed).permutation(y.size)
        return _finish(np.array_split(perm, self.num_clients))


@dataclass(frozen=True)
class PathologicalPartitioner:
    """Pathological label skew, PFLlib's ``pat`` rule: every client holds ``classes_per_client`` classes.

    For each class c (ascending), the first ``ceil(num_clients * k / C)`` clients that still hold
    fewer than k classes receive it; its samples (shuffled with the seed) are cut into that many
    chunks: equal chunks (the last one takes the remainder) when ``balance``, else random sizes
    between a tenth of and the equal share (PFLlib's unbalanced variant). With 20 clients, k = 2 and
    10 classes, clients 4g..4g+3 hold classes {2g, 2g+1}. Every client holds exactly k classes when
    ``num_clients * k`` and the number of classes are multiples of ``num_classes`` and k; otherwise
    (as in PFLlib) the last clients may hold fewer than k.

    Raises :class:`PartitionError` when the rule leaves a class without a client or a client
    without a class (choose ``num_clients * classes_per_client`` a multiple of the number of classes).

    Example::

        >>> y = np.repeat(np.arange(10), 8)
        >>> parts = PathologicalPartitioner(num_clients=20, classes_per_client=2, seed=1).split(y)
        >>> np.unique(y[parts[0]]).tolist(), np.unique(y[parts[4]]).tolist(), len(parts[0])
        ([0, 1], [2, 3], 4)
    """

    num_clients: int
    classes_per_client: int
    seed: object = 0
    balance: bool = True

    def __post_init__(self):
        _check_positive_int("num_clients", self.num_clients)
        _check_positive_int("classes_per_client", self.classes_per_client)
        _rng(self.seed)

    def assignment(self, num_classes: int) -> list[list[int]]:
        """For each class (0..C-1 positions), the clients that receive it, by PFLlib's rule."""
        n, k = self.num_clients, self.classes_per_client
        if k > num_classes:
            raise PartitionError(f"classes_per_client={k} exceeds the number of classes ({num_classes})")
        budget = [k] * n
        per_class = math.ceil(n * k / num_classes)
        out = []
        for c in range(num_classes):
            chosen = [i for i in range(n) if budget[i] > 0][:per_class]
            if not chosen:
                raise PartitionError(
                    f"class position {c} gets no client: num_clients={n} x classes_per_client={k} = {n * k} class slots, "
                    f"{per_class} per class, for {num_classes} classes; make num_clients*classes_per_client a multiple of {num_classes}"
                )
            for i in chosen:
                budget[i] -= 1
            out.append(chosen)
        empty = [i for i in range(n) if budget[i] == k]
        if empty:
            raise PartitionError(f"clients {empty} get no class (num_clients={n}, classes_per_client={k}, {num_classes} classes); "
                                 f"make num_clients*classes_per_client a multiple of {num_classes}")
        return out

    def split(self, labels) -> list[np.ndarray]:
        y = _check_labels(labels)
        classes = np.unique(y)
        rng = _rng(self.seed)
        parts: list[list[np.ndarray]] = [[] for _ in range(self.num_clients)]
        for c, clients in zip(classes, self.assignment(len(classes))):
            idx = rng.permutation(np.flatnonzero(y == c))
            m = len(clients)
            if idx.size < m:
                raise PartitionError(f"class {c} has {idx.size} samples, fewer than the {m} clients that must share it")
            share = idx.size / m
            if self.balance or m == 1:
                sizes = [int(share)] * (m - 1)
            else:
                low, high = max(int(share / 10), 1), max(int(share), 2)
                sizes = rng.integers(low, high, size=m - 1).tolist()
            sizes.append(idx.size - sum(sizes))
            for client, chunk in zip(clients, np.split(idx, np.cumsum(sizes)[:-1])):
                parts[client].append(chunk)
        return _finish([np.concatenate(p) if p else np.zeros(0, np.int64) for p in parts])


@dataclass(frozen=True)
class DirichletPartitioner:
    """Dirichlet label skew, PFLlib's ``dir`` rule, redrawn until every client has ``min_size`` samples.

    For each class: shuffle its samples, draw proportions ~ Dir(alpha * 1_N); when ``cap`` (PFLlib),
    zero the proportion of every client that already holds >= |D|/N samples; renormalise; cut the
    class at the cumulative proportions. Smaller ``alpha`` gives stronger skew. The whole draw is
    repeated (same generator, continuing) until the smallest client has ``min_size`` samples, at most
    ``max_retries`` times; then :class:`PartitionError` names ``min_size`` and ``alpha``.

    Example::

        >>> y = np.repeat(np.arange(10), 100)
        >>> parts = DirichletPartitioner(num_clients=5, alpha=0.5, seed=0, min_size=10).split(y)
        >>> sum(len(p) for p in parts), min(len(p) for p in parts) >= 10
        (1000, True)
    """

    num_clients: int
    alpha: float
    seed: object = 0
    min_size: int = 10
    max_retries: int = 100
    cap: bool = True

    def __post_init__(self):
        _check_positive_int("num_clients", self.num_clients)
        if not (isinstance(self.alpha, (int, float, np.floating, np.integer)) and math.isfinite(self.alpha) and self.alpha > 0):
            raise ValueError(f"alpha must be a finite number > 0; got {self.alpha!r}")
        _check_positive_int("min_size", self.min_size, minimum=0)
        _check_positive_int("max_retries", self.max_retries)
        _rng(self.seed)

    def split(self, labels) -> list[np.ndarray]:
        y = _check_labels(labels)
        n = self.num_clients
        if n * self.min_size > y.size:
            raise PartitionError(f"min_size={self.min_size} x num_clients={n} exceeds the {y.size} samples; lower min_size")
        rng = _rng(self.seed)
        classes = np.unique(y)
        smallest = -1
        for _ in range(self.max_retries):
            parts: list[list[int]] = [[] for _ in range(n)]
            sizes = np.zeros(n, dtype=np.int64)
            for c in classes:
                idx = rng.permutation(np.flatnonzero(y == c))
                p = rng.dirichlet(np.full(n, float(self.alpha)))
                if self.cap:
                    p = p * (sizes < y.size / n)
                total = p.sum()
                p = p / total if total > 0 else np.full(n, 1.0 / n)
                cuts = (np.cumsum(p) * idx.size).astype(np.int64)[:-1]
                for i, chunk in enumerate(np.split(idx, cuts)):
                    parts[i].extend(chunk.tolist())
                    sizes[i] += chunk.size
            smallest = int(sizes.min())
            if smallest >= self.min_size:
                return _finish(parts)
        raise PartitionError(
            f"Dirichlet split with alpha={self.alpha} over {n} clients could not give every client min_size={self.min_size} samples "
            f"in max_retries={self.max_retries} draws (smallest client in the last draw: {smallest}); "
            "raise alpha, lower min_size or num_clients, or allow more retries"
        )


@dataclass(frozen=True)
class LabelSkewPartitioner:
    """Given per-client sizes and class sets (FedProx-style label skew; ota_jammer README, "data").

    Client u gets ``sizes[u]`` samples from the classes ``class_sets[u]``, as evenly as possible:
    ``sizes[u] // k`` per class plus one more for the first ``sizes[u] % k`` classes in the order
    given. Samples are drawn without replacement (each class's samples are shuffled with the seed and
    handed out in client order), so clients are disjoint; samples nobody asks for stay unused.

    Example (FedProx's cyclic classes ``(u + j) mod 10``)::

        >>> y = np.repeat(np.arange(10), 50)
        >>> p = LabelSkewPartitioner.cyclic(sizes=[12, 7, 20], classes_per_client=5, num_classes=10, seed=0)
        >>> p.class_sets[1], [len(i) for i in p.split(y)]
        ((1, 2, 3, 4, 5), [12, 7, 20])
    """

    sizes: tuple
    class_sets: tuple
    seed: object = 0

    def __post_init__(self):
        sizes = tuple(_check_positive_int(f"sizes[{i}]", s) for i, s in enumerate(self.sizes))
        sets = tuple(tuple(int(c) for c in cs) for cs in self.class_sets)
        if len(sizes) == 0:
            raise ValueError("sizes must name at least one client")
        if len(sets) != len(sizes):
            raise ValueError(f"class_sets has {len(sets)} entries but sizes has {len(sizes)}: give one class set per client")
        for u, cs in enumerate(sets):
            if not cs:
                raise ValueError(f"class_sets[{u}] is empty")
            if len(set(cs)) != len(cs):
                raise ValueError(f"class_sets[{u}]={cs} repeats a class")
            if min(cs) < 0:
                raise ValueError(f"class_sets[{u}]={cs} holds a negative class id")
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "class_sets", sets)
        _rng(self.seed)

    @classmethod
    def cyclic(cls, sizes, classes_per_client: int, num_classes: int, seed=0) -> "LabelSkewPartitioner":
        """Client u holds classes ``(u + j) mod num_classes`` for j = 0..k-1 (FedProx ``nist`` generator)."""
        k = _check_positive_int("classes_per_client", classes_per_client)
        c = _check_positive_int("num_classes", num_classes)
        if k > c:
            raise ValueError(f"classes_per_client={k} exceeds num_classes={c}")
        return cls(tuple(sizes), tuple(tuple((u + j) % c for j in range(k)) for u in range(len(sizes))), seed)

    def demand(self) -> dict[int, list[tuple[int, int]]]:
        """class -> [(client, count), ...] in client order."""
        out: dict[int, list[tuple[int, int]]] = {}
        for u, (n, cs) in enumerate(zip(self.sizes, self.class_sets)):
            q, r = divmod(n, len(cs))
            for j, c in enumerate(cs):
                if q + (j < r):
                    out.setdefault(c, []).append((u, q + (j < r)))
        return out

    def split(self, labels) -> list[np.ndarray]:
        y = _check_labels(labels)
        rng = _rng(self.seed)
        demand = self.demand()
        short = []
        pools = {}
        for c in sorted(demand):
            idx = np.flatnonzero(y == c)
            need = sum(k for _, k in demand[c])
            if need > idx.size:
                short.append(f"class {c}: {need} wanted, {idx.size} available")
            pools[c] = idx
        if short:
            raise PartitionError("not enough samples per class for the requested sizes: " + "; ".join(short))
        parts: list[list[np.ndarray]] = [[] for _ in self.sizes]
        for c in sorted(demand):
            idx = rng.permutation(pools[c])
            start = 0
            for u, k in demand[c]:
                parts[u].append(idx[start:start + k])
                start += k
        return _finish([np.concatenate(p) for p in parts])


def train_test_split_per_client(indices_per_client: Sequence[np.ndarray], test_fraction: float, seed=0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Split each client's indices into (train, test) after a seeded shuffle (PFLlib convention).

    A client with n samples keeps ``n_train = floor((1 - test_fraction) * n)`` for training and the
    rest for testing (scikit-learn's ``train_size`` rule used by PFLlib; FedProx's ``int(0.9 n)``). Each client uses its own
    independent sub-stream of the seed, so one client's size does not change another's split.

    Example::

        >>> train, test = train_test_split_per_client([np.arange(8), np.arange(8, 12)], test_fraction=0.25, seed=0)
        >>> [len(t) for t in train], [len(t) for t in test]
        ([6, 3], [2, 1])
    """
    if not (isinstance(test_fraction, (int, float, np.floating)) and 0.0 <= test_fraction <= 1.0):
        raise ValueError(f"test_fraction must be in [0, 1]; got {test_fraction!r}")
    base = _rng(seed)
    seeds = base.bit_generator.seed_seq.spawn(len(indices_per_client)) if not isinstance(seed, np.random.Generator) else [
        np.random.SeedSequence(int(s)) for s in base.integers(0, 2**63 - 1, size=len(indices_per_client))]
    train, test = [], []
    for idx, ss in zip(indices_per_client, seeds):
        idx = np.asarray(idx, dtype=np.int64)
        n = idx.size
        n_test = n - int(math.floor((1.0 - test_fraction) * n + 1e-9))
        perm = np.random.default_rng(ss).permutation(idx)
        test.append(np.sort(perm[:n_test]))
        train.append(np.sort(perm[n_test:]))
    return train, test
