"""Rendering of the ota_jammer figures (guide §4): seed means with a +-1 s.d. band, tidy CSV of every
per-seed value, plus the privacy/power scalars the claims check."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from repro.experiment import is_unavailable
from repro.papers.ota_jammer import theory
from repro.papers.ota_jammer.experiments import ALGO_LABEL, BASELINE_LABEL, NO_CJ_LABEL, NONPRIVATE_LABEL
from repro.plotting import mark_unavailable, subplots, suptitle
from repro.results import tidy_frame

CURVES = ("test_acc", "train_loss")
SCALARS = ("epsilon", "epsilon_numeric", "epsilon_per_client_max", "epsilon_delta_0.01", "epsilon_kappa1",
           "epsilon_variance_reading", "max_power_ratio", "min_s", "frac_s_above_1", "num_transmissions",
           "num_iterations", "required_var", "dataset_size", "alpha_u", "channel_std", "jammer_std", "noise_std_mean",
           "frac_clipped", "jammer_power_over_P_median", "beta_sum")
PLOTTED = {"fig2": "test_acc", "fig3": "train_loss", "fig4": "test_acc", "fig5": "train_loss", "fig6": "test_acc",
           "fig7": "test_acc", "fig8": "test_acc", "fig9": "test_acc", "fig10": "train_loss"}
YLABEL = {"test_acc": "test accuracy", "train_loss": "training loss"}
STYLE = {ALGO_LABEL["upcycled"]: dict(color="C3", marker="o"), ALGO_LABEL["fedprox"]: dict(color="C0", marker="s"),
         ALGO_LABEL["fedavg"]: dict(color="C2", marker="^"), BASELINE_LABEL: dict(color="C1", marker="x"),
         NONPRIVATE_LABEL: dict(color="grey", ls="--"), NO_CJ_LABEL: dict(color="grey", ls="--"),
         "FedAvg + proposed PC (i.i.d.)": dict(color="C2", marker="^")}


def series_label(fig_id: str, p: dict) -> str:
    """The legend name of a run in a figure."""
    if p["mode"] == "baseline13":
        return BASELINE_LABEL
    if p["mode"] == "nonprivate":
        return NONPRIVATE_LABEL
    if fig_id in ("fig9", "fig10"):
        return "FedAvg + proposed PC (i.i.d.)"
    if fig_id in ("fig6", "fig7", "fig8"):
        return NO_CJ_LABEL if p["cj_epsilon"] is None else f"CJ, eps = {p['cj_epsilon']:g}"
    return ALGO_LABEL[p["algorithm"]]


def tidy_rows(fig, results: dict) -> tuple[list[dict], list[str], str | None]:
    rows, reasons, note = [], [], None
    for spec in fig.runs:
        res = results[spec.run_id]
        label = series_label(fig.fig_id, spec.params)
        if is_unavailable(res):
            reasons.append(res["reason"])
            continue
        note = res.get("dataset", note)
        base = dict(figure=fig.fig_id, series=label, seed=spec.seed, run_id=spec.run_id)
        for metric in CURVES:
            for x, v in zip(res["rounds"], res[metric]):
                rows.append(dict(base, panel="curve", x=x, metric=metric, value=v))
        for metric in SCALARS:
            v = res.get(metric)
            if isinstance(v, (int, float)) and v is not None and not (isinstance(v, float) and math.isnan(v)):
                rows.append(dict(base, panel="privacy", x=np.nan, metric=metric, value=float(v)))
    return rows, reasons, note


def theory_rows(fig_id: str, params: dict, dataset_size: int) -> list[dict]:
    """Fig 6: the jammer-need check for several targets (claim C3) and Thm 5's C5 + C6 (claim C18)."""
    M = params["rounds"]
    cal = theory.calibrate(M, dataset_size, params["eps0"], params["delta0"])
    rows = []
    for eps in sorted(set(params["cj_epsilons"]) | {params["eps0"], 7.0, 10.0}):
        c = theory.calibrate(M, dataset_size, params["eps0"], params["delta0"], eps, params["cj_delta"], 1.0)
        rows.append(dict(figure=fig_id, panel="theory", series="jammer need", x=eps, metric="required_minus_channel_var",
                         value=c.required_var - cal.channel_std ** 2, seed=-1, run_id=""))
    for eps in (6.0, 3.0, 1.0, 0.5, 0.25, 0.1):
        t = theory.convergence_terms(eps, smoothness=1.0, num_params=theory.mlp_num_params(params["hidden"]),
                                     num_transmissions=M, dataset_size=dataset_size, eps0=params["eps0"],
                                     delta0=params["delta0"], cj_delta=params["cj_delta"], kappa=params["kappa"])
        rows.append(dict(figure=fig_id, panel="theory", series="Thm 5 (L_s = 1)", x=eps, metric="C5_plus_C6",
                         value=t["total"], seed=-1, run_id=""))
    return rows


def _render_curves(fig, results, ctx):
    rows, reasons, note = tidy_rows(fig, results)
    if fig.fig_id == "fig6":
        sizes = [r["value"] for r in rows if r["metric"] == "dataset_size"]
        if sizes:
            rows += theory_rows(fig.fig_id, ctx.params, int(sizes[0]))
    df = tidy_frame(rows)
    metric = PLOTTED[fig.fig_id]
    f, axes = subplots(1, 1, width=5.6, height=4.0)
    ax = axes[0, 0]
    curves = df[(df.panel == "curve") & (df.metric == metric)]
    if curves.empty:
        mark_unavailable(ax, "; ".join(sorted(set(reasons))) or "no results")
    order = sorted(curves.series.unique(), key=_series_order)
    for name in order:
        g = curves[curves.series == name].groupby("x")["value"]
        mean, sd = g.mean(), g.std(ddof=0).fillna(0.0)
        st = dict(STYLE.get(name, {}))
        if name.startswith("CJ, eps"):
            eps = float(name.split("=")[1])
            st = dict(marker={1.0: "o", 0.5: "s", 0.1: "^"}.get(eps, "d"))
        st.setdefault("markevery", max(1, len(mean) // 10))
        ax.plot(mean.index, mean.values, label=name, **st)
        ax.fill_between(mean.index, mean - sd, mean + sd, alpha=0.15, color=ax.lines[-1].get_color())
    ax.set_xlabel("global iterations (communication rounds m)")
    ax.set_ylabel(YLABEL[metric])
    if len(order):
        ax.legend(loc="lower right" if metric == "test_acc" else "upper right")
    p = ctx.params
    prof = (f"{ctx.profile}: M = {p['rounds'] if fig.fig_id not in ('fig9', 'fig10') else p['iid_rounds']}, "
            f"E = {p['local_epochs'] if fig.fig_id not in ('fig9', 'fig10') else p['iid_local_epochs']}, "
            f"{len(p['seeds'])} seed(s), mean +- 1 s.d.; Upcycled drawn after its even step")
    suptitle(f, f"{fig.paper_ref}: {fig.title}", ctx.profile, f"{note or ''}\n{prof}")
    return _rendered(df, f)


def _rendered(df, f):
    from repro.experiment import Rendered

    return Rendered(data=df, figure=f)


def _series_order(name: str):
    if name.startswith("CJ, eps"):
        return (1, -float(name.split("=")[1]))
    fixed = [ALGO_LABEL["upcycled"], ALGO_LABEL["fedprox"], ALGO_LABEL["fedavg"], "FedAvg + proposed PC (i.i.d.)",
             BASELINE_LABEL]
    return (0 if name in fixed else 2, fixed.index(name) if name in fixed else 0)


def _render_diagram(fig, results, ctx):
    f, axes = subplots(1, 1, width=6.4, height=4.0)
    ax = axes[0, 0]
    ax.set_xlim(0, 10), ax.set_ylim(-0.3, 6.5), ax.axis("off")
    ax.add_patch(_box((7.2, 2.6), 2.4, 1.3, "#dde8f5"))
    ax.text(8.4, 3.25, "Parameter server\n(base station)\nhonest-but-curious", ha="center", va="center", fontsize=8)
    users = [(1.2, 5.4), (1.2, 4.1), (1.2, 2.8), (1.2, 0.8)]
    for i, (x, y) in enumerate(users):
        ax.add_patch(_box((x - 0.6, y - 0.35), 1.2, 0.7, "#e8f4e0"))
        name = f"user {i + 1}" if i < 3 else "user K"
        ax.text(x, y, name, ha="center", va="center", fontsize=8)
        ax.annotate("", xy=(7.2, 3.25), xytext=(x + 0.6, y), arrowprops=dict(arrowstyle="->", color="C0", lw=1))
        ax.text((x + 7.2) / 2 - 0.6, (y + 3.25) / 2 + 0.12, f"$h_{{{i + 1 if i < 3 else 'K'}}}x_{{{i + 1 if i < 3 else 'K'}}}$",
                fontsize=7, color="C0")
    ax.text(1.2, 1.75, "...", ha="center", fontsize=12)
    ax.add_patch(_box((3.6, 0.0), 2.0, 0.7, "#f8e0e0"))
    ax.text(4.6, 0.35, "cooperative jammer", ha="center", va="center", fontsize=8)
    ax.annotate("", xy=(7.6, 2.6), xytext=(5.6, 0.35), arrowprops=dict(arrowstyle="->", color="C3", lw=1, ls="--"))
    ax.text(6.5, 1.1, r"$h_{CJ}\,\alpha_{CJ}\,n_{CJ}$", fontsize=7, color="C3")
    ax.annotate("", xy=(8.4, 3.9), xytext=(8.4, 5.2), arrowprops=dict(arrowstyle="->", color="k", lw=1))
    ax.text(8.4, 5.35, r"AWGN $z\sim\mathcal{N}(0,\sigma_c^2 I)$", ha="center", fontsize=8)
    ax.text(5.0, 6.25, r"$y=\sum_i h_i x_i + h_{CJ}x_{CJ} + z$  (eq. 10, analog NOMA, block Rayleigh fading)",
            ha="center", fontsize=8)
    suptitle(f, f"{fig.paper_ref}: {fig.title}", ctx.profile, "schematic (no runs)")
    return _rendered(tidy_frame([]), f)


def _box(xy, w, h, color):
    from matplotlib.patches import FancyBboxPatch

    return FancyBboxPatch(xy, w, h, boxstyle="round,pad=0.05", facecolor=color, edgecolor="k", lw=0.8)


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"fig1": _render_diagram, **{f"fig{i}": _render_curves for i in range(2, 11)}}
