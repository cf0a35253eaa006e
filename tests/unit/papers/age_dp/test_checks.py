"""The Theorem-1 check, the joint (s, Fig. 2 eps_bar) scan and the recomputations inside the claims (C10, C11)."""

import numpy as np
import pandas as pd
import pytest

from repro import experiment as ex
from repro.papers.age_dp import checks, claims, runs
from repro.papers.age_dp import theory as th


@pytest.fixture(scope="module")
def params():
    return ex.load_params("age_dp", "quick")


def test_bound_check_counts_every_violating_schedule(params):
    model = runs.Model(params)
    eps = [0.1, 1.0]
    out = runs.bound_check(model, eps, model.surrogate)
    for mode, r in out.items():
        for j, e in enumerate(eps):
            eps_c = th.classic_epsilons(model.tables, model.schedules, e, mode)
            ld = th.loss_difference(model.tables, model.schedules, eps_c, model.n, model.s)
            ub = th.upper_bound(model.tables, model.schedules, eps_c, model.n, model.s, **model.surrogate.kwargs())
            assert r["violations"][j] == int(np.sum(ub < ld)) and r["schedules"][j] == len(ld) == 1000
            assert r["ub"][j] - r["ld"][j] == pytest.approx(float(np.min(ub - ld)))
    # the printed (12) keeps "+L(w*)", a positive constant: it can only be looser
    readings = runs.bound_check_readings(model, eps)
    literal = readings["(12) with +L(w*)"]
    assert all(sum(r["violations"]) == 0 for r in literal.values())


def test_s_scan_window_holds_the_shapes_inside_and_not_outside(params):
    scan = runs.run_s_scan({**params, "s_scan": [1.8, 18.0], "s_scan_fig2_points": 61}, log=lambda *a: None)
    rows = {r["sensitivity"]: r for r in scan["rows"]}
    assert rows[1.8]["as_run"] and not rows[18.0]["as_run"]
    for s, r in rows.items():
        lo, hi = r["fig2_window"]
        model = runs.Model({**params, "sensitivity": s})
        shapes = lambda e: checks.fig2_shapes([model.single_client_sweep(i, e)[1] for i in range(3)])  # noqa: E731
        assert all(shapes(np.sqrt(lo * hi))) and not all(shapes(lo / 1.5)) and not all(shapes(hi * 1.5))
    assert rows[1.8]["fig2_window"][0] <= params["fig2_epsilon"] <= rows[1.8]["fig2_window"][1]
    assert rows[18.0]["4 beats 5"] == rows[18.0]["grid_points"] > rows[1.8]["4 beats 5"]


@pytest.mark.parametrize("mode", ["bound", "exact"])
def test_claim_recomputes_eq8_from_the_transition_matrix(params, mode):
    p = {**params, "delta_mode": mode}
    tables = th.age_tables(runs.Model(p).db, mode)
    ages = np.arange(p["t_agg"])
    np.testing.assert_allclose(claims._delta_eq8(p, ages), tables.delta, rtol=1e-12)


def _fig2_table(factor_at_one_point=1.0, seeds=5, rel_se=0.005):
    """A synthetic Fig. 2 table: exact curves and Monte-Carlo estimates scattered by their own SE."""
    rng = np.random.default_rng(0)
    rows = []
    for panel in "abc":
        for x in range(1, 11):
            exact = 100.0 + x
            rows.append(dict(figure="fig2", panel=panel, series="exact", x=x, metric="loss_difference", value=exact, seed=-1))
            for s in range(seeds):
                se = rel_se * exact
                v = exact * (factor_at_one_point if (panel, x) == ("b", 4) else 1.0) + se * rng.standard_normal()
                base = dict(figure="fig2", panel=panel, series="monte carlo", x=x, seed=s)
                rows += [dict(base, metric="loss_difference_mc", value=v), dict(base, metric="loss_difference_mc_se", value=se)]
    return {"fig2": pd.DataFrame(rows)}


def test_monte_carlo_check_is_point_by_point(params):
    judge = claims.CLAIMS["C11"].evaluate
    assert judge(_fig2_table(), params).verdict == "reproduced"
    off = judge(_fig2_table(1.3), params)                    # one point of 30 wrong by 30 % in every seed
    assert off.verdict == "not_reproduced" and "fig2(b) monte carlo @ 4" in off.reason
    assert judge(_fig2_table(rel_se=0.05), params).verdict == "inconclusive"     # too few replicates to say
