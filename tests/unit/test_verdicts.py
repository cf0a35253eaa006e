"""The verdict constructors, the statistics behind them, and the reference comparison."""

import math

import numpy as np
import pandas as pd
import pytest

from repro import claims as cl
from repro.reference import compare
from repro.stats import exact_value, mean_interval


def test_mean_interval_is_student_t():
    r = mean_interval([1.0, 2.0, 3.0])
    assert r.mean == 2.0 and r.n == 3
    assert r.high - r.mean == pytest.approx(4.302652729911275 * 1.0 / math.sqrt(3))
    assert mean_interval([5.0]).low == -math.inf  # one replicate establishes nothing
    assert not math.isfinite(mean_interval([1.0, float("nan")]).high)


@pytest.mark.parametrize("reps, expect, verdict", [
    ([0.10, 0.12, 0.11], "positive", "reproduced"),
    ([-0.10, -0.12, -0.11], "positive", "not_reproduced"),
    ([0.10, -0.12, 0.01], "positive", "inconclusive"),
    ([-0.10, -0.12, -0.11], "negative", "reproduced"),
    ([0.10], "positive", "inconclusive"),
    ([0.0, 0.0, 0.0], "positive", "not_reproduced"),  # a tie excludes a strict improvement
])
def test_direction(reps, expect, verdict):
    assert cl.direction(reps, expect=expect).verdict == verdict


def test_direction_threshold_and_deterministic():
    assert cl.direction([0.5, 0.52, 0.51], threshold=0.4).verdict == "reproduced"
    assert cl.direction([0.5, 0.52, 0.51], threshold=0.6).verdict == "not_reproduced"
    assert cl.direction([0.3], deterministic=True).verdict == "reproduced"
    assert cl.direction([-0.3], deterministic=True).verdict == "not_reproduced"
    with pytest.raises(ValueError, match="deterministic"):
        cl.direction([0.1, 0.2], deterministic=True)


@pytest.mark.parametrize("reps, verdict", [
    ([0.98, 1.0, 1.02], "reproduced"),       # inside 1 +- 0.1
    ([2.0, 2.1, 1.9], "not_reproduced"),      # misses the band
    ([0.5, 1.0, 1.5], "inconclusive"),        # straddles
])
def test_number(reps, verdict):
    e = cl.number(reps, 1.0, rtol=0.1)
    assert e.verdict == verdict


def test_number_same_sign_is_not_enough():
    # the paper's 59.06 % against a regenerated 0.6 %: same sign, never reproduced
    assert cl.number([0.6, 0.61, 0.59], 59.06, rtol=0.25).verdict == "not_reproduced"


def test_number_log10_band_and_ratio():
    spec = cl.ClaimSpec("C", "toy", ("fig1",), "number", "x = 100", "x", lambda t, p: cl.number([120.0], 100.0, log10=0.5,
                                                                                                     deterministic=True),
                        cl.unchanged, cl.unchanged)
    c = spec.evaluate({}, {})
    assert c.verdict == "reproduced" and c.ratio == pytest.approx(1.2)


def test_exact():
    assert cl.exact(1.0 + 1e-13, 1.0, rtol=1e-12).verdict == "reproduced"
    assert cl.exact(1.001, 1.0, rtol=1e-12).verdict == "not_reproduced"
    assert cl.exact(float("nan"), 1.0, rtol=1e-12).verdict == "not_reproduced"


def test_combine():
    ok, bad, unk = cl.direction([1.0], deterministic=True), cl.direction([-1.0], deterministic=True), cl.direction([1.0])
    ne = cl.not_evaluated("CIFAR-10 offline")
    assert cl.combine({"a": ok, "b": ok}).verdict == "reproduced"
    assert cl.combine({"a": ok, "b": bad}).verdict == "not_reproduced"
    assert cl.combine({"a": ok, "b": unk}).verdict == "inconclusive"
    c = cl.combine({"a": ok, "cifar": ne})
    assert c.verdict == "reproduced" and "cifar" in c.reason
    assert cl.combine({"cifar": ne}).verdict == "not_evaluated"


def test_combine_says_a_shared_reason_phrase_once():
    parts = {"a": cl.not_evaluated("loss still falling", category="unreachable"),
             "b": cl.not_evaluated("too few points", category="unreachable")}
    assert cl.combine(parts).reason == "not testable in this regime: a: loss still falling; b: too few points"
    mixed = {**parts, "c": cl.not_evaluated("no run", category="not_run")}
    assert cl.combine(mixed).reason.count("not testable in this regime") == 2
    rest = {"a": cl.direction(pd.Series([0.3, 0.4, 0.5]), expect="positive"), "b": cl.not_evaluated("no run")}
    assert cl.combine(rest).verdict == "reproduced"  # a part merely missing is left out
    hung = {**rest, "c": cl.not_evaluated("eta 1 vs 10", category="constant")}
    ev = cl.combine(hung)  # a part that depends on a constant is not: the claim as a whole is not reproduced by the rest
    assert ev.verdict == "not_evaluated" and ev.reason.startswith("depends on an unstated constant: c: eta 1 vs 10")
    down = cl.direction(pd.Series([-0.3, -0.4, -0.5]), expect="positive")
    assert cl.combine({**hung, "d": down}).verdict == "not_reproduced"  # a failing part fails the claim regardless
    named = {"dnn": cl.not_evaluated("dnn: 1 T0 value", category="not_run"),
             "mlr": cl.not_evaluated("2 T0 values", category="not_run")}
    assert cl.combine(named).reason == "not run at this scale: dnn: 1 T0 value; mlr: 2 T0 values"


def _toy_table(a_minus_b):
    rows = []
    for seed, d in enumerate(a_minus_b):
        rows += [dict(figure="fig1", panel="", series="A", x=1.0, metric="acc", value=0.8 + d, seed=seed, run_id=""),
                 dict(figure="fig1", panel="", series="B", x=1.0, metric="acc", value=0.8, seed=seed, run_id="")]
    return {"fig1": pd.DataFrame(rows)}


TOY = cl.ClaimSet("toy")


@TOY.claim("C1", figures="fig1", paper_says="A beats B", tests="acc(A) - acc(B) per seed",
           refute=lambda t, p: (cl.relabel(t, "fig1", "series", {"A": "B", "B": "A"}), p),
           support=lambda t, p: (cl.edit(t, "fig1", lambda v: v + 0.5, series="A"), p))
def a_beats_b(tables, params):
    t = cl.need(tables, "fig1")
    return cl.direction(cl.per_seed(t, series="A") - cl.per_seed(t, series="B"), expect="positive")


def test_claimset_counterfactuals_move_the_verdict():
    spec = TOY["C1"]
    tables = _toy_table([0.01, -0.01, 0.0])
    assert spec.evaluate(tables, {}).verdict == "inconclusive"
    assert spec.evaluate(*spec.refute(tables, {})).verdict == "inconclusive"  # a swap of a tie stays a tie ...
    tables = _toy_table([0.02, 0.03, 0.025])
    assert spec.evaluate(tables, {}).verdict == "reproduced"
    assert spec.evaluate(*spec.refute(tables, {})).verdict == "not_reproduced"  # ... a real effect reverses
    assert spec.evaluate(*spec.support(_toy_table([-0.1, -0.1, -0.2]), {})).verdict == "reproduced"


def test_missing_data_is_not_evaluated_and_duplicates_refused():
    assert TOY["C1"].evaluate({}, {}).verdict == "not_evaluated"
    with pytest.raises(ValueError, match="twice"):
        TOY.claim("C1", figures="fig1", paper_says="", tests="", refute=cl.unchanged, support=cl.unchanged)(a_beats_b)
    with pytest.raises(KeyError, match="no claim"):
        TOY["C9"]


def _tidy(values_by_seed, x=0.9000000000000001):
    return pd.DataFrame([dict(figure="f", panel="a", series="s", x=x, metric="m", value=v, seed=k, run_id="")
                         for k, v in enumerate(values_by_seed)])


def test_reference_matches_numeric_x_and_uses_seed_spread():
    ref = _tidy([0.80, 0.82, 0.84], x=0.9)
    assert compare(_tidy([0.80, 0.82, 0.84]), ref, 1e-6, 1e-9) == []          # x written as 0.9000000000000001
    assert compare(_tidy([0.81, 0.83, 0.85]), ref, 1e-6, 1e-9) == []          # within 4 standard errors
    assert compare(_tidy([0.90, 0.92, 0.94]), ref, 1e-6, 1e-9) != []          # a real move
    assert compare(_tidy([0.5]), _tidy([0.5 + 1e-4]), 1e-6, 1e-9) != []       # one value: tight tolerance
    assert any("missing" in p for p in compare(_tidy([0.8], x=2.0), _tidy([0.8], x=1.0), 1e-6, 1e-9))


def test_reference_nan_cells():
    assert compare(_tidy([float("nan")]), _tidy([float("nan")]), 1e-6, 1e-9) == []
    assert compare(_tidy([1.0]), _tidy([float("nan")]), 1e-6, 1e-9) != []


def test_bonferroni_level_widens_the_interval_and_can_turn_a_verdict():
    from repro.claims import direction

    reps = [0.30, 0.12, 0.25, 0.10]
    plain = direction(reps)
    adjusted = direction(reps, level=1 - 0.05 / 6)
    assert plain.verdict == "reproduced" and adjusted.verdict == "inconclusive"
    assert adjusted.interval.low < plain.interval.low and "99.2%" in adjusted.tolerance


def test_sign_test_interval_is_clopper_pearson():
    """The sign test's interval is the exact (Clopper-Pearson) interval of the share of wins, computed with
    scipy.special's inverse incomplete beta: equal to scipy.stats.beta's quantiles."""
    import numpy as np
    from scipy.stats import beta

    from repro.claims import sign_test

    for wins, losses in [(7, 2), (3, 3), (0, 5), (9, 0), (12, 1)]:
        ev = sign_test(np.array([1.0] * wins + [-1.0] * losses), expect="positive")
        n = wins + losses
        low = 0.0 if wins == 0 else beta.ppf(0.025, wins, n - wins + 1)
        high = 1.0 if wins == n else beta.ppf(0.975, wins + 1, n - wins)
        assert (ev.interval.low, ev.interval.high) == pytest.approx((low, high), abs=1e-12)


def test_agree_across_readings_keeps_only_a_verdict_every_reading_gives():
    """Judging rule b: a verdict only where every judged reading gives it. Any difference between judged sides
    (inconclusive against a decided side included) is "readings disagree", both sides' numbers kept; a side that
    was not judged leaves the other's verdict; a disagreement carries on through a chain of readings."""
    up = cl.direction(pd.Series([0.3, 0.4, 0.5]), expect="positive")
    flat = cl.direction(pd.Series([0.3, -0.4, 0.2]), expect="positive")
    down = cl.direction(pd.Series([-0.3, -0.4, -0.5]), expect="positive")
    assert (up.verdict, flat.verdict, down.verdict) == ("reproduced", "inconclusive", "not_reproduced")

    def agree(a, b, names=("A", "B")):
        return cl.agree_across_readings(a, b, pair="A vs B", constant="the step", details={**a.details, "note": 1},
                                        names=names)

    same = agree(up, up)
    assert same.verdict == "reproduced" and same.effect == up.effect and same.details["note"] == 1
    for a, b in ((up, flat), (flat, down), (down, flat), (up, down)):
        mixed = agree(a, b)
        assert mixed.verdict == "not_evaluated", (a.verdict, b.verdict)
        assert cl.not_evaluated_category(mixed.reason) == "readings" and "the step" in mixed.reason
        assert mixed.details["readings"]["A"]["verdict"] == a.verdict
        assert mixed.details["readings"]["B"]["verdict"] == b.verdict
    alone = agree(cl.not_evaluated("not run at this scale: B only"), down)
    assert alone.verdict == "not_reproduced" and alone.effect == down.effect
    # a chain: the disagreement of the first pair is not read as missing data by the second
    chained = agree(agree(up, down), up, names=("A+B", "C"))
    assert chained.verdict == "not_evaluated" and cl.not_evaluated_category(chained.reason) == "readings"
    assert set(chained.details["readings"]) == {"A", "B", "C"}
    # the paper's own setting required: where it was not judged, no verdict from the departure alone
    req = cl.agree_across_readings(up, cl.not_evaluated("band unreachable", category="unreachable"), pair="p",
                                   constant="c", details=dict(up.details), b_required=True)
    assert req.verdict == "not_evaluated" and cl.not_evaluated_category(req.reason) == "unreachable"


def test_a_conflict_is_not_read_as_missing_data_by_a_later_reading():
    """Chained readings (constants, then steps): reproduced under one and not reproduced under another is a
    conflict, and it stays one whatever order the readings are combined in (it used to be kept only when it came
    last: R, NR, R gave reproduced, R, R, NR not evaluated)."""
    up = cl.direction(pd.Series([0.3, 0.4, 0.5]), expect="positive")
    down = cl.direction(pd.Series([-0.3, -0.4, -0.5]), expect="positive")

    def agree(a, b):
        return cl.agree_across_readings(a, b, pair="A vs B", constant="the constant", details=dict(a.details),
                                        names=("A", "B"))

    unreachable = cl.not_evaluated("at most 2 % reachable", category="unreachable")
    orders = [agree(agree(up, down), up), agree(agree(up, up), down), agree(up, agree(down, up)),
              agree(agree(unreachable, agree(up, down)), up)]  # an earlier side that cannot judge does not hide it
    assert [e.verdict for e in orders] == ["not_evaluated"] * 4
    assert all(cl.not_evaluated_category(e.reason) == "readings" for e in orders)
    assert orders[0].details["other_reading"]["verdict"] == "reproduced"
    # a side that is merely missing still leaves the other side's verdict
    assert agree(cl.not_evaluated("fig3 was not regenerated"), down).verdict == "not_reproduced"


def test_a_required_reading_that_cannot_judge_gives_no_verdict():
    """b_required: the second reading is the paper's own setting (a printed step the package departs from): where it
    cannot be judged, neither can the claim, for its reason; the departure's verdict stays in the details."""
    up = cl.direction(pd.Series([0.3, 0.4, 0.5]), expect="positive")
    missing = cl.not_evaluated("fig3 was not regenerated")
    unreachable = cl.not_evaluated("at most 3 % reachable", category="unreachable")
    kw = dict(pair="A vs B", constant="the step", details=dict(up.details), names=("A", "B"))
    assert cl.agree_across_readings(up, missing, **kw).verdict == "reproduced"  # without the flag: A alone decides
    ev = cl.agree_across_readings(up, missing, b_required=True, **kw)
    assert ev.verdict == "not_evaluated" and cl.not_evaluated_category(ev.reason) == "not_run"
    assert ev.details["other_reading"]["reading"] == "A" and ev.details["other_reading"]["verdict"] == "reproduced"
    ev = cl.agree_across_readings(up, unreachable, b_required=True, **kw)
    assert ev.verdict == "not_evaluated" and cl.not_evaluated_category(ev.reason) == "unreachable"
    # the paper's own setting judged, the departure not: the paper's setting decides
    assert cl.agree_across_readings(cl.not_evaluated("x"), up, b_required=True, **kw).verdict == "reproduced"


def test_not_reproduced_on_opposite_sides_of_a_continuous_constant_do_not_agree():
    """Two values of an unstated constant, one giving an effect above the printed value's band and one below it:
    a value between them may give the printed number, so the claim is not evaluated (constant); on the same side the
    "not reproduced" is kept; without ``continuous`` (discrete readings) both sides keep it too."""
    above = cl.number([80.0, 81.0, 82.0], 32.71, rtol=0.1)
    below = cl.number([-10.0, -11.0, -9.0], 32.71, rtol=0.1)
    far_above = cl.number([60.0, 61.0, 62.0], 32.71, rtol=0.1)
    assert above.verdict == below.verdict == far_above.verdict == "not_reproduced"
    kw = dict(pair="p", constant="the constant", details={})
    ev = cl.agree_across_readings(above, below, continuous=True, **kw)
    assert ev.verdict == "not_evaluated" and "opposite sides" in ev.reason
    assert cl.not_evaluated_category(ev.reason) == "constant"
    assert cl.agree_across_readings(above, far_above, continuous=True, **kw).verdict == "not_reproduced"
    assert cl.agree_across_readings(above, below, **kw).verdict == "not_reproduced"


def test_record_table_counts_only_empirical_and_closed_form_results_as_reproduced():
    """Judging rule f: a claim of category by construction / calibration input / package check that holds is counted
    apart, per category, never as reproduced; a failing one is a failure like any other."""
    from repro.record import Record, _verdict_cell, counts

    def rec(cid, verdict, category=None, kind="direction"):
        claim = {"kind": kind, "details": {}, **({"category": category} if category else {})}
        return Record("p", cid, verdict, "paper", verdict, verdict, claim)

    recs = [rec("C1", "reproduced", "by_construction", "exact"), rec("C2", "reproduced"),
            rec("C3", "not_reproduced", "package_check"), rec("C4", "reproduced", kind="exact"),
            rec("C5", "reproduced", "calibration_input", "exact"), rec("C6", "reproduced", "calibration_input", "exact")]
    c = counts(recs)
    assert _verdict_cell(c, "reproduced_empirical", recs) == "1 (1 paper)"
    assert _verdict_cell(c, "reproduced_closed_form", recs) == "1 (1 paper)"  # an exact claim with no category
    assert _verdict_cell(c, "holds_not_counted", recs) == "3 (3 paper; by construction 1; calibration input 2)"
    assert _verdict_cell(c, "not_reproduced", recs) == "1 (1 paper)"
    assert c["reproduced"] == 5  # the verdict itself is unchanged; only what it counts as


def test_a_claim_declares_its_category_and_a_wrong_one_is_refused():
    toy = cl.ClaimSet("toy")
    kw = dict(figures="fig1", paper_says="x", tests="y", refute=cl.unchanged, support=cl.unchanged)
    toy.claim("A", kind="exact", **kw)(lambda t, p: cl.exact(1.0, 1.0))
    toy.claim("B", kind="exact", category="calibration_input", **kw)(lambda t, p: cl.exact(1.0, 1.0))
    toy.claim("C", **kw)(lambda t, p: cl.direction([1.0, 1.1, 0.9, 1.05]))
    got = {c.id: (c.verdict, c.category, cl.record_column(c)) for c in toy.evaluate({}, {})}
    assert got == {"A": ("reproduced", "closed_form", "reproduced_closed_form"),
                   "B": ("reproduced", "calibration_input", "holds_not_counted"),
                   "C": ("reproduced", "empirical", "reproduced_empirical")}
    with pytest.raises(ValueError, match="category 'setting' not in"):
        toy.claim("D", category="setting", **kw)


def test_grid_optimum_censors_at_the_grid_edge_only():
    """Rule d: an interior printed optimum beaten by a neighbour in every seed is decided; an optimum at the grid's
    edge is censored (not located); an interior optimum in every seed inside the band is reproduced."""
    grid = [0.001, 0.005, 0.01, 0.05]
    rising = pd.DataFrame([[1.0, 2.0, 3.0, 4.0], [1.1, 2.2, 3.1, 4.2], [0.9, 1.9, 2.8, 3.9]], columns=grid)
    ev = cl.grid_optimum(rising, 0.005, 0.005 / 2, 0.005 * 2)
    assert ev.verdict == "not_reproduced" and "beats it in every seed" in ev.reason
    # the printed value at the grid's edge where every seed's optimum sits: censored, not decided
    ev = cl.grid_optimum(rising, 0.001, 0.001 / 2, 0.001 * 2)
    assert ev.verdict == "not_evaluated" and cl.not_evaluated_category(ev.reason) == "unreachable"
    # one seed where the printed point is not beaten: no decision by rule d; the two seeds whose optimum is at the
    # grid's low edge lie at or below 0.001, outside the band [0.0025, 0.01] whatever lies past the edge
    mixed = rising.copy()
    mixed.loc[1] = [2.0, 1.5, 1.6, 4.0]
    ev = cl.grid_optimum(mixed, 0.005, 0.005 / 2, 0.005 * 2)
    assert ev.verdict == "inconclusive" and ev.details["censored_at_grid_edge"] == 0 and ev.details["seeds_in_band"] == 1
    # a band reaching past the edge: those seeds are censored, left out
    ev = cl.grid_optimum(mixed, 0.005, 0.0001, 0.01)
    assert ev.verdict == "reproduced" and ev.details["censored_at_grid_edge"] == 2
    valley = pd.DataFrame([[3.0, 1.0, 2.0, 4.0]] * 3, columns=grid)
    assert cl.grid_optimum(valley, 0.005, 0.0025, 0.01).verdict == "reproduced"
    assert cl.grid_optimum(valley, 0.01, 0.008, 0.02).verdict == "not_reproduced"  # beaten by 0.005 in every seed
    assert cl.grid_optimum(-valley, 0.005, 0.0025, 0.01, minimise=False).verdict == "reproduced"


def test_comparisons_judge_each_part_and_never_pool_a_failing_one_away():
    """Rule a: one failing comparison makes the claim not reproduced even when pooling every pair would favour the
    paper (here 40 of 45 pairs are on the paper's side)."""
    good = pd.DataFrame(np.full((3, 10), 0.5) + np.arange(3)[:, None] * 0.01)
    bad = pd.DataFrame([[-0.30, -0.31, -0.29, -0.30, -0.32], [-0.28, -0.30, -0.31, -0.29, -0.30],
                        [-0.31, -0.30, -0.30, -0.29, -0.31]])
    pooled = np.concatenate([good.to_numpy().ravel(), good.to_numpy().ravel(), bad.to_numpy().ravel()])
    assert cl.sign_test(pooled).verdict == "reproduced"  # what pooling across comparisons would say
    ev = cl.comparisons({"vs B": good, "vs C": good, "vs D": bad})
    assert ev.verdict == "not_reproduced" and "vs D" in ev.reason
    assert ev.details["parts"]["vs B"]["verdict"] == "reproduced"


def test_comparisons_take_the_seed_as_the_unit():
    """Rule g: 3 seeds x 20 levels all on the paper's side is 60 pairs to a pooled sign test but 3 replicates here;
    a seed whose levels disagree widens the interval instead of counting 20 times."""
    consistent = pd.DataFrame(np.full((3, 20), 0.1) + np.array([[0.0], [0.01], [-0.01]]))
    assert cl.comparisons({"vs B": consistent}).verdict == "reproduced"
    split = pd.DataFrame([[0.1] * 20, [0.1] * 20, [-0.5] * 20])
    assert cl.sign_test(split.to_numpy().ravel()).verdict == "reproduced"  # 40 of 60 pairs: the pooled test decides
    ev = cl.comparisons({"vs B": split})
    assert ev.verdict == "inconclusive" and ev.details["parts"]["vs B"]["pairs"] == 60


def test_comparisons_state_the_seeds_that_would_decide():
    ev = cl.comparisons({"vs B": [0.1, 0.3, -0.05], "vs C": [0.5, 0.6, 0.55]})
    assert ev.verdict == "inconclusive" and "seeds would reproduce every part" in ev.reason
    ev = cl.comparisons({"vs B": [-0.1, -0.3, 0.05], "vs C": [0.5, 0.6, 0.55]})
    assert "seeds would decide it against the paper (vs B)" in ev.reason


def test_trend_has_no_veto_by_one_seed():
    """Rule g: a seed whose steps reverse once does not block a trend the seeds show (the old Spearman guard did)."""
    curves = pd.DataFrame([[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 5.5, 8]],
                          columns=range(8), dtype=float)
    ev = cl.trend(curves)
    assert ev.verdict == "reproduced" and ev.details["steps_against"] == 1
    assert cl.trend(-curves).verdict == "not_reproduced"
    assert cl.trend(curves * 0).verdict == "not_evaluated"  # every step a tie: degenerate


def test_a_paper_declares_one_margin_per_metric():
    """Rule e: claims read the paper's margin; dp_ditto's 6.a ('maintained') and 6.b ('degrade significantly') share it."""
    from repro import registry

    claims = registry.module("dp_ditto", "claims")
    assert claims.MAINTAIN_ACC == claims.CLAIMS.margin("accuracy") == 0.02
    with pytest.raises(KeyError, match="declares no materiality margin for 'loss'"):
        claims.CLAIMS.margin("loss")


def test_printed_magnitude_out_of_reach_is_evidence():
    """Rule c: beyond the ceiling the claim is decided (not reproduced) unless an unstated constant sets the ceiling."""
    ev = cl.printed_magnitude([0.01, 0.02, 0.015], 0.5, 0.04, rtol=0.25)
    assert ev.verdict == "not_reproduced" and ev.details["largest_reachable_gain"] == 0.04
    ev = cl.printed_magnitude([0.01, 0.02, 0.015], 0.5, 0.04, rtol=0.25, limited_by="an unstated step size")
    assert ev.verdict == "not_evaluated" and cl.not_evaluated_category(ev.reason) == "unreachable"
    assert cl.printed_magnitude([0.5, 0.51, 0.49], 0.5, 0.9, rtol=0.25).verdict == "reproduced"  # within reach
    assert cl.printed_magnitude([-0.01, -0.02, -0.015], -0.2, 0.03, rtol=0.25).verdict == "not_reproduced"  # a cost


def test_a_stand_in_decides_only_with_a_data_free_argument_that_agrees():
    """Rule h: a verdict on a stand-in for unobtainable data is not evaluated (the stand-in's verdict beside it),
    unless a data-free argument points the same way; an argument and a stand-in that disagree decide nothing."""
    up = cl.direction(pd.Series([0.3, 0.4, 0.5]), expect="positive")
    down = cl.direction(pd.Series([-0.3, -0.4, -0.5]), expect="positive")
    plain = cl.on_stand_in(up, "data X unobtainable")
    assert plain.verdict == "not_evaluated" and cl.not_evaluated_category(plain.reason) == "offline"
    assert plain.details["surrogate_verdict"]["verdict"] == "reproduced"
    assert cl.on_stand_in(up, "X", (True, "a bound on any data")).verdict == "reproduced"
    assert cl.on_stand_in(down, "X", (False, "a bound on any data")).verdict == "not_reproduced"
    for ev, supports in ((down, True), (up, False)):
        mixed = cl.on_stand_in(ev, "X", (supports, "a bound"))
        assert mixed.verdict == "not_evaluated" and "does not agree" in mixed.reason
    flat = cl.direction(pd.Series([0.3, -0.4, 0.2]), expect="positive")
    assert cl.on_stand_in(flat, "X", (True, "a bound")).verdict == "not_evaluated"


def test_across_unstated_decides_only_where_every_or_no_point_of_the_grid_agrees():
    """Rule c over a grid of constants the paper does not state: the package's choice alone is a setting, not a result."""
    up = cl.direction(pd.Series([0.3, 0.4, 0.5]), expect="positive")
    assert cl.across_unstated(up, 10, 10, "a grid").verdict == "reproduced"
    assert cl.across_unstated(up, 0, 10, "a grid").verdict == "not_reproduced"
    some = cl.across_unstated(up, 4, 10, "a grid")
    assert some.verdict == "not_evaluated" and cl.not_evaluated_category(some.reason) == "constant"
    assert some.details["at_chosen"]["verdict"] == "reproduced" and some.details["cells_holding"] == 4


def test_a_turning_point_past_the_papers_own_range_is_decided_not_censored():
    """Rule d: monotone up to the end of the paper's own range in every seed is evidence against a turning point the
    paper reports inside it; a grid that stops short is censored."""
    assert cl.past_the_papers_range(100.0, 100.0, "loss").verdict == "not_reproduced"
    short = cl.past_the_papers_range(30.0, 100.0, "loss")
    assert short.verdict == "not_evaluated" and cl.not_evaluated_category(short.reason) == "unreachable"
