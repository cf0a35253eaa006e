"""ACFL figures: Fig. 1 (analytic), Fig. 2 (schematic), Figs. 3-4 (training loss), the supplementary
alpha_t figure, tables 91-92 and the privacy table.

CSV conventions (read by ``claims.py``): deterministic rows have ``seed = -1``; training rows carry
their seed. Training metrics: ``loss`` (f(W_t), eq. 1) at the recorded iterations x = t; ``alpha``
(ACFL's weight, eq. 43) and the estimates it used, ``beta2_hat`` (eq. 42) and ``C2_hat`` (||W_t||^2), at
t >= 1; at x = T the summaries ``dist2`` (||W_T - W*||^2), ``alpha_first``,
``alpha_tail_mean``, ``floor_loss`` (f at the fixed point of a fixed weight), ``sigma2``, ``epsilon``.
"""

from __future__ import annotations

import textwrap

import numpy as np

from repro.experiment import Rendered
from repro.plotting import draw_tables, markdown_tables, subplots, suptitle
from repro.privacy.certify import Certificate
from repro.results import tidy_frame
from repro.stats import mean_interval

DET = -1  # seed of deterministic rows
METHOD_STYLE = {"ACFL": ("-", 1.7), "NA": ("--", 1.3), "SCFL": ("--", 1.3), "SCFL_ALT": ("-.", 0.9)}
METHOD_NAME = {"ACFL": "ACFL", "NA": "NA (α = 0.5)", "SCFL": "SCFL (reconstructed)",
               "SCFL_ALT": "SCFL, package alternative", "ALPHA0": "α = 0 (no coded data)"}
LEVEL_COLOURS = ["#1f77b4", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd", "#8c564b"]
EPS_NOTE = ("ε: mutual-information DP of the Stage-1 upload (Theorem 1, eq. 17), the paper's nominal value; table "
            "'privacy' has the (ε, δ)-DP certified for what was run (the gradients, sent without noise: ∞)")


def _wrap(text: str, width_in: float) -> str:
    """Wrap each line of a figure note to the figure's width (about 15 characters per inch at 10 pt)."""
    return "\n".join(textwrap.fill(line, int(15 * width_in)) for line in text.split("\n"))


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
    base = dict(figure="fig1", seed=DET, run_id=rid)
    for series in fixed + ["adaptive"]:
        rows += [dict(base, panel="a", series=series, x=e, metric="bound", value=v) for e, v in zip(eps, grid[series])]
    for metric in ("sigma2", "alpha_star"):
        rows += [dict(base, panel="a", series="adaptive", x=e, metric=metric, value=v) for e, v in zip(eps, grid[metric])]
    rows += [dict(base, panel="b", series="adaptive", x=e, metric="bound", value=v) for e, v in zip(eps, grid["adaptive"])]
    for metric, key in (("bound", "adaptive"), ("alpha_star", "alpha_star"), ("sigma2", "sigma2")):
        rows += [dict(base, panel="b", series="adaptive (reference eps)", x=e, metric=metric, value=v)
                 for e, v in zip(ref["epsilon"], ref[key])]

    f, axes = subplots(1, 2, width=4.6, height=3.6)
    ax = axes[0, 0]
    for series, c in zip(fixed, ["#1f77b4", "#2ca02c", "#9467bd"]):
        ax.loglog(eps, grid[series], color=c, ls="--", label=f"fixed $\\alpha$ = {series.split('=')[1]}")
    ax.loglog(eps, grid["adaptive"], color="#d62728", lw=2.2, label="adaptive $\\alpha^*$ (eq. 36)")
    ax.set_xlabel(r"$\epsilon$-MI-DP (eq. 17, nats; nominal)")
    ax.set_ylabel(r"upper bound (33) on $E\|W_T-W^*\|_F^2$")
    ax.set_title("(a) fixed vs adaptive aggregation weight")
    ax.legend(loc="upper right")
    ax = axes[0, 1]
    ax.semilogx(eps, grid["adaptive"], color="#d62728", lw=2.0, label=r"adaptive $\alpha^*$")
    ax.semilogx(ref["epsilon"], ref["adaptive"], "o", color="black", ms=3.5, label="reference eps points")
    ax.set_xlabel(r"$\epsilon$-MI-DP (eq. 17, nats; nominal)")
    ax.set_ylabel("upper bound (33)")
    ax.set_title("(b) adaptive weight only (linear y)")
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.legend(loc="lower left")
    p = ctx.params
    suptitle(f, "ACFL Fig. 1: learning-privacy trade-off of the bound (33)", ctx.profile,
             f"d={p['fig1_d']}, o={p['fig1_o']}, p={p['fig1_p']}, N={p['fig1_N']}, beta={p['fig1_beta']:g}, "
             f"C={p['fig1_C']:g}, T={p['fig1_T']}, lambda={p['fig1_lambda']:g}, sigma1^2 = sigma2^2; fixed alphas chosen "
             "(not stated)\nε: MI-DP of the Stage-1 upload (Theorem 1), the paper's nominal value; a bound, no run")
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
    rows = [dict(figure="fig2", panel="", series="schematic", x=np.nan, metric="", value=np.nan, seed=DET, run_id="")]
    return Rendered(tidy_frame(rows), f)


# ------------------------------------------------------------------------------------------- Figs. 3-4
SUMMARY_METRICS = ("alpha_first", "alpha_tail_mean", "floor_loss")


def training_rows(fig_id: str, panel: str, rid: str, res: dict) -> list[dict]:
    """Tidy rows of one train_panel result: per-seed loss curves, ACFL's alpha_t, summaries at x = T."""
    ts = np.asarray(res["record_at"], float)
    T = ts[-1]
    rows = []
    for si, seed in enumerate(res["seeds"]):
        for ci, cfg in enumerate(res["configs"]):
            base = dict(figure=fig_id, panel=panel, series=cfg["series"], seed=seed, run_id=rid)
            rows += [dict(base, x=t, metric="loss", value=v) for t, v in zip(ts, res["loss"][si][ci])]
            if cfg["method"] == "ACFL":   # the weight of eq. (43) and the estimates of eq. (42) it was computed from
                for metric in ("alpha", "beta2_hat", "C2_hat"):
                    rows += [dict(base, x=t, metric=metric, value=v) for t, v in zip(ts, res[metric][si][ci]) if t > 0]
            rows.append(dict(base, x=T, metric="dist2", value=res["dist2"][si][ci][-1]))
            for metric in SUMMARY_METRICS:
                rows.append(dict(base, x=T, metric=metric, value=res[metric][si][ci]))
            rows.append(dict(base, x=T, metric="sigma2", value=cfg["sigma2"]))
            if cfg["epsilon"] is not None:
                rows.append(dict(base, x=T, metric="epsilon", value=cfg["epsilon"]))
    return rows


def _band(values):
    """Seed mean and 95 % Student-t interval per iteration (rows: seeds)."""
    v = np.asarray(values, float)
    ivs = [mean_interval(v[:, k]) for k in range(v.shape[1])]
    return np.array([i.mean for i in ivs]), np.array([i.low for i in ivs]), np.array([i.high for i in ivs])


def _level_label(cfg, noise) -> str:
    if noise == "sigma2":
        return f"$\\sigma^2$={cfg['sigma2']:g} ($\\epsilon$={cfg['epsilon']:.3g})"
    return f"$\\epsilon$={cfg['epsilon']:g} ($\\sigma^2$={cfg['sigma2']:.3g})"


def _method_label(cfg) -> str:
    if cfg["method"] == "SCFL_ALT":
        return f"SCFL, {cfg['aggregation']} (package alt.)"
    if cfg["method"] == "SCFL":
        return f"SCFL, {cfg['aggregation']}" + (" (paper)" if cfg["aggregation"] == "sum" else " (package)")
    return METHOD_NAME[cfg["method"]]


def _training(fig, results, ctx) -> Rendered:
    runs = sorted(((r.params["panel"], r.run_id, r.params) for r in fig.runs))
    f, axes = subplots(2, len(runs), width=5.6 if len(runs) > 1 else 8.0, height=3.0,
                       gridspec_kw={"height_ratios": [1.65, 1.0]})
    outside = len(runs) == 1          # one panel (Fig. 4): the long legend goes to the right of the axes
    rows = []
    for j, (panel, rid, rp) in enumerate(runs):
        ax, rax = axes[0, j], axes[1, j]
        res = results[rid]
        rows += training_rows(fig.fig_id, panel, rid, res)
        ts = np.asarray(res["record_at"])
        loss = np.asarray(res["loss"], float)  # (S, R, K)
        levels = [float(v) for v in rp["levels"]]
        ref = [ci for ci, cfg in enumerate(res["configs"]) if cfg["method"] == "ALPHA0"]
        for ci, cfg in enumerate(res["configs"]):
            mean, lo, hi = _band(loss[:, ci])
            if cfg["method"] == "ALPHA0":
                ax.plot(ts, mean, color="black", ls=":", lw=1.8, label=f"{METHOD_NAME['ALPHA0']}, no Stage-1 upload", zorder=5)
                continue
            level = cfg["sigma2"] if rp["noise"] == "sigma2" else cfg["epsilon"]
            colour = LEVEL_COLOURS[levels.index(float(level)) % len(LEVEL_COLOURS)]
            ls, lw = METHOD_STYLE[cfg["method"]]
            ax.plot(ts, mean, color=colour, ls=ls, lw=lw, label=f"{_method_label(cfg)}, {_level_label(cfg, rp['noise'])}")
            if loss.shape[0] > 1:
                ax.fill_between(ts, lo, hi, color=colour, alpha=0.15, lw=0)
            if cfg["method"] == "ACFL" and ref:   # (lower panel) ACFL / alpha = 0, per seed, mean and 95 % interval
                r_mean, r_lo, r_hi = _band(loss[:, ci, 1:] / loss[:, ref[0], 1:])
                rax.plot(ts[1:], r_mean, color=colour, lw=1.4, label=_level_label(cfg, rp["noise"]))
                if loss.shape[0] > 1:
                    rax.fill_between(ts[1:], r_lo, r_hi, color=colour, alpha=0.2, lw=0)
        ax.set_yscale("log")
        ax.set_ylabel(r"training loss $f(W_t)$ (eq. 1)")
        ax.set_title(f"({panel}) straggler probability p = {rp['p']:g}" if fig.fig_id == "fig3"
                     else f"p = {rp['p']:g}, equal nominal $\\epsilon$-MI-DP (nats)")
        if outside:
            ax.legend(ncol=1, fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        else:
            ax.legend(ncol=1, fontsize=6.0, loc="upper right")
        rax.axhline(1.0, color="black", ls=":", lw=1.2)
        rax.set_xlabel("iteration t")
        rax.set_ylabel("ACFL / α = 0")
        rax.set_title("loss ratio ACFL / α = 0 (no coded data), per seed: mean, 95 % interval", fontsize=8.5)
        if outside:
            rax.legend(ncol=1, fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        else:
            rax.legend(ncol=2, fontsize=6.0, loc="best")
    seeds = runs[0][2]["seeds"]
    rp = runs[0][2]
    ratios = [c.ratio for _, _, c in certificates(fig, results, ctx.params) if np.isfinite(c.ratio)]
    note = (f"synthetic linear regression N={rp['num_devices']}, m={rp['samples_per_device']}, d={rp['dim_in']}, "
            f"o={rp['dim_out']}; eta_t = {rp['eta0']:g}/t; mean over {len(seeds)} seeds, band = 95 % interval; solid ACFL, "
            + ("dashed NA" if fig.fig_id == "fig3" else
               f"dashed SCFL (the package's reconstruction: projection and privacy map; global coded dataset = the "
               f"{rp['scfl_aggregation']} of the local ones" + (", as the paper states" if rp["scfl_aggregation"] == "sum"
                                                                else "") + f"; c = {rp['scfl_code_rows']})"
               + (f", dash-dot SCFL with the package's alternative {rp['scfl_alternative_aggregation']} coded dataset "
                  "(Gram sums of every upload, a more generous baseline)" if rp["scfl_alternative_aggregation"] != "none"
                  else "")) + "; noise levels chosen (not stated)\n" + EPS_NOTE
            + f"; here the certified (ε, δ = {ctx.params['privacy_delta']:g})-DP of the Stage-1 upload is "
              f"{min(ratios):.3g}-{max(ratios):.3g} × the nominal ε")
    title = ("ACFL Fig. 3: training loss of ACFL, NA and α = 0 at different noise variances" if fig.fig_id == "fig3"
             else "ACFL Fig. 4: training loss of ACFL, SCFL (reconstructed) and α = 0 at equal nominal ε")
    suptitle(f, title, ctx.profile, _wrap(note, f.get_figwidth()))
    return Rendered(tidy_frame(rows), f)


def _fig91(fig, results, ctx) -> Rendered:
    runs = sorted(((r.params["figure"], r.params["panel"], r.run_id, r.params) for r in fig.runs))
    f, axes = subplots(1, len(runs), width=3.8, height=3.4)
    rows = []
    for ax, (fig_id, panel, rid, rp) in zip(axes.flat, runs):
        res = results[rid]
        ts = np.asarray(res["record_at"])[1:]
        alpha = np.asarray(res["alpha"], float)[:, :, 1:]
        levels = [float(v) for v in rp["levels"]]
        for ci, cfg in enumerate(res["configs"]):
            if cfg["method"] != "ACFL":
                continue
            level = cfg["sigma2"] if rp["noise"] == "sigma2" else cfg["epsilon"]
            colour = LEVEL_COLOURS[levels.index(float(level)) % len(LEVEL_COLOURS)]
            mean = alpha[:, ci].mean(0)
            ax.loglog(ts, mean, color=colour, label=_level_label(cfg, rp["noise"]))
            rows += [dict(figure="fig91", panel=f"{fig_id}{panel}", series=cfg["series"], x=float(t), metric="alpha_mean_over_seeds",
                          value=float(v), seed=DET, run_id=rid) for t, v in zip(ts, mean)]
        ax.set_xlabel("iteration t")
        ax.set_ylabel(r"ACFL weight $\alpha_t$ (eq. 43)")
        ax.set_title(f"{'Fig. 3' if fig_id == 'fig3' else 'Fig. 4'}{'(' + panel + ')' if fig_id == 'fig3' else ''}: "
                     f"p = {rp['p']:g}", fontsize=9)
        ax.legend(fontsize=6.5)
    suptitle(f, "Supplementary (not in the paper): the weight ACFL gives the coded gradient", ctx.profile,
             f"mean over {len(runs[0][3]['seeds'])} seeds of alpha_t of eq. (43); the same runs as Figs. 3 and 4")
    return Rendered(tidy_frame(rows), f)


# ---------------------------------------------------------------------------------------------- tables
def _table91(fig, results, ctx) -> Rendered:
    rid, res = _only(fig, results)
    dims = res["dims"]
    rows = []
    acfl_series, scfl_series = f"ACFL (d={dims['d']}, o={dims['o']})", f"SCFL reconstructed (c={dims['c']})"
    base = dict(figure="table91", run_id=rid, seed=DET)
    for e, sa, ss in zip(res["eps_grid"], res["sigma2_acfl"], res["sigma2_scfl"]):
        rows.append(dict(base, panel="a", series=acfl_series, x=e, metric="sigma2_for_epsilon", value=sa))
        rows.append(dict(base, panel="a", series=scfl_series, x=e, metric="sigma2_for_epsilon", value=ss))
    for s, e in zip(res["sigma2_grid"], res["eps_acfl"]):
        rows.append(dict(base, panel="b", series=acfl_series, x=s, metric="epsilon_for_sigma2", value=e))
    rows.append(dict(base, panel="b", series=f"ACFL (d={dims['fig1_d']}, o={dims['fig1_o']})", x=1.0,
                     metric="epsilon_for_sigma2", value=res["eps_fig1_sigma2_1"]))
    ov = f"overhead (phi={dims['phi']}, d={dims['d']}, o={dims['o']}, N={dims['N']}, T={dims['T']})"
    for metric in ("psi1", "psi2", "psi2_expected"):
        rows.append(dict(base, panel="c", series=ov, x=np.nan, metric=metric, value=res[metric]))
    rows.append(dict(base, panel="c", series=ov, x=np.nan, metric="psi2_over_psi1", value=res["psi2"] / res["psi1"]))
    blocks = [
        ("(a) noise variance for a target eps-MI-DP (nats); sigma1^2 = sigma2^2",
         ["eps", "sigma^2 ACFL (eq. 17 inverse)", "sigma^2 SCFL (the package's map)"],
         [[f"{e:g}", f"{sa:.6g}", f"{ss:.6g}"] for e, sa, ss in zip(res["eps_grid"], res["sigma2_acfl"], res["sigma2_scfl"])]),
        ("(b) eps-MI-DP of ACFL (eq. 17) for the Fig. 3 noise grid", ["sigma^2", f"eps (d={dims['d']}, o={dims['o']})"],
         [[f"{s:g}", f"{e:.6g}"] for s, e in zip(res["sigma2_grid"], res["eps_acfl"])]
         + [[f"1 (d={dims['fig1_d']}, o={dims['fig1_o']})", f"{res['eps_fig1_sigma2_1']:.7g}"]]),
        ("(c) communication overhead, Remark 1 (eqs. 11-13), bits", ["psi1 (Stage 1)", "psi2 (eq. 13, as printed)",
                                                                     "psi2 / psi1", "psi2 expected, (1-p)N devices"],
         [[f"{res['psi1']:,}", f"{res['psi2']:,}", f"{res['psi2'] / res['psi1']:g}", f"{res['psi2_expected']:,.0f}"]]),
    ]
    f = draw_tables(blocks, "ACFL supplementary table (not in the paper): privacy map and overhead", ctx.profile)
    return Rendered(tidy_frame(rows), f, markdown=markdown_tables(blocks, fig.title))


def _table92(fig, results, ctx) -> Rendered:
    rows, det_cells, mc = [], [], {}
    for r in fig.runs:
        res = results[r.run_id]
        seed = res.get("seed", DET)
        for row in res["rows"]:
            rows.append(dict(figure="table92", panel=row["claim"], series=row["check"], x=np.nan, metric=row["check"],
                             value=row["value"], seed=seed, run_id=r.run_id))
            if seed == DET:
                det_cells.append([row["claim"], row["check"], f"{row['value']:.6g}", row["note"]])
            else:
                mc.setdefault((row["claim"], row["check"]), {"note": row["note"], "values": []})["values"].append(row["value"])
    mc_cells = []
    for (claim, check), v in mc.items():
        iv = mean_interval(v["values"])
        mc_cells.append([claim, check, f"{iv.mean:.4g} [{iv.low:.3g}, {iv.high:.3g}]", v["note"]])
    n_seeds = len([r for r in fig.runs if r.task == "theory_mc"])
    blocks = [("analytic identities (deterministic)", ["result", "check", "value", "note"], det_cells),
              (f"Monte-Carlo checks: mean over {n_seeds} seeds [95 % interval]", ["result", "check", "value", "note"], mc_cells)]
    f = draw_tables(blocks, "ACFL supplementary table (not in the paper): checks of the theory", ctx.profile, width=14,
                    col_widths=[0.07, 0.27, 0.16, 0.5], fontsize=6.8)
    return Rendered(tidy_frame(rows), f, markdown=markdown_tables(blocks, fig.title))


def certificates(fig, results, params) -> list[tuple[str, str, Certificate]]:
    """One Certificate per private configuration run: (figure panel, configuration, certificate)."""
    delta = params["privacy_delta"]
    out = []
    for r in sorted(fig.runs, key=lambda r: (r.params["figure"], r.params["panel"])):
        res = results[r.run_id]
        panel = f"{r.params['figure']}({r.params['panel']})" if r.params["figure"] == "fig3" else r.params["figure"]
        sens = res["stage1_sensitivity"]
        for cfg in res["configs"]:
            if cfg["method"] == "ALPHA0":
                continue
            m = cfg["method"]
            scfl_like = m in ("SCFL", "SCFL_ALT")
            source = "Theorem 1, eq. (17)" if not scfl_like else "the package's SCFL map (not the paper's)"
            what = ("X^T X + N1, X^T Y + N2 (eqs. 2-3)" if not scfl_like else "G_i X_i + Z_i, G_i Y_i + Z'_i (projection)")
            out.append((panel, f"{_method_label(cfg)}, {cfg['series'].split(' ', 1)[1]} - Stage-1 upload", Certificate(
                mechanism=f"one Gaussian release per device of {what}, noise std sigma = {np.sqrt(cfg['sigma2']):.4g}",
                nominal_epsilon=cfg["epsilon"], nominal_source=f"MI-DP, {source}", noise_std=float(np.sqrt(cfg["sigma2"])),
                sensitivity=float(sens[m]), releases=1, delta=delta,
                assumptions="neighbours differ in one data entry in [-1, 1] (Definition 1, A1); L2 sensitivity of the "
                            "upload to that entry" + (" for the realised projections" if scfl_like else ""))))
        out.append((panel, "every method - Stage-2 gradients (eq. 7), each iteration", Certificate(
            mechanism=f"{r.params['iterations']} releases per device of its exact gradient (no noise)",
            nominal_epsilon=float("nan"), nominal_source="none: the paper protects Stage 1 only (Sec. VI)", noise_std=0.0,
            sensitivity=1.0, releases=int(r.params["iterations"]), delta=delta,
            assumptions="gradients are sent in the clear, so no finite epsilon holds for the whole protocol")))
    return out


def _privacy(fig, results, ctx) -> Rendered:
    rows, cells = [], []
    for panel, config, c in certificates(fig, results, ctx.params):
        rows += c.tidy_rows("privacy", panel, config, x=c.nominal_epsilon if np.isfinite(c.nominal_epsilon) else 0.0)
        cert = "inf" if np.isinf(c.certified_epsilon) else f"{c.certified_epsilon:.4g}"
        cells.append([panel, config, "-" if not np.isfinite(c.nominal_epsilon) else f"{c.nominal_epsilon:.4g}",
                      f"{c.sensitivity:.3g}" if c.noise_std > 0 else "-", f"{c.noise_std:.3g}", cert,
                      "-" if not np.isfinite(c.ratio) else f"{c.ratio:.3g}", "yes" if c.flagged else "no"])
    header = ["figure", "configuration", "nominal eps\n(MI-DP)", "L2 sensi-\ntivity", "noise\nstd", "certified eps\n(RDP)",
              "certified /\nnominal", "differ\n> 2x"]
    note = (f"Certified: dp-accounting's RDP accountant, delta = {ctx.params['privacy_delta']:g}, for the mechanism as run "
            "(one Gaussian upload per device; per-entry neighbours, the paper's Definition 1). MI-DP (Theorem 1) bounds a "
            "mutual information, not the likelihood ratio that (eps, delta)-DP bounds; the two numbers are not the same "
            "notion, and the paper states only the first. The gradients of Stage 2 are released without noise.")
    blocks = [("", header, cells)]
    f = draw_tables(blocks, "Privacy as run: nominal eps-MI-DP vs certified (eps, delta)-DP", ctx.profile, width=13,
                    col_widths=[0.07, 0.39, 0.08, 0.08, 0.07, 0.11, 0.09, 0.07], fontsize=6.8)
    return Rendered(tidy_frame(rows), f, markdown=markdown_tables(blocks, fig.title, note))


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"fig1": _fig1, "fig2": _fig2, "fig3": _training, "fig4": _training, "fig91": _fig91, "table91": _table91,
             "table92": _table92, "privacy": _privacy}
