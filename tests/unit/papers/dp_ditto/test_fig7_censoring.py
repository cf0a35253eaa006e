"""Fig. 7's optima at the edge of the package's grids (referee audit of 2026-11-29): an argmin at a grid edge is
censored. Claim 14.a is then not evaluated; 16.T keeps "not reproduced" only when the edge lies past the band; 16.lambda
keeps it only on grid-free evidence (every lambda below 0.1 fairer than 0.1 at the paper's T* = 80)."""

import numpy as np
import pandas as pd

from repro import experiment as ex
from repro.papers.dp_ditto import claims as C

T_GRID = [10, 20, 40, 60, 80, 100, 120, 150]
LAMS = [0.001, 0.01, 0.05, 0.1, 0.5, 2.0]


def _params():
    p = ex.load_params("dp_ditto", "paper")
    return {**p, "fig7_T": T_GRID, "fig7_lambdas": LAMS}


def _tables(fair, T_star, lam_star, seeds=(0, 1, 2)):
    """fig7 rows: fairness(T, lam, seed) from ``fair`` and the joint optimum per seed."""
    rows = [("a", f"T={T}", lam, "fairness", fair(T, lam, s), s) for s in seeds for T in T_GRID for lam in LAMS]
    rows += [("b", "joint optimum (D16)", T_star, "T_star", T_star, s) for s in seeds]
    rows += [("b", "joint optimum (D16)", T_star, "lambda_star", lam_star, s) for s in seeds]
    df = pd.DataFrame(rows, columns=["panel", "series", "x", "metric", "value", "seed"]).assign(figure="fig7", run_id="")
    return {"fig7": df}


def _judge(fn, tables):
    return fn(tables, _params())


def test_lambda_star_at_the_grid_edge_everywhere_is_censored():
    ev = _judge(C.lambda_star_falls_with_T, _tables(lambda T, lam, s: lam, 150, 0.001))
    assert ev.verdict == "not_evaluated" and "censored" in ev.reason


def test_lambda_star_inside_the_grid_is_still_judged():
    # lambda* falls from 0.5 to 0.01 as T grows: an interior optimum at every T
    target = dict(zip(T_GRID, [0.5, 0.5, 0.1, 0.1, 0.05, 0.05, 0.01, 0.01]))
    ev = _judge(C.lambda_star_falls_with_T, _tables(lambda T, lam, s: abs(np.log10(lam / target[T])) + 1, 150, 0.001))
    assert ev.verdict == "reproduced"


def test_t_star_censored_past_the_band_is_not_reproduced_and_says_so():
    ev = _judge(C.joint_t_star, _tables(lambda T, lam, s: lam, 150, 0.001))
    assert ev.verdict == "not_reproduced" and "censored" in ev.reason


def test_t_star_censored_inside_the_band_is_not_evaluated():
    p = {**_params(), "fig7_T": [10, 20, 40, 60, 80]}
    ev = C.joint_t_star(_tables(lambda T, lam, s: lam, 80, 0.001), p)
    assert ev.verdict == "not_evaluated"


def test_lambda_star_at_the_smallest_lambda_needs_grid_free_evidence():
    # every lambda below 0.1 fairer than 0.1 at T = 80: not reproduced on any grid with a point below 0.1
    ev = _judge(C.joint_lambda_star, _tables(lambda T, lam, s: lam, 150, 0.001))
    assert ev.verdict == "not_reproduced" and "grid-free" in ev.reason
    # 0.05 less fair than 0.1 at T = 80 in one seed: the verdict rests on the unstated lambda grid
    ev = _judge(C.joint_lambda_star, _tables(lambda T, lam, s: 1.0 if (s == 1 and lam == 0.05) else lam, 150, 0.001))
    assert ev.verdict == "not_evaluated" and "lambda grid" in ev.reason


def test_lambda_star_off_the_edge_keeps_the_band_reading():
    assert _judge(C.joint_lambda_star, _tables(lambda T, lam, s: lam, 150, 2.0)).verdict == "not_reproduced"
    assert _judge(C.joint_lambda_star, _tables(lambda T, lam, s: lam, 150, 0.1)).verdict == "reproduced"
