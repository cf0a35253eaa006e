"""Claims of ota_jammer, each a small named check on the regenerated tables (repro.claims).

Learning-curve claims are judged per seed on the whole curve: the test accuracy (or training loss)
averaged over all M rounds ("AUC"), paired across methods within a seed (common random numbers),
with the Student-t interval over seeds; where the paper's words concern the end of training, also on
the last quarter of the rounds. A claim that needs several parts to hold judges each part at the
Bonferroni-adjusted level 1 - 0.05/k. Pairs are formed only on the full seed set of the figure.
Privacy claims compare the paper's printed numbers with eq. (21) evaluated on the noise the runs
actually used (calibration checks), or with the epsilon certified for what was trained (privacy table).

FedProx, FedAvg and [13] run as the paper ran them: server step 1 (FedAvg as eq. (7); FedProx with mu = 0.1,
"not tuned"). The steps tuned on table92's grid are a package observation beside them, never in their place, and
the grid leaves out 1 + c_m: eq. (9) makes FedProx at that step Upcycled-FL itself (README).

Verdict of record (judging rule 1): a learning-curve claim is judged on runs at the paper's setting (E = 20,
M = 80, full client data; Figs 9-10: E = 20, M = 80). A reduced profile keeps a verdict only where a measured
quantity shows the claim's regime is kept at both scales (recorded in the claim's reason); otherwise it is
``not_evaluated`` ("regime not preserved: ... quick vs paper"). The quick profile's E = 1 reverses Upcycled-FL
minus FedProx (C9): -1.77 / -2.11 points at E = 1 against +1.39 / +1.69 at E = 20 on the same seeds.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from repro.claims import (ClaimSet, Evidence, MissingData, combine, direction, edit, evidence_summary, exact, exact_holds, need,
                          comparisons, not_evaluated, number, on_stand_in, per_seed, unchanged)
from repro.papers.ota_jammer.experiments import (ALGO_LABEL, BASELINE_LABEL, IID_LABEL, NO_CJ_LABEL, NONPRIVATE_LABEL,
                                                 ONE_STEP_LABEL, channel_only_series, cj_series)
from repro.papers.ota_jammer.privacy import NO_CJ_NAME, ONE_STEP_NAME, cj_name
from repro.papers.ota_jammer.data import SURROGATE_METRIC

CLAIMS = ClaimSet("ota_jammer")
UPC, PROX, AVG = ALGO_LABEL["upcycled"], ALGO_LABEL["fedprox"], ALGO_LABEL["fedavg"]
B13 = BASELINE_LABEL["ma"]  # [13] at equal privacy under the paper's accountant
CJ_FIGS = {"fig6": UPC, "fig7": PROX, "fig8": AVG}
UPC1, AVG1, B131 = ONE_STEP_LABEL["upcycled"], ONE_STEP_LABEL["fedavg"], ONE_STEP_LABEL["baseline"]

# ---- thresholds (named; never tuned to the data) ------------------------------------------------------------
PAPER_EPS_NO_CJ = 6.52          # Sec. V-A
PAPER_EPS_ALT = 4.4             # Sec. V-A, printed to one decimal
PRINTED_ONE_DECIMAL = 0.05      # a number printed as x.y stands for [x.y - 0.05, x.y + 0.05]
PAPER_EPS_IID = 0.15            # Sec. V-B
PAPER_KAPPA = 7.0               # Sec. V-A: "a factor of 7 times the theoretical lower bound"
CLOSED_FORM_RTOL = 1e-9         # closed forms: rounding only
ZERO_RTOL = 1e-9                # a closed-form difference that is 0 by construction: |value| <= 1e-9 x its scale
POWER_SLACK = 1e-5              # ||x_i||^2 / P_i <= 1 + slack: float32 rounding of a clipped update's norm (d = 155,830)
GAIN = 0.0                      # "outperforms": the accuracy gap's interval lies above 0
ROBUST_TOL_RANGE = (0.01, 0.05)  # "robust learning performance" prints no number: package reading, scanned (rule 4):
                                 # private within 1 ... 5 accuracy points of the non-private reference
IMPEDE_PACKAGE_READING = 0.15    # package reading only (the implementation guide's, not the paper's): a drop >= 15
                                 # points, reported beside the direction verdict (threshold 0)
LAST_SHARE = 0.25               # "end of training": the last quarter of the rounds
PROX_TESTABLE_MIN = 0.05        # C10 is testable only where FedProx's aggregate differs from FedAvg's by >= 5 %
                                # (measured: ~1 % at E = 1, ~10 % at the paper's E = 20; fig92)
ALPHA = 0.05                    # family-wise error of a claim's parts (Bonferroni)
NEAR = 0.01                     # counterfactuals near a threshold: +-1 accuracy point (or 0.01 of loss)
TIE_ATOL = 1e-5                 # per-seed gaps this small are float32 rounding of identical computations (a tie);
                                # real differences between methods are >= 1e-4 (an AUC step of accuracy is 2.6e-5)
SCALE_KEYS = ("rounds", "local_epochs", "size_scale")   # the paper's setting of Figs 2-8 and fig91 (rule 1)
IID_SCALE_KEYS = ("iid_rounds", "iid_local_epochs")     # the paper's setting of Figs 9-10
E1_REVERSAL = ("E = 1 quick vs E = 20 paper: Upcycled-FL - FedProx -1.77 / -2.11 pt vs +1.39 / +1.69 pt (test accuracy, "
               "same seeds 0 / 1): the quick profile's E reverses the comparison")


@functools.cache
def _paper_params() -> dict:
    from repro.experiment import load_params
    return load_params("ota_jammer", "paper")


def _off_scale(params, keys=SCALE_KEYS) -> dict:
    """The keys of ``keys`` where ``params`` differ from the paper's setting: {key: (this, paper)}."""
    paper = _paper_params()
    return {k: (params[k], paper[k]) for k in keys if params[k] != paper[k]}


def _scale_text(off: dict) -> str:
    return ", ".join(f"{k} {a:g} (paper {b:g})" for k, (a, b) in off.items())


def _as_paper(keys=SCALE_KEYS):
    """Counterfactual: the same tables read as runs at the paper's setting (so that the regime guard lets the
    comparison be judged)."""
    def run(t, p):
        paper = _paper_params()
        return t, {**p, **{k: paper[k] for k in keys}}
    return run


def _regime_guard(params, measured: str, keys=SCALE_KEYS, **details):
    """Judging rule 1: ``not_evaluated`` (regime) off the paper's setting, else None."""
    off = _off_scale(params, keys)
    if not off:
        return None
    return not_evaluated(f"{measured} ({_scale_text(off)}); the verdict of record needs runs at the paper's setting",
                         category="regime", **details)


def _rounded(gaps: dict) -> dict:
    return {n: [round(float(v), 6) for v in g] for n, g in gaps.items()}


def _level(k: int) -> float:
    """Bonferroni: each of ``k`` parts that must all hold is judged at 1 - 0.05/k."""
    return 1.0 - ALPHA / max(1, k)


# ---- table access -------------------------------------------------------------------------------------------


def _auc(tables, fig: str, series: str, params, metric: str = "test_acc", last: bool = False):
    """Per seed: ``metric`` averaged over all rounds (``last``: over the last quarter of them), on the figure's own
    seed set (every seed any of its curves was drawn with: Figs. 9-10 run all 10 trials, the CPU override draws
    Figs. 2-8 with 3). Refuses a series that lacks one of them (no silent pairing on fewer seeds)."""
    curves = need(tables, fig, panel="curve")
    seeds = sorted(int(v) for v in curves["seed"].unique())
    df = need(tables, fig, panel="curve", series=series, metric=metric)
    if last:
        x = df["x"].astype(float)
        n_last = max(1, math.ceil(LAST_SHARE * (x.max() - x.min() + 1)))
        df = df[x > x.max() - n_last]
    s = per_seed(df)
    missing = sorted(set(seeds) - set(int(v) for v in s.index))
    if missing:
        raise MissingData(f"{fig}/{series}: seeds {missing} of the figure's {seeds} missing; not pairing on fewer seeds")
    return s.loc[seeds]


def _scalar(tables, fig: str, metric: str, series=None):
    where = {"panel": "privacy", "metric": metric}
    if series is not None:
        where["series"] = series
    return need(tables, fig, **where)["value"].to_numpy(dtype=float)


def _theory(tables, metric: str):
    t = need(tables, "theory", panel="theory", metric=metric)
    return t.assign(x=t["x"].astype(float)).groupby("x")["value"].first().sort_index()


def _cert(tables, name: str, metric: str = "certified_epsilon") -> float:
    """A value of the privacy table for configuration ``name``."""
    return float(need(tables, "privacy", series=name, metric=metric)["value"].iloc[0])


def _regime(tables, setting: str, metric: str) -> float:
    return float(need(tables, "fig92", panel="regime", series=setting, metric=metric)["value"].iloc[0])


def _gap(tables, fig, a, b, params, metric="test_acc", sign=1.0, last=False, fig_b=None):
    """Per-seed ``sign * (AUC(a) - AUC(b))`` (``fig_b``: b's figure, default ``fig``, drawn with the same seeds)."""
    ga, gb = _auc(tables, fig, a, params, metric, last), _auc(tables, fig_b or fig, b, params, metric, last)
    if list(ga.index) != list(gb.index):
        raise MissingData(f"{fig} and {fig_b} were drawn with different seeds ({list(ga.index)} vs {list(gb.index)}): "
                          "not pairing them")
    g = sign * (ga - gb)
    return g.where(g.abs() > TIE_ATOL, 0.0)  # float rounding of identical runs is a tie, not a sign


def _judge(gaps: dict, threshold: float = GAIN, reason: str = ""):
    """Every per-seed gap series in ``gaps`` above ``threshold``; k > 1 parts at the Bonferroni level. A part whose
    gaps are all exact ties (two identical runs, zeroed by :func:`_gap`) is a degenerate comparison (rule 5), not a loss."""
    k = len(gaps)
    parts = {}
    for name, g in gaps.items():
        above = int((np.asarray(g, dtype=float) > threshold).sum())
        if threshold == 0.0 and np.all(np.asarray(g, dtype=float) == 0.0):
            parts[name] = not_evaluated(f"{name}: every seed's gap is an exact tie (identical runs)", category="degenerate")
            continue
        parts[name] = direction(g, expect="positive", threshold=threshold, level=_level(k),
                                details={"seeds_above_threshold": f"{above}/{len(g)}"})
    if k == 1:
        ev = next(iter(parts.values()))
        return ev.but(reason="; ".join(r for r in (reason, ev.reason) if r))
    why = f"Bonferroni: each of {k} parts at the {100 * _level(k):.3g} % level"
    ev = combine(parts, reason="; ".join(r for r in (reason, why) if r))
    ev.details["seeds_above_threshold"] = {n: e.details.get("seeds_above_threshold", "tie") for n, e in parts.items()}
    return ev


def _beats(tables, fig, winner, losers, params, metric="test_acc", lower_is_better=False, ends=False) -> dict:
    """Per-seed gaps ``winner - loser`` (sign-flipped for a loss): the whole curve and, with ``ends``, the last rounds."""
    sign = -1.0 if lower_is_better else 1.0
    out = {}
    for l in losers:
        out[f"{fig}: {winner} vs {l}"] = _gap(tables, fig, winner, l, params, metric, sign)
        if ends:
            out[f"{fig}: {winner} vs {l}, last {LAST_SHARE:.0%} of rounds"] = _gap(tables, fig, winner, l, params, metric,
                                                                                  sign, last=True)
    return out


# ---- counterfactuals ----------------------------------------------------------------------------------------


def _shift(fig, series, by, metric="test_acc"):
    """Counterfactual: add ``by`` to a series' curve."""
    return lambda t, p: (edit(t, fig, lambda v: v + by, panel="curve", series=series, metric=metric), p)


def _set_to(fig, series, ref, by, metric="test_acc", ref_fig=None):
    """Counterfactual: ``series``' curve becomes ``ref``'s (same seed and round) plus ``by``, so that their gap is
    exactly ``by`` in every seed and round (a test just beside a threshold)."""
    def run(t, p):
        r = need(t, ref_fig or fig, panel="curve", series=ref, metric=metric)
        look = {(int(s), float(x)): float(v) for s, x, v in zip(r["seed"], r["x"], r["value"])}
        return edit(t, fig, lambda rows: [look[(int(s), float(x))] + by for s, x in zip(rows["seed"], rows["x"])],
                    rows=True, panel="curve", series=series, metric=metric), p
    return run


def _chain(*cfs):
    def run(t, p):
        for cf in cfs:
            t, p = cf(t, p)
        return t, p
    return run


def _set_cert(names_values: dict, metrics=("certified_epsilon", "certified_epsilon_tight")):
    """Counterfactual: the privacy table's ``metrics`` (the RDP bound and the exact value) of each configuration
    name set to a value."""
    def run(t, p):
        for name, val in names_values.items():
            for metric in metrics:
                t = edit(t, "privacy", lambda v, val=val: v * 0 + val, series=name, metric=metric)
        return t, p
    return run


def _meets_level(tables, name: str, level: float, reason: str = "", details: dict | None = None) -> Evidence:
    """A stated privacy level of configuration ``name``: reproduced where the RDP certificate (an upper bound) is
    within it, not reproduced where the exact epsilon of the same Gaussian releases (the mechanism's own, at the
    worst-case sensitivity) exceeds it, else inconclusive (the level holds but no certificate shows it)."""
    rdp, tight = _cert(tables, name), _cert(tables, name, "certified_epsilon_tight")
    limit = level * (1 + CLOSED_FORM_RTOL)
    details = {"certified_rdp": rdp, "exact": tight, **(details or {})}
    if rdp <= limit or tight > limit:
        return exact_holds(rdp <= limit, regenerated=rdp if rdp <= limit else tight, expected=f"<= {level:g}",
                           reason=reason, details=details)
    return Evidence("inconclusive", regenerated=tight, paper_value=f"<= {level:g}", tolerance="exact", details=details,
                    reason=(reason + "; " if reason else "") + f"exact eps {tight:.3g} meets it, the RDP bound {rdp:.3g} does not")


STEP_NOTE = ("FedProx, FedAvg and [13] at the paper's server step 1 (FedProx 'not tuned'); the steps tuned on table92's "
             "grid are a package observation, and the grid leaves out 1 + c_m (eq. 9: FedProx at it is Upcycled-FL)")
BY_CONSTRUCTION = "holds by construction: not an empirical reproduction"
CALIBRATION = "Calibration check (exact computation of the paper's formula; holds by construction: alpha_u is solved from eps by eq. (21)): "


# ---- privacy accounting: calibration checks (closed forms on the noise actually run) ------------------------


@CLAIMS.claim("C1", category="calibration_input", figures="fig2", kind="exact",
              paper_says="'our designs achieve privacy level eps = 6.52' at delta = 1e-5 without the jammer (Sec. V-A)",
              tests=CALIBRATION + "eq. (21) from the realised noise std of every proposed run (Upcycled, FedProx, FedAvg, "
                    "all seeds), largest deviation from 6.52. Whether the runs ARE (6.52, 1e-5)-DP is C21",
              refute=lambda t, p: (edit(t, "fig2", lambda v: v * 1.01, panel="privacy", metric="epsilon", series=UPC), p),
              support=unchanged)
def no_cj_epsilon(tables, params):
    e = np.concatenate([_scalar(tables, "fig2", "epsilon", s) for s in (UPC, PROX, AVG)])
    worst = e[np.argmax(np.abs(e - PAPER_EPS_NO_CJ))]
    return exact(worst, PAPER_EPS_NO_CJ, rtol=CLOSED_FORM_RTOL, reason="calibration (input), not a privacy guarantee",
                 details={"runs": len(e)})


@CLAIMS.claim("C2", category="closed_form", figures="fig4", kind="number",
              paper_says="'using privacy parameters delta = 1e-5 and 0.01, our designs achieve privacy level eps = 6.52 "
                         "and 4.4, respectively' (Sec. V-A)",
              tests="eq. (21) at delta = 0.01 of the same runs' noise, against 4.4 as printed (one decimal: +- 0.05)",
              refute=lambda t, p: (edit(t, "fig4", lambda v: v * 1.1, panel="privacy", metric="epsilon_delta_0.01"), p),
              support=unchanged)
def same_noise_at_delta_001(tables, params):
    e = np.concatenate([_scalar(tables, "fig4", "epsilon_delta_0.01", s) for s in (UPC, PROX, AVG)])
    return number([float(np.max(e))], PAPER_EPS_ALT, atol=PRINTED_ONE_DECIMAL, deterministic=True,
                  reason="the paper's accountant (eq. 21) on the noise run; certified values: privacy table",
                  details={"min": float(np.min(e)), "max": float(np.max(e))})


@CLAIMS.claim("C3", figures="theory", kind="exact",
              paper_says="'eps values of 1, 0.5, and 0.1, all of which are more stringent than the DP levels our "
                         "algorithm achieves without CJ' (Sec. V-A; Thm 2: a jammer is needed only then)",
              tests="sigma_req^2 - sigma_c^2/alpha_u^2 (eqs. 22-23) > 0 for every jammer target and <= 0 for targets "
                    f">= eps0 (6.52, 7, 10), a value within {ZERO_RTOL:g} x sigma_c^2/alpha_u^2 of 0 counting as 0 (at "
                    "eps0 it is 0 by construction)",
              refute=lambda t, p: (edit(t, "theory", lambda v: -abs(v), panel="theory", metric="required_minus_channel_var"), p),
              support=unchanged)
def jammer_needed_only_below_eps0(tables, params):
    need_ = _theory(tables, "required_minus_channel_var")
    scale = float(_theory(tables, "channel_var").iloc[0])
    zero = ZERO_RTOL * scale
    targets = [float(e) for e in params["cj_epsilons"]]
    ok = all(need_[e] > zero for e in targets) and all(v <= zero for e, v in need_.items() if e >= params["eps0"])
    return exact_holds(ok, regenerated={f"{e:g}": float(v) for e, v in need_.items()},
                       expected=f"> 0 below eps0 only (|value| <= {zero:.3g} counts as 0)")


@CLAIMS.claim("C4", figures="theory", kind="exact",
              paper_says="Thm 2 / Thm 4: the jammer amplitude bound (22)/(26) with a from (23)/(27) meets (eps, delta)",
              tests="eq. (21) of the noise with the jammer exactly at its bound, per target, against the target",
              refute=lambda t, p: (edit(t, "theory", lambda v: v * 1.01, panel="theory", metric="epsilon_kappa1"), p),
              support=unchanged)
def jammer_bound_meets_target(tables, params):
    at_bound = _theory(tables, "epsilon_kappa1")
    return combine({f"eps {e:g}": exact(at_bound[float(e)], float(e), rtol=CLOSED_FORM_RTOL) for e in params["cj_epsilons"]})


@CLAIMS.claim("C5", category="calibration_input", figures=("fig6", "fig7", "fig8"), kind="exact",
              paper_says="'we apply a factor of 7 times the theoretical lower bound' for the jammer of Figs 6-8 "
                         "(Sec. V-A; the figures are labelled by the targets eps = 1, 0.5, 0.1)",
              tests="Holds by construction (the runs set the jammer at 7x its bound; not an empirical reproduction): per "
                    "target, the jammer's model-domain std as run over its bound (22) = 7 (the amplitude reading). "
                    "Observation (details): the noise run gives eq. (21) = 0.142 / 0.071 / 0.0143, about 1/7 of the labels: "
                    "the curves are more private than their labels, which is still (label, delta)-DP under eq. (21)",
              refute=lambda t, p: (edit(t, "fig6", lambda v: v * 2, panel="privacy", metric="jammer_std",
                                        series=cj_series(p["cj_epsilons"][0])), p),
              support=unchanged)
def jammer_at_seven_times_bound(tables, params):
    parts, points = {}, {}
    for e in params["cj_epsilons"]:
        s = cj_series(e)
        ratio = np.concatenate([_scalar(tables, fig, "jammer_std", s) / _scalar(tables, fig, "jammer_std_bound", s)
                                for fig in CJ_FIGS])
        parts[f"target {e:g}"] = exact(ratio[np.argmax(np.abs(ratio - PAPER_KAPPA))], PAPER_KAPPA, rtol=CLOSED_FORM_RTOL)
        points[f"{e:g}"] = {"eq21_as_run": float(np.max(np.concatenate([_scalar(tables, f, "epsilon", s) for f in CJ_FIGS]))),
                            "eq21_variance_reading": float(np.max(_scalar(tables, "fig6", "epsilon_variance_reading", s)))}
    ev = combine(parts, reason=f"{BY_CONSTRUCTION} (the runs apply 7x); the operating points are an observation, not a failure")
    ev.details["operating_points"] = points
    return ev


@CLAIMS.claim("C6", category="calibration_input", figures="fig9", kind="exact",
              paper_says="'We set delta = 0.01 and achieve a privacy budget eps = 0.15 with our method' (Sec. V-B)",
              tests=CALIBRATION + "eq. (21) from the realised noise of the proposed i.i.d. runs, largest deviation from "
                    "0.15 (certified for what was run: privacy table)",
              refute=lambda t, p: (edit(t, "fig9", lambda v: v * 1.01, panel="privacy", metric="epsilon", series=IID_LABEL), p),
              support=unchanged)
def iid_epsilon(tables, params):
    e = _scalar(tables, "fig9", "epsilon", IID_LABEL)
    return exact(e[np.argmax(np.abs(e - PAPER_EPS_IID))], PAPER_EPS_IID, rtol=CLOSED_FORM_RTOL,
                 reason="calibration (input), not a privacy guarantee")


@CLAIMS.claim("C7", category="by_construction", figures=("fig2", "fig6", "fig7", "fig8", "fig9"), kind="exact",
              paper_says="Thm 1/3: s_i >= 1 keeps the transmit power within (11) and bounds each client's eps (20) by "
                         "the common bound (21), the minimum over lambda of the moments-accountant tail bound",
              tests="Holds by construction (the power control and the accountant are implemented from Thm 1/3; not an "
                    "empirical reproduction): every run and client-round: ||x_i||^2/P_i <= 1 + 1e-5 (float32 rounding) and "
                    "s_i >= 1; eq. (20) <= eq. (21); the closed form equals a numerical minimum over lambda (relative 1e-9)",
              refute=lambda t, p: (edit(t, "fig2", lambda v: v * 0 + 1.5, panel="privacy", metric="max_power_ratio", series=AVG), p),
              support=unchanged)
def power_and_per_client_bound(tables, params):
    ratio, smin, per, tot, rel = [], [], [], [], []
    for fig in ("fig2", "fig6", "fig7", "fig8", "fig9"):
        ratio += list(_scalar(tables, fig, "max_power_ratio"))
        smin += list(_scalar(tables, fig, "min_s"))
        per += list(_scalar(tables, fig, "epsilon_per_client_max"))
        tot += list(_scalar(tables, fig, "epsilon"))
        rel += list(np.abs(_scalar(tables, fig, "epsilon_numeric") / _scalar(tables, fig, "epsilon") - 1))
    vals = {"max_power_ratio": max(ratio), "min_s": min(smin), "max_closed_vs_numeric": max(rel),
            "max_eq20_over_eq21": max(a / b for a, b in zip(per, tot))}
    ok = (vals["max_power_ratio"] <= 1 + POWER_SLACK and vals["min_s"] >= 1.0 and vals["max_eq20_over_eq21"] <= 1 + 1e-12
          and vals["max_closed_vs_numeric"] <= CLOSED_FORM_RTOL)
    return exact_holds(ok, regenerated=vals, expected="ratio <= 1, s >= 1, (20) <= (21), closed form = numeric",
                       reason=BY_CONSTRUCTION)


@CLAIMS.claim("C8", category="by_construction", figures="fig2", kind="exact",
              paper_says="Lemma 1 / Thm 1: Upcycled-FL's 2M iterations cost M releases (even steps use no data), so it "
                         "has the same eps as FedAvg with M iterations",
              tests="Holds by construction (Algorithm 1 transmits on odd steps only; not an empirical reproduction): "
                    "Upcycled runs: iterations = 2 x transmissions = 2M; eq. (21) equal to FedAvg's at the same noise",
              refute=lambda t, p: (edit(t, "fig2", lambda v: v + 1, panel="privacy", metric="epsilon", series=UPC), p),
              support=unchanged)
def upcycled_even_steps_free(tables, params):
    it, tx = _scalar(tables, "fig2", "num_iterations", UPC), _scalar(tables, "fig2", "num_transmissions", UPC)
    eu, ea = _scalar(tables, "fig2", "epsilon", UPC), _scalar(tables, "fig2", "epsilon", AVG)
    ok = bool(np.all(it == 2 * tx)) and bool(np.all(tx == params["rounds"])) and abs(eu.max() - ea.max()) <= 1e-12
    return exact_holds(ok, regenerated={"iterations": float(it[0]), "transmissions": float(tx[0]), "eps_upcycled": float(eu.max()),
                                        "eps_fedavg": float(ea.max())}, expected="2M iterations, M releases, equal eps",
                       reason=BY_CONSTRUCTION)


def _cert_regime(tables, params) -> str:
    """Rule 1 for the certificates: the per-round mechanism is the same at both settings (alpha_u, fig92; a clipped
    update's sensitivity 2 p_i/s_i at any E), and the paper's M releases compose at least as many rounds."""
    if not _off_scale(params):
        return ""
    try:
        a, b = _regime(tables, "this profile", "alpha_u"), _regime(tables, "paper setting", "alpha_u")
    except MissingData:
        return ""
    return (f"; regime kept (rule 1): alpha_u {a:.1f} quick vs {b:.1f} paper (fig92), the clipped update's sensitivity "
            f"2 p_i/s_i at any E, and M = {_paper_params()['rounds']} releases at the paper's setting against "
            f"{params['rounds']} here: the certificate can only grow at paper scale")


@CLAIMS.claim("C21", figures=("privacy", "fig2", "fig92"), kind="exact",
              paper_says="'our designs achieve privacy level eps = 6.52' at delta = 1e-5 (Sec. V-A), read as a guarantee "
                         "for the runs of Figs 2-5",
              tests="the epsilon of what was trained without the jammer (E local epochs, update clipped to tau: "
                    "sensitivity 2 p_i/s_i, M Gaussian releases, no subsampling, delta = 1e-5): reproduced if the RDP "
                    "certificate (dp-accounting, an upper bound) is <= 6.52, not reproduced if the exact epsilon of the "
                    "same releases (Gaussian DP) is > 6.52, else inconclusive. Details: the package's one-step runs "
                    "(fig91), zero-out and replace-one adjacency",
              refute=_set_cert({NO_CJ_NAME: 1e3}), support=_set_cert({NO_CJ_NAME: 6.0}))
def runs_are_dp_as_stated(tables, params):
    details, bound = {}, ""
    try:
        details = {"one_step_zero_out": _cert(tables, ONE_STEP_NAME, "certified_epsilon_tight"),
                   "one_step_replace_one": _cert(tables, ONE_STEP_NAME, "certified_epsilon_replace_one_tight")}
        # 2 p_i/s_i = 2 |D_i| / (s_i |D|) >= 2 / (s_i |D|) for every client with |D_i| >= 1: on the same split, noise and
        # channel, the E-epoch certificate is at least the one-step runs' replace-one value, a bound set by eq. (21)'s
        # calibration rather than by the (surrogate) data the updates were computed on
        bound = (f"; lower bound on any data of this split: {details['one_step_replace_one']:.3g}, the one-step runs' "
                 f"exact replace-one eps at the same noise (2/(s_i |D|) <= 2 p_i/s_i when |D_i| >= 1)")
    except MissingData:
        pass
    return _meets_level(tables, NO_CJ_NAME, PAPER_EPS_NO_CJ, details=details,
                        reason="eq. (21) assumes the sensitivity of one gradient step (Appendix A); E local epochs have "
                               "the sensitivity of the clipped update" + bound + _cert_regime(tables, params))


IID_PROPOSED_NAME = "FedAvg + proposed PC, synthetic i.i.d."


@CLAIMS.claim("C6g", figures=("privacy", "fig9"), kind="exact",
              paper_says="'We set delta = 0.01 and achieve a privacy budget eps = 0.15 with our method' (Sec. V-B), read as "
                         "a guarantee for the runs of Figs 9-10 (C6 is the calibration reading)",
              tests="the epsilon of what was trained on the synthetic i.i.d. data of Figs 9-10 (E local epochs, update "
                    "clipped: the clipped update's sensitivity, M Gaussian releases, no subsampling, delta = 0.01), judged "
                    "as C21: reproduced if the RDP certificate is <= 0.15, not reproduced if the exact epsilon of the same "
                    "releases (at the worst-case sensitivity the clipping allows) is > 0.15, else inconclusive",
              refute=_set_cert({IID_PROPOSED_NAME: 1e3}), support=_set_cert({IID_PROPOSED_NAME: 0.1}))
def iid_runs_are_dp_as_stated(tables, params):
    return _meets_level(tables, IID_PROPOSED_NAME, PAPER_EPS_IID,
                        reason="eq. (21) assumes the sensitivity of one gradient step (Appendix A); E local epochs have "
                               "the sensitivity of the clipped update: the value shown is the worst case the clipping "
                               "allows, attained only if some client's clipped update reaches the clipping norm")


# ---- learning curves without the jammer (Figs 2-5) ----------------------------------------------------------


@CLAIMS.claim("C9", figures="fig2", kind="direction",
              paper_says="'Results reveal that Algorithm 1 significantly outperforms all' (Sec. V-A, Figs 2-5)",
              tests="at the paper's setting (E = 20, M = 80; rule 1), per seed, test accuracy averaged over all rounds and "
                    "over the last quarter of them: Upcycled-FL minus each of FedProx, FedAvg (proposed PC, the paper's "
                    "server step 1) and [13] at equal privacy under the paper's accountant (Fig. 4 holds the same runs); "
                    "every gap > 0 (Bonferroni over the 6 parts)",
              refute=_chain(_as_paper(), _set_to("fig2", UPC, AVG, -NEAR)),
              support=_chain(_as_paper(), *[_set_to("fig2", s, UPC, -NEAR) for s in (PROX, AVG, B13)]))
def upcycled_best_no_cj(tables, params):
    gaps = _beats(tables, "fig2", UPC, (PROX, AVG, B13), params, ends=True)
    return _regime_guard(params, E1_REVERSAL, gaps_this_profile=_rounded(gaps)) or _judge(gaps, reason=STEP_NOTE)


def _testable_prox(t, p):
    """Counterfactual: the proximal term changes the aggregate as at the paper's E = 20 (fig92)."""
    return edit(t, "fig92", lambda v: v * 0 + 2 * PROX_TESTABLE_MIN, panel="regime", series="this profile",
                metric="prox_effect_rel"), p


@CLAIMS.claim("C10", figures=("fig2", "fig92"), kind="direction",
              paper_says="'the algorithm with FedProx performs better than that with FedAvg' (Sec. V-A, Figs 2-5)",
              tests="per seed, test accuracy averaged over all rounds: FedProx minus FedAvg (both proposed PC) > 0; "
                    f"judged only where the proximal term changes the aggregate by >= {PROX_TESTABLE_MIN:.0%} (fig92; "
                    "at E = 1 it does not, at the paper's E = 20 it does)",
              refute=_chain(_testable_prox, _set_to("fig2", PROX, AVG, -NEAR)),
              support=_chain(_testable_prox, _set_to("fig2", PROX, AVG, +NEAR)))
def fedprox_beats_fedavg(tables, params):
    gap = _gap(tables, "fig2", PROX, AVG, params)
    try:
        effect = _regime(tables, "this profile", "prox_effect_rel")
    except MissingData:
        effect = None
    if effect is not None and effect < PROX_TESTABLE_MIN:
        return not_evaluated(f"the proximal term changes the FedProx aggregate by {effect:.2%} of FedAvg's quick "
                             f"(E = {params['local_epochs']}) vs about 18 % at the paper's E = 20 (fig92; >= "
                             f"{PROX_TESTABLE_MIN:.0%} needed)", category="regime",
                             gap_per_seed=[round(float(v), 6) for v in gap], prox_effect_rel=effect)
    return _judge({"FedProx - FedAvg": gap}, reason=STEP_NOTE.split(";")[0])


@CLAIMS.claim("C11", figures="fig2", kind="direction",
              paper_says="'Each of the proposed approach outperforms of the state-of-the-art algorithm [13]' under 'the "
                         "same DP settings' (Sec. V-A, Figs 2-5)",
              tests="per seed, test accuracy averaged over all rounds: each of Upcycled-FL, FedProx and FedAvg (proposed "
                    "PC) minus [13] calibrated to the same privacy under the paper's accountant; every gap > 0 "
                    "(Bonferroni over the 3 parts)",
              refute=_chain(_as_paper(), _set_to("fig2", B13, AVG, +NEAR)),
              support=_chain(_as_paper(), _set_to("fig2", UPC, AVG, 0.0), _set_to("fig2", PROX, AVG, 0.0),
                             _set_to("fig2", B13, AVG, -NEAR)))
def proposed_beats_baseline(tables, params):
    gaps = {f"{a} - [13]": _gap(tables, "fig2", a, B13, params) for a in (UPC, PROX, AVG)}
    guard = _regime_guard(params, "E = 1 quick vs E = 20 paper: no paper-scale run of Fig. 2, and E reverses the sign of "
                                  "Upcycled-FL - FedProx (C9) on the same runs", gaps_this_profile=_rounded(gaps))
    return guard or _judge(gaps, reason="the proposed PC's s_i > 1 biases the aggregate (fig92); [13] runs at its power "
                                        "cap, eq. (21) below 6.52 (README); " + STEP_NOTE)


@CLAIMS.claim("C12", figures="fig2", kind="direction",
              paper_says="'our method's efficacy in maintaining stringent DP levels while ensuring robust learning "
                         "performance' (Sec. V-A, eps = 6.52): the learning part (the privacy part is C12p)",
              tests="at the paper's setting (rule 1), per seed, test accuracy averaged over all rounds: private FedAvg "
                    "(proposed PC) minus the non-private FedAvg reference (a package reference; the paper's figure has "
                    "none). The paper prints no tolerance for 'robust': the package reads it as within 1 ... 5 points and "
                    "scans that range (rule 4): reproduced if the gap's interval is above -1 point, not reproduced if below "
                    "-5 points, else not evaluated (depends on the unstated tolerance)",
              refute=_chain(_as_paper(), _set_to("fig2", AVG, NONPRIVATE_LABEL, -ROBUST_TOL_RANGE[1] - NEAR)),
              support=_chain(_as_paper(), _set_to("fig2", AVG, NONPRIVATE_LABEL, -ROBUST_TOL_RANGE[0] + NEAR / 2)))
def private_close_to_nonprivate(tables, params):
    gap = _gap(tables, "fig2", AVG, NONPRIVATE_LABEL, params)
    guard = _regime_guard(params, "E = 1 quick vs E = 20 paper: no paper-scale run of Fig. 2", gap_this_profile=_rounded({"g": gap})["g"])
    if guard:
        return guard
    scan = {f"tolerance {t:g}": direction(gap, threshold=-t) for t in ROBUST_TOL_RANGE}
    verdicts = {n: e.verdict for n, e in scan.items()}
    tight, loose = scan[f"tolerance {ROBUST_TOL_RANGE[0]:g}"], scan[f"tolerance {ROBUST_TOL_RANGE[1]:g}"]
    why = "package reading of 'robust' (no number printed), scanned over tolerances 1 ... 5 points; the gap is the PC's s_i > 1 bias, not the noise (fig92)"
    if tight.verdict == "reproduced":
        return tight.but(reason=why + "; holds at every tolerance of the range", details={**tight.details, "scan": verdicts})
    if loose.verdict == "not_reproduced":
        return loose.but(reason=why + "; fails at every tolerance of the range", details={**loose.details, "scan": verdicts})
    lo, hi = tight.interval.low, tight.interval.high
    return not_evaluated(f"'robust' prints no tolerance: private - non-private = {100 * gap.mean():+.2f} pt "
                         f"[{100 * lo:+.2f}, {100 * hi:+.2f}]; holds for a tolerance >= {-100 * lo:.2f} pt, fails for one "
                         f"< {max(0.0, -100 * hi):.2f} pt (package scan 1 ... 5 pt: {verdicts})", category="constant",
                         scan=verdicts, gap_per_seed=[round(float(v), 6) for v in gap])


def _cj_names(params):
    return [NO_CJ_NAME] + [cj_name(e) for e in params["cj_epsilons"]]


@CLAIMS.claim("C12p", figures=("privacy", "fig2", "fig6", "fig92"), kind="exact",
              paper_says="'our method's efficacy in maintaining stringent DP levels while ensuring robust learning "
                         "performance' (Sec. V-A, the no-jammer runs: 6.52) and 'the effectiveness of cooperative jammer in "
                         "meeting stringent privacy demands' (abstract: the jammer's 1, 0.5, 0.1): the privacy part, for the "
                         "levels the paper states",
              tests="per configuration of Figs 2-8 as run (E local epochs), the privacy table's epsilon of what was "
                    "trained against the stated level, as C21 (RDP bound within it: holds; exact value above it: fails); "
                    "the no-jammer part is C21's evidence (one finding, not two), the jammer levels are this claim's own",
              refute=lambda t, p: _set_cert({NO_CJ_NAME: 1e3})(t, p),
              support=lambda t, p: _set_cert({n: 0.05 for n in _cj_names(p)})(t, p))
def stringent_dp_levels(tables, params):
    parts = {}
    for name, level in zip(_cj_names(params), [params["eps0"]] + list(params["cj_epsilons"])):
        try:
            parts[name] = _meets_level(tables, name, level)
        except MissingData as e:  # a universal claim: a configuration run and refuted decides it alone
            parts[name] = not_evaluated(f"the privacy table has no certificate of it ({e})", category="not_run")
    verdict = combine(parts, reason="eq. (21) assumes one gradient step's sensitivity; E epochs have the clipped update's"
                      + _cert_regime(tables, params))
    unrun = [k for k, e in parts.items() if e.verdict == "not_evaluated"]
    if unrun and verdict.verdict != "not_reproduced":  # every level must hold: the run ones alone cannot show it
        return not_evaluated(f"{', '.join(unrun)} not certified; the others: {verdict.verdict.replace('_', ' ')}",
                             category="not_run", parts=verdict.details.get("parts", {}))
    return verdict


# ---- with the cooperative jammer (Figs 6-8) -----------------------------------------------------------------


def _cj_gaps(tables, params):
    eps = sorted(params["cj_epsilons"], reverse=True)
    return {f"{fig} ({algo}): {hi:g} vs {lo:g}": _gap(tables, fig, cj_series(hi), cj_series(lo), params)
            for fig, algo in CJ_FIGS.items() for hi, lo in zip(eps, eps[1:])}


def _noise_regime(tables, params):
    """Rule 1 for the jammer claims: off the paper's setting, the quick verdict is kept only where fig92's noise-to-signal
    ratio per round (the quantity the jammer claims turn on) dominates the signal (> 1) and rises as the target falls at
    both settings. Returns (kept, text)."""
    if not _off_scale(params):
        return True, ""
    eps = sorted(params["cj_epsilons"], reverse=True)
    vals = {}
    for setting in ("this profile", "paper setting"):
        try:
            vals[setting] = [_regime(tables, setting, f"noise_to_signal_cj_{e:g}_kappa_{params['kappa']:g}") for e in eps]
        except MissingData:
            return False, "fig92 has no noise-to-signal ratios for the jammer targets"
    kept = all(v[0] > 1 and all(a < b for a, b in zip(v, v[1:])) for v in vals.values())
    text = (f"noise / signal per round with the jammer at {params['kappa']:g}x, targets {' / '.join(f'{e:g}' for e in eps)}: "
            f"{' / '.join(f'{v:.3g}' for v in vals['this profile'])} quick vs "
            f"{' / '.join(f'{v:.3g}' for v in vals['paper setting'])} paper (fig92)")
    return kept, text


def _ordered_targets(t, p, gap):
    """Counterfactual: each smaller target's curve = the next larger target's minus ``gap`` (gap < 0: plus)."""
    eps = sorted(p["cj_epsilons"], reverse=True)
    for fig in CJ_FIGS:
        for hi, lo in zip(eps, eps[1:]):
            t, p = _set_to(fig, cj_series(lo), cj_series(hi), -gap)(t, p)
    return t, p


@CLAIMS.claim("C13", figures=("fig6", "fig7", "fig8", "fig92"), kind="direction",
              paper_says="'as eps decreases, the increased noise adversely affects learning performance' (Sec. V-A, Figs 6-8)",
              tests="per algorithm and seed, test accuracy averaged over all rounds at each jammer target (7x the bound) "
                    "minus at the next smaller target (1 vs 0.5, 0.5 vs 0.1): one comparison per algorithm, its target "
                    "pairs pooled within each seed, the seed the unit (judging rules a, g: repro.claims.comparisons). "
                    "Off the paper's setting, kept only where fig92's noise-to-signal ratio dominates and rises as the "
                    "target falls at both settings",
              refute=lambda t, p: _ordered_targets(t, p, -NEAR), support=lambda t, p: _ordered_targets(t, p, NEAR))
def accuracy_falls_with_epsilon(tables, params):
    gaps = _cj_gaps(tables, params)
    kept, regime = _noise_regime(tables, params)
    if not kept:
        return not_evaluated(f"{regime} ({_scale_text(_off_scale(params))})", category="regime", gaps=_rounded(gaps))
    # one comparison per algorithm (its curves at the targets), the target pairs its levels (rules a, g)
    parts: dict = {}
    for name, g in gaps.items():
        algo, pair = name.split(": ", 1)
        parts.setdefault(algo, {})[pair] = g
    ev = comparisons({k: pd.DataFrame(v) for k, v in parts.items()},
                     reason="regime kept (rule 1): " + regime if regime else "")
    ev.details["mean_gap_per_level"] = {n: round(float(np.mean(g)), 6) for n, g in gaps.items()}
    return ev


def _impede_cf(drop):
    """Counterfactual: the smallest target's curve (jammer at 7x) = the no-jammer curve minus ``drop``."""
    def run(t, p):
        for fig in CJ_FIGS:
            t, p = _set_to(fig, cj_series(min(p["cj_epsilons"])), NO_CJ_LABEL, -drop)(t, p)
        return t, p
    return run


@CLAIMS.claim("C14", figures=("fig6", "fig7", "fig8", "fig92"), kind="direction",
              paper_says="'at very low eps values, such as 0.1, the excessive noise required to meet stringent privacy "
                         "levels significantly impedes the algorithms' convergence' (Sec. V-A)",
              tests="the paper's runs (Figs 6-8: jammer at 7x its bound), per algorithm and seed, test accuracy averaged "
                    "over all rounds without the jammer minus with it at the smallest target (0.1) > 0 (direction, "
                    "Bonferroni over the 3 algorithms). Beside it (details): the package reading 'a drop >= 15 points' "
                    "(the implementation guide's number, not the paper's) and, as a package observation, the drop with "
                    "the jammer exactly at its bound (kappa = 1). Off the paper's setting, kept only where fig92's "
                    "noise-to-signal ratio dominates at both settings",
              refute=_impede_cf(-NEAR), support=_impede_cf(NEAR))
def smallest_epsilon_impedes(tables, params):
    e = min(params["cj_epsilons"])
    gaps = {f"{fig} ({algo}), eps {e:g}, jammer at {params['kappa']:g}x": _gap(tables, fig, NO_CJ_LABEL, cj_series(e), params)
            for fig, algo in CJ_FIGS.items()}
    kept, regime = _noise_regime(tables, params)
    if not kept:
        return not_evaluated(f"{regime} ({_scale_text(_off_scale(params))})", category="regime", gaps=_rounded(gaps))
    ev = _judge(gaps, reason="regime kept (rule 1): " + regime if regime else "")
    ev.details["package_reading_drop_ge_15pt"] = {
        n: direction(g, threshold=IMPEDE_PACKAGE_READING, level=_level(len(gaps))).verdict for n, g in gaps.items()}
    kappa1 = {}
    for fig in CJ_FIGS:
        for eb in params["bound_cj_epsilons"]:
            try:
                kappa1[f"{fig}, eps {eb:g}, jammer at 1x its bound"] = [
                    round(float(v), 6) for v in _gap(tables, fig, NO_CJ_LABEL, cj_series(eb, 1.0), params)]
            except MissingData:
                pass
    ev.details["package_observation_drop_at_kappa_1"] = kappa1
    return ev


def _upc_vs_each(tables, params):
    return {f"target {e:g}: Upcycled vs {other}": _gap(tables, "fig6", cj_series(e), cj_series(e), params, fig_b=fig)
            for e in params["cj_epsilons"] for fig, other in (("fig7", "FedProx"), ("fig8", "FedAvg"))}


def _cj_set(delta, only_first=False):
    def run(t, p):
        for i, e in enumerate(p["cj_epsilons"]):
            for fig in ("fig7", "fig8"):
                if only_first and (i > 0 or fig == "fig8"):
                    continue
                t, p = _set_to(fig, cj_series(e), cj_series(e), -delta, ref_fig="fig6")(t, p)
        return t, p
    return run


@CLAIMS.claim("C15", figures=("fig6", "fig7", "fig8"), kind="direction",
              paper_says="'Consistent with our findings from scenarios without the CJ, Upcycled-FL continues to surpass both "
                         "FedProx and FedAvg in performance' (Sec. V-A, Figs 6-8)",
              tests="at the paper's setting (E = 20, M = 80; rule 1), per jammer target and seed, test accuracy averaged "
                    "over all rounds: Upcycled-FL (Fig. 6) minus FedProx (Fig. 7) and minus FedAvg (Fig. 8), both at the "
                    "paper's server step 1: one comparison per baseline, its targets pooled within each seed, the seed "
                    "the unit (judging rules a, g: repro.claims.comparisons); the mean gap per level in the details",
              refute=_chain(_as_paper(), _cj_set(-NEAR)), support=_chain(_as_paper(), _cj_set(NEAR)))
def upcycled_best_with_cj(tables, params):
    gaps = _upc_vs_each(tables, params)
    guard = _regime_guard(params, E1_REVERSAL, gaps_this_profile=_rounded(gaps))
    if guard:
        return guard
    # one comparison per baseline, the jammer targets its levels (rules a, g)
    parts: dict = {}
    for name, g in gaps.items():
        target, vs = name.split(": ", 1)
        parts.setdefault(vs, {})[target] = g
    ev = comparisons({k: pd.DataFrame(v) for k, v in parts.items()}, reason=STEP_NOTE)
    ev.details["mean_gap_per_level"] = {n: round(float(np.mean(g)), 6) for n, g in gaps.items()}
    return ev


# ---- synthetic i.i.d. (Figs 9-10) ---------------------------------------------------------------------------


B13LS = BASELINE_LABEL["ls"]  # [13] calibrated by its own accountant


def _iid_13(t, p, acc_gap, loss_gap=None):
    """Counterfactual: both calibrations of [13] at ``acc_gap`` below the proposed design's accuracy (and ``loss_gap``
    above its loss)."""
    for b in (B13, B13LS):
        t, p = _set_to("fig9", b, IID_LABEL, -acc_gap)(t, p)
        if loss_gap is not None:
            t, p = _set_to("fig10", b, IID_LABEL, loss_gap, "train_loss")(t, p)
    return t, p


@CLAIMS.claim("C16", figures=("fig9", "fig10"), kind="direction",
              paper_says="'As illustrated in Fig. 9 and Fig. 10, our proposed design significantly outperforms the "
                         "state-of-the-art algorithm [13]' (Sec. V-B, eps = 0.15, delta = 0.01)",
              tests="at the paper's setting (E = 20, M = 80; rule 1), per seed, averaged over all rounds: test accuracy of "
                    "proposed-PC FedAvg minus [13] (Fig. 9) and training loss of [13] minus proposed (Fig. 10), both > 0 "
                    "(Bonferroni over the 2 parts), for each of the two calibrations of [13] the paper leaves open, with "
                    "equal weight: at the same eq. (21) privacy (the paper's accountant) and at the same (0.15, 0.01) "
                    "under [13]'s own accountant. Reproduced / not reproduced only where both calibrations agree; else "
                    "not evaluated (depends on the unstated calibration, rule 4)",
              refute=_chain(_as_paper(IID_SCALE_KEYS), lambda t, p: _iid_13(t, p, -NEAR)),
              support=_chain(_as_paper(IID_SCALE_KEYS), lambda t, p: _iid_13(t, p, NEAR, NEAR)))
def iid_proposed_beats_baseline(tables, params):
    per_cal, gaps_all = {}, {}
    for name, b in (("paper's accountant", B13), ("[13]'s own accountant", B13LS)):
        gaps = {**_beats(tables, "fig9", IID_LABEL, (b,), params),
                **_beats(tables, "fig10", IID_LABEL, (b,), params, "train_loss", lower_is_better=True)}
        gaps_all[name] = _rounded(gaps)
        per_cal[name] = _judge(gaps)
    guard = _regime_guard(params, "E = 1, M = 20 quick vs E = 20, M = 80 paper (the verdict of record: the committed "
                                  "paper-profile runs of Figs 9-10)", keys=IID_SCALE_KEYS, gaps_this_profile=gaps_all,
                          verdict_this_profile={n: e.verdict for n, e in per_cal.items()})
    if guard:
        return guard
    summary = {n: {"verdict": e.verdict, "effect": e.effect,
                   "interval": None if e.interval is None else [e.interval.low, e.interval.high],
                   "reason": e.reason} for n, e in per_cal.items()}
    verdicts = {e.verdict for e in per_cal.values()}
    if len(verdicts) == 1:
        ev = combine(per_cal, reason="both calibrations of [13] agree")
        ev.details["per_calibration"] = summary
        return ev
    text = "; ".join(f"{n}: {e.verdict} (accuracy gap {100 * np.mean(list(gaps_all[n].values())[0]):+.2f} pt)"
                     for n, e in per_cal.items())
    return not_evaluated(f"which calibration of [13] the paper used is not stated, and the two disagree: {text}",
                         category="constant", per_calibration=summary, gaps=gaps_all)


@CLAIMS.claim("C17", figures="fig3", kind="direction",
              paper_says="the training-loss figures show Algorithm 1 ahead of all (Sec. V-A: 'Algorithm 1 significantly "
                         "outperforms all', Figs 3 and 5)",
              tests="at the paper's setting (E = 20, M = 80; rule 1), per seed, training loss averaged over all rounds and "
                    "over the last quarter of them: each of FedProx, FedAvg (proposed PC, the paper's server step 1) and "
                    "[13] minus Upcycled-FL > 0 (Fig. 5 holds the same runs; Bonferroni over the 6 parts)",
              refute=_chain(_as_paper(), _set_to("fig3", UPC, AVG, +NEAR, "train_loss")),
              support=_chain(_as_paper(), *[_set_to("fig3", s, UPC, +NEAR, "train_loss") for s in (PROX, AVG, B13)]))
def upcycled_lowest_loss(tables, params):
    gaps = _beats(tables, "fig3", UPC, (PROX, AVG, B13), params, "train_loss", lower_is_better=True, ends=True)
    return _regime_guard(params, E1_REVERSAL, gaps_this_profile=_rounded(gaps)) or _judge(gaps, reason=STEP_NOTE)


# ---- theory (Thm 5) -----------------------------------------------------------------------------------------


@CLAIMS.claim("C18", figures="theory", kind="exact",
              paper_says="Thm 5 (eqs. 28, 33-34): the artificial-noise and channel-noise terms C5 + C6 grow as the privacy "
                         "level eps falls - 'the inherent trade-offs between privacy and accuracy'",
              tests="C5 + C6 with the jammer calibrated by eqs. (22)-(23) (L_s = 1, d = 155,830) on an eps grid "
                    "6 ... 0.1: strictly increasing as eps decreases",
              refute=lambda t, p: (edit(t, "theory", lambda v: 1.0 / v, panel="theory", metric="C5_plus_C6"), p),
              support=unchanged)
def convergence_terms_grow(tables, params):
    v = _theory(tables, "C5_plus_C6").sort_index(ascending=False)
    return exact_holds(bool(np.all(np.diff(v.to_numpy()) > 0)), regenerated={f"{k:g}": float(x) for k, x in v.items()},
                       expected="strictly increasing as eps decreases")


# ---- the package's re-test where the paper's epsilon is certified (fig91) -----------------------------------


@CLAIMS.claim("C19", category="package_check", figures="fig91", kind="direction",
              paper_says="'Algorithm 1 significantly outperforms all' (Sec. V-A), re-tested by the package with one "
                         "gradient step per round, where eq. (21) holds under zero-out adjacency with |D_i| public "
                         "(certified eps 5.9 <= 6.52; replace-one: privacy table)",
              tests="at the paper's M = 80 and full client data (rule 1), per seed, test accuracy averaged over all rounds "
                    "and over the last quarter of them, one-step runs: Upcycled-FL minus FedAvg (proposed PC, the paper's "
                    "server step 1; FedProx is the same rule for one step) and minus [13]; every gap > 0 (Bonferroni over "
                    "the 4 parts)",
              refute=_chain(_as_paper(), _set_to("fig91", UPC1, AVG1, -NEAR)),
              support=_chain(_as_paper(), _set_to("fig91", AVG1, UPC1, -NEAR), _set_to("fig91", B131, UPC1, -NEAR)))
def upcycled_best_certified(tables, params):
    gaps = _beats(tables, "fig91", UPC1, (AVG1, B131), params, ends=True)
    guard = _regime_guard(params, "M = 20 with half the client data quick vs M = 80, full data at the paper's setting: "
                                  "no one-step run at the paper's setting", keys=("rounds", "size_scale"),
                          gaps_this_profile=_rounded(gaps))
    return guard or _judge(gaps, reason=STEP_NOTE)


@CLAIMS.claim("C20", category="package_check", figures="fig91", kind="direction",
              paper_says="'Each of the proposed approach outperforms ... [13]' (Sec. V-A), re-tested by the package with one "
                         "gradient step per round at equal privacy (zero-out adjacency, |D_i| public)",
              tests="at the paper's M = 80 and full client data (rule 1), per seed, test accuracy averaged over all rounds, "
                    "one-step runs: FedAvg with the proposed PC minus [13] > 0",
              refute=_chain(_as_paper(), _set_to("fig91", AVG1, B131, -NEAR)),
              support=_chain(_as_paper(), _set_to("fig91", AVG1, B131, +NEAR)))
def proposed_beats_baseline_certified(tables, params):
    gaps = {"FedAvg - [13], one step": _gap(tables, "fig91", AVG1, B131, params)}
    guard = _regime_guard(params, "M = 20 with half the client data quick vs M = 80, full data at the paper's setting: "
                                  "no one-step run at the paper's setting", keys=("rounds", "size_scale"),
                          gaps_this_profile=_rounded(gaps))
    return guard or _judge(gaps)


# ---- "without affecting transmission efficiency" (abstract, Sec. VI) ----------------------------------------


@CLAIMS.claim("C22", category="by_construction", figures=("fig8", "privacy"), kind="exact",
              paper_says="the cooperative jammer serves 'to enhance privacy without affecting transmission efficiency' "
                         "(abstract; conclusion)",
              tests="Holds by construction (the jammer is a separate transmitter and the clients' power control does not "
                    "see it; not an empirical reproduction): the clients' transmissions are unaffected by the jammer: per "
                    "seed, the clients' transmit power ||x_i||^2/P_i averaged over clients and rounds in the paper's "
                    "runs (Fig. 8, the jammer at 7x its bound, each target) over without it (FedAvg), 1 within float "
                    "rounding (1e-5; the paper prints no tolerance). Details: the accuracy of reaching the same eps with "
                    "receiver noise only (smaller alpha_u, fewer clients' signal) and the jammer's power over a "
                    "client's budget, from the package's runs with the jammer at its bound",
              refute=lambda t, p: (edit(t, "fig8", lambda v: v * 0.5, panel="privacy", metric="tx_power_ratio_mean",
                                        series=cj_series(p["cj_epsilons"][0])), p),
              support=lambda t, p: (_same_power(t, p), p))
def jammer_keeps_transmission(tables, params):
    parts, details = {}, {}
    base = _per_run(tables, "fig8", NO_CJ_LABEL, "tx_power_ratio_mean")
    for e in params["cj_epsilons"]:
        s = cj_series(e)
        ratio = (_per_run(tables, "fig8", s, "tx_power_ratio_mean") / base).dropna()
        if set(int(v) for v in ratio.index) != set(int(v) for v in params["seeds"]):
            raise MissingData(f"fig8: transmit power of {s!r} and of {NO_CJ_LABEL!r} not on every seed {list(params['seeds'])}")
        worst = float(ratio.iloc[int(np.argmax(np.abs(ratio.to_numpy() - 1.0)))])
        parts[f"eps {e:g}"] = exact(worst, 1.0, rtol=POWER_SLACK, details={"ratio_per_seed": [round(float(v), 9) for v in ratio]})
    for e in params["bound_cj_epsilons"]:
        s = cj_series(e, 1.0)
        try:
            co = channel_only_series(e)
            details[f"eps {e:g}"] = {
                "acc_jammer_minus_channel_only": [round(float(v), 6) for v in _gap(tables, "fig8", s, co, params)],
                "alpha_u_jammer": float(_scalar(tables, "fig8", "alpha_u", s)[0]),
                "alpha_u_channel_only": float(_scalar(tables, "fig8", "alpha_u", co)[0]),
                "jammer_power_over_P_median": float(np.median(_scalar(tables, "fig8", "jammer_power_over_P_median", s)))}
        except MissingData:
            pass
    ev = combine(parts) if len(parts) > 1 else next(iter(parts.values()))
    ev = ev.but(reason="; ".join(r for r in (BY_CONSTRUCTION, ev.reason) if r))
    ev.details["channel_only_comparison"] = details
    return ev


def _per_run(tables, fig, series, metric):
    """A per-run scalar of the privacy panel, indexed by seed (all of ``params`` seeds are in the curves)."""
    t = need(tables, fig, panel="privacy", series=series, metric=metric)
    return t.groupby("seed")["value"].first()


def _same_power(t, p):
    """Counterfactual: the jammer runs' clients transmit exactly the power of the runs without it."""
    base = _per_run(t, "fig8", NO_CJ_LABEL, "tx_power_ratio_mean")
    for e in p["cj_epsilons"]:
        t = edit(t, "fig8", lambda rows: [float(base[int(s)]) for s in rows["seed"]], rows=True, panel="privacy",
                 series=cj_series(e), metric="tx_power_ratio_mean")
    return t


# ---- the paper's data: a training claim judged on the MNIST-digit surrogate of FEMNIST is not the paper's experiment
#: the figures whose runs train on FEMNIST (or its surrogate); Figs. 9-10 train on the paper's synthetic i.i.d. set
FEMNIST_FIGS = ("fig2", "fig3", "fig4", "fig5", "fig6", "fig7", "fig8", "fig91")


def _on_surrogate(tables, figs) -> list[str]:
    """The figures among ``figs`` with a run on the FEMNIST surrogate (their SURROGATE_METRIC rows)."""
    out = []
    for f in figs:
        t = tables.get(f)
        if t is not None and len(t) and bool((t.loc[t["metric"] == SURROGATE_METRIC, "value"] > 0).any()):
            out.append(f)
    return out


def _real_data_guard(fn, figs, argument=None):
    """A training claim's verdict on the surrogate (the paper trained on FEMNIST, unobtainable here) is judged by the
    engine's stand-in rule (repro.claims.on_stand_in, judging rule h): not evaluated, the surrogate's verdict beside,
    unless a data-free regime argument (``argument(params)``: supports?, text) and the surrogate agree."""
    def judged(tables, params):
        ev = fn(tables, params)
        on = _on_surrogate(tables, figs)
        if ev.verdict == "not_evaluated" or not on:
            return ev
        return on_stand_in(ev, f"FEMNIST is not obtainable here and {', '.join(on)} trained on its MNIST-digit surrogate: "
                               f"not the paper's experiment", argument=None if argument is None else argument(params))
    judged.__name__, judged.__doc__ = fn.__name__, fn.__doc__
    return judged


def _noise_floor_argument(params, rising: bool):
    """The data-free argument for C13 / C14 (rule h): every transmitted update is clipped to tau, so no data gives
    a round's aggregate a signal above tau, while the noise norm per round at the jammer targets (kappa x its bound)
    is fixed by the paper's constants (regime.noise_to_signal_floor). Supports 'the noise impedes learning' where the
    floor exceeds 1 (noise above any signal, every round) at every target, against the no-jammer floor below 1; C13
    also needs it to rise as the target falls."""
    from repro.papers.ota_jammer.regime import noise_to_signal_floor

    eps = sorted(params["cj_epsilons"], reverse=True)
    floors = [noise_to_signal_floor(params, e, params["kappa"]) for e in eps]
    none = noise_to_signal_floor(params, None, params["kappa"])
    ok = none < 1 and all(f > 1 for f in floors) and (not rising or all(a < b for a, b in zip(floors, floors[1:])))
    return ok, (f"the noise per round is at least {' / '.join(f'{f:.3g}' for f in floors)} x the largest signal any data "
                f"can give (updates clipped to tau) at targets {' / '.join(f'{e:g}' for e in eps)} with the jammer at "
                f"{params['kappa']:g}x its bound, against {none:.3g} x without the jammer (M = {params['rounds']}, the "
                f"paper's |D|, d of the MLP)")


#: claims a data-free regime argument decides together with the surrogate (rule h)
DATA_FREE_ARGUMENTS = {"C13": lambda p: _noise_floor_argument(p, rising=True),
                       "C14": lambda p: _noise_floor_argument(p, rising=False)}


def _as_real_data(cf):
    """A counterfactual read as if its runs trained on the paper's FEMNIST (so that the claim itself is judged)."""
    def out(t, p):
        t, p = cf(t, p)
        return {k: (v[v["metric"] != SURROGATE_METRIC] if k in FEMNIST_FIGS and v is not None and len(v) else v)
                for k, v in t.items()}, p
    return out


for _spec in list(CLAIMS):
    _figs = tuple(f for f in _spec.figures if f in FEMNIST_FIGS)
    if _figs and _spec.kind == "direction":  # training outcomes; the calibrations (C1, C2) and constructions are not
        CLAIMS.rewrap(_spec.id, fn=_real_data_guard(_spec.fn, _figs, DATA_FREE_ARGUMENTS.get(_spec.id)),
                      refute=_as_real_data(_spec.refute),
                      support=_as_real_data(_spec.support))
