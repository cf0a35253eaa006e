"""Partitioners: properties (hypothesis) and the documented PFLlib / FedProx behaviour."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repro.data.partition import (
    DirichletPartitioner,
    IIDPartitioner,
    LabelSkewPartitioner,
    PartitionError,
    PathologicalPartitioner,
    label_counts,
    train_test_split_per_client,
)

SETTINGS = settings(max_examples=40, deadline=None)


def labels_strategy(min_per_class=1, max_classes=10):
    return st.tuples(st.integers(2, max_classes), st.integers(min_per_class, 40), st.integers(0, 2**31)).map(
        lambda t: np.random.default_rng(t[2]).permutation(np.repeat(np.arange(t[0]), t[1]) if True else None))


def assert_exact_cover(parts, n):
    allidx = np.concatenate(parts)
    assert np.array_equal(np.sort(allidx), np.arange(n)), "every sample in exactly one client"


def assert_disjoint(parts):
    allidx = np.concatenate(parts)
    assert len(np.unique(allidx)) == len(allidx)


@SETTINGS
@given(labels_strategy(), st.integers(1, 12), st.integers(0, 10_000))
def test_iid_covers_and_balances(y, n_clients, seed):
    if n_clients > len(y):
        with pytest.raises(PartitionError):
            IIDPartitioner(n_clients, seed).split(y)
        return
    parts = IIDPartitioner(n_clients, seed).split(y)
    assert_exact_cover(parts, len(y))
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1
    assert all(np.array_equal(a, b) for a, b in zip(parts, IIDPartitioner(n_clients, seed).split(y)))


@SETTINGS
@given(st.sampled_from([(20, 2, 10), (10, 1, 10), (5, 2, 10), (10, 3, 10), (4, 2, 4), (6, 2, 3)]), st.integers(4, 30), st.integers(0, 10_000), st.booleans())
def test_pathological_covers_and_limits_classes(cfg, per_class, seed, balance):
    n, k, c = cfg
    y = np.random.default_rng(seed).permutation(np.repeat(np.arange(c), per_class * n))
    parts = PathologicalPartitioner(n, k, seed, balance=balance).split(y)
    assert_exact_cover(parts, len(y))
    held = (label_counts(parts, y, c) > 0).sum(1)
    assert held.max() <= k and held.min() >= 1
    if (n * k) % c == 0 and c % k == 0:  # otherwise PFLlib's rule leaves some clients with fewer classes
        assert (held == k).all()
    again = PathologicalPartitioner(n, k, seed, balance=balance).split(y)
    assert all(np.array_equal(a, b) for a, b in zip(parts, again))


def test_pathological_pfllib_groups():
    """20 clients, 2 classes each: clients 4g..4g+3 hold {2g, 2g+1} in equal chunks (dp_ditto README, D9)."""
    y = np.repeat(np.arange(10), 100)
    parts = PathologicalPartitioner(20, 2, seed=1).split(y)
    for i, p in enumerate(parts):
        g = i // 4
        assert np.unique(y[p]).tolist() == [2 * g, 2 * g + 1]
        assert len(p) == 50


def test_pathological_impossible_configuration_is_explained():
    y = np.repeat(np.arange(10), 10)
    with pytest.raises(PartitionError, match="multiple of 10"):
        PathologicalPartitioner(3, 1, 0).split(y)
    with pytest.raises(PartitionError, match="classes_per_client=11 exceeds"):
        PathologicalPartitioner(3, 11, 0).split(y)


@SETTINGS
@given(st.integers(2, 8), st.sampled_from([0.05, 0.3, 1.0, 100.0]), st.integers(0, 10_000))
def test_dirichlet_covers_and_respects_min_size(n, alpha, seed):
    y = np.random.default_rng(seed).permutation(np.repeat(np.arange(5), 60))
    try:
        parts = DirichletPartitioner(n, alpha, seed, min_size=5, max_retries=200).split(y)
    except PartitionError as e:
        assert "min_size=5" in str(e) and f"alpha={alpha}" in str(e)
        return
    assert_exact_cover(parts, len(y))
    assert min(len(p) for p in parts) >= 5
    again = DirichletPartitioner(n, alpha, seed, min_size=5, max_retries=200).split(y)
    assert all(np.array_equal(a, b) for a, b in zip(parts, again))


def test_dirichlet_unmeetable_min_size_names_arguments():
    y = np.repeat(np.arange(10), 20)
    with pytest.raises(PartitionError, match=r"alpha=0\.01.*min_size=15.*max_retries=5"):
        DirichletPartitioner(10, 0.01, 0, min_size=15, max_retries=5).split(y)
    with pytest.raises(PartitionError, match="lower min_size"):
        DirichletPartitioner(10, 1.0, 0, min_size=100).split(y)


@SETTINGS
@given(st.lists(st.integers(1, 30), min_size=1, max_size=12), st.integers(1, 5), st.integers(0, 10_000))
def test_label_skew_sizes_and_classes(sizes, k, seed):
    y = np.random.default_rng(seed).permutation(np.repeat(np.arange(10), 80))
    p = LabelSkewPartitioner.cyclic(sizes, k, 10, seed)
    parts = p.split(y)
    assert_disjoint(parts)
    counts = label_counts(parts, y, 10)
    for u, (n, part) in enumerate(zip(sizes, parts)):
        assert len(part) == n
        expected = [(u + j) % 10 for j in range(k)]
        assert set(np.flatnonzero(counts[u])) <= set(expected)
        q, r = divmod(n, k)
        assert [counts[u, c] for c in expected] == [q + (j < r) for j in range(k)]


def test_label_skew_reproduces_ota_jammer_sizes():
    from repro.data.partition import LabelSkewPartitioner

    train = [209, 390, 289, 319, 152, 254, 198, 142, 186, 265, 128, 179, 121, 578, 79, 1950, 586, 474, 506, 414, 336, 460, 360, 314, 395,
             447, 211, 216, 127, 376, 793, 255, 117, 270, 285, 190, 143, 109, 341, 285, 468, 493, 133, 229, 266, 288, 196, 292, 257, 350]
    y = np.repeat(np.arange(10), 5421)
    parts = LabelSkewPartitioner.cyclic(train, 5, 10, seed=0).split(y)
    assert sum(map(len, parts)) == 16421 and len(parts) == 50
    assert label_counts(parts, y, 10).sum(0).max() == 1763  # digit-5 demand of the label-skew split


def test_label_skew_validation():
    with pytest.raises(ValueError, match="one class set per client"):
        LabelSkewPartitioner((5, 5), ((0, 1),), 0)
    with pytest.raises(ValueError, match=r"sizes\[1\] must be an integer >= 1"):
        LabelSkewPartitioner((5, 0), ((0,), (1,)), 0)
    with pytest.raises(PartitionError, match="class 1: 30 wanted, 10 available"):
        LabelSkewPartitioner((30,), ((1,),), 0).split(np.repeat(np.arange(3), 10))


@SETTINGS
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_different_seeds_differ(s1, s2):
    y = np.repeat(np.arange(10), 50)
    if s1 == s2:
        return
    for make in (lambda s: IIDPartitioner(5, s), lambda s: PathologicalPartitioner(10, 2, s), lambda s: DirichletPartitioner(5, 0.5, s, min_size=1),
                 lambda s: LabelSkewPartitioner.cyclic([20] * 5, 2, 10, s)):
        a, b = make(s1).split(y), make(s2).split(y)
        assert any(not np.array_equal(x, z) for x, z in zip(a, b))


@SETTINGS
@given(st.lists(st.integers(0, 50), min_size=1, max_size=8), st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), st.integers(0, 1000))
def test_train_test_split_per_client(sizes, frac, seed):
    offsets = np.cumsum([0] + sizes)
    parts = [np.arange(offsets[i], offsets[i + 1]) for i in range(len(sizes))]
    train, test = train_test_split_per_client(parts, frac, seed)
    for p, tr, te in zip(parts, train, test):
        assert np.array_equal(np.sort(np.concatenate([tr, te])), p)
        assert len(tr) == int(np.floor((1 - frac) * len(p) + 1e-9))
    train2, _ = train_test_split_per_client(parts, frac, seed)
    assert all(np.array_equal(a, b) for a, b in zip(train, train2))


@pytest.mark.parametrize("bad", [dict(num_clients=0), dict(num_clients=2.5), dict(num_clients=3, seed=-1), dict(num_clients=3, seed="x")])
def test_iid_argument_validation(bad):
    with pytest.raises(ValueError):
        IIDPartitioner(**bad)


def test_dirichlet_argument_validation():
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        DirichletPartitioner(3, 0.0, 0)
    with pytest.raises(ValueError, match="test_fraction must be in"):
        train_test_split_per_client([np.arange(3)], 1.5, 0)
