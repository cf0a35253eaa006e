"""dp_ditto's ordering checks (claims 8, 11.a, 14.a-c, 15.a-b) go through the engine's trend() (judging rule g): each
step from one level to the next votes, each seed's mean vote is one replicate, and the t-interval over seeds decides.
One swapped step among many does not block a verdict, a tie votes 0 rather than against, a value censored at a grid
edge votes only where its order is known, and no seed vetoes the others."""

import numpy as np
import pandas as pd

from repro.papers.dp_ditto.claims import _ordered

XS = [1, 2, 3, 4, 5, 6, 7, 8]


def _curves(rows):
    return pd.DataFrame(rows, columns=XS[: len(rows[0])], dtype=float)


def test_one_swapped_step_among_many_still_reproduces():
    rows = [list(range(8)) for _ in range(3)]
    rows[1][3], rows[1][4] = rows[1][4], rows[1][3]  # one step of 21 against the paper
    ev = _ordered(_curves(rows), "positive")
    assert ev.verdict == "reproduced"
    assert ev.details["steps_on_paper_side"] == 20 and ev.details["steps_against"] == 1
    assert ev.details["replicates_monotone"] == 2  # the old rule (every replicate monotone) would not have passed


def test_the_opposite_trend_is_not_reproduced():
    ev = _ordered(_curves([list(range(8, 0, -1)) for _ in range(3)]), "positive")
    assert ev.verdict == "not_reproduced" and ev.effect == -1.0


def test_one_seed_cannot_decide():
    ev = _ordered(_curves([[0, 1, 2, 3]]), "positive")
    assert ev.verdict == "inconclusive" and "one replicate" in ev.reason


def test_ties_are_dropped_not_counted_as_losses():
    rows = [[0, 0, 1, 2, 3, 3, 4, 5] for _ in range(3)]
    ev = _ordered(_curves(rows), "positive", ties_ok=True)
    assert ev.verdict == "reproduced"
    assert ev.details["steps_tied"] == 6 and ev.details["steps_against"] == 0


def test_a_censored_value_votes_only_against_interior_values():
    inf = np.inf
    # T* censored (+inf) at the first two levels, then falling: inf->inf no vote, inf->120 and 120->100 vote "falls"
    rows = [[inf, inf, 120, 100, 100, 80, 60, 40] for _ in range(3)]
    ev = _ordered(_curves(rows), "negative", ties_ok=True)
    assert ev.details["steps_without_vote_censored"] == 3  # one inf-inf step per replicate
    assert ev.details["steps_on_paper_side"] == 15 and ev.details["steps_against"] == 0 and ev.details["steps_tied"] == 3
    assert ev.verdict == "reproduced"


def test_every_value_censored_at_one_edge_is_not_evaluated():
    ev = _ordered(_curves([[np.inf] * 8 for _ in range(3)]), "negative", ties_ok=True)
    assert ev.verdict == "not_evaluated" and "censored" in ev.reason


def test_a_replicate_trending_the_other_way_is_one_seed_not_29_steps():
    # two seeds rise at every step, one falls at every step: 58 of 87 steps favour the paper, which a sign test over
    # steps alone calls reproduced; with the seed as the unit it is 2 seeds against 1: inconclusive
    rows = [list(range(30)), list(range(30)), list(range(30, 0, -1))]
    ev = _ordered(pd.DataFrame(rows, columns=list(range(30)), dtype=float), "positive")
    assert ev.details["steps_on_paper_side"] == 58 and ev.details["mean_vote_per_seed"] == {"0": 1.0, "1": 1.0, "2": -1.0}
    assert ev.verdict == "inconclusive"


def test_lambda_star_at_the_domain_end_two_is_exact_not_censored():
    from repro.papers.dp_ditto import claims as C

    lams = [0.001, 0.01, 0.1, 0.5, 1.0, 2.0]
    Ts = [10, 20, 40, 80]
    # lambda* = 2 (the paper's "no personalization" end of [0, 2]) at every T: not censored, so judged (all ties)
    rows = [("a", f"T={T}", lam, "fairness", 1.0 if lam == 2.0 else 2.0, s) for s in (0, 1, 2) for T in Ts for lam in lams]
    t = {"fig7": pd.DataFrame(rows, columns=["panel", "series", "x", "metric", "value", "seed"]).assign(figure="fig7", run_id="")}
    from repro import experiment as ex

    p = {**ex.load_params("dp_ditto", "paper"), "fig7_T": Ts, "fig7_lambdas": lams}
    ev = C.lambda_star_falls_with_T(t, p)
    assert "censored" not in ev.reason and ev.details.get("steps_tied") == 9
