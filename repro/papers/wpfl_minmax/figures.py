"""Rendering of wpfl_minmax's figures and tables (panel order of the paper: (a) DNN-MNIST, (b) MLR-MNIST,
(c) CNN-CIFAR10, (d) CNN-FMNIST). Random results: the seed mean with its 95 % Student-t interval;
every per-seed number is a row of the figure's tidy CSV."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from repro.experiment import Rendered, is_unavailable
from repro.papers.wpfl_minmax.experiments import CONFIG_LABELS
from repro.plotting import draw_tables, mark_unavailable, markdown_tables, subplots, suptitle
from repro.results import tidy_frame
from repro.stats import mean_interval

LABELS = {"S1": "Proposed", "S2": "Gaussian", "S3": "MA", "S4": "Dithering", "S5": "Perfect Gaussian",
          "S6": "WPFL without DP", "S7": "Proposed (error-free)", "S8": "Round-Robin", "S9": "Random",
          "S10": "Non-Adjustment", "S11": "pFedMe", "S12": "APPLE", "S13": "FedAMP", "S14": "FedALA",
          "S15": "FedAMP (anchor only)"}
STYLE = {"S1": ("tab:red", "o"), "S2": ("tab:blue", "s"), "S3": ("tab:green", "^"), "S4": ("tab:purple", "v"),
         "S5": ("tab:orange", "D"), "S6": ("tab:gray", "x"), "S7": ("k", "*"), "S8": ("tab:blue", "s"),
         "S9": ("tab:green", "^"), "S10": ("tab:purple", "v"), "S11": ("tab:blue", "s"), "S12": ("tab:green", "^"),
         "S13": ("tab:purple", "v"), "S14": ("tab:orange", "D"),
         "S15": ("tab:pink", "<")}
FIG_SERIES = {"fig2": ["S1", "S2", "S3", "S4", "S5", "S6"], "fig3": ["S1", "S7", "S8", "S9", "S10"],
              "fig4": ["S1", "S7", "S8", "S9", "S10"], "fig5": ["S1", "S11", "S12", "S13", "S14"],
              "fig6": ["S1", "S11", "S12", "S13", "S14", "S15"], "fig7": ["S1", "S11", "S12", "S13", "S14", "S15"],
              "literal_tau": ["S1", "S7", "S8", "S9", "S10"], "literal_ber": ["S1", "S7", "S8", "S9", "S10"],
              "literal": ["S1", "S7", "S8", "S9", "S10"]}
SERIES_GROUP = {"S1": "proposed", **{s: "mech" for s in ("S2", "S3", "S4", "S5", "S6")},
                **{s: "sched" for s in ("S7", "S8", "S9", "S10")}, **{s: "pfl" for s in ("S11", "S12", "S13", "S14", "S15")}}
LETTERS = "abcdefghijklmnop"
#: series trained at the paper's fixed learning rate (swept only for the tuning table)
FIXED_RATE = ("S8", "S9", "S10")
PRIVACY_NOTE = ("eps_Q = 1 is the paper's nominal value; an RDP accountant certifies a far larger epsilon for the noise "
                "run (privacy table)")


# ---- collecting the runs -------------------------------------------------------------------------

class Runs:
    """The training results of a figure: ``data[cfg][series][t0] = [(summary, run_id, seed)]``, the
    tuning choices, the P7 diagnostics, and why a configuration or group has no data."""

    def __init__(self, fig, results, params):
        self.data, self.tuning, self.p7, self.missing = {}, {}, {}, {}
        self.default_lr, self.validation_proposed = float(params["default_lr"]), {}
        for r in fig.runs:
            if r.task != "train_group":
                continue
            res = results.get(r.run_id)
            cfg, group = r.params["config"], r.params["group"]
            if is_unavailable(res):
                self.missing.setdefault(cfg, {})[group] = res["reason"]
                continue
            for s, tune in res.get("tuning", {}).items():
                self.tuning.setdefault(cfg, {})[s] = tune
            if "validation_proposed" in res:
                self.validation_proposed[cfg] = res["validation_proposed"]
            for seed, block in res["per_seed"].items():
                for s, by_t in block["series"].items():
                    for t0, summ in by_t.items():
                        self.data.setdefault(cfg, {}).setdefault(s, {}).setdefault(int(t0), []).append((summ, r.run_id, int(seed)))
                if "p7_response" in block:
                    self.p7.setdefault(cfg, []).append((block["p7_response"], r.run_id, int(seed)))
        for cfg in params["configs"]:
            for g in ("proposed", "mech", "sched", "pfl"):
                if g not in params["config_groups"][cfg]:
                    self.missing.setdefault(cfg, {}).setdefault(g, "not run in this profile (config_groups)")

    def reason(self, cfg, series_list) -> str:
        groups = {SERIES_GROUP[s] for s in series_list}
        why = sorted({v for g, v in self.missing.get(cfg, {}).items() if g in groups})
        return "; ".join(why) or "no runs"

    def label(self, cfg, s) -> str:
        lab = LABELS[s]
        if s in FIXED_RATE:
            return f"{lab} (lr {self.default_lr:g}, paper)"
        tune = self.tuning.get(cfg, {}).get(s)
        if tune and not any(v is not None for v in (tune.get("grid") or {}).values()):
            return f"{lab} (untuned: every lr diverged)"
        return f"{lab} (lr {tune['chosen']:g}, tuned)" if tune else lab


def _note(ctx, extra: str = "") -> str:
    return "; ".join(x for x in (extra,) if x)


BOUNDS = {"accuracy": (0.0, 1.0), "jain": (0.0, 1.0)}


def _band(ax, xs, per_x, colour, marker, label, dashed=False, bounds=(-np.inf, np.inf), offset=0.0):
    """Seed mean with its 95 % t-interval (points with error bars, shifted by ``offset`` so series do not
    overlap, when there is one x); the interval is drawn clipped to the metric's range (accuracy, Jain's
    index in [0, 1]); the CSV has every seed."""
    mean = np.array([np.mean(v) if len(v) and np.all(np.isfinite(v)) else np.nan for v in per_x])
    ivs = [mean_interval(v) if len(v) and np.all(np.isfinite(v)) else None for v in per_x]
    lo = np.clip([iv.low if iv and math.isfinite(iv.low) else np.nan for iv in ivs], *bounds)
    hi = np.clip([iv.high if iv and math.isfinite(iv.high) else np.nan for iv in ivs], *bounds)
    if len(xs) == 1:
        ax.errorbar([xs[0] + offset], mean, yerr=[mean - lo, hi - mean] if np.isfinite(lo).all() else None, color=colour, marker=marker,
                    label=label, capsize=3, ls="none")
    else:
        ax.plot(xs, mean, color=colour, marker=marker, label=label, ls="--" if dashed else "-")
        if np.isfinite(lo).any():
            ax.fill_between(xs, lo, hi, color=colour, alpha=0.15, lw=0)


def _seeds(ax, xs, per_x, colour, marker, label, dashed=False, offset=0.0):
    """Every seed's value (small points) and the geometric mean over seeds (line; points side by side when
    there is one x): for the heavy-tailed max test loss, where a 3-seed t-interval says nothing."""
    x = np.asarray(xs, float) + (offset if len(xs) == 1 else 0.0)
    gm = np.array([np.exp(np.mean(np.log(v))) if len(v) and np.all(np.isfinite(v)) and np.all(v > 0) else np.nan
                   for v in per_x])
    ax.plot(x, gm, color=colour, marker=marker, label=label, ls="none" if len(xs) == 1 else ("--" if dashed else "-"))
    for xi, v in zip(x, per_x):
        ax.plot(np.full(len(v), xi), v, ".", color=colour, ms=3, alpha=0.6)


def _vs_t0(fig, results, ctx, metrics, configs=None):
    runs = Runs(fig, results, ctx.params)
    configs = ctx.params["configs"] if configs is None else configs
    # a metric row may bring its own series and CSV figure tag: (metric, ylabel[, series, tag])
    rows_spec = [(m[0], m[1], m[2] if len(m) > 2 else FIG_SERIES[fig.fig_id], m[3] if len(m) > 3 else fig.fig_id)
                 for m in metrics]
    f, axes = subplots(len(metrics), len(configs), width=3.7, height=3.0)
    rows = []
    for ci, cfg in enumerate(configs):
        avail = runs.data.get(cfg, {})
        for mi, (metric, ylabel, series, tag) in enumerate(rows_spec):
            ax = axes[mi, ci]
            idx = ci * len(metrics) + mi
            ax.set_title(f"({LETTERS[idx]}) {CONFIG_LABELS[cfg]}", fontsize=9)
            ax.set_xlabel("max uploads per client $T_0$")
            ax.set_ylabel(ylabel)
            drawn = 0
            for s in series:
                if s not in avail:
                    continue
                t0s = sorted(avail[s])
                per_x = [[e[0].get(metric, np.nan) if e[0].get(metric) is not None else np.nan for e in avail[s][t]] for t in t0s]
                bad = [e[0].get("nonfinite_clients", 0) for t in t0s for e in avail[s][t]]
                label = runs.label(cfg, s) + (f" [{sum(b > 0 for b in bad)} of {len(bad)} runs diverged]" if sum(bad) else "")
                col, mk = STYLE[s]
                off = 0.25 * (series.index(s) - (len(series) - 1) / 2)
                if metric == "max_test_loss":  # heavy-tailed: every seed and their geometric mean, no t-interval
                    _seeds(ax, t0s, [np.asarray(v, float) for v in per_x], col, mk, label, dashed=(s in ("S7", "S15")), offset=off)
                else:
                    _band(ax, t0s, [np.asarray(v, float) for v in per_x], col, mk, label, dashed=(s in ("S7", "S15")),
                          bounds=BOUNDS.get(metric, (-np.inf, np.inf)), offset=off)
                ax.set_xticks(t0s)
                if len(t0s) == 1:  # one T0: points side by side (offsets), not a line
                    ax.set_xlim(t0s[0] - 1, t0s[0] + 1)
                drawn += 1
                for t in t0s:
                    for summ, rid, seed in avail[s][t]:
                        v = summ.get(metric)
                        rows.append(dict(figure=tag, panel=cfg, series=LABELS[s], x=t, metric=metric,
                                         value=np.nan if v is None else v, seed=seed, run_id=rid))
                        if metric == "accuracy" and summ.get("global_accuracy") is not None:  # the FL model (CSV only)
                            rows.append(dict(figure=tag, panel=cfg, series=LABELS[s], x=t, metric="global_accuracy",
                                             value=summ["global_accuracy"], seed=seed, run_id=rid))
            absent = [s for s in series if s not in avail]
            if not drawn:
                mark_unavailable(ax, runs.reason(cfg, series))
                continue
            if absent:
                ax.text(0.02, 0.02, "not regenerated: " + ", ".join(LABELS[s] for s in absent) + "\n" + runs.reason(cfg, absent)[:80],
                        transform=ax.transAxes, fontsize=6, color="#a00000", va="bottom")
            ax.legend(fontsize=5.5)
            if metric == "max_test_loss":
                ax.set_yscale("log")
    spread = ("seed mean, 95 % t-interval; max test loss: every seed and their geometric mean"
              if any(m == "max_test_loss" for m, *_ in metrics) else "seed mean, 95 % t-interval")
    suptitle(f, f"{fig.paper_ref}: {fig.title} ({spread})", ctx.profile, PRIVACY_NOTE)
    return Rendered(tidy_frame(rows), f)


def _accuracy_vs_t0(fig, results, ctx) -> Rendered:
    return _vs_t0(fig, results, ctx, [("accuracy", "PL test accuracy")])


def _fairness_vs_t0(fig, results, ctx) -> Rendered:
    return _vs_t0(fig, results, ctx, [("jain", "Jain's index (PL train loss)"), ("max_test_loss", "max PL test loss")])


#: the ``figure`` value of a reading check's CSV rows per figure they repeat at the other reading (claims split on it)
LITERAL_TAGS = {f: f"literal_tau:{f}" for f in ("fig2", "fig3", "fig4", "fig5", "fig6", "fig7")}
BER_TAGS = {f: f"literal_ber:{f}" for f in (*LITERAL_TAGS, "table3")}  # Table III's bits also ride on eq. (13)
BOTH_TAGS = {f: f"literal:{f}" for f in BER_TAGS}


def _literal_tau(fig, results, ctx) -> Rendered:
    """Figs. 2-4 (DNN, MLR) at ``literal_tau`` local steps per round: accuracy under the DP mechanisms and under the
    schedulers, Jain's index, max test loss (Figs. 5-7's numbers in the CSV)."""
    tau = ctx.params["literal_tau"]
    return _reading_check(fig, results, ctx, LITERAL_TAGS, f"tau = {tau}",
                          "not run in this profile (literal_tau: null): the reading check of Figs. 3-4 runs at paper scale")


def _literal_ber(fig, results, ctx) -> Rendered:
    """Figs. 2-4 (DNN, MLR) with eq. (13) as printed (ber_snr: bit); Figs. 5-7's numbers in the CSV."""
    return _reading_check(fig, results, ctx, BER_TAGS, "eq. (13) as printed",
                          "not run in this profile (literal_ber: false, or the profile reads eq. (13) as printed): the "
                          "reading check of eq. (13) runs at paper scale")


def _literal(fig, results, ctx) -> Rendered:
    """Figs. 2-4 (DNN, MLR) at ``literal_tau`` local steps and eq. (13) as printed (the paper's literal setting)."""
    tau = ctx.params["literal_tau"]
    return _reading_check(fig, results, ctx, BOTH_TAGS, f"tau = {tau}, eq. (13) as printed",
                          "not run in this profile: the paper's literal setting (literal_tau with eq. (13) as printed) "
                          "runs at paper scale only, where both reading checks run")


def _reading_check(fig, results, ctx, tags, reading, empty) -> Rendered:
    """Figs. 2-4 of the DNN/MLR groups run at another ``reading``, their CSV rows tagged per figure (``tags``);
    Figs. 5-7 (the PFL baselines) in the CSV only."""
    configs = [c for c in ctx.params["configs"] if any(r.params.get("config") == c for r in fig.runs)]
    if not configs:
        f, axes = subplots(1, 1)
        mark_unavailable(axes[0, 0], empty)
        suptitle(f, f"{fig.paper_ref}: {fig.title}", ctx.profile)
        return Rendered(tidy_frame([]), f)
    sched = FIG_SERIES["fig3"]
    # CSV rows tagged with the figure they stand in for (Proposed's accuracy is in Fig. 2's rows and in Fig. 3's)
    drawn = _vs_t0(fig, results, ctx, [("accuracy", f"PL accuracy, DP mechanisms ({reading})", FIG_SERIES["fig2"], tags["fig2"]),
                                       ("accuracy", f"PL accuracy, schedulers ({reading})", sched, tags["fig3"]),
                                       ("jain", f"Jain's index ({reading})", sched, tags["fig4"]),
                                       ("max_test_loss", f"max PL test loss ({reading})", sched, tags["fig4"])],
                   configs=configs)
    if "table3" in tags:  # Table III's bits from the same mechanism runs (CSV only)
        t3 = _table3(fig, results, ctx)
        plt.close(t3.figure)
        if len(t3.data):
            drawn = Rendered(pd.concat([drawn.data, t3.data.assign(figure=tags["table3"])], ignore_index=True),
                             drawn.figure)
    if not any(r.params.get("group") == "pfl" for r in fig.runs):
        return drawn
    pfl = FIG_SERIES["fig6"]
    extra = [_fig5(fig, results, ctx, tag=tags["fig5"]),
             _vs_t0(fig, results, ctx, [("accuracy", "PL accuracy", pfl, tags["fig6"]),
                                        ("jain", "Jain's index", pfl, tags["fig7"]),
                                        ("max_test_loss", "max PL test loss", pfl, tags["fig7"])], configs=configs)]
    for r in extra:
        plt.close(r.figure)
    drawn.figure.text(0.5, 0.005, f"Figs. 5-7 (the PFL baselines) at {reading}: numbers in {fig.fig_id}.csv", ha="center",
                      fontsize=7)
    return Rendered(pd.concat([drawn.data] + [r.data for r in extra], ignore_index=True), drawn.figure)


def _fig5(fig, results, ctx, tag="fig5"):
    """Fig. 5 (``tag``: the CSV's ``figure`` value; the literal_tau figure keeps its rows at tau = 1 in its CSV)."""
    runs = Runs(fig, results, ctx.params)
    configs = ctx.params["configs"]
    f, axes = subplots(1, len(configs), width=3.7, height=3.0)
    rows = []
    for ci, cfg in enumerate(configs):
        ax = axes[0, ci]
        avail = runs.data.get(cfg, {})
        t_max = max((t for s in avail.values() for t in s), default=None)
        ax.set_title(f"({LETTERS[ci]}) {CONFIG_LABELS[cfg]}" + (f", $T_0$ = {t_max}" if t_max else ""), fontsize=9)
        ax.set_xlabel("aggregation round t")
        ax.set_ylabel("PL test accuracy")
        drawn = 0
        for s in FIG_SERIES["fig5"]:
            entries = avail.get(s, {}).get(t_max, [])
            curves = {}
            for summ, rid, seed in entries:
                recs = [r for r in summ.get("records", []) if "accuracy" in r]
                for r in recs:
                    curves.setdefault(r["t"], []).append(r["accuracy"])
                    rows.append(dict(figure=tag, panel=cfg, series=LABELS[s], x=r["t"], metric="accuracy",
                                     value=r["accuracy"], seed=seed, run_id=rid))
                rows.append(dict(figure=tag, panel=cfg, series=LABELS[s], x=summ["rounds"], metric="final_train_accuracy",
                                 value=summ["train_accuracy"], seed=seed, run_id=rid))
            if not curves:
                continue
            ts = sorted(curves)
            col, mk = STYLE[s]
            _band(ax, ts, [np.asarray(curves[t], float) for t in ts], col, None, runs.label(cfg, s), bounds=BOUNDS["accuracy"])
            drawn += 1
        if not drawn:
            mark_unavailable(ax, runs.reason(cfg, FIG_SERIES["fig5"]))
            continue
        absent = [s for s in FIG_SERIES["fig5"] if not avail.get(s)]
        if absent:
            ax.text(0.02, 0.02, "not regenerated: " + ", ".join(LABELS[s] for s in absent) + "\n" + runs.reason(cfg, absent)[:80],
                    transform=ax.transAxes, fontsize=6, color="#a00000")
        ax.legend(fontsize=5.5)
    suptitle(f, f"{fig.paper_ref}: {fig.title} (seed mean, 95 % t-interval)", ctx.profile, PRIVACY_NOTE)
    return Rendered(tidy_frame(rows), f)


# ---- tables --------------------------------------------------------------------------------------

def _draw_table(header, body, title, ctx, col_width=1.1, note=None):
    return draw_tables([(None, header, body)], title, ctx.profile, note,
                       width=max(6.0, col_width * len(header)), col_widths="auto", fontsize=7)


def _table1(fig, results, ctx):
    p = ctx.params
    items = [("Total bandwidth K B", f"{p['total_bw_hz'] / 1e6:g} MHz", p["total_bw_hz"]),
             ("Subchannels K", p["num_subchannels"], p["num_subchannels"]),
             ("Clients N", p["num_clients"], p["num_clients"]),
             ("BS max transmit power", f"{p['bs_power_dbm']:g} dBm", p["bs_power_dbm"]),
             ("Client max transmit power P_th", f"{p['client_power_dbm']:g} dBm", p["client_power_dbm"]),
             ("Noise spectral density", f"{p['noise_dbm_per_hz']:g} dBm/Hz", p["noise_dbm_per_hz"]),
             ("Path loss at 1 m", f"{p['pl0_db']:g} dB", p["pl0_db"]),
             ("Path loss exponent", p["pl_exponent"], p["pl_exponent"]),
             ("Modulation order M", p["qam_order"], p["qam_order"]),
             ("Eq. (13) SNR", "per symbol (Es/N0)" if p["ber_snr"] == "symbol" else "as printed (Eb/N0)",
              1.0 if p["ber_snr"] == "symbol" else 0.0),
             ("Sampling rate q", p["sampling_rate_q"], p["sampling_rate_q"]),
             ("Distances", f"U[{p['d_min_m']:g}, {p['d_max_m']:g}] m", p["d_max_m"]),
             ("Quantization bits R", p["bits"], p["bits"]),
             ("Privacy budget eps_Q (nominal)", p["epsilon_q"], p["epsilon_q"])]
    for fam in ("mlr", "dnn", "cnn"):
        items += [(f"C ({fam.upper()})", p["clip"][fam], p["clip"][fam]), (f"delta_Q ({fam.upper()})", p["delta_q"][fam], p["delta_q"][fam]),
                  (f"tau_max ({fam.upper()})", f"{p['max_delay_s'][fam]:g} s", p["max_delay_s"][fam])]
    rows = [dict(figure="table1", panel="", series="config", x=i, metric=name, value=float(v), seed=-1, run_id="")
            for i, (name, _, v) in enumerate(items)]
    header = ["Parameter", "Value"]
    body = [[n, str(s)] for n, s, _ in items]
    f = _draw_table(header, body, "Table I: simulation parameters", ctx, col_width=2.5)
    return Rendered(tidy_frame(rows), f, markdown_tables([("Table I: simulation parameter configuration", header, body)]))


def _table2(fig, results, ctx):
    res = next(iter(results.values()))
    rows, body = [], []
    t0s = sorted({r["t0"] for r in res["rows"]})
    for fam in ("mlr", "dnn", "cnn"):
        comp = {r["t0"]: r for r in res["rows"] if r["model"] == fam}
        body.append([f"{fam.upper()} computed (23)"] + [f"{comp[t]['computed']:.5f}" for t in t0s])
        body.append([f"{fam.upper()} printed"] + [f"{comp[t]['printed']:g}" if comp[t]["printed"] is not None else "-" for t in t0s])
        body.append([f"{fam.upper()} printed/computed"] + [f"{comp[t]['printed'] / comp[t]['computed']:.3f}" if comp[t]["printed"] else "-" for t in t0s])
        for t in t0s:
            rows.append(dict(figure="table2", panel=fam, series="computed", x=t, metric="sigma_dp", value=comp[t]["computed"], seed=-1, run_id=""))
            if comp[t]["printed"] is not None:
                rows.append(dict(figure="table2", panel=fam, series="printed", x=t, metric="sigma_dp", value=comp[t]["printed"], seed=-1, run_id=""))
                rows.append(dict(figure="table2", panel=fam, series="printed", x=t, metric="delta_at_printed",
                                 value=comp[t]["delta_at_printed"], seed=-1, run_id=""))
    for e, s in res["epsilon_independence"].items():
        rows.append(dict(figure="table2", panel="dnn", series=f"eps_Q={e}", x=20, metric="sigma_dp_eps", value=s, seed=-1, run_id=""))
    header = ["model / T0"] + [str(t) for t in t0s]
    f = _draw_table(header, body, "Table II: sigma_DP from Theorem 1 (eps_Q = 1 nominal, R = 16, q = 0.01) vs printed", ctx)
    return Rendered(tidy_frame(rows), f, markdown_tables([("Table II: sigma_DP, computed from (23) and as printed", header, body)],
                                                         note=PRIVACY_NOTE + "."))


TABLE3_PRINTED = {  # (Bq, Bo) per mechanism, Table III
    "mlr_mnist": {"S1": (6.81, 2.61), "S3": (8.98, 4.00), "S2": (14.32, 3.93), "S4": (8.01, 1.34), "S6": (4.70, 1.63)},
    "dnn_mnist": {"S1": (4.55, 3.04), "S3": (11.13, 4.00), "S2": (14.82, 2.10), "S4": (6.91, 1.20), "S6": (2.54, 0.72)},
    "cnn_fmnist": {"S1": (5.17, 4.00), "S3": (10.95, 4.00), "S2": (14.79, 1.09), "S4": (5.59, 4.00), "S6": (3.88, 3.85)},
    "cnn_cifar10": {"S1": (4.93, 4.00), "S3": (11.34, 4.00), "S2": (14.84, 0.89), "S4": (5.20, 4.00), "S6": (3.55, 3.92)},
}
TABLE3_ORDER = ["S1", "S3", "S2", "S4", "S6"]


def _table3(fig, results, ctx):
    from repro.papers.wpfl_minmax.experiments import bits_t0

    runs = Runs(fig, results, ctx.params)
    rows, body = [], []
    for cfg in ctx.params["configs"]:
        t0 = bits_t0(ctx.params, cfg)
        line = [f"{CONFIG_LABELS[cfg]} (T0 = {t0})"]
        for s in TABLE3_ORDER:
            entries = runs.data.get(cfg, {}).get(s, {}).get(t0, [])
            pr = TABLE3_PRINTED[cfg][s]
            got = [(e[0]["bits"], e[1], e[2]) for e in entries if e[0].get("bits")]
            if not got:
                line.append(f"n/a ({pr[0]:.2f}/{pr[1]:.2f})")
                continue
            bq, bo = float(np.mean([b["bq"] for b, _, _ in got])), float(np.mean([b["bo"] for b, _, _ in got]))
            line.append(f"{bq:.2f}/{bo:.2f} ({pr[0]:.2f}/{pr[1]:.2f})")
            for b, rid, seed in got:
                vals = {"bq": b["bq"], "bo": b["bo"], "total": min(16.0, b["bq"] + b["bo"])}
                if s == "S4" and b.get("raw") is not None:
                    vals["raw_bits"] = b["raw"]
                for metric, v in vals.items():
                    rows.append(dict(figure="table3", panel=cfg, series=LABELS[s], x=t0, metric=metric, value=v, seed=seed, run_id=rid))
            for metric, v in (("bq_printed", pr[0]), ("bo_printed", pr[1])):
                rows.append(dict(figure="table3", panel=cfg, series=LABELS[s], x=t0, metric=metric, value=v, seed=-1, run_id=""))
        body.append(line)
    header = ["Model-dataset"] + [f"{LABELS[s]} Bq/Bo (paper)" for s in TABLE3_ORDER]
    title = "Table III: mean quantization / overhead bits per parameter, seed mean (printed)"
    f = _draw_table(header, body, title, ctx, col_width=2.0)
    return Rendered(tidy_frame(rows), f, markdown_tables([(title, header, body)]))


PRIVATE = {"S1": "Proposed (Table II sigma; also S7-S14)", "S2": "Gaussian", "S3": "MA", "S4": "Dithering (sigma_D)",
           "S5": "Perfect Gaussian (Table II sigma)"}


def _privacy(fig, results, ctx):
    """One certificate per private configuration run: nominal eps_Q beside the RDP-certified epsilon of the
    Gaussian noise actually added (quantization is post-processing and cannot lower it)."""
    from repro.papers.wpfl_minmax.environment import DATASET
    from repro.privacy.certify import Certificate

    p = ctx.params
    runs = Runs(fig, results, p)
    rows, body = [], []
    flagged = 0
    for cfg in p["configs"]:
        fam = cfg.split("_")[0]
        c, d, q = float(p["clip"][fam]), float(p["delta_q"][fam]), float(p["sampling_rate_q"])
        b_ref = int(p["b_ref"][DATASET[cfg]])
        for s, what in PRIVATE.items():
            for t0, entries in sorted(runs.data.get(cfg, {}).get(s, {}).items()):
                sigma = float(entries[0][0]["sigma"])
                if not sigma > 0:
                    continue
                cert = Certificate(
                    mechanism=f"{LABELS[s]}: clipped local model (||u|| <= C = {c:g}) + N(0, {sigma:.4g}^2) per element, "
                              f"then R-bit quantization (post-processing)",
                    nominal_epsilon=float(p["epsilon_q"]), nominal_source="Theorem 1 / Table II (eq. (23))" if s in ("S1", "S5")
                    else "the baseline's own calibration (README)",
                    noise_std=sigma, sensitivity=2 * c, releases=int(t0), delta=d, sampling_rate=1.0, accountant="rdp",
                    assumptions=f"as run: the released object is the client's clipped local model (no per-sample clipping), "
                                f"replace-one L2 sensitivity 2C; no subsampling (every upload is computed from the client's "
                                f"data); T0 = {t0} uploads per client composed")
                # the paper's assumption, not what was run: per-sample sensitivity 2C/b_ref, Poisson rate q
                per_sample = Certificate(mechanism="paper's assumption (not run)", nominal_epsilon=float(p["epsilon_q"]),
                                         nominal_source="", noise_std=sigma, sensitivity=2 * c / b_ref, releases=int(t0),
                                         delta=d, sampling_rate=q)
                flagged += cert.flagged
                rid = entries[0][1]
                rows += cert.tidy_rows("privacy", cfg, LABELS[s], x=int(t0), run_id=rid)
                rows.append(dict(figure="privacy", panel=cfg, series=LABELS[s], x=int(t0), metric="certified_epsilon_per_sample",
                                 value=per_sample.certified_epsilon, seed=-1, run_id=rid))
                rows.append(dict(figure="privacy", panel=cfg, series=LABELS[s], x=int(t0), metric="noise_std", value=sigma,
                                 seed=-1, run_id=rid))
                body.append([CONFIG_LABELS[cfg], what, str(t0), f"{sigma:.4g}", f"{cert.nominal_epsilon:g}",
                             _fmt(cert.certified_epsilon), _fmt(per_sample.certified_epsilon), "yes" if cert.flagged else "no"])
    header = ["config", "mechanism", "T0", "sigma", "eps nominal (paper)", "eps certified as run (2C, no sampling)",
              "eps under paper's assumption (2C/b_ref, q = 0.01; not run)", "differs > 2x"]
    note = ("RDP accountant (dp-accounting), delta = delta_Q, T0 releases. As run: each upload is the client's clipped model "
            "(L2 sensitivity 2C); no Poisson sampling and no per-sample clipping was executed (a sample enters an upload with "
            "probability ~1 at tau = 100, the package's number of local steps). Second reading, labelled, NOT what was run: per-sample sensitivity 2C/b_ref with "
            "Poisson rate q = 0.01 (the paper's and the baselines' calibration convention). Quantization is post-processing. "
            "Fig. 2 compares the mechanisms at very different certified epsilon.")
    title = "Privacy: nominal eps_Q vs epsilon certified for the noise actually added"
    f = draw_tables([(None, header, body or [["-"] * len(header)])], title, ctx.profile, note, width=13, col_widths="auto", fontsize=6.5)
    return Rendered(tidy_frame(rows), f, markdown_tables([(title, header, body)], note=note))


def _fmt(v):
    """A certified epsilon for a table: never "0" (a value the accountant floors to 0 is printed as a bound)."""
    if not math.isfinite(v):
        return "inf"
    if v <= 0:
        return "< 1e-6 (accountant floor)"
    return f"{v:.2e}" if (v >= 1e4 or v < 1e-2) else f"{v:.3g}"


def _tuning(fig, results, ctx):
    runs = Runs(fig, results, ctx.params)
    rows, body = [], []
    lrs = [float(x) for x in ctx.params["tuning_lrs"]]
    for cfg in ctx.params["configs"]:
        for s, tune in runs.tuning.get(cfg, {}).items():
            grid = {float(k): v for k, v in tune["grid"].items()}
            rid = next((e[1] for t in runs.data.get(cfg, {}).get(s, {}).values() for e in t), "")
            for lr in lrs:
                v = grid.get(lr)
                rows.append(dict(figure="tuning", panel=cfg, series=LABELS[s], x=lr, metric="validation_accuracy",
                                 value=np.nan if v is None else v, seed=int(ctx.params["seeds"][0]), run_id=rid))
            rows.append(dict(figure="tuning", panel=cfg, series=LABELS[s], x=tune["t0"], metric="chosen_lr", value=tune["chosen"],
                             seed=int(ctx.params["seeds"][0]), run_id=rid))
            body.append([CONFIG_LABELS[cfg], LABELS[s]] + ["diverged" if grid.get(lr) is None else f"{grid[lr]:.3f}" for lr in lrs]
                        + [f"{tune['chosen']:g}" + (f" (runs at {runs.default_lr:g}, paper)" if s in FIXED_RATE else "")])
        if cfg in runs.validation_proposed:
            v = runs.validation_proposed[cfg]
            rows.append(dict(figure="tuning", panel=cfg, series="Proposed", x=0.0, metric="validation_accuracy", value=v,
                             seed=int(ctx.params["seeds"][0]), run_id=""))
            body.append([CONFIG_LABELS[cfg], "Proposed (P5/P7 rates)"] + [f"{v:.3f}"] * len(lrs) + ["-"])
    header = ["config", "series"] + [f"lr {lr:g}" for lr in lrs] + ["chosen"]
    note = ("validation accuracy of the personalised models after training at T0 = min(T0 grid) on 80 % of every client's "
            "training data, scored on the held-out 20 % (first seed); the PFL baselines train at the chosen rate at every T0 "
            "and seed; the schedulers train at the paper's fixed rate (their sweep is the tuned comparison, beside "
            "Proposed's validation accuracy)")
    title = "Learning-rate sweep of the fixed-rate methods"
    f = draw_tables([(None, header, body or [["-"] * len(header)])], title, ctx.profile, note, width=9, col_widths="auto", fontsize=7)
    return Rendered(tidy_frame(rows), f, markdown_tables([(title, header, body)], note=note))


# ---- diagnostics ---------------------------------------------------------------------------------

POLICY_OF = {"S1": "KM (Proposed)", "S8": "Round-Robin", "S9": "Random"}


def _channel(fig, results, ctx):
    budget = next(r for k, r in results.items() if isinstance(r, dict) and "rows" in r and "distance_m" in r)
    runs = Runs(fig, results, ctx.params)
    configs = [c for c in ctx.params["configs"]]
    f, axes = subplots(1, 1 + len(configs), width=3.6, height=3.0)
    rows = []
    ax = axes[0, 0]
    d = budget["distance_m"]
    for row in budget["rows"]:
        style = "-" if row["ber_snr"] == "symbol" else ":"
        col = "tab:red" if row["direction"] == "uplink" else "tab:blue"
        name = f"{row['direction']}, eq. (13) {'per symbol' if row['ber_snr'] == 'symbol' else 'as printed'}"
        ax.semilogy(d, np.maximum(row["rho_random"], 1e-16), ls=style, color=col, label=name)
        for metric in ("rho_random", "rho_best_of_k", "mean_snr_db"):
            for x, v in zip(d, row[metric]):
                rows.append(dict(figure="channel", panel=f"link_budget_{row['direction']}", series=row["ber_snr"], x=x,
                                 metric=metric, value=v, seed=-1, run_id=""))
    ax.set_title("(a) Table I link budget: mean rho, one random subchannel\n(exact mean over Rayleigh fading)", fontsize=8)
    ax.set_xlabel("client distance (m)")
    ax.set_ylabel("element error rate rho (14)")
    ax.set_ylim(1e-12, 1)
    ax.legend(fontsize=5.5)
    for ci, cfg in enumerate(configs, start=1):
        ax = axes[0, ci]
        ax.set_title(f"({LETTERS[ci]}) {CONFIG_LABELS[cfg]}: rho per client", fontsize=8)
        ax.set_xlabel("client distance (m)")
        ax.set_ylabel("mean rho over the run")
        avail = runs.data.get(cfg, {})
        drawn = 0
        for s, name in POLICY_OF.items():
            if s not in avail:
                continue
            t0 = max(avail[s])
            col, mk = STYLE[s]
            xs, ys = [], []
            for summ, rid, seed in avail[s][t0]:
                cl = summ["clients"]
                for j, (dist, v) in enumerate(zip(cl["distance_m"], cl["ul_rho_mean"])):
                    rows.append(dict(figure="channel", panel=cfg, series=f"uplink {name}", x=dist, metric="ul_rho_mean",
                                     value=np.nan if v is None else v, seed=seed, run_id=rid))
                    if v is not None:
                        xs.append(dist)
                        ys.append(max(v, 1e-16))
                if s == "S1":
                    for dist, v in zip(cl["distance_m"], cl["dl_rho_mean"]):
                        rows.append(dict(figure="channel", panel=cfg, series="downlink (every client, every round)", x=dist,
                                         metric="dl_rho_mean", value=v, seed=seed, run_id=rid))
                    ax.semilogy(cl["distance_m"], np.maximum(cl["dl_rho_mean"], 1e-16), "x", color="tab:gray", ms=3,
                                label="downlink" if seed == avail[s][t0][0][2] else None)
            ax.semilogy(xs, ys, mk, color=col, ms=3, alpha=0.7, label=f"uplink, {name} (T0 = {t0})")
            drawn += 1
        if not drawn:
            mark_unavailable(ax, runs.reason(cfg, ["S1", "S8"]))
            continue
        ax.set_ylim(1e-16, 1)
        ax.legend(fontsize=5.5)
    suptitle(f, "Element error rates (14) the schedulers face (each point: one client of one seed; a rate of 0 is drawn at 1e-16)",
             ctx.profile)
    return Rendered(tidy_frame(rows), f)


def _p7(fig, results, ctx):
    runs = Runs(fig, results, ctx.params)
    configs = ctx.params["configs"]
    f, axes = subplots(3, len(configs), width=3.7, height=2.8)
    rows = []
    for ci, cfg in enumerate(configs):
        blocks = runs.p7.get(cfg, [])
        if not blocks:
            for r in range(3):
                mark_unavailable(axes[r, ci], runs.reason(cfg, ["S1"]))
            continue
        first = blocks[0][0]
        for r, (metric, ylabel) in enumerate((("eta_p", r"$\eta_P^*$"), ("lambda", r"$\lambda^*$"))):
            ax = axes[r, ci]
            ax.set_title(f"({LETTERS[r * len(configs) + ci]}) {CONFIG_LABELS[cfg]}: P7 vs noise weight X", fontsize=8)
            resp = first["response"]
            ax.semilogx(resp["x"], resp[metric], color="tab:red", label="P7 solution (G0, M of this run)")
            lo, hi = resp["x_operating"]
            ax.axvspan(lo, hi, color="tab:orange", alpha=0.2, label=r"X in training ($\rho_G$ from 0 to 1)")
            for name, lim in first["limits"].items():
                ax.axhline(lim[metric], color="k", ls=":" if name.startswith("grad") else "--", lw=0.8,
                           label=f"limit: {name.replace('_', ' ')}")
            ax.set_xlabel(r"X = $\Gamma_2\rho_G + \Gamma_3 + (G_0^2 + M\mu)^2\varepsilon_F/\mu^2$ of (34)")
            ax.set_ylabel(ylabel)
            _span_note(ax, resp[metric])
            ax.legend(fontsize=5)
        for p7, rid, seed in blocks:
            for cur in p7["curves"]:
                for x, e, l, share in zip(cur["rho_g"], cur["eta_p"], cur["lambda"], cur["noise_share"]):
                    for metric, v in (("eta_p", e), ("lambda", l), ("noise_share", share)):
                        rows.append(dict(figure="p7", panel=cfg, series=f"noise {cur['noise']}", x=x, metric=metric, value=v,
                                         seed=seed, run_id=rid))
            for name, lim in p7["limits"].items():
                for metric in ("eta_p", "lambda"):
                    rows.append(dict(figure="p7", panel=cfg, series=f"limit {name}", x=0.0, metric=metric, value=lim[metric],
                                     seed=seed, run_id=rid))
            resp = p7["response"]
            for x, e, l in zip(resp["x"], resp["eta_p"], resp["lambda"]):
                rows += [dict(figure="p7", panel=cfg, series="response to X", x=x, metric=m, value=v, seed=seed, run_id=rid)
                         for m, v in (("eta_p", e), ("lambda", l))]
            for k, x in zip(("x_operating_min", "x_operating_max"), resp["x_operating"]):
                rows.append(dict(figure="p7", panel=cfg, series="constants", x=0.0, metric=k, value=x, seed=seed, run_id=rid))
            for metric in ("g0", "m_bound", "eps_f", "eps_p", "eta_f"):
                rows.append(dict(figure="p7", panel=cfg, series="constants", x=0.0, metric=metric, value=p7[metric], seed=seed, run_id=rid))
        ax = axes[2, ci]
        ax.set_title(f"({LETTERS[2 * len(configs) + ci]}) {CONFIG_LABELS[cfg]}: chosen in training", fontsize=8)
        entries = runs.data.get(cfg, {}).get("S1", {})
        t_max = max(entries) if entries else None
        for summ, rid, seed in entries.get(t_max, []):
            dec = summ["clients"].get("decisions", [])
            if not dec:
                continue
            rho = np.array([r["rho_g"] for r in dec], float)
            eta = np.array([r["eta_p"] for r in dec], float)
            lam = np.array([r["lambda"] for r in dec], float)
            adapted = slice(1, None)  # round 1 uses the default rates; later rounds P7's output
            ax.semilogx(np.maximum(rho[adapted].ravel(), 1e-12), eta[adapted].ravel(), ".", ms=2, alpha=0.5,
                        label=f"seed {seed}")
            e, lm = eta[adapted].ravel(), lam[adapted].ravel()
            rows += [dict(figure="p7", panel=cfg, series="chosen in training", x=float(t_max), metric=m, value=v, seed=seed, run_id=rid)
                     for m, v in (("eta_p_min", e.min()), ("eta_p_max", e.max()), ("eta_p_mean", e.mean()),
                                  ("lambda_min", lm.min()), ("lambda_max", lm.max()), ("lambda_mean", lm.mean()),
                                  ("eta_p_rel_spread", (e.max() - e.min()) / e.mean()),
                                  ("lambda_rel_spread", (lm.max() - lm.min()) / lm.mean()),
                                  ("rho_g_max", rho.max()))]
        lim = first["limits"]
        for name, v in lim.items():
            ax.axhline(v["eta_p"], color="k", ls=":" if name.startswith("grad") else "--", lw=0.8, label=f"limit: {name.replace('_', ' ')}")
        lo, hi = sorted(v["eta_p"] for v in lim.values())
        ax.set_ylim(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo))
        ax.ticklabel_format(axis="y", useOffset=False)
        _span_note(ax, [lo, hi], "limits")
        ax.set_xlabel(r"client's DL $\rho_{n,G}^{t+1}$ (0 drawn at 1e-12)")
        ax.set_ylabel(r"$\eta_{P,n}^{t+1}$ chosen")
        ax.legend(fontsize=5)
    suptitle(f, "Stage 2 (P7): eta_P* and lambda* vs the noise weight X of (34) (its range in training shaded); "
                "values chosen per client and round", ctx.profile)
    return Rendered(tidy_frame(rows), f)


def _span_note(ax, values, what="curve"):
    """Say how narrow a zoomed y-axis is: the plotted values span only this share of their level."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if len(v) and v.mean() > 0:
        ax.text(0.98, 0.98, f"y zoomed: {what} spans {100 * (v.max() - v.min()) / v.mean():.1f} %", transform=ax.transAxes,
                ha="right", va="top", fontsize=6, color="#a00000")


def _regime(fig, results, ctx):
    """The regime the verdicts rest on, at the profile's setting beside the paper's (measured, one seed)."""
    rows, body = [], []
    res = next((r for r in results.values() if isinstance(r, dict) and "rows" in r and "t0" in r and "distance_m" not in r), None)
    if res is None or is_unavailable(res):
        body = [["-", res["reason"] if res else "no regime run in this profile"] + ["-"] * 7]
    else:
        for r in res["rows"]:
            for m in ("noise_to_update", "pl_pull_per_round", "update_norm_median", "noise_norm", "sample_inclusion_per_upload",
                      "eta_p", "lambda", "tau", "batch_median", "train_samples_median"):
                rows.append(dict(figure="regime", panel=r["config"], series=r["setting"], x=float(res["t0"]), metric=m,
                                 value=float(r[m]), seed=int(ctx.params["seeds"][0]), run_id=""))
            body.append([CONFIG_LABELS[r["config"]], r["setting"], str(r["tau"]), f"{r['batch_median']:g}",
                         f"{r['train_samples_median']:g}", f"{r['noise_to_update']:.3g}", f"{r['noise_to_update'] / math.sqrt(10):.3g}",
                         f"{100 * r['pl_pull_per_round']:.1f} %", f"{r['sample_inclusion_per_upload']:.2f}"])
    header = ["config", "setting", "tau", "batch", "train samples / client", "noise / update (one upload)",
              "noise / update (mean of K = 10)", "PL pull to global per round", "sample inclusion per upload"]
    note = ("one FL update (20a) from the initial model at P5's eta_F (median over clients) against sigma sqrt(|w|) of one upload "
            "with Table II's sigma at T0 = t0_default; PL pull = 1 - (1 - eta_P lambda)^tau at P7's (eta_P, lambda). Paper-scale "
            "setting: tau = 100 (a package decision: the paper's (20a), (20b) are single gradient steps), all data, "
            "b_n = round(q |D_n|).")
    title = "Regime: DP noise vs the update, and the PL model's pull toward the global model"
    f = draw_tables([(None, header, body)], title, ctx.profile, note, width=12, col_widths="auto", fontsize=7)
    return Rendered(tidy_frame(rows), f, markdown_tables([(title, header, body)], note=note))


def _fig1(fig, results, ctx):
    import matplotlib.patches as mpatches

    f, axes = subplots(1, 1, width=11, height=2.6)
    ax = axes[0, 0]
    ax.axis("off")
    steps = ["Stage 1: KM selection +\nsubchannel assignment\n(full power)", "Downlink: Q_G(global),\n256-QAM bit errors\n(all N clients)",
             "FL update (20a) on\nreceived global,\nclip C, + N(0, sigma^2)", "Quantize R = 16 bits,\nOFDMA uplink,\nbit errors (15)",
             "Aggregate (16),\nglobal quantization (19)", "PL update (20b), all N;\nStage 2: eta_P, lambda (P7)"]
    for i, s in enumerate(steps):
        x = 0.01 + i * 0.165
        ax.add_patch(mpatches.FancyBboxPatch((x, 0.25), 0.145, 0.5, boxstyle="round,pad=0.01", transform=ax.transAxes,
                                             facecolor="#e8eef8", edgecolor="#335"))
        ax.text(x + 0.0725, 0.5, s, transform=ax.transAxes, ha="center", va="center", fontsize=7)
        if i < len(steps) - 1:
            ax.annotate("", xy=(x + 0.163, 0.5), xytext=(x + 0.147, 0.5), xycoords="axes fraction",
                        arrowprops=dict(arrowstyle="->", color="#335"))
    ax.text(0.5, 0.1, "round t (repeat while some client has fewer than T0 uploads)", transform=ax.transAxes, ha="center", fontsize=8)
    suptitle(f, "Fig. 1: one round of quantization-assisted DP wireless PFL (schematic)", ctx.profile)
    return Rendered(tidy_frame([]), f)


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"literal_tau": _literal_tau, "literal_ber": _literal_ber, "literal": _literal, "fig1": _fig1, "table1": _table1, "table2": _table2, "table3": _table3, "privacy": _privacy,
             "fig2": _accuracy_vs_t0, "fig3": _accuracy_vs_t0, "fig6": _accuracy_vs_t0, "fig4": _fairness_vs_t0,
             "fig7": _fairness_vs_t0, "fig5": _fig5, "channel": _channel, "p7": _p7, "tuning": _tuning,
             "regime": _regime}
