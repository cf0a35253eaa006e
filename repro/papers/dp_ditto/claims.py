"""Claims of the DP-Ditto paper as verdicts (repro.claims). Ids follow this paper's README claim table.

Experimental claims read only the figures' tidy CSVs and the parameters; every effect is computed per
seed (one replicate per seed) on the whole curve (averaged over T or rounds) unless the paper names a
point. Analytic claims evaluate the paper's formulas (theory.py) or the Fig. 2 CSV. Thresholds are named
constants below; none was chosen to make a claim come out the paper's way (README, "Claims").
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd

from repro.claims import PANELS_AS_PAPER as ENGINE_PANELS_AS_PAPER, on_every_panel
from repro.claims import (ClaimSet, Evidence, Margin, agree_across_readings, comparisons, trend, evidence_summary, judge_or_missing, MissingData, combine, direction, edit, exact, past_the_papers_range, exact_holds, grid_optimum, need, not_evaluated,
                          number, not_evaluated_category, relabel, unchanged, NOT_EVALUATED_REASONS)
from repro.papers.dp_ditto import theory as th
from repro.papers.dp_ditto.experiments import (CONSTANTS_ID, LITERAL_FIGS, LITERAL_ID, PRIVACY_ID, SWEEP_ID, constants_need,
                                               literal_figure, literal_need, variant_series)
from repro.stats import mean_interval, spearman

#: judging rule e: the paper's one materiality margin per metric, for every qualitative word of its claims
#: ('maintained' in 6.a, 'degrade significantly' in 6.b); the paper prints none, so these are the package's reading
CLAIMS = ClaimSet("dp_ditto", margins={
    "accuracy": Margin(0.02, ("maintained", "significantly", "degrade"),
                       "package reading: a change of test accuracy below 0.02 (2 points) is immaterial"),
    "log10_fairness": Margin(math.log10(2.0), ("maintained", "significantly", "degrade"),
                             "package reading: a change of the fairness variance below a factor 2 is immaterial")})

BASE = {"fedamp": "DP-FedAMP", "pfedme": "DP-pFedMe", "apple": "DP-APPLE", "fedala": "DP-FedALA"}
DD = "DP-Ditto"
NOT_RUN = NOT_EVALUATED_REASONS["not_run"]
# Sec. 1: improvement of DP-Ditto over each DP-perturbed baseline, in %
PAPER_FAIR_GAIN = {"fedamp": 99.98, "pfedme": 32.71, "apple": 97.04, "fedala": 99.72}
PAPER_ACC_GAIN = {"fedamp": 59.06, "pfedme": 9.66, "apple": 28.67, "fedala": 64.31}
PAPER_ABSTRACT = {"fairness": 32.71, "accuracy": 9.66}  # abstract: "over 32.71% ... and 9.66%"
PAPER_CONCLUSION = {"fairness": 24.3, "accuracy": 48.16}  # Sec. 7: "over 24.3% ... and 48.16%"
#: package reading: the paper prints no spread nor how its percentages aggregate over panels and T: a number of
#: the same size (within a quarter of the printed value) is accepted, a different size is not
GAIN_RTOL = 0.25
#: the materiality margins (rule e) as used by claims 6.a and 6.b
MAINTAIN_ACC = CLAIMS.margin("accuracy")
MAINTAIN_FAIR_FACTOR = 10 ** CLAIMS.margin("log10_fairness")
#: package reading of "rises then falls" (claims 10.b, 12; the paper prints no margin): the peak of the 3-round moving average exceeds both its ends by this accuracy
RISE_FALL_MIN = 0.01
#: package reading: the paper's lambda* values are grid points: accepted within a factor 10**0.15 (only the named grid value)
LAMBDA_DECADES = 0.15
#: package reading (the paper prints the values, not a tolerance): Fig. 7's joint optimum (T*, lambda*) = (80, 0.1):
#: T* within 25 %, lambda* within a factor ~2.2 (0.05-0.2)
PAPER_T_STAR, T_STAR_RTOL = 80.0, 0.25
PAPER_LAMBDA_STAR, LAMBDA_STAR_DECADES = 0.1, 0.35
EXACT_RTOL = 1e-9
#: the paper's horizon in Figs. 3, 4 and 6 (T, t up to 30); a "large t" or "falls as T grows" statement is judged
#: only on a panel whose grid reaches a third of it (claims 5.c, 13.a), else not evaluated
PAPER_HORIZON = 30
LARGE_T_MIN = PAPER_HORIZON / 3


# ---- the reading of Algorithm 1's lines 5 and 10: one epoch at batch 10 (D1, the package) and one full-gradient step
#: the figures whose DP-Ditto trainings Algorithm 1's local step shapes; every claim that reads one of them is judged
#: at both readings (the rule is applied to all of them at the end of this module)
TRAINING_FIGS = ("fig3", "fig4", "fig5", "fig6", "fig7", SWEEP_ID)
#: ... except eq. (11)'s identity (lambda = 0 does not see the noise at any step size)
STEP_EXEMPT = ("18.b",)
STEP_NOTE = ("; judged at one epoch of minibatch SGD per round (D1, the package's reading) and at one full-gradient step "
             "per round (Algorithm 1 as printed, the literal figures: literal_step, fig3_literal, fig4_literal, fig5_literal, fig7_literal); a verdict only where both readings give it, "
             "not evaluated where the printed step was not run")
STEP_CONSTANT = ("the local steps per round (Algorithm 1 prints one gradient step on the whole local loss for u_n and "
                 "varpi_n; guide decision D1 takes one epoch of minibatch SGD at batch 10)")


_literal_tag = literal_need  # the ``figure`` value of the literal CSV rows that stand in for a figure's
#: the tables that hold rows at Algorithm 1 as printed (literal_step: Fig. 6 and the sweep; fig3_literal, ...)
LITERAL_TABLES = tuple(dict.fromkeys(literal_figure(f) for f in LITERAL_FIGS))


def _literal_rows(tables, figs=LITERAL_FIGS) -> pd.DataFrame | None:
    """The rows drawn at Algorithm 1 as printed, from the literal figures' tables of ``figs`` (None where there is
    none)."""
    keys = dict.fromkeys(literal_figure(f) for f in figs)
    parts = [tables[k] for k in keys if tables.get(k) is not None and len(tables[k])]
    return pd.concat(parts, ignore_index=True) if parts else None


def _literal_view(tables, figs) -> dict | None:
    """``tables`` with each of ``figs`` replaced by its rows at Algorithm 1 as printed (None where any is missing)."""
    t = _literal_rows(tables, figs)
    if t is None:
        return None
    out = {k: v for k, v in tables.items() if k not in LITERAL_TABLES}
    tag = t["figure"].astype(str)
    for f in figs:
        part = t[tag == _literal_tag(f)]
        if len(part) == 0:
            return None
        out[f] = part.assign(figure=f).reset_index(drop=True)
    c = tables.get(CONSTANTS_ID)
    if c is not None and len(c):  # the baselines' constant variants at the printed step stand in for D1's
        ctag = c["figure"].astype(str)
        keep = c[ctag.isin([constants_need(literal_need(f)) for f in ("fig3", "fig4")])]
        out[CONSTANTS_ID] = keep.assign(figure=keep["figure"].astype(str).str.replace(f"{LITERAL_ID}:", "", regex=False))
    return out


def _both_steps_cf(cf, figs):
    """A counterfactual applied to ``figs`` and, the same way, to their literal_step rows; where there are none (the
    quick profile), the counterfactual world's literal rows are the edited figures themselves (both readings agree)."""
    def apply(tables, params):
        t2, p2 = cf(tables, params)
        view = _literal_view(tables, figs)
        src = t2 if view is None else cf(view, params)[0]
        tags = [_literal_tag(f) for f in figs]
        old = _literal_rows(tables)  # the edited rows replace the originals, each in its literal figure's table
        keep = [old[~old["figure"].astype(str).isin(tags)]] if old is not None else []
        parts = [src[f].assign(figure=_literal_tag(f)) for f in figs if src.get(f) is not None and len(src[f])]
        rows = pd.concat(keep + parts, ignore_index=True)
        home = rows["figure"].astype(str).map({_literal_tag(f): literal_figure(f) for f in LITERAL_FIGS}).fillna(LITERAL_ID)
        out = {k: v for k, v in t2.items() if k not in LITERAL_TABLES}
        out.update({k: rows[home == k].reset_index(drop=True) for k in LITERAL_TABLES if (home == k).any()})
        return out, p2
    return apply


def _at_both_steps(figs):
    """Judge a training claim at the package's reading (D1: one epoch of minibatch SGD per round) and at Algorithm 1
    as printed (the literal_step figure: one full-gradient step per round) and keep a verdict only where both give it
    (judging rule 4, repro.claims.agree_across_readings). D1 departs from a printed step, so where the printed step
    was not run the claim is not evaluated ("not run at this scale"), the D1 verdict kept in the details. Where D1
    cannot judge the claim (e.g. its band is out of reach there), the printed step alone does not decide it: Algorithm 1
    prints DP-Ditto's step only, and the baselines' one full-gradient step is the package's choice (with APPLE at its
    library's epoch, the sign of 1.apple.accuracy flips; referee audit of 2026-11-28); the printed step's verdict is
    kept in the details (``literal_reading``) and named in the reason."""
    def deco(fn):
        def judged(tables, params):
            ev = fn(tables, params)
            view = _literal_view(tables, figs)
            if ev.verdict == "not_evaluated":
                if view is None:
                    return ev
                ev1 = judge_or_missing(fn, view, params)
                return ev.but(reason=f"{ev.reason}; Algorithm 1 as printed alone (not decisive: its baselines' step is the "
                                     f"package's): {ev1.verdict.replace('_', ' ')}",
                              details={**ev.details, "literal_reading": {**evidence_summary(ev1)}})
            if view is None:
                listed = list(params.get("literal_step", []))
                missing = [f for f in figs if _literal_view(tables, (f,)) is None]
                unlisted = [f for f in missing if f not in listed]
                why = (f"was not run for {', '.join(unlisted)} (this profile's literal_step: {listed})" if unlisted else
                       f"was not regenerated for {', '.join(missing)}")
                return not_evaluated(f"Algorithm 1 as printed (one full-gradient step per round) {why}; at D1 (one epoch of minibatch SGD per round, a departure from the "
                                     f"printed step) alone: {ev.verdict.replace('_', ' ')}", category="not_run",
                                     d1_reading={"effect": ev.effect, "reason": ev.reason, "verdict": ev.verdict,
                                                 "interval": None if ev.interval is None else [ev.interval.low, ev.interval.high]},
                                     **ev.details)
            ev1 = judge_or_missing(fn, view, params)
            pair = (f"one epoch at batch 10 per round (D1, the package's reading): {ev.verdict.replace('_', ' ')}; one "
                    f"full-gradient step per round (Algorithm 1 as printed): {ev1.verdict.replace('_', ' ')}")
            details = {**ev.details, "literal_reading": {"verdict": ev1.verdict, "effect": ev1.effect, "reason": ev1.reason}}
            return agree_across_readings(ev, ev1, pair=pair, details=details, constant=STEP_CONSTANT, b_required=True,
                                         names=("D1, one epoch at batch 10", "Algorithm 1 as printed, one full-gradient step"))
        judged.__name__, judged.__doc__ = fn.__name__, fn.__doc__
        return judged
    return deco


# ------------------------------------------------------------------------------------------------ helpers


def _rows(t: pd.DataFrame, **where) -> pd.DataFrame:
    m = np.ones(len(t), dtype=bool)
    for k, v in where.items():
        m &= (t[k].astype(str) == str(v)).to_numpy() if k in ("panel", "series", "metric") else (t[k] == v).to_numpy()
    return t[m]


def _wide(t: pd.DataFrame, **where) -> pd.DataFrame:
    """seed x x table of ``value`` for the rows matching ``where`` (seeds >= 0); MissingData if none."""
    d = _rows(t, **where)
    d = d[d["seed"] >= 0]
    if d.empty:
        raise MissingData(f"no rows with {where}")
    return d.assign(x=pd.to_numeric(d["x"])).pivot_table(index="seed", columns="x", values="value", aggfunc="mean", dropna=False)


def _log10(v):
    v = np.asarray(v, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)


def _nan_worst(a: pd.DataFrame, worst: float) -> pd.DataFrame:
    return a.where(np.isfinite(a.to_numpy(dtype=float)), worst)


def _fig34_panels(tables: dict, params: dict, fig: str):
    """(acc letter, fair letter, panel name) of the panels of ``fig`` with DP-Ditto rows."""
    t = need(tables, fig)
    out = []
    for i, panel in enumerate(params["fig34_panels"]):
        a, f = "abcdef"[2 * i], "abcdef"[2 * i + 1]
        if not _rows(t, panel=a, series=DD, metric="accuracy").empty:
            out.append((a, f, panel))
    if not out:
        raise MissingData(f"{fig} has no DP-Ditto rows")
    return out


def _gain_percent(tables, params, baseline: str, what: str, sd: bool = False) -> pd.Series:
    """Per seed: DP-Ditto's improvement over ``baseline`` in %, from the means over T (fairness:
    100 (1 - sum varrho_DD / sum varrho_b); accuracy: 100 (sum acc_DD - sum acc_b) / sum acc_b), averaged
    over the available (figure, panel) pairs of Figs. 3 and 4 (README, claim 1). ``sd``: fairness read as the
    standard deviation sqrt(varrho) (the Fig. 6 text's measure) instead of Def. 1's variance."""
    per = []
    for fig in ("fig3", "fig4"):
        if fig not in tables:
            continue
        t = tables[fig]
        for a, f, _panel in _fig34_panels(tables, params, fig):
            letter, metric = (f, "fairness") if what == "fairness" else (a, "accuracy")
            dd = _wide(t, panel=letter, series=DD, metric=metric)
            b = _wide(t, panel=letter, series=BASE[baseline], metric=metric)
            if sd:
                dd, b = np.sqrt(dd), np.sqrt(b)
            cols = dd.columns.intersection(b.columns)
            s_d, s_b = dd[cols].sum(axis=1), b[cols].sum(axis=1)
            per.append(100 * (1 - s_d / s_b) if what == "fairness" else 100 * (s_d - s_b) / s_b)
    if not per:
        raise MissingData("Figs. 3/4 were not regenerated")
    return pd.concat(per, axis=1).mean(axis=1)


def _set_gain(tables, params, gains: dict, what: str) -> dict:
    """Counterfactual: baseline values rewritten so that DP-Ditto's gain over baseline b is ``gains[b]`` % at
    every (figure, panel, T, seed)."""
    out = dict(tables)
    for fig in ("fig3", "fig4"):
        if fig not in out:
            continue
        t = out[fig].copy()
        for a, f, _ in _fig34_panels(out, params, fig):
            letter, metric = (f, "fairness") if what == "fairness" else (a, "accuracy")
            dd = _rows(t, panel=letter, series=DD, metric=metric).set_index(["x", "seed"])["value"]
            for b, g in gains.items():
                m = (t["panel"] == letter) & (t["series"] == BASE[b]) & (t["metric"] == metric)
                keys = list(zip(t.loc[m, "x"], t.loc[m, "seed"]))
                d = dd.reindex(keys).to_numpy(dtype=float)
                t.loc[m, "value"] = d / (1 - g / 100) if what == "fairness" else d / (1 + g / 100)
        out[fig] = t
    return out


def _mid_accuracy(tables, what):
    """Counterfactual helper: DP-Ditto's accuracy set to 0.5 everywhere (so that a baseline written from it by a printed
    gain stays a valid accuracy, and the gain stays reachable); fairness tables unchanged."""
    if what != "accuracy":
        return tables
    out = dict(tables)
    for fig in ("fig3", "fig4"):
        if fig in out:
            out = edit(out, fig, lambda v: v * 0 + 0.5, series=DD, metric="accuracy")
    return out


def _swap_dd(tables, params, baselines=BASE.values()):
    """Counterfactual: DP-Ditto's rows exchanged with each baseline's in turn is not one table; instead
    DP-Ditto's accuracy drops by 0.5 and its fairness grows 1000x (it becomes clearly worst)."""
    out = dict(tables)
    for fig in ("fig3", "fig4"):
        if fig in out:
            out = edit(out, fig, lambda v: v - 0.5, series=DD, metric="accuracy")
            out = edit(out, fig, lambda v: v * 1e3, series=DD, metric="fairness")
    return out


def _dd_ahead(acc_gain: float, fair_gain: float):
    """Counterfactual: every baseline value rewritten from DP-Ditto's at the same (figure, panel, T, seed) so that
    DP-Ditto's gain is ``acc_gain`` % in accuracy and ``fair_gain`` % in fairness everywhere (claim 4)."""
    def cf(t, p):
        out = _set_gain(t, p, {b: acc_gain for b in BASE}, "accuracy")
        return _set_gain(out, p, {b: fair_gain for b in BASE}, "fairness"), p
    return cf


def _improve_dd(tables, params):
    out = dict(tables)
    for fig in ("fig3", "fig4"):
        if fig in out:
            out = edit(out, fig, lambda v: v + 1.0, series=DD, metric="accuracy")
            out = edit(out, fig, lambda v: v * 1e-6, series=DD, metric="fairness")
    return out


def _slope(row: pd.Series) -> float:
    """Least-squares slope of a curve (index x, values y); NaN with fewer than 2 finite points."""
    y = row.to_numpy(dtype=float)
    x = np.asarray(row.index, dtype=float)
    ok = np.isfinite(y)
    if ok.sum() < 2:
        return float("nan")
    return float(np.polyfit(x[ok], y[ok], 1)[0])


def _rise_fall(row: pd.Series) -> float:
    """Peak of the 3-round moving average minus the larger of its first and last values (> 0: the curve
    rises and then falls; 0 for a monotone curve)."""
    y = pd.Series(row.to_numpy(dtype=float)).rolling(3, center=True, min_periods=1).mean().to_numpy()
    return float(np.nanmax(y) - max(y[0], y[-1]))


def _dir(values, expect, **kw):
    return direction(pd.Series(values, dtype=float).fillna(0.0), expect=expect, **kw)


def _censored_note(d: dict) -> str:
    n = d.get("steps_without_vote_censored") or 0
    return f", {n} between values censored at the same edge" if n else ""


def _ordered(curves: pd.DataFrame, expect: str, ties_ok: bool = False, details: dict | None = None):
    """A monotone trend over sorted levels (rows: seeds, or (seed, T); columns: sorted x), judged by the engine
    (repro.claims.trend: each seed's mean step vote, the seed the unit, rule g). ``ties_ok`` only names the tolerance
    (argmins). The per-replicate view (monotone or not, Spearman rho) is kept in the details."""
    if len(curves) == 0:
        raise MissingData("no curves to judge")
    sign = 1.0 if expect == "positive" else -1.0
    xs = [float(c) for c in curves.columns]
    rho, held = [], 0
    for _, r in curves.iterrows():
        y = r.to_numpy(dtype=float)
        rr = spearman(xs, y)
        rho.append(round(float(rr), 4) if np.isfinite(rr) else 0.0)
        with np.errstate(invalid="ignore"):
            sd = sign * np.diff(y)
            held += bool(((np.all(sd[~np.isnan(sd)] >= 0) and np.any(sd > 0)) if ties_ok else np.all(sd > 0)))
    ev = trend(curves, expect=expect, details={**(details or {}), "spearman_per_replicate": rho,
                                               "replicates_monotone": held, "replicates": len(curves)})
    if ev.verdict == "not_evaluated":
        return ev
    op = ">" if sign > 0 else "<"
    d = ev.details
    why = (f"{d['steps_on_paper_side']} steps on the paper's side, {d['steps_against']} against, {d['steps_tied']} tied"
           f"{_censored_note(d)}; "
           f"{held} of {len(curves)} replicates monotone{' (ties allowed)' if ties_ok else ''}, Spearman rho per replicate "
           f"{', '.join(f'{r:+.2f}' for r in rho) if len(rho) <= 6 else f'{min(rho):+.2f} .. {max(rho):+.2f}'}")
    if ev.reason:
        why += f"; {ev.reason}"
    if ev.details.get("seeds_to_decide"):
        why += f"; at the measured votes {ev.details['seeds_to_decide']} seeds would decide it"
    return replace(ev, paper_value=f"values {op} from each level to the next", reason=why)


# ------------------------------------------------------------------------------------------------ scale (judging rule 1)

LOCAL = "Local training (lambda=0)"
#: the paper's domain of lambda, [0, 2] (Sec. 3: lambda = 2 is FL with no personalization)
LAMBDA_MAX = 2.0
#: the paper's settings (Sec. 6): every client's whole training split (|D_n| ~ 2625 on MNIST) and eta = 0.005
PAPER_LR = 0.005
#: the measured quantity that differs between a reduced profile and the paper's runs, per kind of claim: with 100
#: samples per client the clients' training sets are memorised (variance of the PL training losses ~1e-6 in the quick
#: profile vs 1e-4 .. 1e-3 at the paper's data size), and the curves run at 10x the paper's learning rate
QUANTITY = {
    "fairness": "variance of the PL training losses (fairness, Def. 1) with 100 memorised samples per client",
    "loss": "PL training loss with 100 memorised samples per client",
    "accuracy": "test-accuracy curves at 100 samples per client and 10x the paper's eta",
    "lambda": "fairness-optimal lambda, from the variance of the PL training losses with 100 memorised samples per client",
    "bound": "Theorem 1's constants measured on models trained with 100 samples per client",
}


def _reduced(params) -> list[str]:
    """How ``params`` departs from the paper's data size and learning rate (empty: the paper's settings)."""
    out = []
    for k in ("train_per_client", "cnn_train_per_client"):
        if params.get(k) is not None:
            out.append(f"{k} {params[k]} vs the whole split")
    lr = {k: float(v) for k, v in (params.get("lr") or {}).items()}
    if any(abs(v - PAPER_LR) > 1e-12 for v in lr.values()):
        out.append(f"eta {lr} vs {PAPER_LR}")
    return out


def _at_scale(quantity: str, extra: str = ""):
    """Judging rule 1: a claim of Figs. 2-7 is judged at the paper's data size and learning rate. In a reduced
    profile, no paper-scale run of the figure shows the reduced verdict agrees, so the claim is not evaluated
    ("regime not preserved: <quantity> quick vs paper"); the reduced profile's own verdict is kept in the details."""
    def deco(fn):
        def inner(tables, params):
            ev = fn(tables, params)
            diff = _reduced(params)
            if not diff:
                return ev
            return not_evaluated(f"{QUANTITY.get(quantity, quantity)} quick vs paper ({'; '.join(diff)}){extra}; no "
                                 f"paper-scale run of this figure shows the reduced verdict agrees",
                                 category="regime", reduced_profile_verdict=ev.verdict, reduced_profile_reason=ev.reason,
                                 reduced_profile_details=ev.details)
        inner.__name__, inner.__doc__ = fn.__name__, fn.__doc__
        return inner
    return deco


def _paper_scale(cf):
    """A counterfactual also run at the paper's data size and learning rate, so the claim itself is judged (and with
    the baselines' unstated constants taken as scanned and the panels run as the paper's, so that the comparison itself
    is judged: ``SCANNED``, ``PANELS_AS_PAPER``)."""
    def out(t, p):
        t, p = cf(t, p)
        return t, {**p, "train_per_client": None, "cnn_train_per_client": None,
                   "lr": {k: PAPER_LR for k in (p.get("lr") or {"mlr": 0, "dnn": 0, "cnn": 0})}, SCANNED: sorted(BASE),
                   PANELS_AS_PAPER: True}
    return out


#: Baselines whose runs depart from their authors' definition through a constant the paper does not state (README,
#: "Baselines"). A comparison with one of them rests on the package's constant, not on the paper's experiment (judging
#: rules 2 and 4; referee audit of 2026-11-28): it keeps its verdict only where the same comparison with the baseline
#: at other published values (params ``constant_variants``, run beside it) agrees, and is not evaluated where those were
#: not run; the measured verdicts are kept in the details (_over_constants).
PACKAGE_CONSTANTS = {
    "fedamp": "DP-FedAMP's attention scale, sigma and own-model term are the package's (the median rescaling with the "
              "tuned sigma 0.1 at the edge of its grid, and the client's own model un-noised in its cloud model; the "
              "paper states none of them, and FedAMP's authors' experiment constants are not known here; scanned: "
              "PFLlib's argparse defaults, alphaK 1 and sigma 1, and the guide's reading, PFLlib's examples alphaK 1e3 "
              "and sigma 0.1 on the fixed scale with the client's own noisy upload in its cloud model)",
    "fedala": "DP-FedALA's eta_W is the package's tuned 10, in place of its authors' default 1.0",
    "apple": "DP-APPLE's p-gradient and lr_p are the package's (the exact <grad_w L, c_j> with lr_p 0.001, in place of "
             "the guide's PFLlib element-mean with lr_p 0.01; scanned: the guide's reading; not scanned: its authors' "
             "momentum 0.9 and regulariser on p)",
    "pfedme": "DP-pFedMe's personal learning rate is the package's tuned 0.01 (DNN), in place of its authors' and the "
              "guide's 0.09, which diverged on the tuning split",
}
#: params key listing the baselines whose unstated constants were scanned (set by the counterfactuals)
SCANNED = "scanned_baseline_constants"


def _unscanned(params, baselines) -> list[str]:
    done = set(params.get(SCANNED) or ())
    return [b for b in baselines if b in PACKAGE_CONSTANTS and b not in done]



def _package_constant(baselines, ev: Evidence, not_run: list[str] | None = None) -> Evidence:
    """``ev`` as not evaluated: its comparison rests on the package's constants of ``baselines`` (the paper states none);
    ``not_run``: the declared variants that were not run for every seed, T, metric and reading."""
    if ev.verdict == "not_evaluated":
        return ev
    why = "; ".join(PACKAGE_CONSTANTS[b] for b in baselines)
    which = f" ({', '.join(not_run)} not run in full)" if not_run else ""
    return not_evaluated(f"{why}; the baseline was not run at the other published values (constant_variants{which}): the comparison "
                         f"rests on the package's constant, not the paper's (measured: "
                         f"{ev.verdict.replace('_', ' ')})", category="constant",
                         **{**ev.details, "measured_with_package_constants": evidence_summary(ev)})


def _variant_labels(params, b) -> list[str]:
    """The figures' series of baseline ``b`` run at its ``constant_variants`` (params)."""
    return [variant_series(BASE[b], name) for name in ((params.get("constant_variants") or {}).get(b) or {})]


#: hyper-parameters that are values of one continuous constant: two variants differing only in these span the values
#: between them (a formula, a scale rule or a model term, e.g. APPLE's p_grad or FedAMP's scale, has no value between)
CONTINUOUS_HP = frozenset({"lr_p", "mu", "L", "personal_lr", "eta_w", "sigma", "alpha_k", "prox"})


def _continuous(params, swaps) -> bool:
    """Whether every variant of ``swaps`` [(baseline, series label)] departs from the package's baseline only in
    numbers of CONTINUOUS_HP (agree_across_readings' ``continuous``)."""
    variants = params.get("constant_variants") or {}
    for b, label in swaps:
        over = next((o for name, o in (variants.get(b) or {}).items() if variant_series(BASE[b], name) == label), None)
        if over is None:
            return False
        if any(k != "batch" and (k not in CONTINUOUS_HP or isinstance(v, bool) or not isinstance(v, (int, float)))
               for k, v in over.items()):
            return False
    return True


def _with_variants(tables, params) -> dict:
    """``tables`` with the constant variants' rows of this reading (baseline_constants:<fig>) added to Figs. 3-4."""
    c = tables.get(CONSTANTS_ID)
    if c is None or not len(c):
        return tables
    labels = [lab for b in BASE for lab in _variant_labels(params, b)]
    out = dict(tables)
    for fig in ("fig3", "fig4"):
        rows = c[(c["figure"].astype(str) == constants_need(fig)) & c["series"].isin(labels)]
        if fig in out and len(rows):
            out[fig] = pd.concat([out[fig], rows.assign(figure=fig)], ignore_index=True)
    return out


def _covers(tables, label, base) -> bool:
    """Series ``label`` has a row wherever series ``base`` has one in Figs. 3-4 (every figure, panel, T, seed and
    metric): a variant run for part of the grid does not stand in for the baseline."""
    keys = ["figure", "panel", "x", "metric", "seed"]
    for fig in ("fig3", "fig4"):
        if fig not in tables:
            continue
        t = tables[fig]
        want = set(map(tuple, t.loc[t["series"] == base, keys].astype(str).to_numpy()))
        have = set(map(tuple, t.loc[t["series"] == label, keys].astype(str).to_numpy()))
        if not have or not want <= have:
            return False
    return True


def _as_baseline(tables, b, label) -> dict:
    """``tables`` with baseline ``b``'s rows replaced by those of its variant ``label`` (same seeds, same grid)."""
    out = dict(tables)
    for fig in ("fig3", "fig4"):
        if fig in out:
            t = out[fig][out[fig]["series"] != BASE[b]]
            out[fig] = t.assign(series=t["series"].where(t["series"] != label, BASE[b]))
    return out


def _over_constants(measure, tables, params, baselines) -> Evidence:
    """Judging rules 2 and 4 for a comparison with ``baselines``: ``measure(tables, params)`` at the package's
    constants, kept only where it agrees with the same comparison at each baseline's ``constant_variants`` (other
    published values: every combination of the baselines' variants and the package's constants): agree_across_readings,
    pairwise; the package's own measurement stays in the details. Where a
    variant was not run, not evaluated ("depends on an unstated constant"), the measured verdict in the details."""
    ev = measure(tables, params)
    todo = _unscanned(params, baselines)
    # rule c: a band out of reach at the package's constants is evidence, not an early return; the published constants
    # are judged too (another deployment may reach it)
    if not todo or (ev.verdict == "not_evaluated" and not_evaluated_category(ev.reason) != "unreachable"):
        return ev
    tables = _with_variants(tables, params)
    runs = {b: _variant_labels(params, b) for b in todo}
    not_run = [lab for b in todo for lab in runs[b] if not _covers(tables, lab, BASE[b])]
    missing = [b for b in todo if not runs[b] or set(runs[b]) & set(not_run)]
    if missing:  # every declared variant must have run: a scan judged on part of its variants would pick among them
        return _package_constant(missing, ev, not_run)
    scanned = {**params, SCANNED: sorted(set(params.get(SCANNED) or ()) | set(todo))}
    # every combination of published constants: each baseline at the package's constant or one of its variants
    worlds = {}
    for pick in itertools.product(*([None, *runs[b]] for b in todo)):
        swaps = [(b, lab) for b, lab in zip(todo, pick) if lab is not None]
        if swaps:
            worlds[" + ".join(lab for _, lab in swaps)] = swaps
    out, seen = ev, {}
    for name, swaps in worlds.items():
        t = tables
        for b, lab in swaps:
            t = _as_baseline(t, b, lab)
        alt = judge_or_missing(measure, t, scanned)
        if alt.reason:  # its notes (e.g. DP-FedAMP's self-weight) are the variant's, not the package's baseline's
            alt = alt.but(reason=f"with {name}: {alt.reason}")
        seen[name] = evidence_summary(alt)
        why = "; ".join(PACKAGE_CONSTANTS[b] for b in todo)
        out = agree_across_readings(out, alt, pair="", constant=f"{why}: the verdict changes with it", unstated=True,
                                    details={**out.details, "constant_variants": dict(seen),
                                             "measured_with_package_constants": evidence_summary(ev)},
                                    names=("the package's constants", name), continuous=_continuous(params, swaps))
    return out.but(reason="; ".join(x for x in (out.reason, _constants_tally(ev, seen)) if x))


def _constants_tally(ev, seen: dict) -> str:
    """The verdict at the package's constants and how many combinations of the published constants give each
    verdict, naming those that differ (at most 3; every combination is in the details)."""
    say = lambda v: v.replace("_", " ")
    parts = []
    for verdict in dict.fromkeys(v["verdict"] for v in seen.values()):
        names = [n for n, v in seen.items() if v["verdict"] == verdict]
        named = "" if verdict == ev.verdict else (
            f" (with {', '.join(names[:3])}{f' and {len(names) - 3} more' if len(names) > 3 else ''})")
        parts.append(f"{say(verdict)} {len(names)}{named}")
    n = len(seen)
    where = f"across the {n} combinations of the baselines' published constants" if n > 1 else \
        "at the baseline's other published constant"
    return f"at the package's constants: {say(ev.verdict)}; {where}: {', '.join(parts)}"


def _fedamp_self_weight(tables) -> dict:
    """DP-FedAMP's mean self-weight xi_ii per (figure, panel letter): near 1, DP-FedAMP is (near-)local training."""
    out = {}
    for fig in ("fig3", "fig4"):
        if fig in tables:
            d = _rows(tables[fig], series=BASE["fedamp"], metric="mean_self_weight")
            for letter, g in d.groupby("panel"):
                out[f"{fig}/{letter}"] = round(float(g["value"].mean()), 4)
    return out


#: smallest mean self-weight xi_ii at which the notes call DP-FedAMP "(near-)local training" (a description, not a
#: verdict threshold: no verdict reads it; the package's wording)
NEAR_LOCAL_SELF_WEIGHT = 0.9


def _fedamp_near_local(tables) -> bool:
    """Whether every DP-FedAMP panel of Figs. 3/4 keeps xi_ii >= NEAR_LOCAL_SELF_WEIGHT (then it is near-local training)."""
    w = _fedamp_self_weight(tables)
    return bool(w) and min(w.values()) >= NEAR_LOCAL_SELF_WEIGHT


def _fedamp_note(tables) -> str:
    w = _fedamp_self_weight(tables)
    if not w:
        return ""
    span = f"DP-FedAMP's self-weight xi_ii {min(w.values()):.3g}-{max(w.values()):.3g}"
    return f"{span}: the comparison with DP-FedAMP is against (near-)local training" if _fedamp_near_local(tables) else span


# ------------------------------------------------------------------------------------------------ claims 1-3


def _gain_claim(baseline: str, what: str):
    paper = (PAPER_FAIR_GAIN if what == "fairness" else PAPER_ACC_GAIN)[baseline]

    def measure(tables, params):
        g = _gain_percent(tables, params, baseline, what)
        det = {"gain_percent_per_seed": g.round(4).to_dict()}
        if what == "fairness":  # Def. 1 (variance) judged; the Fig. 6 text's standard deviation reported
            gs = _gain_percent(tables, params, baseline, what, sd=True)
            det["gain_percent_per_seed_sd"] = gs.round(4).to_dict()
            iv = mean_interval(gs.to_list())
            det["gain_percent_sd_mean_95ci"] = [round(iv.mean, 3), round(iv.low, 3), round(iv.high, 3)]
        if baseline == "fedamp":
            det["fedamp_self_weight"] = _fedamp_self_weight(tables)
        ev = _reachable(tables, params, [baseline], what, paper) or number(g, paper, rtol=GAIN_RTOL, details=det)
        note = _fedamp_note(tables) if baseline == "fedamp" else ""
        return ev.but(reason="; ".join(r for r in (ev.reason, note) if r)) if note else ev

    def fn(tables, params):
        return _on_paper_panels(_over_constants(measure, tables, params, [baseline]), tables, params)

    @_paper_scale
    def support(t, p):
        return _set_gain(_mid_accuracy(t, what), p, {baseline: paper}, what), p

    @_paper_scale
    def refute(t, p):
        return _set_gain(_mid_accuracy(t, what), p, {baseline: -paper if what == "fairness" else 0.0}, what), p

    return _at_scale(what)(fn), support, refute


def _max_acc_gain(tables, params, baseline) -> pd.Series:
    """Per seed, the largest accuracy gain in % over ``baseline`` that any method could show (DP-Ditto at accuracy 1
    on every (figure, panel, T)), computed as claim 1's gain (judging rule 7)."""
    per = []
    for fig in ("fig3", "fig4"):
        if fig not in tables:
            continue
        for a, _f, _panel in _fig34_panels(tables, params, fig):
            b = _wide(tables[fig], panel=a, series=BASE[baseline], metric="accuracy")
            per.append(100 * (b.shape[1] - b.sum(axis=1)) / b.sum(axis=1))
    if not per:
        raise MissingData("Figs. 3/4 were not regenerated")
    return pd.concat(per, axis=1).mean(axis=1)


#: the datasets of the paper's Figs. 3-4 (Sec. 6): the percentages of claims 1-3 are taken over experiments the paper
#: does not name, so they may span all three
PAPER_FIG34_PANELS = ("dnn_mnist", "cnn_fashion_mnist", "cnn_cifar10")
#: params key set by the counterfactuals: the panels run are taken as the paper's (so that the comparison itself is judged)
PANELS_AS_PAPER = ENGINE_PANELS_AS_PAPER


def _on_paper_panels(ev: Evidence, tables, params) -> Evidence:
    """Claims 1-3's percentages on every panel of the paper's Figs. 3-4 only (the engine's on_every_panel): the paper
    does not say which experiments they summarise (one dataset, or the mean over three)."""
    run = {panel for fig in ("fig3", "fig4") if fig in tables for _a, _f, panel in _fig34_panels(tables, params, fig)}
    return on_every_panel(ev, run, PAPER_FIG34_PANELS, params, what="the paper's percentage (Figs. 3-4's datasets)")


def _reachable(tables, params, baselines, what, paper) -> Evidence | None:
    """not_evaluated (unreachable) when the paper's accuracy gain, less the band, exceeds the largest gain the measured
    baselines allow (judging rule 7); None otherwise."""
    if what != "accuracy":
        return None  # a fairness gain reaches 100 % (variance 0)
    top = min(float(_max_acc_gain(tables, params, b).max()) for b in baselines)
    if paper * (1 - GAIN_RTOL) > top:
        return not_evaluated(f"at most {top:.3g} % accuracy gain reachable over the measured "
                             f"{', '.join(BASE[b] for b in baselines)} (DP-Ditto at accuracy 1), the paper's {paper} % "
                             f"(band from {paper * (1 - GAIN_RTOL):.3g} %) lies above it", category="unreachable",
                             max_reachable_gain_percent=round(top, 3))
    return None


for _b in BASE:
    for _what in ("fairness", "accuracy"):
        _fn, _sup, _ref = _gain_claim(_b, _what)
        _paper = (PAPER_FAIR_GAIN if _what == "fairness" else PAPER_ACC_GAIN)[_b]
        CLAIMS.claim(
            f"1.{_b}.{_what}", figures=("fig3", "fig4"), kind="number",
            paper_says=f"'DP-Ditto can outperform its benchmarks, i.e., the DP-perturbed FedAMP, pFedMe, APPLE, and FedALA, "
                       f"by 99.98%, 32.71%, 97.04%, and 99.72%, respectively, in fairness and 59.06%, 9.66%, 28.67%, and "
                       f"64.31% in accuracy' (Sec. 1): {BASE[_b]}, {_what}: {_paper}%",
            tests=f"per seed, DP-Ditto's {_what} gain over {BASE[_b]} in % from the T-means of each (Fig. 3/4, panel), "
                  f"averaged over those pairs; band (package reading): paper value +-{GAIN_RTOL:.0%}; not evaluated where the measured baselines "
                  f"leave less accuracy gain than the band (rule 7)",
            refute=_ref, support=_sup)(_fn)


def _min_gain(tables, params, what):
    g = pd.concat([_gain_percent(tables, params, b, what) for b in BASE], axis=1)
    return g.min(axis=1)


for _cid, _src, _vals, _where in (("2", "abstract", PAPER_ABSTRACT, "Abstract"), ("3", "conclusion", PAPER_CONCLUSION, "Sec. 7")):
    for _what in ("fairness", "accuracy"):
        _paper = _vals[_what]

        def _measure(tables, params, _what=_what, _paper=_paper):
            g = _min_gain(tables, params, _what)
            # "by over X %" is one-sided: any gain from the band's low end up holds (a larger gain is not a miss)
            ev = (_reachable(tables, params, list(BASE), _what, _paper)
                  or direction(g, expect="positive", threshold=_paper * (1 - GAIN_RTOL),
                               details={"min_gain_percent_per_seed": g.round(4).to_dict(), "paper_percent": _paper,
                                        "fedamp_self_weight": _fedamp_self_weight(tables)}))
            return ev

        def _fn(tables, params, _measure=_measure):  # the smallest gain over all four needs every comparison
            return _on_paper_panels(_over_constants(_measure, tables, params, list(BASE)), tables, params)

        _fn = _at_scale(_what)(_fn)

        CLAIMS.claim(
            f"{_cid}.{_what}", figures=("fig3", "fig4"), kind="number",
            paper_says=(f"'DP-Ditto can surpass the DP-perturbed versions of ... FedAMP, pFedMe, APPLE, and FedALA, by over "
                        f"32.71% in fairness and 9.66% in accuracy' ({_where})" if _cid == "2" else
                        f"'DP-Ditto can outperform its benchmarks significantly by over 24.3% in fairness and 48.16% in "
                        f"accuracy' ({_where}; inconsistent with Sec. 1 and the abstract)") + f": {_what} {_paper}%",
            tests=f"per seed, the smallest over the four baselines of DP-Ditto's {_what} gain in % (as claim 1); "
                  f"'by over X %' is one-sided: the 95 % interval above (1 - {GAIN_RTOL:g}) X (package reading of "
                  f"the margin); not evaluated where the measured baselines leave less accuracy gain than that (rule 7)",
            refute=_paper_scale(lambda t, p, _what=_what, _paper=_paper: (_set_gain(
                _mid_accuracy(t, _what), p, {b: -_paper if _what == "fairness" else 0.0 for b in BASE}, _what), p)),
            support=_paper_scale(lambda t, p, _what=_what, _paper=_paper: (_set_gain(
                _mid_accuracy(t, _what), p, {b: _paper for b in BASE}, _what), p)))(_fn)


# ------------------------------------------------------------------------------------------------ claim 4


#: DP-pFedMe's gradient evaluations per minibatch relative to DP-Ditto's (K = 5 inner steps vs one step for u
#: and one for varpi): stated with claim 4, not corrected for
PFEDME_WORK = 5 / 2


def _comparison_diffs(tables, params, metric, labels) -> tuple[dict, dict]:
    """Per baseline series in ``labels``: its comparisons, one per (figure, panel), each a {T: per-seed Series} of the
    differences DP-Ditto - baseline (accuracy; fairness: decades of variance below the baseline's; a diverged run counts
    worst), and the seed means per T."""
    diffs, per_T = {label: {} for label in labels}, {}
    for fig in ("fig3", "fig4"):
        if fig not in tables:
            continue
        t = tables[fig]
        for a, f, panel in _fig34_panels(tables, params, fig):
            letter = a if metric == "accuracy" else f
            dd = _wide(t, panel=letter, series=DD, metric=metric)
            for label in labels:
                try:
                    bb = _wide(t, panel=letter, series=label, metric=metric)
                except MissingData:
                    continue
                for T in dd.columns.intersection(bb.columns):
                    if metric == "accuracy":
                        eff = _nan_worst(dd[[T]], 0.0)[T] - _nan_worst(bb[[T]], 0.0)[T]
                    else:
                        eff = pd.Series(_log10(bb[T]), index=bb.index).fillna(99) - pd.Series(_log10(dd[T]), index=dd.index).fillna(99)
                    diffs[label].setdefault(f"{fig}/{panel}", {})[f"T={T:g}"] = eff.dropna()
                    per_T[f"{fig}/{panel}/{label}/T={T:g}"] = round(float(eff.mean()), 4)
    return diffs, per_T


def _comparisons(tables, params, metric):
    """Claim 4 by the engine's rules a and g: one comparison per (baseline, figure, panel), its T grid pooled within each
    seed, the seed the unit (repro.claims.comparisons; acc(DP-Ditto) - acc(b), fairness: decades of variance below
    b's; a diverged run counts worst), the Bonferroni family every baseline's comparisons. The claim holds when every
    comparison does. A baseline run at a package constant is judged across its constant variants (_over_constants)."""
    diffs, per_T = _comparison_diffs(tables, params, metric, list(BASE.values()))
    if not any(diffs.values()):
        raise MissingData("Figs. 3/4 were not regenerated")
    family = sum(len(v) for v in diffs.values())

    def one(b):
        def measure(t, p):
            d = _comparison_diffs(t, p, metric, [BASE[b]])[0][BASE[b]]
            if not d:
                raise MissingData(f"no {BASE[b]} rows in Figs. 3/4")
            return comparisons({k: pd.DataFrame(v) for k, v in d.items()}, family=family)
        return measure

    parts = {}
    for b, label in BASE.items():
        if not diffs[label]:
            continue
        name = label + (" (against (near-)local training)" if b == "fedamp" and _fedamp_near_local(tables) else "")
        parts[name] = _over_constants(one(b), tables, params, [b])
    note = _fedamp_note(tables)
    ev = combine(parts, reason="; ".join(r for r in (f"one comparison per (baseline, figure, panel), its T grid pooled within each seed; "
                                                      f"DP-pFedMe does {PFEDME_WORK:g}x DP-Ditto's gradient evaluations per "
                                                      f"round (K = 5 inner steps), not corrected", note) if r))
    return ev.but(details={**ev.details, "seed_mean_effect_per_T": per_T, "fedamp_self_weight": _fedamp_self_weight(tables)})


@CLAIMS.claim("4.accuracy", figures=("fig3", "fig4"), kind="direction",
              paper_says="'DP-Ditto (with lambda*=0.005 under eps=10, or lambda*=0.01 under eps=100) provides the best accuracy "
                         "and fairness compared to the privacy-enhanced benchmarks' (Sec. 6.0.1, Figs. 3-4): accuracy",
              tests="per baseline, figure and panel, acc(DP-Ditto) - acc(baseline) averaged over the T grid within each seed: "
                    "the 95 % t-interval over seeds above 0 for every comparison (judging rules a, g; not reproduced where "
                    "one comparison's Bonferroni interval lies below 0)",
              refute=_paper_scale(_dd_ahead(-20.0, -900.0)), support=_paper_scale(_dd_ahead(20.0, 90.0)))
@_at_scale("accuracy")
def best_accuracy(tables, params):
    return _comparisons(tables, params, "accuracy")


@CLAIMS.claim("4.fairness", figures=("fig3", "fig4"), kind="direction",
              paper_says="'DP-Ditto ... provides the best accuracy and fairness compared to the privacy-enhanced benchmarks' "
                         "(Sec. 6.0.1, Figs. 3-4): fairness (lower variance of the PL training losses is fairer)",
              tests="per baseline, figure and panel, log10 varrho(baseline) - log10 varrho(DP-Ditto) averaged over the T "
                    "grid within each seed: the 95 % t-interval over seeds above 0 for every comparison (judging rules a, "
                    "g; not reproduced where one comparison's Bonferroni interval lies below 0)",
              refute=_paper_scale(_dd_ahead(-20.0, -900.0)), support=_paper_scale(_dd_ahead(20.0, 90.0)))
@_at_scale("fairness")
def best_fairness(tables, params):
    return _comparisons(tables, params, "fairness")


# ------------------------------------------------------------------------------------------------ claim 5


def _trend_parts(tables, params, labels, expect, panels_filter=None, min_T=None,
                 missing: str = "no baseline accuracy curves in Figs. 3/4"):
    parts = {}
    for fig in ("fig3", "fig4"):
        if fig not in tables:
            continue
        t = tables[fig]
        for a, _f, panel in _fig34_panels(tables, params, fig):
            if panels_filter and not panels_filter(panel):
                continue
            T_max = max(params["fig34_T"][panel])
            if min_T is not None and T_max < min_T:
                parts[f"{fig}/{panel}"] = not_evaluated(f"{panel}: T grid stops at {T_max:g}, below {min_T:g} (a third of "
                                                        f"the paper's {PAPER_HORIZON}): early training only", category="not_run")
                continue
            for label in labels:
                try:
                    w = _wide(t, panel=a, series=label, metric="accuracy")
                except MissingData:
                    continue
                parts[f"{fig}/{panel}/{label}"] = _dir(w.apply(_slope, axis=1), expect)
    if not parts:
        raise MissingData(missing)
    return combine(parts)


def _long_grid(cf, key: str):
    """A counterfactual run to the paper's horizon: the CNN panels' ``key`` grid (params) reaches PAPER_HORIZON."""
    def out(t, p):
        t, p = cf(t, p)
        grid = {k: (sorted(set(v) | {PAPER_HORIZON}) if isinstance(v, list) else max(v, PAPER_HORIZON)) if k.startswith("cnn") else v
                for k, v in p[key].items()}
        return t, {**p, key: grid}
    return out


def _make_trend(fig_list, labels, factor):
    def cf(t, p):
        out = dict(t)
        for fig in fig_list:
            if fig in out:
                for label in labels:
                    out = edit(out, fig, lambda r: r["value"] + factor * pd.to_numeric(r["x"]), rows=True, series=label,
                               metric="accuracy")
        return out, p
    return cf


@CLAIMS.claim("5.a", figures=("fig3", "fig4"), kind="direction",
              paper_says="'As T grows, the testing accuracy decreases under FedALA and FedAMP' (Sec. 6.0.1, Figs. 3-4)",
              tests="per seed, least-squares slope of accuracy vs T < 0 for DP-FedALA and DP-FedAMP in every figure and panel; "
                    f"not evaluated on a panel whose T grid stops below {LARGE_T_MIN:g}",
              refute=_paper_scale(_make_trend(("fig3", "fig4"), ("DP-FedALA", "DP-FedAMP"), 1.0)),
              support=_paper_scale(_make_trend(("fig3", "fig4"), ("DP-FedALA", "DP-FedAMP"), -1.0)))
@_at_scale("accuracy")
def fedala_fedamp_fall_with_T(tables, params):
    def measure(t, p):
        ev = _trend_parts(t, p, ("DP-FedALA", "DP-FedAMP"), "negative", min_T=LARGE_T_MIN)
        note = _fedamp_note(t)
        return ev.but(reason="; ".join(r for r in (ev.reason, note) if r),
                      details={**ev.details, "fedamp_self_weight": _fedamp_self_weight(t)})
    return _over_constants(measure, tables, params, ["fedala", "fedamp"])  # these two baselines' own curves


def _apple_parts(tables, params):
    parts = {}
    for fig in ("fig3", "fig4"):
        if fig not in tables:
            continue
        for a, _f, panel in _fig34_panels(tables, params, fig):
            w = _wide(tables[fig], panel=a, series="DP-APPLE", metric="accuracy")
            xs = sorted(w.columns)
            if 5 not in xs or xs[0] >= 5:
                continue
            parts[f"{fig}/{panel}/rise to T=5"] = direction(w[5] - w[xs[0]], expect="positive")
            if xs[-1] > 5:
                parts[f"{fig}/{panel}/fall after T=5"] = direction(w[5] - w[xs[-1]], expect="positive")
    if not parts:
        raise MissingData("no APPLE curve with T = 5 inside the grid")
    return combine(parts)


def _apple_shape(sign):
    def cf(t, p):
        out = dict(t)
        for fig in ("fig3", "fig4"):
            if fig in out:
                out = edit(out, fig, lambda r: r["value"] + sign * (1.0 - np.abs(pd.to_numeric(r["x"]) - 5.0) / 5.0),
                           rows=True, series="DP-APPLE", metric="accuracy")
        return out, p
    return cf


@CLAIMS.claim("5.b", figures=("fig3", "fig4"), kind="direction",
              paper_says="'[the testing accuracy] increases when T <= 5 and then decreases under APPLE' (Sec. 6.0.1)",
              tests="per seed, acc(T=5) - acc(smallest T) > 0 and acc(T=5) - acc(largest T) > 0 (DP-APPLE, every figure and "
                    "panel whose grid has T = 5 inside)",
              refute=_paper_scale(_apple_shape(-10.0)), support=_paper_scale(_apple_shape(10.0)))
@_at_scale("accuracy", extra="; DP-APPLE's core step eta N is 1.0 at the quick eta (0.1 at the paper's), and its accuracy "
                            "oscillates over T with or without DP")
def apple_peaks_at_5(tables, params):
    return _over_constants(_apple_parts, tables, params, ["apple"])  # APPLE's own curve, at each of its constants


@CLAIMS.claim("5.c", figures=("fig3", "fig4"), kind="direction",
              paper_says="'the testing accuracy of pFedMe decreases under the CNN model on the FMNIST and CIFAR10 datasets' "
                         "(Sec. 6.0.1)",
              tests=f"per seed, least-squares slope of accuracy vs T < 0 for DP-pFedMe on the CNN panels of Figs. 3 and 4; "
                    f"not evaluated on a panel whose T grid stops below {LARGE_T_MIN:g}",
              refute=_paper_scale(_long_grid(_make_trend(("fig3", "fig4"), ("DP-pFedMe",), 1.0), "fig34_T")),
              support=_paper_scale(_long_grid(_make_trend(("fig3", "fig4"), ("DP-pFedMe",), -1.0), "fig34_T")))
@_at_scale("accuracy")
def pfedme_falls_on_cnn(tables, params):
    return _trend_parts(tables, params, ("DP-pFedMe",), "negative", panels_filter=lambda panel: panel.startswith("cnn"),
                        min_T=LARGE_T_MIN, missing=f"{NOT_RUN}: Figs. 3/4 have no CNN panel (the claim is about the CNN "
                                                    "model on FMNIST and CIFAR10)")


# ------------------------------------------------------------------------------------------------ claim 6


def _eps_pair(tables, params):
    for fig in ("fig3", "fig4"):
        need(tables, fig)
    p3 = {panel: (a, f) for a, f, panel in _fig34_panels(tables, params, "fig3")}
    p4 = {panel: (a, f) for a, f, panel in _fig34_panels(tables, params, "fig4")}
    return [(panel, p3[panel], p4[panel]) for panel in p3 if panel in p4]


@CLAIMS.claim("6.a", figures=("fig3", "fig4"), kind="direction",
              paper_says="'the testing accuracy and fairness of DP-Ditto can be maintained even under high privacy "
                         "requirements (e.g., eps=10)' (Sec. 6.0.1, Figs. 3 vs 4)",
              tests=f"per seed and panel, mean over T of acc(eps=100) - acc(eps=10) < {MAINTAIN_ACC} and of "
                    f"log10 varrho(eps=10) - log10 varrho(eps=100) < log10 {MAINTAIN_FAIR_FACTOR:g} (both margins the "
                    f"package's reading of 'maintained': the paper prints none)",
              refute=_paper_scale(lambda t, p: (edit(edit(t, "fig3", lambda v: v - 0.5, series=DD, metric="accuracy"), "fig3",
                                               lambda v: v * 1e3, series=DD, metric="fairness"), p)),
              support=_paper_scale(lambda t, p: (edit(edit(t, "fig3", lambda v: v + 0.5, series=DD, metric="accuracy"), "fig3",
                                                lambda v: v * 1e-3, series=DD, metric="fairness"), p)))
@_at_scale("accuracy and variance of the PL training losses (100 memorised samples per client)")
def ditto_maintained_at_eps10(tables, params):
    parts = {}
    for panel, (a3, f3), (a4, f4) in _eps_pair(tables, params):
        acc10, acc100 = _wide(tables["fig3"], panel=a3, series=DD, metric="accuracy"), _wide(tables["fig4"], panel=a4, series=DD, metric="accuracy")
        fa10, fa100 = _wide(tables["fig3"], panel=f3, series=DD, metric="fairness"), _wide(tables["fig4"], panel=f4, series=DD, metric="fairness")
        cols = acc10.columns.intersection(acc100.columns)
        parts[f"{panel}/accuracy"] = direction((_nan_worst(acc100[cols], 0) - _nan_worst(acc10[cols], 0)).mean(axis=1),
                                               expect="negative", threshold=MAINTAIN_ACC)
        d = pd.DataFrame(_log10(fa10[cols]), index=fa10.index).fillna(99) - pd.DataFrame(_log10(fa100[cols]), index=fa100.index)
        parts[f"{panel}/fairness"] = direction(d.mean(axis=1), expect="negative", threshold=math.log10(MAINTAIN_FAIR_FACTOR))
    if not parts:
        raise MissingData("no panel in both Figs. 3 and 4")
    return combine(parts)


def _degrade_baselines(amount):
    def cf(t, p):
        out = dict(t)
        for label in BASE.values():
            out = edit(out, "fig3", lambda v: v - amount, series=label, metric="accuracy")
        return out, p
    return cf


@CLAIMS.claim("6.b", figures=("fig3", "fig4"), kind="direction",
              paper_says="'By contrast, the benchmarks degrade significantly when eps is small (e.g., eps=10) ... because of "
                         "their susceptibility to the DP noises' (Sec. 6.0.1, Figs. 3 vs 4)",
              tests=f"per panel and baseline, per seed, averaged over T: (i) the baseline degrades materially, acc_b(100) - "
                    f"acc_b(10) above the paper's materiality margin {MAINTAIN_ACC:g} (rule e: the margin of 'maintained' "
                    f"in 6.a), and (ii) more than DP-Ditto, [acc_b(100) - acc_b(10)] - [acc_DD(100) - acc_DD(10)] > 0; one "
                    f"comparison each, every one must hold (rules a, g)",
              refute=_paper_scale(_degrade_baselines(-0.5)), support=_paper_scale(_degrade_baselines(0.5)))
@_at_scale("accuracy")
def baselines_degrade_more(tables, params):
    parts, drops = {}, {}
    for panel, (a3, _), (a4, _) in _eps_pair(tables, params):
        dd = (_wide(tables["fig4"], panel=a4, series=DD, metric="accuracy") - _wide(tables["fig3"], panel=a3, series=DD, metric="accuracy"))
        for label in BASE.values():
            try:
                b = (_wide(tables["fig4"], panel=a4, series=label, metric="accuracy")
                     - _wide(tables["fig3"], panel=a3, series=label, metric="accuracy"))
            except MissingData:
                continue
            cols = dd.columns.intersection(b.columns)
            drop = b[cols].fillna(1.0)
            parts[f"{panel}/{label} degrades by more than {MAINTAIN_ACC:g}"] = drop - MAINTAIN_ACC
            parts[f"{panel}/{label} degrades more than DP-Ditto"] = drop - dd[cols].fillna(0.0)
            drops[f"{panel}/{label}"] = round(float(drop.mean(axis=1).mean()), 4)
    if not parts:
        raise MissingData("no panel in both Figs. 3 and 4")
    ev = comparisons(parts)
    premise = ""
    if drops and max(drops.values()) < MAINTAIN_ACC:
        premise = (f"the premise does not occur: no baseline loses {MAINTAIN_ACC:g} accuracy from eps = 100 to 10 "
                   f"(largest mean drop {max(drops.values()):.3g})")
    return ev.but(reason="; ".join(x for x in (premise, ev.reason) if x),
                  details={**ev.details, "mean_accuracy_drop_100_to_10": drops})


# ------------------------------------------------------------------------------------------------ claim 7


def _lambda_star(tables, eps: str) -> pd.Series:
    w = _wide(need(tables, SWEEP_ID), series=f"eps={eps}", metric="fairness")
    return _nan_worst(w, np.inf).idxmin(axis=1).astype(float)


def _lambda_star_of_mean(tables, eps: str) -> float:
    """argmin over the grid of the seed-mean log10 fairness curve (reported with claim 7)."""
    w = _wide(need(tables, SWEEP_ID), series=f"eps={eps}", metric="fairness")
    return float(pd.DataFrame(_log10(w), index=w.index, columns=w.columns).fillna(99).mean(axis=0).idxmin())


def _lambda_star_claim(tables, eps: str, paper: float):
    """lambda* per seed against the paper's value, censored at the sweep grid's edges only (the engine's rule d)."""
    w = _wide(need(tables, SWEEP_ID), series=f"eps={eps}", metric="fairness")
    return grid_optimum(w, paper, paper / 10 ** LAMBDA_DECADES, paper * 10 ** LAMBDA_DECADES,
                        details={"lambda_star_of_seed_mean_curve": _lambda_star_of_mean(tables, eps)})


def _sweep_set_optimum(lams: dict):
    def cf(t, p):
        out = dict(t)
        for eps, lam in lams.items():
            out = edit(out, SWEEP_ID, lambda r, lam=lam: np.where(np.isclose(pd.to_numeric(r["x"]), lam), 1e-9, 1.0), rows=True,
                       series=f"eps={eps}", metric="fairness")
        return out, p
    return cf


@CLAIMS.claim("7.eps10", figures=SWEEP_ID, kind="number",
              paper_says="'DP-Ditto (with lambda*=0.005 under eps=10 ...)' (Sec. 6.0.1, Fig. 3 caption: 'the optimal lambda*=0.005')",
              tests=f"per seed, argmin over the sweep's lambda grid of the fairness at eps=10; every seed within "
                    f"{LAMBDA_DECADES} decades (package reading) of 0.005: reproduced, none: not reproduced; a seed at the grid's edge is censored and left out; "
                    "0.005 an interior grid point beaten by a neighbour in every seed: not reproduced (rule d, repro.claims.grid_optimum)",
              refute=_paper_scale(_sweep_set_optimum({"10": 0.05})), support=_paper_scale(_sweep_set_optimum({"10": 0.005})))
@_at_scale("lambda")
def lambda_star_eps10(tables, params):
    return _lambda_star_claim(tables, "10", 0.005)


@CLAIMS.claim("7.eps100", figures=SWEEP_ID, kind="number",
              paper_says="'... or lambda*=0.01 under eps=100' (Sec. 6.0.1, Fig. 4 caption)",
              tests=f"per seed, argmin over the sweep's lambda grid of the fairness at eps=100; every seed within "
                    f"{LAMBDA_DECADES} decades (package reading) of 0.01: reproduced, none: not reproduced; a seed at the grid's edge is censored and left out; "
                    "0.01 an interior grid point beaten by a neighbour in every seed: not reproduced (rule d, repro.claims.grid_optimum)",
              refute=_paper_scale(_sweep_set_optimum({"100": 0.05})), support=_paper_scale(_sweep_set_optimum({"100": 0.01})))
@_at_scale("lambda")
def lambda_star_eps100(tables, params):
    return _lambda_star_claim(tables, "100", 0.01)


@CLAIMS.claim("7.order", figures=SWEEP_ID, kind="direction",
              paper_says="'This is achieved by configuring a smaller lambda* when eps is smaller' (Sec. 6.0.1)",
              tests="per seed, log10 lambda*(eps=100) - log10 lambda*(eps=10) > 0 (fairness-optimal lambda of the sweep); "
                    "every seed: reproduced, every seed < 0: not reproduced, ties: inconclusive",
              refute=_paper_scale(_sweep_set_optimum({"10": 0.1, "100": 0.001})),
              support=_paper_scale(_sweep_set_optimum({"10": 0.001, "100": 0.1})))
@_at_scale("lambda")
def lambda_star_smaller_at_small_eps(tables, params):
    lo, hi = _lambda_star(tables, "10"), _lambda_star(tables, "100")
    d = np.log10(hi) - np.log10(lo)
    n, up, tie = len(d), int((d > 0).sum()), int((d == 0).sum())
    verdict = "reproduced" if up == n else "not_reproduced" if (d < 0).all() else "inconclusive"
    why = "" if verdict != "inconclusive" else f"{up} of {n} seeds ordered, {tie} tied (same grid point at both eps)"
    return Evidence(verdict, effect=float(d.mean()), regenerated=float(d.mean()), paper_value="> 0 in every seed",
                    tolerance="sign count over seeds (ties: inconclusive)", reason=why,
                    details={"log10_ratio_per_seed": d.round(4).to_dict(), "lambda_star_eps10": lo.to_dict(), "lambda_star_eps100": hi.to_dict()})


# ------------------------------------------------------------------------------------------------ claims 8, 9


def _fig5_panels(tables, params):
    t = need(tables, "fig5")
    out = [(LETTERS5[i], panel) for i, panel in enumerate(params["fig5_panels"])
           if not _rows(t, panel=LETTERS5[i], metric="loss").empty]
    if not out:
        raise MissingData("fig5 has no loss rows")
    return t, out


LETTERS5 = "abcd"


def _eps_series(params):
    finite = sorted(e for e in params["fig5_epsilons"] if not math.isinf(e))
    return [(e, f"eps={e:g}") for e in finite] + [(math.inf, "Ditto (eps=inf)")]


@CLAIMS.claim("8", figures="fig5", kind="direction",
              paper_says="'Figs. 5(a)-5(d) show that the training loss decreases and eventually approaches the case with no DP "
                         "(i.e., eps=+inf), as eps increases' (Sec. 6.0.2)",
              tests="per seed and panel, the mean over T of log10 PL loss at each rung of the eps ladder (inf largest), "
                    "falling from each rung to the next; per panel, one sign test over every (seed, adjacent level) step, ties dropped (judging rule 8): Clopper-Pearson interval of the share on the paper's side above 1/2: reproduced, below: not reproduced",
              refute=_paper_scale(lambda t, p: (edit(t, "fig5", lambda r: r["value"] * r["series"].map(
                  {"eps=1": 1e-6, "eps=10": 1e-4, "eps=20": 1e-3, "eps=100": 1e-2}).fillna(1.0), rows=True, metric="loss"), p)),
              support=_paper_scale(lambda t, p: (edit(t, "fig5", lambda r: r["value"] * r["series"].map(
                  {"eps=1": 1e6, "eps=10": 1e4, "eps=20": 1e3, "eps=100": 1e2}).fillna(1.0), rows=True, metric="loss"), p)))
@_at_scale('loss')
def loss_falls_with_eps(tables, params):
    t, panels = _fig5_panels(tables, params)
    parts = {}
    for letter, panel in panels:
        cols = {}
        for rank, (e, s) in enumerate(_eps_series(params)):
            try:
                w = _wide(t, panel=letter, series=s, metric="loss")
            except MissingData:
                continue
            cols[rank] = pd.DataFrame(_log10(w), index=w.index).fillna(9.0).mean(axis=1)
        parts[panel] = _ordered(pd.DataFrame(cols), "negative")
    return combine(parts)


#: the last T of the paper's Fig. 5 (its plotted range; a turning point claimed within it is not censored at it)
FIG5_PAPER_T_MAX = 100.0


@CLAIMS.claim("9", figures="fig5", kind="direction",
              paper_says="'when both eps and T are small, the training loss of PL decreases initially ... Once T exceeds a "
                         "certain critical value, the accumulated impact of the DP noises outweighs the benefits of "
                         "generalization, leading to a degradation' (Sec. 6.0.2)",
              tests="smallest eps, per seed and panel with >= 3 T: min(log10 loss(T_first), log10 loss(T_last)) - "
                    "min_T log10 loss > 0 (an interior minimum); a loss still falling at the grid's end in every seed is "
                    "censored (not evaluated) where the grid ends before the paper's T = 100, and not reproduced where it "
                    "reaches it (the paper's own range: judging rule d)",
              refute=_paper_scale(lambda t, p: (edit(t, "fig5", lambda r: 1.0 + pd.to_numeric(r["x"]), rows=True,
                                        series=f"eps={min(e for e in p['fig5_epsilons']):g}", metric="loss"), p)),
              support=_paper_scale(lambda t, p: (edit(t, "fig5", lambda r: 1.0 + (pd.to_numeric(r["x"]) - 5.0) ** 2, rows=True,
                                         series=f"eps={min(e for e in p['fig5_epsilons']):g}", metric="loss"), p)))
@_at_scale('loss')
def loss_u_shape_at_small_eps(tables, params):
    t, panels = _fig5_panels(tables, params)
    s = f"eps={min(params['fig5_epsilons']):g}"
    parts = {}
    for letter, panel in panels:
        w = _wide(t, panel=letter, series=s, metric="loss")
        if w.shape[1] < 3:
            parts[panel] = not_evaluated("fewer than 3 T values", category="not_run")
            continue
        lw = pd.DataFrame(_log10(w), index=w.index, columns=w.columns).fillna(9.0)
        arg = lw.idxmin(axis=1)
        if (arg == lw.columns.max()).all():  # still falling at the grid's end in every seed (rule d)
            parts[panel] = past_the_papers_range(float(lw.columns.max()), FIG5_PAPER_T_MAX, f"{panel}: the loss",
                                                 argmin_T=arg.to_dict())
            continue
        eff = np.minimum(lw.iloc[:, 0], lw.iloc[:, -1]) - lw.min(axis=1)
        parts[panel] = direction(eff, expect="positive")
    return combine(parts)


# ------------------------------------------------------------------------------------------------ claims 10-13 (Fig. 6)


def _fig6(tables, params):
    t = need(tables, "fig6")
    out = [(i, panel) for i, panel in enumerate(params["fig6_panels"]) if not _rows(t, panel="abcdef"[2 * i], metric="accuracy").empty]
    if not out:
        raise MissingData("fig6 has no rows")
    return t, out


def _lk(l):
    return f"lambda={float(l):g}"


def _fig6_edit(fn_of_t, lam_filter, metric="accuracy"):
    def cf(t, p):
        return edit(t, "fig6", lambda r: fn_of_t(pd.to_numeric(r["x"]).to_numpy(dtype=float), _row_T(r, p), r), rows=True, metric=metric,
                    series=lambda s: s.isin([_lk(l) for l in p["fig6_lambdas"] if lam_filter(l)])), p
    return cf


@CLAIMS.claim("10.a", figures="fig6", kind="direction",
              paper_says="'Fig. 6(a) shows the model accuracy increases with t when lambda < 0.1' (Sec. 6.0.3)",
              tests="panel (a), lambda = 0 (the grid's only lambda < 0.1): per seed, least-squares slope of accuracy vs t > 0",
              refute=_paper_scale(_fig6_edit(lambda x, T, r: 1.0 - x / T, lambda l: l == 0)),
              support=_paper_scale(_fig6_edit(lambda x, T, r: x / T, lambda l: l == 0)))
@_at_scale('accuracy')
def accuracy_rises_small_lambda(tables, params):
    t, panels = _fig6(tables, params)
    if panels[0][0] != 0:
        raise MissingData("Fig. 6(a) (the first panel) was not regenerated")
    w = _wide(t, panel="a", series=_lk(0), metric="accuracy")
    return _dir(w.apply(_slope, axis=1), "positive")


def _rise_fall_parts(t, panels, lams, only_first=False, margin=RISE_FALL_MIN):
    parts = {}
    for i, panel in panels:
        if only_first and i != 0:
            continue
        for l in lams:
            try:
                w = _wide(t, panel="abcdef"[2 * i], series=_lk(l), metric="accuracy")
            except MissingData:
                continue
            if w.shape[1] < 4:
                parts[f"{panel}/{_lk(l)}"] = not_evaluated("fewer than 4 rounds", category="not_run")
                continue
            peak = w.apply(lambda r: int(np.nanargmax(pd.Series(r.to_numpy(dtype=float)).rolling(3, center=True, min_periods=1)
                                                       .mean().to_numpy())), axis=1)
            last = float(max(w.columns))
            if (peak == w.shape[1] - 1).all() and last < PAPER_HORIZON:
                parts[f"{panel}/{_lk(l)}"] = not_evaluated(
                    f"{panel}/{_lk(l)}: accuracy still rising at the grid's last t = {last:g} in every seed (the paper's "
                    f"Fig. 6 runs to t = {PAPER_HORIZON}): the fall, if any, lies past the grid (censored)", category="unreachable")
                continue
            stat = w.apply(_rise_fall, axis=1)
            if (stat == 0).all():  # monotone in every seed: the statistic is 0 by construction (judging rule 8)
                parts[f"{panel}/{_lk(l)}"] = _edge_slope_evidence(w, peak, panel, l)
                continue
            parts[f"{panel}/{_lk(l)}"] = direction(stat, expect="positive", threshold=margin)
    if not parts:
        raise MissingData("no Fig. 6 accuracy curves for these lambda")
    return combine(parts)


def _edge_slope_evidence(w: pd.DataFrame, peak: pd.Series, panel: str, lam) -> Evidence:
    """A curve that is monotone in every seed has a rise-then-fall statistic of exactly 0, an interval of zero width
    (judging rule 8). It is judged by the sign of its slope at the end where it peaks instead: still rising over the
    last third of the horizon (peak at the end) refutes the fall, falling over the first third (peak at the start)
    refutes the rise; per seed, a least-squares slope, then the direction of its interval."""
    at_end = bool((peak == w.shape[1] - 1).all())
    k = max(3, w.shape[1] // 3)
    cols = list(w.columns)[-k:] if at_end else list(w.columns)[:k]
    x = np.asarray(cols, dtype=float)
    # rounded: a flat curve's fitted slope is float noise (1e-16), not a direction
    slopes = w[cols].apply(lambda r: round(float(np.polyfit(x, r.to_numpy(dtype=float), 1)[0]), 12), axis=1)
    what = (f"{panel}/{_lk(lam)}: monotone in every seed; slope of the accuracy over t = {x[0]:g}-{x[-1]:g} "
            f"(the {'last' if at_end else 'first'} third), {'> 0 refutes the fall' if at_end else '< 0 refutes the rise'}")
    ev = direction(slopes, expect="negative" if at_end else "positive", threshold=0.0)
    return ev.but(reason="; ".join(r for r in (what, ev.reason) if r))


def _rise_fall_judged(t, panels, lams, only_first=False):
    """'Rises then falls' at margin 0 (judging rule 3: a trend is judged by its direction) and at the package's
    RISE_FALL_MIN (a bump of noise is not a peak); a verdict only where both margins give it (rule 4)."""
    ev0 = _rise_fall_parts(t, panels, lams, only_first, margin=0.0)
    ev1 = _rise_fall_parts(t, panels, lams, only_first, margin=RISE_FALL_MIN)
    pair = (f"margin 0: {ev0.verdict.replace('_', ' ')}; margin {RISE_FALL_MIN} (package reading): "
            f"{ev1.verdict.replace('_', ' ')}")
    details = {**ev1.details, "margin_0": {"verdict": ev0.verdict, "effect": ev0.effect}}
    return agree_across_readings(ev1, ev0, pair=pair, details=details, names=(f"margin {RISE_FALL_MIN}", "margin 0"),
                                 constant="the margin of 'rises then falls' (the paper prints none)", unstated=True)


_HUMP = lambda x, T, r: 1.0 - ((x - T / 2) / T) ** 2  # noqa: E731
_RAMP = lambda x, T, r: x / T  # noqa: E731
_FALL = lambda x, T, r: 1.0 - x / T  # noqa: E731


@CLAIMS.claim("10.b", figures="fig6", kind="direction",
              paper_says="'[the model accuracy] increases first and then decreases when lambda > 0.1' (Sec. 6.0.3, Fig. 6(a)); "
                         "of the same panel: 'the testing accuracy first increases and then decreases ... under lambda < 2'",
              tests=f"panel (a), lambda in {{0.5, 1, 2}} and, the paper's other sentence, lambda in {{0.5, 1}} (lambda = 2 is "
                    f"its 'FL with no personalization'): a verdict only where both sets give it; "
                    f"per seed, peak of the 3-round moving average of the accuracy minus "
                    f"the larger of its first and last values > 0 and > {RISE_FALL_MIN} (package reading: the paper prints no "
                    f"margin; a verdict only where both margins give it); "
                    "a curve monotone in every seed (statistic 0 by construction) is judged by the sign of its least-squares slope over the third of the horizon where it peaks; "
                    f"a curve still rising at a grid end short of t = {PAPER_HORIZON} in every seed is censored (not evaluated)",
              refute=_paper_scale(_fig6_edit(_FALL, lambda l: l > 0.1)), support=_paper_scale(_fig6_edit(_HUMP, lambda l: l > 0.1)))
@_at_scale('accuracy')
def accuracy_rise_fall_large_lambda(tables, params):
    t, panels = _fig6(tables, params)
    lams = [l for l in params["fig6_lambdas"] if l > 0.1]
    every = _rise_fall_judged(t, panels, lams, only_first=True)
    below2 = _rise_fall_judged(t, panels, [l for l in lams if l < 2], only_first=True)
    pair = (f"lambda > 0.1: {every.verdict.replace('_', ' ')}; 0.1 < lambda < 2: {below2.verdict.replace('_', ' ')}")
    return agree_across_readings(every, below2, pair=pair, details=every.details,
                                 names=("lambda > 0.1 (Fig. 6(a)'s sentence)", "0.1 < lambda < 2 (the paragraph on Figs. 6(a), (c), (e))"),
                                 constant="which lambdas the rise and fall covers (the paper says 'lambda > 0.1' and, of the same "
                                          "panel, 'lambda < 2')")


def _mean_log_fair(t, letter, lam):
    w = _wide(t, panel=letter, series=_lk(lam), metric="fairness")
    return pd.DataFrame(_log10(w), index=w.index).fillna(9.0).mean(axis=1)


@CLAIMS.claim("11.a", figures="fig6", kind="direction",
              paper_says="'The PL model with a smaller lambda offers better fairness' (Sec. 6.0.3, Fig. 6(b)); the sentence "
                         "before it sets the PL models against 'the global FL model', the paper's lambda = 2 ('FL with no "
                         "personalization')",
              tests="panel (b), lambda in {0.1, 0.5, 1, 2} and, reading 'PL model' as excluding lambda = 2, in {0.1, 0.5, 1}: "
                    "a verdict only where both sets give it; per seed, the mean over t of log10 fairness, growing from each "
                    "lambda to the next; one sign test over every (seed, adjacent level) step, ties dropped (judging rule "
                    "8): Clopper-Pearson interval of the share on the paper's side above 1/2: reproduced, below: not "
                    "reproduced",
              refute=_paper_scale(_fig6_edit(lambda x, T, r: 10.0 ** (-4 * r["series"].str[7:].astype(float)), lambda l: l > 0, "fairness")),
              support=_paper_scale(_fig6_edit(lambda x, T, r: 10.0 ** (4 * r["series"].str[7:].astype(float)), lambda l: l > 0, "fairness")))
@_at_scale('fairness')
def fairness_better_small_lambda(tables, params):
    t, panels = _fig6(tables, params)
    if panels[0][0] != 0:
        raise MissingData("Fig. 6(b) (the first panel) was not regenerated")
    lams = [l for l in params["fig6_lambdas"] if l >= 0.1]
    every = _ordered(pd.DataFrame({l: _mean_log_fair(t, "b", l) for l in lams}), "positive")
    pl_only = _ordered(pd.DataFrame({l: _mean_log_fair(t, "b", l) for l in lams if l < 2}), "positive")
    pair = f"lambda >= 0.1: {every.verdict.replace('_', ' ')}; 0.1 <= lambda < 2: {pl_only.verdict.replace('_', ' ')}"
    return agree_across_readings(every, pl_only, pair=pair, details=every.details,
                                 names=("lambda in {0.1, 0.5, 1, 2}", "the PL models only, lambda in {0.1, 0.5, 1}"),
                                 constant="which lambdas 'the PL model' covers (lambda = 2 is the paper's 'FL with no "
                                          "personalization', the global model the sentence before compares against)")


@CLAIMS.claim("11.b", figures="fig6", kind="direction",
              paper_says="'When lambda = 0.1, the PL model offers the best fairness' (Sec. 6.0.3, Fig. 6(b))",
              tests="panel (b): per seed, min over lambda not in {0, 0.1} of the mean over t of log10 fairness(lambda), minus "
                    "that of lambda = 0.1, > 0 (lambda = 0 excluded, as in 11.a: the paragraph reads the personalised lambda > 0)",
              refute=_paper_scale(_fig6_edit(lambda x, T, r: np.where(r["series"] == _lk(0.1), 1.0, 1e-3), lambda l: True, "fairness")),
              support=_paper_scale(_fig6_edit(lambda x, T, r: np.where(r["series"] == _lk(0.1), 1e-3, 1.0), lambda l: True, "fairness")))
@_at_scale('fairness')
def fairness_best_at_01(tables, params):
    t, panels = _fig6(tables, params)
    if panels[0][0] != 0:
        raise MissingData("Fig. 6(b) (the first panel) was not regenerated")
    if 0.1 not in [float(l) for l in params["fig6_lambdas"]]:
        raise MissingData("lambda = 0.1 not in fig6_lambdas")
    others = pd.DataFrame({l: _mean_log_fair(t, "b", l) for l in params["fig6_lambdas"] if float(l) not in (0.0, 0.1)})
    return direction(others.min(axis=1) - _mean_log_fair(t, "b", 0.1), expect="positive")


@CLAIMS.claim("12", figures="fig6", kind="direction",
              paper_says="'the testing accuracy first increases and then decreases with the increase of t under lambda < 2' "
                         "(Sec. 6.0.3, Figs. 6(a), 6(c), 6(e))",
              tests=f"every panel, lambda in (0, 2) (lambda = 0 excluded: the same paragraph says the local models are "
                    f"unaffected by DP noise): per seed, moving-average peak minus the larger of its ends > 0 and > {RISE_FALL_MIN} "
                    f"(package reading: the paper prints no margin; a verdict only where both margins give it); "
                    "a curve monotone in every seed (statistic 0 by construction) is judged by the sign of its least-squares slope over the third of the horizon where it peaks; "
                    f"a curve still rising at a grid end short of t = {PAPER_HORIZON} is censored",
              refute=_paper_scale(_fig6_edit(_FALL, lambda l: 0 < l < 2)), support=_paper_scale(_fig6_edit(_HUMP, lambda l: 0 < l < 2)))
@_at_scale('accuracy')
def accuracy_rise_fall_all_panels(tables, params):
    t, panels = _fig6(tables, params)
    return _rise_fall_judged(t, panels, [l for l in params["fig6_lambdas"] if 0 < l < 2])


def _phase_parts(tables, params, phase):
    t, panels = _fig6(tables, params)
    parts = {}
    for i, panel in panels:
        if not panel.startswith("cnn"):
            continue
        if phase == "late" and params["fig6_T"][panel] < LARGE_T_MIN:
            parts[panel] = not_evaluated(f"{panel}: t runs to {params['fig6_T'][panel]}, below {LARGE_T_MIN:g} (a third of the "
                                         f"paper's {PAPER_HORIZON}): 'large t' is early training here", category="not_run")
            continue
        acc = {l: _wide(t, panel="abcdef"[2 * i], series=_lk(l), metric="accuracy") for l in params["fig6_lambdas"]}
        fair = {l: _wide(t, panel="abcdef"[2 * i + 1], series=_lk(l), metric="fairness") for l in params["fig6_lambdas"]}
        n = next(iter(acc.values())).shape[1]
        q = max(1, int(math.ceil(n / 4)))
        sl = slice(n - q, n) if phase == "late" else slice(0, q)
        a = pd.DataFrame({l: w.iloc[:, sl].mean(axis=1) for l, w in acc.items()})
        f = pd.DataFrame({l: pd.DataFrame(_log10(w.iloc[:, sl]), index=w.index).fillna(9.0).mean(axis=1) for l, w in fair.items()})
        best = [0.0] if phase == "late" else [l for l in params["fig6_lambdas"] if l in (1.0, 2.0)]
        rest = [l for l in params["fig6_lambdas"] if l not in best]
        parts[f"{panel}/accuracy"] = direction(a[best].max(axis=1) - a[rest].max(axis=1), expect="positive")
        parts[f"{panel}/fairness"] = direction(f[rest].min(axis=1) - f[best].min(axis=1), expect="positive")
    if not parts:
        raise MissingData(f"{NOT_RUN}: Fig. 6 has no CNN panel (the claim is about the CNN model)")
    return combine(parts)


def _row_T(r, p):
    """The Fig. 6 horizon of each row's panel (from its panel letter)."""
    T_of = {"abcdef"[2 * i + k]: p["fig6_T"][panel] for i, panel in enumerate(p["fig6_panels"]) for k in (0, 1)}
    return r["panel"].map(T_of).to_numpy(dtype=float)


def _phase_cf(phase, favour):
    def cf(t, p):
        late = lambda x, r: x > _row_T(r, p) / 2  # noqa: E731
        win = (lambda r: r["series"] == _lk(0)) if favour == "zero" else (lambda r: r["series"].isin([_lk(1), _lk(2)]))
        def good(r):
            lt = late(pd.to_numeric(r["x"]).to_numpy(dtype=float), r)
            return win(r).to_numpy() == (lt if phase == "late" else ~lt)

        out = edit(t, "fig6", lambda r: np.where(good(r), 1.0, 0.0), rows=True, metric="accuracy")
        out = edit(out, "fig6", lambda r: np.where(good(r), 1e-6, 1.0), rows=True, metric="fairness")
        return out, p
    return cf


@CLAIMS.claim("13.a", figures="fig6", kind="direction",
              paper_says="'when t is large, the PL models perform the best at lambda=0' (Sec. 6.0.3, Figs. 6(c)-6(f), CNN)",
              tests="CNN panels, last quarter of the rounds: per seed, acc(lambda=0) - max_{lambda != 0} acc > 0 and "
                    "min_{lambda != 0} log10 fairness - log10 fairness(lambda=0) > 0; not evaluated on a panel whose t stops "
                    f"below {LARGE_T_MIN:g}",
              refute=_paper_scale(_long_grid(_phase_cf("early", "zero"), "fig6_T")), support=_paper_scale(_long_grid(_phase_cf("late", "zero"), "fig6_T")))
@_at_scale('accuracy and variance of the PL training losses (100 memorised samples per client)')
def cnn_lambda0_best_late(tables, params):
    return _phase_parts(tables, params, "late")


@CLAIMS.claim("13.b", figures="fig6", kind="direction",
              paper_says="'when t is small, the PL models operate the best in accuracy and fairness at lambda = 1 and 2' "
                         "(Sec. 6.0.3, Figs. 6(c)-6(f), CNN)",
              tests="CNN panels, first quarter of the rounds: per seed, max(acc(1), acc(2)) - max of the other lambda > 0 and "
                    "the same for log10 fairness (lower is better)",
              refute=_paper_scale(_phase_cf("late", "large")), support=_paper_scale(_phase_cf("early", "large")))
@_at_scale('accuracy and variance of the PL training losses (100 memorised samples per client)')
def cnn_large_lambda_best_early(tables, params):
    return _phase_parts(tables, params, "early")


# ------------------------------------------------------------------------------------------------ claims 14-16 (Fig. 7)


def _fig7_fair(tables):
    t = need(tables, "fig7", panel="a", metric="fairness")
    return t.assign(T=t["series"].str[2:].astype(float), lam=pd.to_numeric(t["x"]))


def _fig7_corr(tables, lam_pick, expect):
    t = _fig7_fair(tables)
    lam = lam_pick(sorted(t["lam"].unique()))
    d = t[np.isclose(t["lam"], lam)]
    w = d.pivot_table(index="seed", columns="T", values="value", aggfunc="mean")
    return _ordered(_nan_worst(w, np.inf), expect, details={"lambda": lam})


def _fig7_trend_cf(which, sign):
    def cf(t, p):
        lams = sorted(p["fig7_lambdas"])
        lam = lams[0] if which == "min" else lams[-1]
        return edit(t, "fig7", lambda r: 10.0 ** (sign * r["series"].str[2:].astype(float) / 10), rows=True, panel="a",
                    metric="fairness", x=lam), p
    return cf


def _lambda_star_T_cf(sign):
    def cf(t, p):
        lams = sorted(p["fig7_lambdas"])
        Ts = sorted(p["fig7_T"])
        rank = {T: i for i, T in enumerate(Ts)}

        def fn(r):
            T = r["series"].str[2:].astype(float)
            target = [lams[min(len(lams) - 1, rank[int(x)])] if sign > 0 else lams[max(0, len(lams) - 1 - rank[int(x)])] for x in T]
            return np.where(np.isclose(pd.to_numeric(r["x"]), target), 1e-9, 1.0)
        return edit(t, "fig7", fn, rows=True, panel="a", metric="fairness"), p
    return cf


@CLAIMS.claim("14.a", figures="fig7", kind="direction",
              paper_says="'Fig. 7(a) shows that the optimal lambda* decreases as T increases' (Sec. 6.0.3)",
              tests="per seed, the fairness-optimal lambda at each T, falling from each T to the next; a lambda* at a "
                    "grid edge is censored (ordered against interior values, no vote against the same edge; all at "
                    "one edge: not evaluated); one sign test over every (seed, adjacent level) step, ties dropped (judging rule 8): Clopper-Pearson interval of the share on the paper's side above 1/2: reproduced, below: not reproduced",
              refute=_paper_scale(_lambda_star_T_cf(+1)), support=_paper_scale(_lambda_star_T_cf(-1)))
@_at_scale('lambda')
def lambda_star_falls_with_T(tables, params):
    t = _fig7_fair(tables)
    w = t.pivot_table(index=["seed", "T"], columns="lam", values="value", aggfunc="mean")
    star = _nan_worst(w, np.inf).idxmin(axis=1).astype(float).unstack("T")
    det = {"lambda_star": {int(s): r.to_dict() for s, r in star.iterrows()}}
    # an argmin at a grid edge inside the paper's domain lambda in [0, 2] is censored, a one-sided interval: lambda* <=
    # the smallest grid lambda (-inf) or >= the largest (+inf); at the domain's end (lambda = 2) it is exact. A censored
    # value is ordered against an interior one and casts no vote against one censored at the same edge
    lo, hi = float(w.columns.min()), float(w.columns.max())
    edges = [(lo, "smallest", -np.inf)] + ([(hi, "largest", np.inf)] if hi < LAMBDA_MAX else [])
    for edge, side, _ in edges:
        if np.isclose(star, edge).all():  # an argmin at the grid's edge everywhere: its order in T is not located
            return not_evaluated(f"lambda* = {edge:g}, the Fig. 7 grid's {side} lambda, at every T in every seed: the "
                                 "optimum is past the grid (censored), its order in T is not located", category="unreachable", **det)
    logs = np.log10(star)
    for edge, _, inf in edges:
        logs = logs.mask(np.isclose(star, edge), inf)
    return _ordered(logs, "negative", ties_ok=True, details=det)


@CLAIMS.claim("14.b", figures="fig7", kind="direction",
              paper_says="'When lambda is small (i.e., lambda -> 0+), the fairness of the PL models improves with T' (Sec. 6.0.3)",
              tests="smallest lambda of the grid: per seed, the fairness (variance), falling from each T to the next; one sign test over every (seed, adjacent level) step, ties dropped (judging rule 8): Clopper-Pearson interval of the share on the paper's side above 1/2: reproduced, below: not reproduced",
              refute=_paper_scale(_fig7_trend_cf("min", +1)), support=_paper_scale(_fig7_trend_cf("min", -1)))
@_at_scale('fairness')
def fairness_improves_with_T_small_lambda(tables, params):
    return _fig7_corr(tables, lambda ls: ls[0], "negative")


@CLAIMS.claim("14.c", figures="fig7", kind="direction",
              paper_says="'When lambda is large (i.e., lambda -> 2), the fairness degrades as T increases' (Sec. 6.0.3)",
              tests="largest lambda of the grid: per seed, the fairness (variance), growing from each T to the next; one sign test over every (seed, adjacent level) step, ties dropped (judging rule 8): Clopper-Pearson interval of the share on the paper's side above 1/2: reproduced, below: not reproduced",
              refute=_paper_scale(_fig7_trend_cf("max", -1)), support=_paper_scale(_fig7_trend_cf("max", +1)))
@_at_scale('fairness')
def fairness_degrades_with_T_large_lambda(tables, params):
    return _fig7_corr(tables, lambda ls: ls[-1], "positive")


def _fig7_loss(tables):
    t = need(tables, "fig7", panel="b", metric="loss")
    t = t[t["series"].str.startswith("lambda=")]
    return t.assign(lam=t["series"].str[7:].astype(float), T=pd.to_numeric(t["x"]))


@CLAIMS.claim("15.a", figures="fig7", kind="direction",
              paper_says="'Given T, the training loss decreases as lambda decreases' (Sec. 6.0.3, Fig. 7(b))",
              tests="per seed and T, the PL training loss, growing from each lambda to the next; one sign test over "
                    "every (seed, T, adjacent lambda) step, ties dropped (judging rule 8): Clopper-Pearson interval of "
                    "the share on the paper's side above 1/2: reproduced, below: not reproduced",
              refute=_paper_scale(lambda t, p: (edit(t, "fig7", lambda r: 10.0 ** (-r["series"].str[7:].astype(float)), rows=True, panel="b",
                                        metric="loss", series=lambda s: s.str.startswith("lambda=")), p)),
              support=_paper_scale(lambda t, p: (edit(t, "fig7", lambda r: 10.0 ** (r["series"].str[7:].astype(float)), rows=True, panel="b",
                                         metric="loss", series=lambda s: s.str.startswith("lambda=")), p)))
@_at_scale('loss')
def loss_falls_with_lambda(tables, params):
    t = _fig7_loss(tables)
    w = _nan_worst(t.pivot_table(index=["seed", "T"], columns="lam", values="value", aggfunc="mean"), np.inf)
    return _ordered(w, "positive")


def _t_star_cf(grows_with_lambda: bool):
    """Counterfactual: PL loss whose argmin T* climbs the T grid as lambda grows (a staircase from the first grid T to
    the last, which is censored but still ordered against the interior ones), or descends it."""
    def cf(t, p):
        Ts, lams = sorted(p["fig7_T"]), sorted(p["fig7_lambdas"])
        rank = [round(i * (len(Ts) - 1) / max(1, len(lams) - 1)) for i in range(len(lams))]
        target = {l: Ts[k if grows_with_lambda else len(Ts) - 1 - k] for l, k in zip(lams, rank)}

        def fn(r):
            lam = r["series"].str[7:].astype(float)
            tt = lam.map(lambda l: next(v for k, v in target.items() if np.isclose(k, l))).to_numpy(float)
            return (pd.to_numeric(r["x"]).to_numpy(float) - tt) ** 2 + 1
        return edit(t, "fig7", fn, rows=True, panel="b", metric="loss", series=lambda s: s.str.startswith("lambda=")), p
    return cf


@CLAIMS.claim("15.b", figures="fig7", kind="direction",
              paper_says="'Moreover, the optimal T* increases as lambda decreases' (Sec. 6.0.3, Fig. 7(b))",
              tests="per seed, argmin_T of the PL training loss, falling from each lambda to the next; a T* at the grid's "
                    "last T is censored (ordered against interior T*, no vote against another censored one; all censored: "
                    "not evaluated); one sign test over every (seed, adjacent level) step, ties dropped (judging rule 8): Clopper-Pearson interval of the share on the paper's side above 1/2: reproduced, below: not reproduced",
              refute=_paper_scale(_t_star_cf(grows_with_lambda=True)), support=_paper_scale(_t_star_cf(grows_with_lambda=False)))
@_at_scale('loss')
def t_star_grows_as_lambda_falls(tables, params):
    t = _fig7_loss(tables)
    w = _nan_worst(t.pivot_table(index=["seed", "lam"], columns="T", values="value", aggfunc="mean"), np.inf)
    tstar = w.idxmin(axis=1).astype(float).unstack("lam")
    det = {"T_star": {int(s): r.to_dict() for s, r in tstar.iterrows()}}
    edge = float(w.columns.max())
    if (tstar == edge).all().all():
        return not_evaluated(f"T* = {edge:g}, the Fig. 7 grid's last T, for every lambda and seed: the optimum is past the "
                             f"grid (censored; the paper's T* = {PAPER_T_STAR:g})", category="unreachable", **det)
    # a T* at the grid's last T is censored (T* >= edge: +inf): its order against an interior T* is known, against
    # another censored one it is not (no vote)
    return _ordered(tstar.mask(tstar == edge, np.inf), "negative", ties_ok=True, details=det)


def _joint(tables, metric):
    t = need(tables, "fig7", series="joint optimum (D16)", metric=metric)
    return t[t["seed"] >= 0].set_index("seed")["value"]


def _set_joint(T=None, lam=None):
    def cf(t, p):
        out = dict(t)
        if T is not None:
            out = edit(out, "fig7", lambda v: v * 0 + T, series="joint optimum (D16)", metric="T_star")
        if lam is not None:
            out = edit(out, "fig7", lambda v: v * 0 + lam, series="joint optimum (D16)", metric="lambda_star")
        # a T grid through the paper's T* and past it, so that a T* of 80 is located (not censored at the grid's end)
        return out, dict(p, fig7_T=sorted(set(p["fig7_T"]) | {int(PAPER_T_STAR), int(2 * PAPER_T_STAR)}))
    return cf


@CLAIMS.claim("16.T", figures="fig7", kind="number",
              paper_says="'the optimal configuration (T*=80, lambda*=0.1) is obtained' (Sec. 6.0.3, Fig. 7; DNN/MNIST, eps=100, C=10)",
              tests=f"per seed, T* of the alternating 1-D searches (README D16); band (package reading): 80 +-{T_STAR_RTOL:.0%}; not evaluated "
                    "when the T grid stops below the band",
              refute=_paper_scale(_set_joint(T=10.0)), support=_paper_scale(_set_joint(T=PAPER_T_STAR)))
@_at_scale('joint optimum (T*, lambda*) from PL training loss and fairness with 100 memorised samples per client')
def joint_t_star(tables, params):
    if max(params["fig7_T"]) < PAPER_T_STAR * (1 - T_STAR_RTOL):
        return not_evaluated(f"the Fig. 7 T grid {params['fig7_T']} stops below the paper's T* band", category="not_run")
    t_star, edge = _joint(tables, "T_star"), float(max(params["fig7_T"]))
    ev = number(t_star, PAPER_T_STAR, rtol=T_STAR_RTOL)
    if np.isclose(t_star, edge).all():  # censored: the true T* is at or past the grid's last T
        if edge <= PAPER_T_STAR * (1 + T_STAR_RTOL):
            return not_evaluated(f"T* = {edge:g}, the Fig. 7 grid's last T, in every seed (censored) and inside the band: "
                                 "the optimum is not located", category="unreachable", replicates=t_star.tolist())
        ev.reason = (f"T* >= {edge:g} in every seed (censored at the Fig. 7 grid's last T; the interval is the grid point, "
                     f"not a measured spread): past the paper's {PAPER_T_STAR:g} by {edge / PAPER_T_STAR - 1:.0%} or more, "
                     f"outside any band narrower than that")
    return ev


@CLAIMS.claim("16.lambda", figures="fig7", kind="number",
              paper_says="'the optimal configuration (T*=80, lambda*=0.1) is obtained' (Sec. 6.0.3, Fig. 7)",
              tests=f"per seed, lambda* of the alternating 1-D searches (README D16); band (package reading): 0.1 within {LAMBDA_STAR_DECADES} decades",
              refute=_paper_scale(_set_joint(lam=1.0)), support=_paper_scale(_set_joint(lam=PAPER_LAMBDA_STAR)))
@_at_scale('joint optimum (T*, lambda*) from PL training loss and fairness with 100 memorised samples per client')
def joint_lambda_star(tables, params):
    lam_star = _joint(tables, "lambda_star")
    ev = number(lam_star, PAPER_LAMBDA_STAR, log10=LAMBDA_STAR_DECADES)
    t = _fig7_fair(tables)
    lo = float(t["lam"].min())
    if ev.verdict != "not_reproduced" or not np.isclose(lam_star, lo).all():
        return ev
    # lambda* at the grid's smallest lambda (censored): the band verdict rests on the unstated lambda grid (rule 4).
    # Grid-free: at the paper's T* = 80, is 0.1 beaten by every smaller lambda of the grid in every seed? Then 0.1
    # is the fairness optimum on no grid with a point below it.
    at = t[np.isclose(t["T"], PAPER_T_STAR)].pivot_table(index="seed", columns="lam", values="value", aggfunc="mean")
    ref = [c for c in at.columns if np.isclose(c, PAPER_LAMBDA_STAR)]
    below = [c for c in at.columns if c < PAPER_LAMBDA_STAR * (1 - 1e-9)]
    if not ref or not below:
        return not_evaluated(f"lambda* = {lo:g}, the grid's smallest lambda, in every seed (censored), and T = "
                             f"{PAPER_T_STAR:g} or lambda = {PAPER_LAMBDA_STAR:g} not on the grid: depends on the unstated "
                             "lambda grid", category="constant", replicates=lam_star.tolist())
    ratio = at[below].div(at[ref[0]], axis=0)
    beaten = int((ratio < 1).to_numpy().sum())
    pairs = int(ratio.notna().to_numpy().sum())
    ev.details = {**ev.details, "fairness_over_lambda_0.1_at_T80": {int(s): {f"{c:g}": round(float(v), 4) for c, v in r.items()}
                                                                       for s, r in ratio.iterrows()}}
    if beaten == pairs:
        ev.reason = (f"lambda* = {lo:g}, the grid's smallest lambda, in every seed (censored); grid-free: at the paper's "
                     f"T* = {PAPER_T_STAR:g} every lambda below {PAPER_LAMBDA_STAR:g} is fairer than {PAPER_LAMBDA_STAR:g} in "
                     f"every seed ({beaten} of {pairs} (seed, lambda) pairs; fairness ratio to lambda = 0.1: "
                     f"{float(ratio.min().min()):.3g} ... {float(ratio.max().max()):.3g}), so {PAPER_LAMBDA_STAR:g} is the "
                     "optimum on no grid with a point below it")
        return ev
    return not_evaluated(f"lambda* = {lo:g}, the grid's smallest lambda, in every seed (censored), but at T = {PAPER_T_STAR:g} "
                         f"only {beaten} of {pairs} (seed, lambda < {PAPER_LAMBDA_STAR:g}) pairs are fairer than "
                         f"{PAPER_LAMBDA_STAR:g}: depends on the unstated lambda grid", category="constant",
                         **{**ev.details, "replicates": lam_star.tolist()})


# ------------------------------------------------------------------------------------------------ claim 18 (experiment)


def _local_pairs(tables, params):
    """(fig6 loss/acc letters, fig5 letter, panel) for panels in both figures."""
    f5 = {panel: LETTERS5[i] for i, panel in enumerate(params["fig5_panels"])}
    return [("abcdef"[2 * i], "abcdef"[2 * i + 1], f5[panel], panel) for i, panel in enumerate(params["fig6_panels"]) if panel in f5]


@CLAIMS.claim("18.b", category="by_construction", figures=("fig5", "fig6"), kind="exact",
              paper_says="'the FL local training only depends on the local datasets and is unaffected by the DP noises' "
                         "(Sec. 6.0.3); eq. (11): lambda = 0 removes the DP term",
              tests="lambda = 0 personalised models: accuracy and PL loss after every common round t at eps = fig6_epsilon "
                    "(Fig. 6) and eps = inf (Fig. 5), same seeds, every shared panel; max |difference| <= 1e-6",
              refute=lambda t, p: (edit(t, "fig6", lambda v: v + 0.01, series=_lk(0), metric="loss"), p),
              support=unchanged)
def local_models_unaffected_by_noise(tables, params):
    f5, f6 = need(tables, "fig5"), need(tables, "fig6")
    diffs = []
    for a6, b6, l5, panel in _local_pairs(tables, params):
        for metric, letter6 in (("accuracy", a6), ("loss", b6)):
            x = _rows(f6, panel=letter6, series=_lk(0), metric=metric)
            y = _rows(f5, panel=l5, series="lambda=0 (eps=inf)", metric=metric)
            if x.empty or y.empty:
                continue
            m = x.merge(y, on=["x", "seed"], suffixes=("_6", "_5"))
            diffs += list(np.abs(m["value_6"].to_numpy(float) - m["value_5"].to_numpy(float)))
    if not diffs:
        raise MissingData("no lambda = 0 rows shared by Figs. 5 and 6")
    ev = exact(float(np.nanmax(diffs)) if np.isfinite(diffs).all() else float("nan"), 0.0, atol=1e-6,
               details={"compared": len(diffs)})
    return ev.but(reason="holds by construction at every scale (the lambda = 0 models never read the noisy global model, "
                         "eq. (11)): a check of the implementation, not an empirical reproduction")


# ------------------------------------------------------------------------------------------------ privacy


#: claim 27 reads the tight (eps, delta) of eq. (7)'s reading (the RDP value is an upper bound; privacy.py)
_CERT_VIEW = "eq7_tight"


@CLAIMS.claim("27", figures=PRIVACY_ID, kind="exact",
              paper_says="'To guarantee (eps, delta)-DP with respect to the data used in the training of the local model, the "
                         "standard deviation of z_n^t ... should satisfy' eq. (8) (Sec. 3.3)",
              tests="every private configuration run: the tight eps of its T Gaussian uploads per client (exact Gaussian "
                    "composition, the PLD value), "
                    "granting eq. (7)'s sensitivity 2C/|D_n| (the paper profile's |D_n|), is <= the nominal eps",
              refute=lambda t, p: (edit(t, PRIVACY_ID, lambda v: v * 100, panel=_CERT_VIEW, metric="certified_epsilon"), p),
              support=lambda t, p: (edit(t, PRIVACY_ID, lambda r: r["x"].astype(float) * 0.5, rows=True, panel=_CERT_VIEW,
                                         metric="certified_epsilon"), p))
def eq8_guarantees_nominal_eps(tables, params):
    t = need(tables, PRIVACY_ID, panel=_CERT_VIEW, metric="certified_epsilon")
    ratio = t["value"].astype(float) / t["x"].astype(float)
    worst = t.assign(r=ratio).sort_values("r").iloc[-1]
    return exact_holds(bool((ratio <= 1 + 1e-9).all()), regenerated=float(worst["value"]), expected=f"<= {float(worst['x']):g}",
                       reason="paper scale by construction: the certificate uses the paper profile's |D_n| and eq. (8)'s "
                              "sigma, and the tight eps of T Gaussian releases with z growing as sqrt(T) is the same for "
                              "every T and C, so a reduced profile's T grid gives the paper's value",
                       details={"certified_over_nominal": {f"{s}|eps={x:g}": round(float(r), 4)
                                                           for s, x, r in zip(t["series"], t["x"].astype(float), ratio)}})


# ------------------------------------------------------------------------------------------------ Fig. 2 / Theorem 1


def _fig2_value(t, panel: str, metric: str) -> pd.Series:
    d = _rows(t, panel=panel, metric=metric)
    return d[d["seed"] >= 0].groupby("seed")["value"].mean()


def _fig2_searched(cf_T: float, h_ratio: float):
    """Counterfactual for claim 19.a: on every measured panel Assumption 1 holds, T' = 10 cf_T and the 1-D search
    finds T* = cf_T with h(T*) = h(0) x ``h_ratio``."""
    def cf(t, p):
        measured = lambda s: s.isin(p["fig2"]["measured_panels"])  # noqa: E731
        t = edit(t, "fig2", lambda v: v * 0, metric="violations", panel=measured)
        t = edit(t, "fig2", lambda v: v * 0 + 10 * cf_T, metric="T_prime", panel=measured)
        t = edit(t, "fig2", lambda v: v * 0 + cf_T, metric="T_star", panel=measured)
        h0 = {(r.panel, r.seed): r.value for r in _rows(t["fig2"], metric="h0").itertuples()}
        t = edit(t, "fig2", lambda r: r.apply(lambda q: h0[(q["panel"], q["seed"])] * h_ratio, axis=1), rows=True,
                 metric="h_star", panel=measured)
        return t, p
    return cf


@CLAIMS.claim("19.a", figures="fig2", kind="direction",
              paper_says="Sec. 4.2 / Fig. 2: h(T, lambda) has an optimal T* in (0, T') found by a 1-D search: the bound first "
                         "decreases, then the accumulated DP noise makes it grow (the convergence-privacy trade-off)",
              tests="constants measured on the caption's setting (MLR/MNIST; DNN/MNIST beside it), per seed: T* and T' of the "
                    "1-D search (not the plot's T range), effect log10 h(0) - log10 h(T*) > 0 with 1 <= T* < T' (else "
                    "the effect counts at most 0); a panel whose measured constants violate Assumption 1 in every seed is "
                    "not evaluated (Theorem 1 does not apply)",
              refute=_paper_scale(_fig2_searched(1.0, 2.0)), support=_paper_scale(_fig2_searched(100.0, 0.5)))
@_at_scale("bound")
def bound_has_interior_minimum(tables, params):
    t = need(tables, "fig2")
    parts = {}
    for panel in params["fig2"]["measured_panels"]:
        h0, hs, ts = (_fig2_value(t, panel, m) for m in ("h0", "h_star", "T_star"))
        if hs.empty or h0.empty:
            parts[panel] = not_evaluated(f"{panel} not regenerated", category="not_run")
            continue
        viol = _fig2_value(t, panel, "violations").reindex(h0.index).fillna(0)
        mu = _fig2_value(t, panel, "mu")
        lam = float(params["fig2"]["caption"]["lam"])
        det = {"T_star": ts.to_dict(), "h0": h0.round(6).to_dict(), "h_star": hs.round(6).to_dict(), "mu": mu.round(4).to_dict(),
               "mu_required_above": round((2 - 2 * lam) / (2 - lam), 4)}
        if (viol > 0).all():
            parts[panel] = not_evaluated(
                f"{panel}: Assumption 1 violated in every seed (measured mu {mu.min():.3g}-{mu.max():.3g} <= (2 - 2 lambda)/"
                f"(2 - lambda) = {(2 - 2 * lam) / (2 - lam):.3g}): Theorem 1's bound does not apply to these constants",
                category="unreachable", **det)
            continue
        ok = viol[viol == 0].index
        tp = _fig2_value(t, panel, "T_prime").reindex(ok).fillna(np.inf)
        eff = np.log10(h0[ok]) - np.log10(hs[ok])
        interior = (ts[ok] >= 1) & (ts[ok] < tp)
        det["T_prime"] = tp.round(2).to_dict()
        det["effect_per_seed"] = eff.round(6).to_dict()
        parts[panel] = direction(eff.where(interior, np.minimum(eff, 0.0)), expect="positive", details=det)
    return combine(parts)


def _illus(params):
    f = params["fig2"]
    return th.ConvergenceConstants(**{**f["illustrative"], "lam": f["caption"]["lam"], "epsilon": f["caption"]["epsilon"],
                                      "delta": f["caption"]["delta"]})


@CLAIMS.claim("19.b", figures="fig2", kind="exact",
              paper_says="eq. (17): h_Low(T) = H_0 + H_5 T lower-bounds h(T, lambda) (Sec. 4.2, Fig. 2)",
              tests="every Fig. 2 curve on which eq. (17) is defined (eps_L, eps_G < 1): h(T) >= h_Low(T) at every plotted T",
              refute=lambda t, p: (edit(t, "fig2", lambda v: v * 0.5, metric="h", series="h(T, lambda) eq. (14)"), p),
              support=unchanged)
def lower_bound_holds(tables, params):
    t = need(tables, "fig2")
    h = _rows(t, metric="h", series="h(T, lambda) eq. (14)")
    hl = _rows(t, metric="h_low")
    if hl.empty:
        raise MissingData("no Fig. 2 curve has eq. (17) defined")
    m = h.merge(hl, on=["panel", "seed", "x"], suffixes=("", "_low"))
    gap = (m["value"] - m["value_low"]).to_numpy(float)
    return exact_holds(bool((gap >= -1e-12 * np.abs(m["value"].to_numpy(float))).all()), regenerated=float(gap.min()),
                       expected=">= 0", details={"points": len(gap)})


@CLAIMS.claim("19.c", figures="fig2", kind="exact",
              paper_says="eq. (16a) with the coefficients (16b) is eq. (14) rewritten (Theorem 1)",
              tests="max relative difference of (16a) and (14) on every Fig. 2 curve where (16) is defined (<= 1e-9)",
              refute=lambda t, p: (edit(t, "fig2", lambda v: v * 1.01, metric="h", series="h(T, lambda) eq. (16a)"), p),
              support=unchanged)
def eq16_equals_eq14(tables, params):
    t = need(tables, "fig2")
    a = _rows(t, metric="h", series="h(T, lambda) eq. (14)")
    b = _rows(t, metric="h", series="h(T, lambda) eq. (16a)")
    if b.empty:
        raise MissingData("no Fig. 2 curve with eq. (16) defined")
    m = a.merge(b, on=["panel", "seed", "x"], suffixes=("", "_16"))
    rel = float(np.max(np.abs(m["value_16"].to_numpy(float) / m["value"].to_numpy(float) - 1)))
    return exact(rel, 0.0, atol=EXACT_RTOL)


@CLAIMS.claim("19.d", figures="fig2", kind="exact",
              paper_says="h(0, lambda) = H1 + H3 + H6 = Psi_2 (eqs. (14), (16b))",
              tests="h at T = 0 equals Psi_2 on every Fig. 2 curve (relative 1e-12)",
              refute=lambda t, p: (edit(t, "fig2", lambda v: v * 2, metric="h0"), p), support=unchanged)
def h_at_zero_is_psi2(tables, params):
    t = need(tables, "fig2")
    h0 = _rows(t, metric="h0")
    psi2 = _rows(t, metric="psi2")
    m = h0.merge(psi2, on=["panel", "seed"], suffixes=("", "_psi2"))
    rel = float(np.max(np.abs(m["value"].to_numpy(float) / m["value_psi2"].to_numpy(float) - 1)))
    return exact(rel, 0.0, atol=1e-12)


@CLAIMS.claim("19.e", figures="fig2", kind="exact",
              paper_says="eq. (15) is the case eps_L = eps_G of eq. (14) (Theorem 1)",
              tests="illustrative constants with eta_G solved for eps_G = eps_L: (15) against (14) at eta_G (1 + 1e-7), "
                    "T in {1, 5, 20, 114}: relative difference <= 1e-4",
              refute=lambda t, p: (t, {**p, "fig2": {**p["fig2"], "illustrative": {**p["fig2"]["illustrative"], "_perturb": 1e-2}}}),
              support=unchanged)
def eq15_is_limit_of_eq14(tables, params):
    c = th.ConvergenceConstants(**{k: v for k, v in {**params["fig2"]["illustrative"], "lam": params["fig2"]["caption"]["lam"],
                                                      "epsilon": params["fig2"]["caption"]["epsilon"],
                                                      "delta": params["fig2"]["caption"]["delta"]}.items() if k != "_perturb"})
    pert = float(params["fig2"]["illustrative"].get("_perturb", 1e-7))
    el = th.eps_l(c)
    a_, b_, cc = c.mu * c.smooth, -2 * c.mu, 1 - el
    eta = (-b_ - math.sqrt(b_ * b_ - 4 * a_ * cc)) / (2 * a_)
    Tq = np.array([1, 5, 20, 114])
    rel = float(np.max(np.abs(th.h_bound(Tq, c.with_(eta_g=eta)) / th.h_bound(Tq, c.with_(eta_g=eta * (1 + pert))) - 1)))
    return exact(rel, 0.0, atol=1e-4)


# ------------------------------------------------------------------------------------------------ analytic claims


def _perturb(p, key, value):
    return {**p, "_analytic": {**p.get("_analytic", {}), key: value}}


@CLAIMS.claim("17", figures="fig2", kind="exact",
              paper_says="Lemma 1: eps_L = 1 - eta_L((1 - lambda/2) mu + lambda) + eta_L increases with lambda iff mu > 2 "
                         "(text after Lemma 1)",
              tests="sign of d eps_L / d lambda = eta_L (mu/2 - 1) at mu in {30, 2, 1.5} is {+, 0, -}; eps_L constant in "
                    "lambda at mu = 2",
              refute=lambda t, p: (t, _perturb(p, "mu_shift", 3.0)), support=unchanged)
def eps_l_slope_sign(tables, params):
    c = _illus(params)
    shift = params.get("_analytic", {}).get("mu_shift", 0.0)
    ok = all(np.sign(th.d_eps_l_d_lambda(c.with_(mu=mu + shift))) == s for mu, s in ((30, 1), (2, 0), (1.5, -1)))
    ok &= th.eps_l(c.with_(mu=2 + shift, lam=0.3)) == th.eps_l(c.with_(mu=2 + shift, lam=1.3))
    return exact_holds(ok)


@CLAIMS.claim("18.a", figures="fig2", kind="exact",
              paper_says="eq. (11): at lambda = 0 the personalised models' bound has no DP term (beta = 0)",
              tests="beta(lambda=0) = 0 and h(T, 0) identical for eps = 1 and eps = inf on T = 0..299",
              refute=lambda t, p: (t, _perturb(p, "lam0", 0.01)), support=unchanged)
def lambda0_bound_independent_of_eps(tables, params):
    c0 = _illus(params).with_(lam=params.get("_analytic", {}).get("lam0", 0.0))
    Ts = np.arange(0, 300)
    return exact_holds(th.beta_const(c0) == 0 and np.array_equal(th.h_bound(Ts, c0.with_(epsilon=1.0)),
                                                                th.h_bound(Ts, c0.with_(epsilon=math.inf))))


@CLAIMS.claim("20", figures="fig2", kind="exact",
              paper_says="text after Theorem 1: the impact of the DP noise on the bound grows with lambda (mu >= 2)",
              tests="h(T, lambda; phi_L) - h(T, lambda; 0) strictly increasing in lambda on {0.05, ..., 1.9} for mu in {2, 30}, "
                    "T in {10, 50, 114, 300} (illustrative constants)",
              refute=lambda t, p: (t, _perturb(p, "reverse", True)), support=unchanged)
def dp_part_grows_with_lambda(tables, params):
    c = _illus(params)
    lams = [0.05, 0.1, 0.2, 0.5, 1.0, 1.5, 1.9]
    if params.get("_analytic", {}).get("reverse"):
        lams = lams[::-1]
    ok = True
    for mu in (2.0, 30.0):
        for T in (10, 50, 114, 300):
            parts = [float(th.dp_part_of_h(T, c.with_(mu=mu, lam=l))) for l in lams]
            ok &= all(b > a for a, b in zip(parts, parts[1:]))
    return exact_holds(ok)


def _fair(params):
    return th.FairnessSetup(**params.get("_analytic", {}).get("fairness", {}))


@CLAIMS.claim("21", figures="fig2", kind="exact",
              paper_says="text after Theorem 2: the fairness measure R(lambda) increases with the DP noise variance sigma_z^2",
              tests="dR/d sigma_z^2 >= 0 and R(lambda; 2) >= R(lambda; 1) on a 201-point lambda grid (eq. (31), printed form)",
              refute=lambda t, p: (t, _perturb(p, "sz_order", (2.0, 1.0))), support=unchanged)
def fairness_increases_with_noise(tables, params):
    F = _fair(params)
    grid = np.linspace(0, 2, 201)
    lo, hi = params.get("_analytic", {}).get("sz_order", (1.0, 2.0))
    return exact_holds(bool(np.all(th.d_fairness_d_sigma_z2(grid, F) >= 0)) and
                       bool(np.all(th.fairness_r(grid, F, hi) >= th.fairness_r(grid, F, lo))))


@CLAIMS.claim("22", figures="fig2", kind="exact",
              paper_says="Theorem 3: a unique lambda* minimising R exists if C < sqrt(d)/(2 N S_1); it is the root of the "
                         "cubic (32) in [0, 1] (the paper says 'maximizes': erratum)",
              tests="linear-model example (README D18; C below the bound): for eps in {0.1, 1, 10, 100}, exactly one root of "
                    "(32) in [0, 1], equal to the grid argmin of R to |d lambda| < 1e-5",
              refute=lambda t, p: (t, _perturb(p, "fairness", {"clip": 40.0, "g1": 4.0, "g2": 20.0})), support=unchanged)
def unique_lambda_star(tables, params):
    F = _fair(params)
    ok, vals = F.clip < th.uniqueness_bound(F), {}
    g = np.linspace(0, 2, 400001)
    for eps in (0.1, 1.0, 10.0, 100.0):
        sz2 = th.fairness_sigma_z2(F, eps)
        roots = th.alpha0_roots(F, sz2)
        if len(roots) != 1:
            ok = False
            vals[eps] = roots
            continue
        lam = float(th.lambda_of_alpha0(roots[0], F))
        gl = float(g[np.argmin(th.fairness_r(g, F, sz2))])
        vals[eps] = (lam, gl)
        ok &= abs(gl - lam) < 1e-5
    return exact_holds(ok, details={"lambda_star_vs_grid": {str(k): v for k, v in vals.items()}})


@CLAIMS.claim("23", figures="fig2", kind="exact",
              paper_says="Corollary 1: lambda* decreases as sigma_z^2 increases (as eps decreases)",
              tests="lambda*(eps) non-decreasing over eps in {0.1, 1, 10, 100, inf}, printed and corrected (sigma_B^4) R",
              refute=lambda t, p: (t, _perturb(p, "eps_order", [math.inf, 100, 10, 1, 0.1])), support=unchanged)
def lambda_star_falls_with_noise(tables, params):
    F = _fair(params)
    order = params.get("_analytic", {}).get("eps_order", [0.1, 1, 10, 100, math.inf])
    ok = True
    for corrected in (False, True):
        lams = [th.optimal_lambda(F, e, corrected)[1] for e in order]
        ok &= all(b >= a for a, b in zip(lams, lams[1:]))
    return exact_holds(ok)


@CLAIMS.claim("24", figures="fig2", kind="exact",
              paper_says="Lemma 3, eq. (29): the closed form of the personalised optimum when X_n^T X_n = rho I",
              tests="(29) against the general form (45a) with X_n = sqrt(rho) x orthonormal columns, lambda in {0, 0.3, 1, 1.9}: "
                    "max |difference| <= 1e-10",
              refute=lambda t, p: (t, _perturb(p, "rho_mismatch", 1.5)), support=unchanged)
def lemma3_closed_form(tables, params):
    rng = np.random.default_rng(0)
    N, d, b, rho = 5, 4, 12, 3.0
    X = [math.sqrt(rho) * np.linalg.qr(rng.normal(size=(b, d)))[0] for _ in range(N)]
    Y = [x @ rng.normal(size=d) + 0.1 * rng.normal(size=b) for x in X]
    z = rng.normal(size=(N, d))
    u_hat = np.stack([np.linalg.solve(x.T @ x, x.T @ y) for x, y in zip(X, Y)])
    rho_used = rho * params.get("_analytic", {}).get("rho_mismatch", 1.0)
    err = max(float(np.max(np.abs(th.personalised_closed_form(u_hat, z, l, rho_used, b) - th.personalised_general_form(X, Y, z, l))))
              for l in (0.0, 0.3, 1.0, 1.9))
    return exact(err, 0.0, atol=1e-10)


@CLAIMS.claim("25", figures="fig2", kind="exact",
              paper_says="Sec. 3.3: z^t = sum_n z_n^t has per-coordinate variance sigma_z^2 = N sigma_u^2; eq. (8)",
              tests="sigma_z^2 / (N sigma_u^2) = 1 and sigma_z = Delta s sqrt(2 T ln(1/delta)) / eps for eps in {1, 10, 20, 100}, "
                    "T = 30, C = 20, |D_n| = 2625 (relative 1e-12)",
              refute=lambda t, p: (t, _perturb(p, "n_mismatch", 2)), support=unchanged)
def noise_identity(tables, params):
    worst = 0.0
    n = 20 * params.get("_analytic", {}).get("n_mismatch", 1)
    for eps in (1.0, 10.0, 20.0, 100.0):
        su, sz = th.sigma_u(eps, 0.01, 30, 20, 20.0, 2625), th.sigma_z(eps, 0.01, 30, 20, 20.0, 2625)
        direct = th.sensitivity(20.0, 2625) * math.sqrt(2 * 30 * math.log(100)) / eps
        worst = max(worst, abs(sz**2 / (n * su**2) - 1), abs(sz / direct - 1))
    return exact(worst, 0.0, atol=1e-12)


@CLAIMS.claim("26", figures="fig2", kind="exact",
              paper_says="remarks after Theorems 1-2: the analysis holds for any zero-mean noise of equal variance (R and h depend "
                         "on the noise only through sigma_z^2)",
              tests="equal sigma_z^2 from two (eps, T) pairs (eps 10, T 30 and eps 20, T 120) give equal R on a lambda grid, and "
                    "phi_L of Theorem 1 has no T",
              refute=lambda t, p: (t, _perturb(p, "rounds_factor", 5)), support=unchanged)
def noise_enters_through_variance(tables, params):
    F = _fair(params)
    k = params.get("_analytic", {}).get("rounds_factor", 4)
    grid = np.linspace(0, 2, 201)
    sz_a = th.fairness_sigma_z2(F, 10.0)
    sz_b = th.fairness_sigma_z2(F.with_(rounds=F.rounds * k), 20.0)
    same = np.allclose(th.fairness_r(grid, F, sz_a), th.fairness_r(grid, F.with_(rounds=F.rounds * k), sz_b), rtol=1e-12)
    return exact_holds(bool(same) and abs(sz_a / sz_b - 1) < 1e-12)


# ---- Algorithm 1's step, for every training claim (the block "the reading of Algorithm 1's lines 5 and 10" above)
for _spec in list(CLAIMS):
    _figs = tuple(f for f in _spec.figures if f in TRAINING_FIGS)
    if _figs and _spec.id not in STEP_EXEMPT:
        CLAIMS.rewrap(_spec.id, fn=_at_both_steps(_figs)(_spec.fn), refute=_both_steps_cf(_spec.refute, _figs),
                      support=_both_steps_cf(_spec.support, _figs),
                      figures=(*_spec.figures, *dict.fromkeys(literal_figure(f) for f in _figs)),
                      tests=_spec.tests + STEP_NOTE)

# ---- the comparisons with a baseline run at a package constant also read its runs at other published values (_over_constants)
for _spec in list(CLAIMS):
    if _spec.id.split(".")[0] in ("2", "3") or _spec.id in ("4.accuracy", "4.fairness", "5.a", "5.b") or any(
            _spec.id.startswith(f"1.{b}.") for b in PACKAGE_CONSTANTS):
        CLAIMS.rewrap(_spec.id, figures=(*_spec.figures, CONSTANTS_ID))
