"""The judgement rules of wpfl_minmax's claims: orderings as one sign test pooled over seed x level pairs, the largest
reachable gain, the verdict of record from paper scale, log ratios for the heavy-tailed max test loss, and the exact
Theorem 1 check."""

import numpy as np
import pandas as pd
import pytest

from repro import experiment as ex
from repro.papers.wpfl_minmax import claims as C


def test_bonferroni_level():
    assert C.bonferroni(1) == 0.95 and abs(C.bonferroni(10) - 0.995) < 1e-12


def test_ordering_is_judged_per_comparison_with_the_seed_as_unit():
    """Judging rules a, g (repro.claims.comparisons): the T0 levels of one comparison are pooled within each seed; a
    comparison at the paper's side in every seed and level reproduces, one against it in every seed refutes."""
    good = pd.Series([0.2, 0.21, 0.22], index=[0, 1, 2])
    bad = pd.Series([-0.2, -0.21, -0.19], index=[0, 1, 2])
    # the levels of one comparison: per-seed means 0.067, 0.07, 0.083 -> reproduced at the 95 % level
    assert C._judge_all({"a T0=5: P vs B": good, "a T0=10: P vs B": good, "a T0=20: P vs B": bad}).verdict == "reproduced"
    assert C._judge_all({f"a T0={k}: P vs B": good for k in range(4)}).verdict == "reproduced"
    assert C._judge_all({f"a T0={k}: P vs B": bad for k in range(4)}).verdict == "not_reproduced"
    # two comparisons are never pooled: one failing in every seed makes the claim not reproduced
    two = {**{f"a T0={k}: P vs B": good for k in range(4)}, **{f"a T0={k}: P vs C": bad for k in range(4)}}
    ev = C._judge_all(two)
    assert ev.verdict == "not_reproduced" and "a: P vs C" in ev.reason
    # a part with its own direction is oriented before pooling
    assert C._judge_all({f"a T0={k}: P vs {b}": (-good, "negative") for k in range(2) for b in "BC"}).verdict == "reproduced"


def test_gain_band_above_the_reachable_maximum_is_decided_by_the_ceiling():
    """Judging rule c: competitors at 0.95 cap any accuracy gain at 5.3 %, below a 52 % band: at the paper's own
    settings the printed gain cannot occur, so the claim is not reproduced with the ceiling as its evidence."""
    vals = pd.Series([-0.01, 0.0, 0.01])
    cap = pd.Series([0.05 / 0.95] * 3)
    ev = C._judge_gain(vals, 0.5226, cap)
    assert ev.verdict == "not_reproduced" and "at most 5.26 % reachable" in ev.reason
    assert ev.details["largest_reachable_gain"] == round(0.05 / 0.95, 4)
    assert C._judge_gain(vals, 0.5226, cap, keep=True).verdict == "not_reproduced"
    assert C._judge_gain(vals, 0.5226, pd.Series([1.0] * 3)).verdict == "not_reproduced"


def _fig2(values: dict) -> pd.DataFrame:
    """Fig. 2 accuracy at two T0, 3 seeds: ``values`` series -> accuracy (a seed-dependent spread of 0.001)."""
    return pd.DataFrame([dict(figure="fig2", panel="mlr_mnist", series=s, x=x, metric="accuracy", value=v + 0.001 * k,
                              seed=k, run_id="") for k in range(3) for x in (5, 10) for s, v in values.items()])


def test_the_non_private_run_caps_a_dp_mechanisms_gain():
    """Rule c in the measured regime (C13, C17): no DP mechanism beats WPFL without DP, so when the non-private run sits
    just above the DP baselines, a printed 5 % gain over them cannot occur (not reproduced, the ceiling its evidence);
    far above, the measured gain itself is judged."""
    near = _fig2({"Proposed": 0.80, "Gaussian": 0.80, "MA": 0.80, "Dithering": 0.80, C.NO_DP: 0.801})
    vals, det = C._at_least({"fig2": near}, "fig2", ["mlr_mnist"], C.DP_BASELINES, "accuracy", ceiling=C.NO_DP)
    ev = C._judge_gain(vals, 0.05, det["_cap"], details=det, cap_note=C.CEILING_NOTE)
    assert ev.verdict == "not_reproduced" and "at most 0.1" in ev.reason and "out of reach" in ev.reason
    far = _fig2({"Proposed": 0.80, "Gaussian": 0.80, "MA": 0.80, "Dithering": 0.80, C.NO_DP: 0.95})
    vals, det = C._at_least({"fig2": far}, "fig2", ["mlr_mnist"], C.DP_BASELINES, "accuracy", ceiling=C.NO_DP)
    assert C._judge_gain(vals, 0.05, det["_cap"], details=det).verdict == "not_reproduced"  # gain 0 against 5 %


def test_a_printed_dp_cost_is_capped_by_the_largest_cost_any_mechanism_shows():
    """Rule c for C15/C16: if even the noisiest mechanism costs 0.5 %, a printed 9.26 % cost cannot occur in the regime
    (not reproduced, the ceiling its evidence); when one mechanism costs 40 %, the measured cost is judged."""
    flat = _fig2({C.NO_DP: 0.80, "Proposed": 0.80, "Gaussian": 0.796, "MA": 0.80, "Dithering": 0.80})
    ev = C._rel_per_config({"fig2": flat}, "fig2", C.NO_DP, -0.0926)
    assert ev.verdict == "not_reproduced" and "out of reach" in ev.details["parts"]["mlr_mnist"]["reason"]
    steep = _fig2({C.NO_DP: 0.80, "Proposed": 0.80, "Gaussian": 0.48, "MA": 0.80, "Dithering": 0.80})
    assert C._rel_per_config({"fig2": steep}, "fig2", C.NO_DP, -0.0926).verdict == "not_reproduced"


def test_reduced_profile_keeps_only_verdicts_shown_at_paper_scale():
    """Judging rule 1: in a reduced profile a claim not judged alike at paper scale is 'regime not preserved'."""
    rows = [dict(figure="fig2", panel="mlr_mnist", series=s, x=5, metric="accuracy", value=v + 0.001 * k, seed=k, run_id="")
            for k in range(3) for s, v in (("Proposed", 0.9), ("Gaussian", 0.5), ("MA", 0.5), ("Dithering", 0.5))]
    t = {"fig2": pd.DataFrame(rows)}
    spec = C.CLAIMS["C14"]
    one_step = {"local_steps": 1}  # the printed single step (no second reading needed)
    assert spec.evaluate(t, {"data_fraction": 1.0, **one_step}).verdict == "reproduced"
    reduced = spec.evaluate(t, {"data_fraction": 0.02, **one_step})
    assert reduced.verdict == "not_evaluated" and reduced.reason.startswith("regime not preserved")
    assert reduced.details["quick_judgement"]["verdict"] == "reproduced"


def test_log_loss_ratio_ranks_diverged_runs_last_without_swamping():
    la = pd.DataFrame({5: [1.0, 1.0, 1.0]})
    lb = pd.DataFrame({5: [np.inf, 10.0, 3372.0]})
    r = C._log_loss_ratio(la, lb)[5]
    assert r.iloc[0] == C.LOSS_DIVERGED_DECADES and abs(r.iloc[1] - 1) < 1e-12 and r.min() > 0
    assert C._log_loss_ratio(lb, la)[5].max() < 0


def test_theorem1_one_release_delta_is_q():
    """One release in the worst-case coordinate: the exact delta of the paper's q-mixture is q, above delta_Q."""
    p = ex.load_params("wpfl_minmax", "paper")
    ev = C.theorem1_delta_one_release({}, p)
    assert ev.verdict == "not_reproduced"
    for part in ev.details["parts"].values():
        delta = float(part["reason"].split("delta = ")[1].split(" ")[0])
        assert abs(delta - p["sampling_rate_q"]) / p["sampling_rate_q"] < 0.01
    assert C.theorem1_delta_one_release({}, {**p, "sampling_rate_q": 1e-6}).verdict == "reproduced"


def test_quantized_release_delta_without_sampling():
    """q = 1 (what was run): noise far below the clip separates +C from -C (delta 1); noise far above it hides them."""
    assert C.quantized_release_delta(7.0, 0.004, 16, 1.0, q=1.0) == pytest.approx(1.0, abs=1e-9)
    assert C.quantized_release_delta(7.0, 700.0, 16, 1.0, q=1.0) < 1e-3
    assert C.quantized_release_delta(7.0, 5.0, 16, 1.0, q=0.01) < C.quantized_release_delta(7.0, 5.0, 16, 1.0, q=1.0)


def _privacy_rows(cert: float, noise_std: float):
    rows = []
    for panel, t0 in (("dnn_mnist", 5), ("mlr_mnist", 5)):
        for metric, v in (("certified_epsilon", cert), ("noise_std", noise_std), ("delta", 1e-3)):
            rows.append(dict(figure="privacy", panel=panel, series=C.P, x=t0, metric=metric, value=v, seed=-1, run_id=""))
    return {"privacy": pd.DataFrame(rows)}


def test_an_rdp_bound_out_of_band_refutes_theorem1_only_where_one_quantized_release_breaks_delta_q():
    """The RDP certificate is an upper bound: outside the factor-2 band it refutes eps_Q = 1 only where the exact
    delta of one quantized release at eps_Q exceeds delta_Q; otherwise the part is inconclusive."""
    p = ex.load_params("wpfl_minmax", "paper")
    assert C.certified_epsilon_of_table2_noise(_privacy_rows(3e7, 0.004), p).verdict == "not_reproduced"
    assert C.certified_epsilon_of_table2_noise(_privacy_rows(3.0, 2000.0), p).verdict == "inconclusive"
    assert C.certified_epsilon_of_table2_noise(_privacy_rows(1.2, 2000.0), p).verdict == "reproduced"


def _sched_rows(figure, gain, seeds=(0, 1, 2), t0s=(5, 10, 15, 20)):
    """Fig. 3 accuracy rows: Proposed at 0.6 + gain, every scheduler at 0.6 (a little seed and T0 jitter)."""
    rows = []
    for k in seeds:
        for t in t0s:
            for cfg in ("dnn_mnist", "mlr_mnist"):
                jit = 0.001 * k + 0.0001 * t
                rows.append(dict(figure=figure, panel=cfg, series="Proposed", x=t, metric="accuracy", value=0.6 + gain + jit,
                                 seed=k, run_id=""))
                for j, s in enumerate(C.SCHEDULERS):
                    rows.append(dict(figure=figure, panel=cfg, series=s, x=t, metric="accuracy", value=0.6 + jit - 0.0003 * j,
                                     seed=k, run_id=""))
    return pd.DataFrame(rows)


def test_scheduling_claims_keep_a_verdict_only_where_both_readings_of_tau_give_it():
    """Judging rule 4 for the local steps per round: C3 judged at the package's tau (Fig. 3) and at tau = 1 (the
    literal_tau figure); opposite verdicts make it 'depends on an unstated constant', agreeing ones stand."""
    params = {"local_steps": 100, "literal_tau": 1}
    spec = C.CLAIMS["C3"]
    win, lose = _sched_rows("fig3", 0.05), _sched_rows("fig3", -0.05)
    alone = spec.evaluate({"fig3": win}, params)  # the package's tau departs from the printed step: no verdict alone
    assert alone.verdict == "not_evaluated" and alone.reason.startswith("not run at this scale")
    assert "not regenerated" in alone.reason and alone.details["package_reading"]["verdict"] == "reproduced"
    quick = spec.evaluate({"fig3": lose}, {"local_steps": 100, "literal_tau": None})
    assert quick.verdict == "not_evaluated" and "not run in this profile" in quick.reason
    printed = spec.evaluate({"fig3": win}, {"local_steps": 1, "literal_tau": None})  # the profile takes the printed step
    assert printed.verdict == "reproduced"
    other_fig = spec.evaluate({"fig3": win, "literal_tau": _sched_rows("literal_tau:fig4", 0.04)}, params)
    assert other_fig.verdict == "not_evaluated" and "not run at this scale" in other_fig.reason  # tau = 1 lacks Fig. 3
    same = spec.evaluate({"fig3": win, "literal_tau": _sched_rows("literal_tau:fig3", 0.04)}, params)
    assert same.verdict == "reproduced" and same.details["literal_reading"]["verdict"] == "reproduced"
    split = spec.evaluate({"fig3": win, "literal_tau": _sched_rows("literal_tau:fig3", -0.04)}, params)
    assert split.verdict == "not_evaluated" and split.reason.startswith("readings disagree")
    assert "tau = 100 (the package's reading): reproduced" in split.reason and "tau = 1" in split.reason
    both_fail = spec.evaluate({"fig3": lose, "literal_tau": _sched_rows("literal_tau:fig3", -0.04)}, params)
    assert both_fail.verdict == "not_reproduced"


def test_reading_counterfactuals_edit_both_readings():
    """C3's refuting counterfactual must turn the verdict at both readings, or it could not fail."""
    params = {"local_steps": 100, "literal_tau": 1}
    spec = C.CLAIMS["C3"]
    tables = {"fig3": _sched_rows("fig3", 0.05), "literal_tau": _sched_rows("literal_tau:fig3", 0.05)}
    t2, p2 = spec.refute(tables, params)
    assert spec.evaluate(t2, p2).verdict == "not_reproduced"
    assert set(t2["literal_tau"]["figure"]) == {"literal_tau:fig3"}
    t3, p3 = spec.support(t2, p2)
    assert spec.evaluate(t3, p3).verdict == "reproduced"


def test_pfl_claims_are_judged_with_fedamp_deployed_both_ways():
    """C27 ('FedAMP is the most accurate PFL baseline') on the committed paper-scale tables: judged with FedAMP
    restarting from its cloud model (S13) and with the anchor-only deployment (S15), each comparison apart with the
    seed as the unit (inconclusive at both with 3 seeds); its counterfactuals, applied to both deployments and both
    readings of tau, still move it."""
    from repro import pipeline
    from repro.experiment import load_params
    from repro.papers.wpfl_minmax.claims import CLAIMS

    tables = dict(pipeline.paper_tables("wpfl_minmax", "paper"))
    if not all(n in tables for n in ("fig6", "literal_tau")):
        pytest.skip("paper-profile tables not in this checkout")
    params = load_params("wpfl_minmax", "paper")
    spec = CLAIMS["C27"]
    ev = spec.evaluate(tables, params)
    assert "(S13)" in ev.reason and "(S15)" in ev.reason
    # judging rule b: the deployments disagree (not reproduced with S13, inconclusive with S15), both shown
    assert ev.verdict == "not_evaluated" and ev.reason.startswith("depends on an unstated constant: FedAMP's deployment")
    sides = {k: v["verdict"] for k, v in ev.details["readings"].items()}
    assert sides["FedAMP restarting from u_i (S13)"] == "not_reproduced", sides  # at tau = 1, with S15 inconclusive
    assert sides["FedAMP anchor only (S15)"] == "inconclusive" and sides["tau = 100"] == "inconclusive", sides
    assert "seeds would decide it" in next(v["reason"] for v in ev.details["readings"].values() if v["verdict"] == "inconclusive")
    assert spec.evaluate(*spec.refute(tables, params)).verdict == "not_reproduced"
    assert spec.evaluate(*spec.support(tables, params)).verdict == "reproduced"


def test_a_verdict_from_trainings_at_the_per_symbol_reading_of_eq_13_says_so():
    """Every claim that reads a training figure carries BER_NOTE at ber_snr: symbol (the package's departure from the
    printed eq. (13)), none at "bit" (as printed); an analytic claim (Table I) never does, nor does a claim that is
    not evaluated."""
    from repro.claims import Evidence

    judged = C._at_both_ber(lambda t, p: Evidence("not_reproduced", reason="measured"), ())
    assert judged({}, {"ber_snr": "symbol"}).reason == "measured; " + C.BER_NOTE
    assert judged({}, {"ber_snr": "bit"}).reason == "measured"
    skipped = C._at_both_ber(lambda t, p: Evidence("not_evaluated", reason="not run at this scale: x"), ())
    assert C.BER_NOTE not in skipped({}, {"ber_snr": "symbol"}).reason
    def layers(fn):  # the outer rule (a diverged PFL baseline left out) wraps this one
        while fn is not None:
            yield fn
            fn = getattr(fn, "__wrapped__", None)
    noted = {s.id for s in C.CLAIMS if any(f.__code__ is judged.__code__ for f in layers(s.fn))}
    assert {"C2", "C7", "C12", "C20"} <= noted and not noted & {"C11", "C33", "C34", "C35", "C37"}


def test_the_reading_check_of_eq_13_keeps_a_verdict_only_where_both_readings_give_it():
    """C3 (Fig. 3, paper scale) with literal_ber rows: equal to the per-symbol rows, the verdict stays and names both
    readings; with Proposed behind every scheduler at the printed reading only, the claim is not evaluated; the
    claim's counterfactuals move both readings, so they still decide it."""
    from repro import pipeline

    t, p = dict(pipeline.paper_tables("wpfl_minmax", "paper")), ex.load_params("wpfl_minmax", "paper")
    t.pop(C.BER, None)  # the committed literal_ber figure is complete (2026-11-29): start from the tables without it
    spec = C.CLAIMS["C3"]
    base = spec.evaluate(t, p)
    assert base.verdict == "reproduced" and C.BER_NOTE in base.reason, base.reason
    same = {**t, C.BER: pd.concat([t[f].assign(figure=f"{C.BER}:{f}") for f in ("fig2", "fig3", "fig4")],
                                  ignore_index=True)}
    ev = spec.evaluate(same, p)
    assert ev.verdict == "reproduced" and "as printed: reproduced" in ev.reason and C.BER_NOTE not in ev.reason
    view = C._ber_tables(same, ("fig3",))
    behind, _ = C._order_cf("fig3", "accuracy", C.P, C.SCHEDULERS, a_wins=False)(view, p)
    split = {**same, C.BER: pd.concat([same[C.BER][same[C.BER]["figure"] != f"{C.BER}:fig3"],
                                       behind["fig3"].assign(figure=f"{C.BER}:fig3")], ignore_index=True)}
    assert spec.evaluate(split, p).verdict == "not_evaluated"
    for cf, want in ((spec.refute, "not_reproduced"), (spec.support, "reproduced")):
        t2, p2 = cf(split, p)
        assert spec.evaluate(t2, p2).verdict == want


def _diverged_table(lines):
    rows = [{"figure": "fig6", "panel": "dnn_mnist", "series": s, "x": 5.0, "metric": "accuracy", "value": v, "seed": 0,
             "run_id": rid} for s, v, rid in [("Proposed", 0.97, "train_group-b"), ("APPLE", 0.10, "train_group-a"),
                                               ("pFedMe", 0.95, "train_group-a"), ("APPLE", 0.90, "train_group-c")]]
    t = pd.DataFrame(rows)
    t.attrs["diverged"] = list(lines)
    return t


def test_a_diverged_pfl_baseline_is_left_out_of_its_run_only():
    """APPLE's diverged trainings (S12) of one run: its rows of that run are left out, the same baseline of another run
    and the other series stay; a diverged Proposed (S1) is not handled here (the claim stays not evaluated)."""
    base = "run train_group-a: per_seed/0/series/S12/5/max_test_loss reached inf"
    own = "run train_group-b: per_seed/0/series/S1/5/max_test_loss reached inf"
    view, handled, drop = C._without_diverged_baselines({"fig6": _diverged_table([base, own])}, ["fig6"])
    left = view["fig6"]
    assert handled == [base] and drop == {("train_group-a", "APPLE"): 1}
    assert set(zip(left["series"], left["run_id"])) == {("Proposed", "train_group-b"), ("pFedMe", "train_group-a"),
                                                        ("APPLE", "train_group-c")}
    assert left.attrs["diverged"] == [own]


def test_claim_keeps_its_verdict_only_when_it_left_the_diverged_training_out():
    import dataclasses

    from repro.claims import Evidence

    line = "run train_group-a: per_seed/0/series/S12/5/max_test_loss reached inf"
    tables = {"fig6": _diverged_table([line])}
    spec = C.CLAIMS["C30"]
    said = lambda t, p: Evidence("reproduced", reason="x")  # noqa: E731
    raw = dataclasses.replace(spec, figures=("fig6",), fn=said)
    assert raw.evaluate(tables, {}).verdict == "not_evaluated"          # the generic rule: training diverged
    wrapped = dataclasses.replace(raw, fn=C._excluding_diverged_baselines(said, ("fig6",)))
    claim = wrapped.evaluate(tables, {})
    assert claim.verdict == "reproduced" and "APPLE of run train_group-a left out" in claim.reason
