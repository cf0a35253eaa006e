"""ACFL figures: Fig. 1 (analytic), Fig. 2 (schematic), Figs. 3-4 (training loss), tables 91-92."""

from __future__ import annotations

import numpy as np

from repro.experiment import FigureSpec, RenderContext, Rendered
from repro.plotting import draw_tables, markdown_tables, subplots, suptitle
from repro.results import tidy_frame

def _only(fig, results) -> tuple[str, dict]:
    (rid,) = fig.run_ids
    return rid, results[rid]


# ---------------------------------------------------------------------------------------------- Fig. 1
def _fig1(fig, results, ctx) -> Rendered:
    rid, res = _only(fig, results)
    grid, ref = res["grid"], res["reference"]
    eps = np.asarray(grid["epsilon"])
    fixed = [f"alpha={a:g}" for a in res["alphas"]]
    rows = []
    for series in fixed + ["adaptive"]:
        rows += [dict(figure="fig1", panel="a", series=series, x=e, metric="bound", value=v, seed=0, run_id=rid)
                 for e, v in zip(eps, grid[series])]
    for metric in ("sigma2", "alpha_star"):
        rows += [dict(figure="fig1", panel="a", series="adaptive", x=e, metric=metric, value=v, seed=0, run_id=rid)
                 for e, v in zip(eps, grid[metric])]
    rows += [dict(figure="fig1", panel="b", series="adaptive", x=e, metric="bound", value=v, seed=0, run_id=rid)
             for e, v in zip(eps, grid["adaptive"])]
    for metric, key in (("bound", "adaptive"), ("alpha_star", "alpha_star"), ("sigma2", "sigma2")):
        rows += [dict(figure="fig1", panel="b", series="adaptive (reference eps)", x=e, metric=metric, value=v, seed=0,
                      run_id=rid) for e, v in zip(ref["epsilon"], ref[key])]

    f, axes = subplots(1, 2, width=4.6, height=3.5)
    ax = axes[0, 0]
    colours = ["#1f77b4", "#2ca02c", "#9467bd"]
    for series, c in zip(fixed, colours):
        ax.loglog(eps, grid[series], color=c, ls="--", label=f"fixed $\\alpha$ = {series.split('=')[1]}")
    ax.loglog(eps, grid["adaptive"], color="#d62728", lw=2.2, label="adaptive $\\alpha^*$ (eq. 36)")
    ax.set_xlabel(r"privacy level $\epsilon$ (nats, eq. 17)")
    ax.set_ylabel(r"upper bound (33) on $E\|W_T-W^*\|_F^2$")
    ax.set_title("(a) fixed vs adaptive aggregation weight")
    ax.legend(loc="upper right")
    ax = axes[0, 1]
    ax.semilogx(eps, grid["adaptive"], color="#d62728", lw=2.0, label=r"adaptive $\alpha^*$")
    ax.semilogx(ref["epsilon"], ref["adaptive"], "o", color="black", ms=3.5, label="reference points (guide 3.2)")
    ax.set_xlabel(r"privacy level $\epsilon$ (nats, eq. 17)")
    ax.set_ylabel("upper bound (33)")
    ax.set_title("(b) adaptive policy only (linear y)")
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.legend(loc="lower left")
    p = ctx.params
    suptitle(f, "ACFL Fig. 1: learning-privacy trade-off of the bound (33)", ctx.profile,
             f"d={p['fig1_d']}, o={p['fig1_o']}, p={p['fig1_p']}, N={p['fig1_N']}, beta={p['fig1_beta']:g}, "
             f"C={p['fig1_C']:g}, T={p['fig1_T']}, lambda={p['fig1_lambda']:g}, sigma1^2 = sigma2^2")
    return Rendered(tidy_frame(rows), f)


# ---------------------------------------------------------------------------------------------- Fig. 2
def _box(ax, x, y, w, h, text, fc="#eef3fb", ec="#1f4e8c", fs=7.5):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.01,rounding_size=0.02", fc=fc, ec=ec, lw=1.2))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fs)


def _arrow(ax, xy_from, xy_to, text="", colour="#333333", ls="-", fs=6.8, offset=(0, 0.02)):
    ax.annotate("", xy=xy_to, xytext=xy_from, arrowprops=dict(arrowstyle="->", color=colour, lw=1.2, ls=ls))
    if text:
        mx, my = (xy_from[0] + xy_to[0]) / 2 + offset[0], (xy_from[1] + xy_to[1]) / 2 + offset[1]
        ax.text(mx, my, text, ha="center", va="bottom", fontsize=fs, color=colour)


def _fig2(fig, results, ctx) -> Rendered:
    f, axes = subplots(1, 1, width=10.0, height=5.2)
    ax = axes[0, 0]
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    devices = [(0.80, "Device 1\n$X^{(1)}, Y^{(1)}$", False), (0.50, "Device i\n$X^{(i)}, Y^{(i)}$", False),
               (0.20, "Device N (straggler\nin iteration t)", True)]
    for y, label, straggler in devices:
        _box(ax, 0.02, y - 0.07, 0.16, 0.14, label, fc="#fdf1e6" if straggler else "#eef3fb",
             ec="#b35900" if straggler else "#1f4e8c")
    ax.text(0.10, 0.36, "...", ha="center", fontsize=14)
    ax.text(0.10, 0.64, "...", ha="center", fontsize=14)
    _box(ax, 0.66, 0.12, 0.32, 0.80,
         "Server\n\nStage 1 (once): global coded dataset\n"
         r"$\tilde H_X=\sum_i H_X^{(i)},\ \tilde H_Y=\sum_i H_Y^{(i)}$ (4)" "\n\n"
         "Stage 2, every iteration t:\n"
         r"$G^S_t=\tilde H_X W_t-\tilde H_Y$ (8)" "\n"
         r"adaptive $\alpha_t$ from $\hat\beta^2_t,\ \hat C^2_t$ (42)-(43)" "\n"
         r"$G^{All}_t=\alpha_t G^S_t+\frac{1-\alpha_t}{1-p}\sum_i I^{(i)}_t G^{(i)}_t$ (9)" "\n"
         r"$W_{t+1}=W_t-\eta_t G^{All}_t$ (10)", fc="#eef8ee", ec="#2b7a2b", fs=8)
    # Stage 1 uploads (once)
    _arrow(ax, (0.18, 0.84), (0.66, 0.84), r"Stage 1 (once): $H_X^{(i)}=X^{(i)T}X^{(i)}+N_1^{(i)}$, "
           r"$H_Y^{(i)}=X^{(i)T}Y^{(i)}+N_2^{(i)}$ (2)-(3)", colour="#1f4e8c")
    _arrow(ax, (0.18, 0.54), (0.66, 0.54), "Stage 1 (once): coded data with Gaussian noise", colour="#1f4e8c")
    # Stage 2 gradients
    _arrow(ax, (0.18, 0.76), (0.66, 0.70), r"$G^{(1)}_t=X^{(1)T}(X^{(1)}W_t-Y^{(1)})$ (7)", colour="#2b7a2b",
           offset=(0, -0.055))
    _arrow(ax, (0.18, 0.46), (0.66, 0.42), r"$G^{(i)}_t$ (7), if $I^{(i)}_t=1$ (prob. $1-p$)", colour="#2b7a2b",
           offset=(0, -0.05))
    _arrow(ax, (0.18, 0.22), (0.40, 0.22), "", colour="#b35900", ls="--")
    ax.text(0.42, 0.22, "X  straggler: nothing sent (5)-(6)", fontsize=7, color="#b35900", va="center")
    # broadcast
    _arrow(ax, (0.66, 0.14), (0.18, 0.14), r"broadcast $W_{t+1}$ to all devices", colour="#555555",
           offset=(0, -0.06))
    suptitle(f, "ACFL Fig. 2: the implementation of ACFL (Algorithm 1), schematic", ctx.profile)
    rows = [dict(figure="fig2", panel="", series="schematic", x=np.nan, metric="", value=np.nan, seed=-1, run_id="")]
    return Rendered(tidy_frame(rows), f)


# ------------------------------------------------------------------------------------------- Figs. 3-4
SUMMARY_METRICS = ("alpha_first", "alpha_tail_mean", "floor_loss")


def training_rows(fig_id: str, panel: str, rid: str, res: dict) -> list[dict]:
    """Tidy rows of one train_panel result: per-seed curves (loss, dist2, alpha) and summaries at x = T."""
    ts = np.asarray(res["record_at"], float)
    T = ts[-1]
    rows = []
    for si, seed in enumerate(res["seeds"]):
        for ci, cfg in enumerate(res["configs"]):
            base = dict(figure=fig_id, panel=panel, series=cfg["series"], seed=seed, run_id=rid)
            for metric in ("loss", "dist2", "alpha"):
                vals = res[metric][si][ci]
                rows += [dict(base, x=t, metric=metric, value=v) for t, v in zip(ts, vals)
                         if not (metric == "alpha" and t == 0)]
            for metric in SUMMARY_METRICS:
                rows.append(dict(base, x=T, metric=metric, value=res[metric][si][ci]))
            rows.append(dict(base, x=T, metric="sigma2", value=cfg["sigma2"]))
            if cfg["epsilon"] is not None:
                rows.append(dict(base, x=T, metric="epsilon", value=cfg["epsilon"]))
    return rows


def _training(fig, results, ctx) -> Rendered:
    runs = sorted(((r.params["panel"], r.run_id, r.params) for r in fig.runs))
    f, axes = subplots(1, len(runs), width=5.4 if len(runs) > 1 else 8.5, height=4.0)
    rows = []
    for ax, (panel, rid, rp) in zip(axes.flat, runs):
        res = results[rid]
        rows += training_rows(fig.fig_id, panel, rid, res)
        ts = np.asarray(res["record_at"])
        loss = np.asarray(res["loss"], float)  # (S, R, K)
        levels = rp["levels"]
        cmap = ["#1f77b4", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd", "#8c564b"]
        for ci, cfg in enumerate(res["configs"]):
            if cfg["method"] == "ALPHA0":
                continue  # reference only (CSV, claim C23), not in the paper's figure
            level = cfg["sigma2"] if rp["noise"] == "sigma2" else cfg["epsilon"]
            lvl_key = level if rp["noise"] == "sigma2" else cfg["epsilon"]
            colour = cmap[[float(v) for v in levels].index(float(lvl_key)) % len(cmap)]
            solid = cfg["method"] == "ACFL"
            mean = loss[:, ci].mean(0)
            label_lvl = (f"$\\sigma^2$={cfg['sigma2']:g}" if rp["noise"] == "sigma2"
                         else f"$\\epsilon$={cfg['epsilon']:g} ($\\sigma^2$={cfg['sigma2']:.3g})")
            name = {"ACFL": "ACFL", "NA": "NA", "SCFL": "SCFL (reconstr.)"}[cfg["method"]]
            ax.plot(ts, mean, color=colour, ls="-" if solid else "--", lw=1.6 if solid else 1.3,
                    label=f"{name}, {label_lvl}")
            if loss.shape[0] > 1:
                ax.fill_between(ts, loss[:, ci].min(0), loss[:, ci].max(0), color=colour, alpha=0.15, lw=0)
        ax.set_yscale("log")
        ax.set_xlabel("iteration t")
        ax.set_ylabel(r"training loss $f(W_t)$ (eq. 1)")
        title = (f"({panel}) straggler probability p = {rp['p']:g}" if fig.fig_id == "fig3"
                 else f"p = {rp['p']:g}, equal $\\epsilon$-MI-DP (nats)")
        ax.set_title(title)
        if fig.fig_id == "fig3":
            ax.legend(ncol=2, fontsize=6.5, loc="upper right")
        else:
            ax.legend(ncol=1, fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    seeds = runs[0][2]["seeds"]
    note = (f"synthetic linear regression N=100, m=100, d=o=10; eta_t = 1e-4/t; mean over {len(seeds)} seed(s), "
            "band = min-max; solid ACFL, dashed " + ("NA (alpha=0.5)" if fig.fig_id == "fig3"
                                                     else "SCFL (reconstructed stand-in, guide 6.2)"))
    title = ("ACFL Fig. 3: training loss of ACFL and NA, different noise variances" if fig.fig_id == "fig3"
             else "ACFL Fig. 4: training loss of ACFL and SCFL at equal privacy")
    suptitle(f, title, ctx.profile, note)
    return Rendered(tidy_frame(rows), f)


# ---------------------------------------------------------------------------------------------- tables
def _table91(fig, results, ctx) -> Rendered:
    rid, res = _only(fig, results)
    dims = res["dims"]
    rows = []
    acfl_series, scfl_series = f"ACFL (d={dims['d']}, o={dims['o']})", f"SCFL reconstructed (c={dims['c']})"
    for e, sa, ss in zip(res["eps_grid"], res["sigma2_acfl"], res["sigma2_scfl"]):
        rows.append(dict(figure="table91", panel="a", series=acfl_series, x=e, metric="sigma2_for_epsilon", value=sa, run_id=rid, seed=0))
        rows.append(dict(figure="table91", panel="a", series=scfl_series, x=e, metric="sigma2_for_epsilon", value=ss, run_id=rid, seed=0))
    for s, e in zip(res["sigma2_grid"], res["eps_acfl"]):
        rows.append(dict(figure="table91", panel="b", series=acfl_series, x=s, metric="epsilon_for_sigma2", value=e, run_id=rid, seed=0))
    rows.append(dict(figure="table91", panel="b", series=f"ACFL (d={dims['fig1_d']}, o={dims['fig1_o']})", x=1.0,
                     metric="epsilon_for_sigma2", value=res["eps_fig1_sigma2_1"], run_id=rid, seed=0))
    ov = f"overhead (phi={dims['phi']}, d={dims['d']}, o={dims['o']}, N={dims['N']}, T={dims['T']})"
    for metric in ("psi1", "psi2", "psi2_expected"):
        rows.append(dict(figure="table91", panel="c", series=ov, x=np.nan, metric=metric, value=res[metric], run_id=rid, seed=0))
    rows.append(dict(figure="table91", panel="c", series=ov, x=np.nan, metric="psi2_over_psi1",
                     value=res["psi2"] / res["psi1"], run_id=rid, seed=0))
    blocks = [
        ("(a) noise variance for a target eps (nats); sigma1^2 = sigma2^2", ["eps", "sigma^2 ACFL (eq. 17 inverse)", "sigma^2 SCFL (reconstructed map)"],
         [[f"{e:g}", f"{sa:.6g}", f"{ss:.6g}"] for e, sa, ss in zip(res["eps_grid"], res["sigma2_acfl"], res["sigma2_scfl"])]),
        ("(b) eps of ACFL (eq. 17) for the Fig. 3 noise grid", ["sigma^2", f"eps (d={dims['d']}, o={dims['o']})"],
         [[f"{s:g}", f"{e:.6g}"] for s, e in zip(res["sigma2_grid"], res["eps_acfl"])]
         + [[f"1 (d={dims['fig1_d']}, o={dims['fig1_o']})", f"{res['eps_fig1_sigma2_1']:.7g}"]]),
        ("(c) communication overhead, Remark 1 (eqs. 11-13), bits", ["psi1 (Stage 1)", "psi2 (eq. 13, as printed)",
                                                                     "psi2 / psi1", "psi2 expected, (1-p)N devices"],
         [[f"{res['psi1']:,}", f"{res['psi2']:,}", f"{res['psi2'] / res['psi1']:g}", f"{res['psi2_expected']:,.0f}"]]),
    ]
    f = draw_tables(blocks, "ACFL supplementary table (not in the paper): privacy map and overhead", ctx.profile)
    return Rendered(tidy_frame(rows), f, markdown=markdown_tables(blocks, fig.title))


def _table92(fig, results, ctx) -> Rendered:
    rid, res = _only(fig, results)
    rows = [dict(figure="table92", panel="", series=r["claim"], x=np.nan, metric=r["check"], value=r["value"], seed=0,
                 run_id=rid) for r in res["rows"]]
    blocks = [("checks behind claims C1-C11 (claims.json holds pass/fail)", ["claim", "check", "value", "note"],
               [[r["claim"], r["check"], f"{r['value']:.6g}", r["note"]] for r in res["rows"]])]
    f = draw_tables(blocks, "ACFL supplementary table (not in the paper): checks of the theory", ctx.profile, width=13,
                    col_widths=[0.05, 0.28, 0.1, 0.57])
    return Rendered(tidy_frame(rows), f, markdown=markdown_tables(blocks, fig.title))


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"fig1": _fig1, "fig2": _fig2, "fig3": _training, "fig4": _training, "table91": _table91, "table92": _table92}
