import itertools

import numpy as np
import pytest

from repro.wireless.scheduling import RoundRobin, assignment_cost, min_error_assignment, random_schedule


def _brute_force(cost, fill):
    n, k = cost.shape
    best = np.inf
    for clients in itertools.permutations(range(n), fill):
        for subs in itertools.permutations(range(k), fill):
            best = min(best, cost[list(clients), list(subs)].sum())
    return best


def test_km_matches_brute_force_on_random_instances():
    rng = np.random.default_rng(0)
    for _ in range(200):
        cost = rng.exponential(size=(6, 3)) * (rng.random((6, 3)) < 0.7)
        clients, subs = min_error_assignment(cost)
        assert len(clients) == 3 and len(set(clients)) == 3 and len(set(subs)) == 3
        assert cost[clients, subs].sum() == pytest.approx(_brute_force(cost, 3), abs=1e-12)


def test_km_fewer_eligible_than_subchannels():
    rng = np.random.default_rng(1)
    cost = rng.random((5, 4))
    elig = np.array([True, False, False, True, False])
    clients, subs = min_error_assignment(cost, elig)
    assert set(clients) == {0, 3}
    assert cost[clients, subs].sum() == pytest.approx(_brute_force(cost[[0, 3]], 2))


def test_penalty_makes_rate_constraint_lexicographic_and_tie_break():
    word_error = np.zeros((4, 2))
    snr = np.array([[1e3, 1e3], [1e5, 1e5], [1e4, 1e4], [1e6, 1e6]])
    rate = np.array([[1, 1], [1, 1], [10, 10], [10, 10]], float)
    cost = assignment_cost(word_error, snr, rate, min_rate=5, rate_constraint="penalty")
    clients, _ = min_error_assignment(cost)
    assert set(clients) == {2, 3}
    cost = assignment_cost(word_error, snr, rate, min_rate=5, rate_constraint="off")
    clients, _ = min_error_assignment(cost)
    assert set(clients) == {1, 3}  # ties broken towards higher SNR
    with pytest.raises(ValueError, match="rate_constraint"):
        assignment_cost(word_error, snr, rate, 5, rate_constraint="soft")


def test_round_robin_two_groups_and_skipping():
    rr = RoundRobin(20, 10)
    elig = np.ones(20, bool)
    a, s = rr(elig)
    b, _ = rr(elig)
    assert list(a) == list(range(10)) and list(b) == list(range(10, 20)) and list(s) == list(range(10))
    elig[:5] = False
    c, _ = rr(elig)
    assert list(c) == list(range(5, 15))


def test_random_schedule_valid_and_seeded():
    elig = np.zeros(20, bool)
    elig[[1, 4, 7]] = True
    c, s = random_schedule(elig, 10, np.random.default_rng(3))
    assert set(c) == {1, 4, 7} and len(set(s)) == 3
    c2, s2 = random_schedule(elig, 10, np.random.default_rng(3))
    assert np.array_equal(c, c2) and np.array_equal(s, s2)


def test_budget_loop_round_robin_and_km_exhaust_every_client():
    """C7 cap: RR needs exactly 2 T0 rounds for N = 20, K = 10; every client ends with T0 uploads."""
    rng = np.random.default_rng(0)
    for policy in ("rr", "km", "random"):
        rr = RoundRobin(20, 10)
        uploads = np.zeros(20, int)
        t = 0
        while (uploads < 7).any() and t < 28:
            elig = uploads < 7
            if policy == "rr":
                c, _ = rr(elig)
            elif policy == "km":
                c, _ = min_error_assignment(rng.random((20, 10)), elig)
            else:
                c, _ = random_schedule(elig, 10, rng)
            uploads[c] += 1
            t += 1
        assert np.all(uploads == 7)
        if policy == "rr":
            assert t == 14  # T = 2 T0 exactly
        else:
            assert 14 <= t <= 28
