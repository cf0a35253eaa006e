"""Rendering of ``age_dp``'s figures and tables from the run results (tidy CSV + picture).

CSV conventions (read by ``claims.py``): exact (deterministic) rows have ``seed = -1``; Monte-Carlo
rows carry their seed. Metrics: ``loss_difference`` (exact (G1)), ``loss_difference_mc`` and
``loss_difference_mc_se`` (per seed), ``inverse_epsilon_c``, ``t_c_1..t_c_m`` (chosen schedule),
``upper_bound`` (G2), ``delta_tv`` and ``epsilon_c[eps_bar=...]`` (calibration table of eq. (5)),
``schedules_evaluated``; Fig. 2(d): ``shape_holds[client i]`` and ``shapes_holding`` per
(eps_bar = x, series ``s=...``); fig91 panel ``bound check``: ``upper_bound_at_tightest``,
``loss_difference_at_tightest``, ``violations``, ``schedules_checked`` per (reading: noise mode, eps_bar);
table91 / fig92 panel ``s scan``: the Fig. 3 rule counts, ``fig2_window_low/high``, ``log10_loss_min/max`` per s
(series ``s=...``, x = s); privacy table: the metrics of :mod:`repro.privacy.certify`.
"""

from __future__ import annotations

import re

import numpy as np

from repro.experiment import Rendered
from repro.papers.age_dp.checks import PANEL_SHAPES
from repro.papers.age_dp.scheduler import SCHEME_LEGENDS, SCHEME_NUMBERS, SCHEMES
from repro.plotting import draw_tables, markdown_tables, subplots, suptitle
from repro.privacy.age_dependent import age_dependent_epsilon
from repro.results import tidy_frame
from repro.stats import mean_interval

EXACT_SEED = -1
_STYLE = {  # colour, marker, linestyle per scheme
    "rc": ("#1f77b4", "o", "-"), "ra": ("#ff7f0e", "s", "-"), "nc": ("#2ca02c", "^", "--"),
    "sc": ("#d62728", "v", ":"), "na": ("#9467bd", "D", "-"), "sa": ("#8c564b", "x", ":"),
}
_EPS_METRIC = re.compile(r"^epsilon_c\[eps_bar=(?P<eps>[0-9.eE+-]+)\]$")
FSE_LABEL = {"printed": "printed f~_SE (paper)", "standard": "continuous f~_SE (package alternative)"}
SHAPE_TEXT = {"fresher_better": "freshest t_c optimal", "interior": "interior optimum"}


def epsilon_metric(eps_bar: float) -> str:
    return f"epsilon_c[eps_bar={eps_bar:g}]"


def parse_epsilon_metric(metric: str) -> float | None:
    m = _EPS_METRIC.match(str(metric))
    return float(m.group("eps")) if m else None


def alternative_series(key: str, form: str) -> str:
    """Series name of a 'numerical opt' scheme computed with the other f~_SE form."""
    return f"{SCHEME_LEGENDS[key]} [{FSE_LABEL[form]}]"


def model_note(params: dict) -> str:
    return (f"synthetic {len(params['transition_q'])}-client Markov model; chosen where the paper is silent: "
            f"s = {params['sensitivity']:g}, t_agg = {params['t_agg']}, chain from slot 1 ({params['chain_anchor']}); "
            f"{FSE_LABEL[params['fse_form']]}")


def _split(fig, results):
    """(exact run id, exact result, [(mc run id, mc result) by seed])."""
    exact = [(r.run_id, results[r.run_id]) for r in fig.runs if r.task.endswith("_exact")]
    mc = sorted(((r.run_id, results[r.run_id]) for r in fig.runs if r.task.endswith("_mc")), key=lambda kv: kv[1]["seed"])
    (eid, eres), = exact
    return eid, eres, mc


def _seed_interval(values_by_seed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over seeds and its 95 % Student-t interval, per point (rows: seeds)."""
    v = np.asarray(values_by_seed, dtype=float)
    ivs = [mean_interval(v[:, j]) for j in range(v.shape[1])]
    return np.array([i.mean for i in ivs]), np.array([i.low for i in ivs]), np.array([i.high for i in ivs])


def _mc_label(mc) -> str:
    return f"Monte Carlo: mean of {len(mc)} seeds, 95 % interval (R = {mc[0][1]['replicates']:,} per seed)"


# ---------------------------------------------------------------------------------------------- fig1


def _render_fig1(fig, results, ctx) -> Rendered:
    marks = dict(ctx.params["fig1_markers"])
    t_agg = marks["t_agg"]
    f, axes = subplots(1, 1, width=8.0, height=3.6)
    ax = axes[0, 0]
    ax.set_xlim(-2.6, t_agg + 3.4)
    ax.set_ylim(-0.9, 3.9)
    ax.axis("off")
    rows = []
    for row, i in enumerate((1, 2, 3)):
        y = 3 - row
        t_c = marks[f"t_c_{i}"]
        _box(ax, -2.5, y - 0.33, 2.2, 0.66, f"Client {i}:\nData collection\nand training", "#e8f0fb")
        ax.annotate("", xy=(t_agg + 0.05, y), xytext=(0, y), arrowprops=dict(arrowstyle="-|>", color="0.5"))
        ax.plot([t_c], [y], marker="o", ms=9, color="#d62728", zorder=3)
        ax.text(t_c, y + 0.22, f"$t_{{c,{i}}}$", ha="center", va="bottom", fontsize=10)
        ax.annotate("", xy=(t_agg + 0.9, 0.05), xytext=(t_c + 0.1, y - 0.08),
                    arrowprops=dict(arrowstyle="-|>", color="#1f77b4", lw=1.2, connectionstyle="arc3,rad=-0.15"))
        rows.append({"figure": "fig1", "panel": "schematic", "series": f"client {i}", "x": t_c, "metric": "t_c",
                     "value": t_c, "seed": EXACT_SEED})
    ax.axvline(t_agg, ymin=0.15, ymax=0.95, color="k", lw=1.2, ls="--")
    ax.text(t_agg + 0.15, 3.55, "$t_{agg}$", ha="left", fontsize=11)
    _box(ax, t_agg + 0.4, -0.55, 2.9, 0.75, "Parameter Server:\nWeight aggregation", "#fdecea")
    ax.text(t_agg / 2, -0.55, "Training weight upload based on $t_{c,i}$ collecting time  (time slots 1 ... $t_{agg}$ →)",
            ha="center", fontsize=8.5, color="#1f77b4")
    rows.append({"figure": "fig1", "panel": "schematic", "series": "aggregation", "x": t_agg, "metric": "t_agg",
                 "value": t_agg, "seed": EXACT_SEED})
    suptitle(f, "Fig. 1 (schematic): time-varying FL with scheduled data collection", ctx.profile,
             "illustrative collection times t_c,1 < t_c,3 < t_c,2 < t_agg; no data")
    return Rendered(tidy_frame(rows), f)


def _box(ax, x, y, w, h, text, colour) -> None:
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.05", facecolor=colour, edgecolor="0.3"))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=8.5)


# ---------------------------------------------------------------------------------------------- fig2


def _fig2_rows(eid, exact, mc) -> list[dict]:
    t_c = exact["t_c"]
    rows = []
    for i, entry in enumerate(exact["clients"]):
        panel = "abc"[i] if i < 3 else str(i + 1)
        base = dict(figure="fig2", panel=panel, seed=EXACT_SEED, run_id=eid)
        rows += [dict(base, series="exact", x=int(x), metric="loss_difference", value=float(v)) for x, v in zip(t_c, entry["loss"])]
        rows += [dict(base, series="exact", x=int(x), metric="epsilon_c", value=float(v)) for x, v in zip(t_c, entry["epsilon_c"])]
        for eps, vals in entry["extra"].items():
            rows += [dict(base, series=f"exact (eps_bar={eps})", x=int(x), metric="loss_difference", value=float(v))
                     for x, v in zip(t_c, vals)]
        for rid, res in mc:
            e = res["clients"][i]
            for x, mean, se in zip(t_c, e["mc_mean"], e["mc_se"]):
                b = dict(figure="fig2", panel=panel, series="monte carlo", x=int(x), seed=res["seed"], run_id=rid)
                rows += [dict(b, metric="loss_difference_mc", value=mean), dict(b, metric="loss_difference_mc_se", value=se)]
    reg = exact["region"]
    holds = np.asarray(reg["holds"])                          # [client, eps, s]
    for js, s in enumerate(reg["sensitivity"]):
        base = dict(figure="fig2", panel="d", series=f"s={s:.6g}", seed=EXACT_SEED, run_id=eid)
        for je, eps in enumerate(reg["epsilon"]):
            rows.append(dict(base, x=eps, metric="shapes_holding", value=int(holds[:, je, js].sum())))
            rows += [dict(base, x=eps, metric=f"shape_holds[client {i + 1}]", value=int(holds[i, je, js]))
                     for i in range(holds.shape[0])]
    return rows


def _render_fig2(fig, results, ctx) -> Rendered:
    eid, exact, mc = _split(fig, results)
    t_c = np.asarray(exact["t_c"])
    eps_bar, s = exact["epsilon"], exact["sensitivity"]
    rows = _fig2_rows(eid, exact, mc)
    f, axes = subplots(1, 4, width=3.5, height=3.3)
    for i, entry in enumerate(exact["clients"]):
        panel = "abc"[i]
        ax = axes[0, i]
        ld = np.asarray(entry["loss"])
        for (eps, vals), ls in zip(sorted(entry["extra"].items()), (":", "-.")):
            ax.plot(t_c, vals, ls=ls, color="0.55", lw=1.0, label=f"exact, ε̄ = {eps}")
        ax.plot(t_c, ld, "-o", color="#1f77b4", label=f"exact (G1), ε̄ = {eps_bar:g}")
        k = int(np.argmin(ld))
        ax.plot([t_c[k]], [ld[k]], marker="*", ms=12, color="#d62728", ls="none", label="minimum over $t_c$")
        if mc:
            mean, lo, hi = _seed_interval([res["clients"][i]["mc_mean"] for _, res in mc])
            ax.errorbar(t_c + 0.15, mean, yerr=[mean - lo, hi - mean], fmt="s", ms=3.5, mfc="none", color="0.3",
                        capsize=2, lw=0.8, label=_mc_label(mc))
        ax.set_yscale("log")
        ax.set_xticks(t_c)
        ax.set_xlabel(f"Data collection time $t_{{c,{i + 1}}}$")
        ax.set_ylabel("Loss difference (Wh$^2$)")
        ax.set_title(f"({panel}) Client {i + 1}: optimum t_c = {t_c[k]}\npaper: {SHAPE_TEXT[PANEL_SHAPES[i]]}", fontsize=9)
    _draw_region(axes[0, 3], exact["region"], eps_bar, s)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    f.legend(handles, labels, loc="lower center", ncol=3, fontsize=7.5, frameon=False, bbox_to_anchor=(0.4, -0.02))
    suptitle(f, "Fig. 2: loss difference vs one client's data collection time (others at t_c = t_agg)", ctx.profile,
             model_note(ctx.params) + f"; ε̄ = {eps_bar:g} chosen (the paper's 'specific privacy level' is not stated)\n"
             "ε̄: the paper's age-dependent DP target (nominal, Prop. 1 with the bound (8)); each client's one Laplace "
             f"release is classically ε_c,i-DP, up to {max(max(e['epsilon_c']) for e in exact['clients']) / eps_bar:.1f} × ε̄ "
             "here (certified by dp-accounting; table 'privacy')")
    f.subplots_adjust(bottom=0.30)
    return Rendered(tidy_frame(rows), f)


def _draw_region(ax, reg, eps_bar: float, s: float) -> None:
    """Fig. 2(d): how many of the three panels have the paper's shape, over (eps_bar, s)."""
    from matplotlib.colors import ListedColormap

    holds = np.asarray(reg["holds"])
    count = holds.sum(axis=0).T                                 # [s, eps]
    eps, sens = np.asarray(reg["epsilon"]), np.asarray(reg["sensitivity"])
    cmap = ListedColormap(["#f7f7f7", "#d9e6f2", "#9ecae1", "#2171b5"])
    mesh = ax.pcolormesh(eps, sens, count, cmap=cmap, vmin=-0.5, vmax=3.5, shading="nearest")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.plot([eps_bar], [s], marker="*", ms=13, color="#d62728", mec="white", ls="none", label="as run")
    ax.set_xlabel(r"privacy level $\bar\epsilon$ (age-dependent, nominal)")
    ax.set_ylabel("sensitivity s of eq. (7)")
    ax.set_title("(d) panels (a)-(c) with the paper's shape\n(dark: all three; star: as run)", fontsize=9)
    cbar = ax.figure.colorbar(mesh, ax=ax, ticks=[0, 1, 2, 3], fraction=0.046, pad=0.03)
    cbar.ax.tick_params(labelsize=7)


# ---------------------------------------------------------------------------------------------- fig3


def _fig3_rows(eid, exact, mc) -> list[dict]:
    eps = exact["epsilon_grid"]
    T = exact["t_agg"]
    rows = []
    for key in SCHEMES:
        curve = exact["schemes"][key]
        base = dict(figure="fig3", series=SCHEME_LEGENDS[key], seed=EXACT_SEED, run_id=eid)
        for panel, metric, values in (("a", "loss_difference", curve["loss"]), ("b", "inverse_epsilon_c", curve["inv_eps"])):
            rows += [dict(base, panel=panel, x=float(x), metric=metric, value=float(v)) for x, v in zip(eps, values)]
        if key not in ("rc", "ra"):
            for c, col in enumerate(np.asarray(curve["ages"]).T):
                rows += [dict(base, panel="a", x=float(x), metric=f"t_c_{c + 1}", value=int(T - a)) for x, a in zip(eps, col)]
        if "bound" in curve:
            rows += [dict(base, panel="a", x=float(x), metric="upper_bound", value=float(v)) for x, v in zip(eps, curve["bound"])]
        for rid, res in mc:
            c = res["schemes"][key]
            for x, mean, se in zip(eps, c["mc_mean"], c["mc_se"]):
                b = dict(figure="fig3", panel="a", series=SCHEME_LEGENDS[key], x=float(x), seed=res["seed"], run_id=rid)
                rows += [dict(b, metric="loss_difference_mc", value=mean), dict(b, metric="loss_difference_mc_se", value=se)]
    alt = exact["alternative"]
    for key, curve in alt["schemes"].items():
        base = dict(figure="fig3", series=alternative_series(key, alt["fse_form"]), seed=EXACT_SEED, run_id=eid)
        for panel, metric, values in (("a", "loss_difference", curve["loss"]), ("b", "inverse_epsilon_c", curve["inv_eps"])):
            rows += [dict(base, panel=panel, x=float(x), metric=metric, value=float(v)) for x, v in zip(eps, values)]
    return rows + _fig3_supplementary_rows(eid, exact)


def _fig3_supplementary_rows(eid, exact) -> list[dict]:
    """CSV-only rows: calibration table of eq. (5), search size, the parametric constant-noise reading."""
    rows = []
    cal = exact["calibration"]
    for c, deltas in enumerate(cal["delta"]):
        base = dict(figure="fig3", panel="calibration", series=f"client {c + 1}", seed=EXACT_SEED, run_id=eid)
        rows += [dict(base, x=int(a), metric="delta_tv", value=float(d)) for a, d in zip(cal["ages"], deltas)]
        for e, table in zip(exact["epsilon_grid"], cal["epsilon_c"]):
            rows += [dict(base, x=int(a), metric=epsilon_metric(e), value=float(v)) for a, v in zip(cal["ages"], table[c])]
    rows.append(dict(figure="fig3", panel="search", series="exhaustive search", x=0, metric="schedules_evaluated",
                     value=exact["num_schedules"], seed=EXACT_SEED, run_id=eid))
    for key, curve in exact["parametric"].items():
        base = dict(figure="fig3", panel="parametric", series=SCHEME_LEGENDS[key] + " (parametric: fixed eps_c)",
                    seed=EXACT_SEED, run_id=eid)
        for x, loss, inv in zip(curve["x"], curve["loss"], curve["inv_eps"]):
            rows += [dict(base, x=x, metric="loss_difference", value=loss), dict(base, x=x, metric="inverse_epsilon_c", value=inv)]
    return rows


def max_release_ratio(exact) -> float:
    """Largest certified classical epsilon of a release over its nominal eps_bar, over schemes and grid."""
    return max(c / e for k in SCHEMES for c, e in zip(exact["releases"][k]["certified_epsilon"], exact["epsilon_grid"]))


def _render_fig3(fig, results, ctx) -> Rendered:
    eid, exact, mc = _split(fig, results)
    eps = np.asarray(exact["epsilon_grid"])
    rows = _fig3_rows(eid, exact, mc)
    f, axes = subplots(1, 4 if mc else 3, width=4.4, height=3.9)
    # (a) as in the paper, (b) noise, (c) = (a) on a log x axis, where the small eps_bar points are apart,
    # (d) Monte Carlo / (G1) per point with its 95 % interval over seeds (the evidence of claim C11)
    for key in SCHEMES:
        curve = exact["schemes"][key]
        colour, marker, ls = _STYLE[key]
        for ax, values in ((axes[0, 0], curve["loss"]), (axes[0, 2], curve["loss"]), (axes[0, 1], curve["inv_eps"])):
            ax.plot(eps, values, marker=marker, ls=ls, color=colour, ms=4,
                    label=f"{SCHEME_NUMBERS[key]}) {SCHEME_LEGENDS[key]}" if ax is axes[0, 0] else None)
        if mc:
            mean, lo, hi = _seed_interval([res["schemes"][key]["mc_mean"] for _, res in mc])
            axes[0, 0].errorbar(eps * 1.012, mean, yerr=[mean - lo, hi - mean], fmt=".", ms=2.5, color=colour, capsize=1.5,
                                lw=0.6, alpha=0.8)
            axes[0, 2].errorbar(eps * 1.04, mean, yerr=[mean - lo, hi - mean], fmt=".", ms=2.5, color=colour, capsize=2,
                                lw=0.8, alpha=0.9)
    alt = exact["alternative"]
    for key, curve in alt["schemes"].items():
        colour = _STYLE[key][0]
        for ax, values in ((axes[0, 0], curve["loss"]), (axes[0, 2], curve["loss"]), (axes[0, 1], curve["inv_eps"])):
            ax.plot(eps, values, ls=(0, (1, 1)), lw=1.0, color=colour, alpha=0.8,
                    label=f"{SCHEME_NUMBERS[key]}) with {FSE_LABEL[alt['fse_form']]}" if ax is axes[0, 0] else None)
    if mc:
        axes[0, 0].errorbar([], [], yerr=[], fmt=".", color="0.3", label=_mc_label(mc))
    for ax, ylabel, title in ((axes[0, 0], "Loss difference (Wh$^2$)", "(a) loss difference"),
                              (axes[0, 1], r"$1/\epsilon_c$", r"(b) noise: $\epsilon_c = \frac{1}{m}\sum_i \epsilon_{c,i}$"),
                              (axes[0, 2], "Loss difference (Wh$^2$)", "(c) = (a) on a log $\\bar\\epsilon$ axis\n(not in the paper)")):
        ax.set_yscale("log")
        ax.set_xlabel(r"Privacy $\bar\epsilon$ (age-dependent DP, nominal)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.set_xlim(0, 1.02)
    axes[0, 2].set_xscale("log")
    axes[0, 2].set_xlim(eps.min() / 1.3, eps.max() * 1.3)
    if mc:
        ax = axes[0, 3]
        for i, key in enumerate(SCHEMES):
            ratio = np.asarray([res["schemes"][key]["mc_mean"] for _, res in mc]) / np.asarray(exact["schemes"][key]["loss"])
            mean, lo, hi = _seed_interval(ratio)
            colour, marker, _ = _STYLE[key]
            ax.errorbar(eps * 1.035 ** (i - 2.5), mean, yerr=[mean - lo, hi - mean], fmt=marker, ms=3, color=colour,
                        capsize=1.5, lw=0.7)
        ax.axhline(1.0, color="0.3", lw=0.8)
        ax.axhspan(0.98, 1.02, color="0.85", alpha=0.6, zorder=0)
        ax.set_xscale("log")
        ax.set_xlabel(r"Privacy $\bar\epsilon$ (age-dependent DP, nominal)")
        ax.set_ylabel("Monte Carlo / exact (G1)")
        ax.set_title("(d) simulation / exact per point, 95 % interval\nover seeds (grey: +-2 %; not in the paper)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    f.legend(handles, labels, loc="lower center", ncol=3, fontsize=7, frameon=False, bbox_to_anchor=(0.5, -0.02))
    suptitle(f, "Fig. 3: loss difference and noise vs the privacy requirement", ctx.profile,
             model_note(ctx.params) + f"; exhaustive search over {exact['num_schedules']} schedules\n"
             "ε̄: the paper's age-dependent DP target (nominal, Prop. 1 with the bound (8)); each release is classically "
             f"ε_c,i-DP, up to {max_release_ratio(exact):.1f} × ε̄ (certified by dp-accounting; table 'privacy')")
    f.subplots_adjust(bottom=0.31)
    return Rendered(tidy_frame(rows), f)


# ---------------------------------------------------------------------------------------------- fig91


BOUND_METRICS = ("upper_bound_at_tightest", "loss_difference_at_tightest", "violations", "schedules_checked")


def bound_check_rows(rid, res) -> list[dict]:
    """fig91 panel 'bound check': per reading of (9)-(12), noise mode and eps_bar, the schedule where the
    bound (G2) is tightest against the exact loss (G1), and how many schedules violate UB >= LD."""
    rows = []
    for reading, modes in res["bound_check"].items():
        for mode, r in modes.items():
            base = dict(figure="fig91", panel="bound check", series=f"{reading}: {mode} noise", seed=EXACT_SEED, run_id=rid)
            for j, x in enumerate(res["epsilon_grid"]):
                vals = (r["ub"][j], r["ld"][j], r["violations"][j], r["schedules"][j])
                rows += [dict(base, x=float(x), metric=m, value=float(v)) for m, v in zip(BOUND_METRICS, vals)]
    return rows


def _render_fig91(fig, results, ctx) -> Rendered:
    (rid, res), = results.items()
    eps = np.asarray(res["epsilon_grid"])
    rows = []
    f, axes = subplots(1, 2, width=5.6, height=4.0)
    ax = axes[0, 0]
    for key in ("nc", "na"):
        colour, marker, _ = _STYLE[key]
        curve = res["schemes"][key]
        for metric, values, ls, what in (("upper_bound", curve["bound"], "--", "surrogate (G2)"),
                                         ("loss_difference", curve["loss"], "-", "exact loss (G1)")):
            ax.plot(eps, values, ls=ls, marker=marker, color=colour, label=f"{SCHEME_LEGENDS[key]}: {what}")
            rows += [{"figure": "fig91", "panel": "a", "series": SCHEME_LEGENDS[key], "x": float(x), "metric": metric,
                      "value": float(v), "seed": EXACT_SEED, "run_id": rid} for x, v in zip(eps, values)]
    ax.set_yscale("log")
    ax.set_xlabel(r"Privacy $\bar\epsilon$ (age-dependent DP, nominal)")
    ax.set_ylabel("Value at the bound-chosen schedule (Wh$^2$)")
    ax.set_title("(a) surrogate and exact loss at the chosen schedules", fontsize=9)
    ax.legend(fontsize=7)
    rows += bound_check_rows(rid, res)
    ax = axes[0, 1]
    styles = {"adaptive": "-", "constant": "--"}
    colours = dict(zip(res["bound_check"], ("#1f77b4", "#2ca02c", "#ff7f0e")))
    for reading, modes in res["bound_check"].items():
        for mode, r in modes.items():
            ratio = np.asarray(r["ub"]) / np.asarray(r["ld"])
            bad = int(sum(r["violations"]))
            ax.plot(eps, ratio, ls=styles[mode], marker=".", color=colours[reading],
                    label=f"{reading}, {mode} noise: UB < LD on {bad} of {sum(r['schedules']):,}")
    ax.axhline(1.0, color="#d62728", lw=1.0)
    run = res["bound_check"]["as run"]
    mode, j = min(((m, int(np.argmin(np.asarray(r["ub"]) / np.asarray(r["ld"])))) for m, r in run.items()),
                  key=lambda mj: run[mj[0]]["ub"][mj[1]] / run[mj[0]]["ld"][mj[1]])
    low = run[mode]["ub"][j] / run[mode]["ld"][j]
    ax.annotate(f"lowest: as run, {mode} noise, UB/LD = {low:.4f} at ε̄ = {eps[j]:g}", xy=(eps[j], low), xytext=(0.03, 0.04),
                textcoords="axes fraction", fontsize=7, bbox=dict(fc="white", ec="0.7", lw=0.5),
                arrowprops=dict(arrowstyle="->", color="0.3"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=0.45)
    ax.set_xlabel(r"Privacy $\bar\epsilon$ (age-dependent DP, nominal)")
    ax.set_ylabel("UB / LD at the tightest schedule")
    ax.set_title("(b) Theorem 1 as (12): bound over exact loss, tightest of\nall schedules (a bound needs >= 1: red line)",
                 fontsize=9)
    ax.legend(fontsize=6.5, loc="upper left")
    suptitle(f, "Supplementary (not in the paper): Theorem-1 surrogate vs exact loss", ctx.profile,
             model_note(ctx.params) + "\n(b): every schedule, eps_bar and noise mode (adaptive eq. (5), constant = worst "
             "client); 'tightest': smallest UB - LD")
    return Rendered(tidy_frame(rows), f)


# ---------------------------------------------------------------------------------------------- table91

_TABLE_COLUMNS = ("Fig. 2 shapes", "4 beats 1, 2", "4 beats 3", "4 beats 5", "bound within 10 %", "max bound ratio",
                  "constant >= adaptive noise")
_HEADERS = {"Fig. 2 shapes": "Fig. 2\nshapes", "4 beats 1, 2": "4 beats\n1, 2 (C5)", "4 beats 3": "4 beats\n3 (C6)",
            "4 beats 5": "4 beats\n5 (C7)", "bound within 10 %": "bound within\n10 % (C8)",
            "max bound ratio": "max bound\nratio", "constant >= adaptive noise": "constant >=\nadaptive (C9)"}
#: s scan columns (table91 (b), fig92)
SCAN_COLUMNS = ("4 beats 1, 2", "4 beats 3", "4 beats 5", "bound within 10 %", "max bound ratio")
SCAN_BOUNDS = ("bound (12) printed holds", "bound (12) corrected holds")
SCAN_METRICS = SCAN_COLUMNS + SCAN_BOUNDS + ("fig2_window_low", "fig2_window_high", "fig2_window_points", "log10_loss_min",
                               "log10_loss_max", "as_run", "grid_points")


def _cell(key, value, n) -> str:
    if key == "max bound ratio":
        return f"{value:.2f}"
    return f"{value}/3" if key == "Fig. 2 shapes" else f"{value}/{n}"


def s_scan_rows(rid, scan, fig_id="table91") -> list[dict]:
    """Tidy rows of the joint (s, Fig. 2 eps_bar) scan: one series per s, x = s."""
    rows = []
    for r in scan["rows"]:
        lo, hi = r["fig2_window"] if r["fig2_window"] else (np.nan, np.nan)
        vals = {**{k: r[k] for k in SCAN_COLUMNS}, **{k: r[k] for k in SCAN_BOUNDS if k in r}, "fig2_window_low": lo, "fig2_window_high": hi,
                "fig2_window_points": r["fig2_window_points"], "log10_loss_min": r["log10_loss_min"],
                "log10_loss_max": r["log10_loss_max"], "as_run": int(r["as_run"]), "grid_points": r["grid_points"]}
        rows += [dict(figure=fig_id, panel="s scan", series=f"s={r['sensitivity']:g}", x=float(r["sensitivity"]), metric=k,
                      value=float(v), seed=EXACT_SEED, run_id=rid) for k, v in vals.items()]
    return rows


def _render_table91(fig, results, ctx) -> Rendered:
    (rid, res), = results.items()
    n = len(res["epsilon_grid"])
    rows, cells = [], []
    for idx, row in enumerate(res["rows"]):
        cells.append([row["variant"]] + [_cell(k, row[k], n) for k in _TABLE_COLUMNS])
        rows += [{"figure": "table91", "panel": "sensitivity", "series": row["variant"], "x": idx, "metric": k,
                  "value": float(row[k]), "seed": EXACT_SEED, "run_id": rid} for k in _TABLE_COLUMNS]
    scan = res["s_scan"]
    rows += s_scan_rows(rid, scan)
    scan_cells = []
    for r in scan["rows"]:
        win = f"[{r['fig2_window'][0]:.3g}, {r['fig2_window'][1]:.3g}]" if r["fig2_window"] else "none"
        scan_cells.append([f"{r['sensitivity']:g}" + (" (as run)" if r["as_run"] else ""), win]
                          + [_cell(k, r[k], n) for k in SCAN_COLUMNS]
                          + [f"{r['log10_loss_min']:.2f} .. {r['log10_loss_max']:.2f}"])
    header = ["variant"] + [_HEADERS[k] for k in _TABLE_COLUMNS]
    scan_header = ["s", "Fig. 2: eps_bar window\nwith all 3 shapes"] + [_HEADERS[k] for k in SCAN_COLUMNS] + [
        "Fig. 3(a) range\nlog10 (paper: 2 .. 5)"]
    note = (f"Supplementary (not in the paper). 'x/{n}': the rule holds on x of the {n} eps_bar points of Fig. 3 "
            "(exact curves); 'Fig. 2 shapes': how many of the three panels have the shape the paper describes at the "
            "Fig. 2 eps_bar; 'max bound ratio': largest loss ratio bound-chosen / simulation-chosen schedule. "
            "(a) changes one reading of the run at a time (first row: as run). (b) package check: the sensitivity s "
            "of eq. (7) varied jointly with Fig. 2's eps_bar, which the paper does not state either: per s, the eps_bar "
            "window where all three Fig. 2 panels have the paper's shape, the Fig. 3 rules, and the range of the six "
            "Fig. 3(a) curves (the paper's y axis spans 10^2 .. 10^5). The verdicts are judged at the s as run.")
    blocks = [("(a) one reading changed at a time (s as run)", header, cells),
              ("(b) package check: s and Fig. 2's eps_bar varied together (the Fig. 3 rules do not depend on Fig. 2's "
               "eps_bar)", scan_header, scan_cells)]

    def shade(block, r, c):
        text = (cells if block == 0 else scan_cells)[r - 1][c]
        if c == 0 or "/" not in text:
            return None
        got, of = text.split("/")
        return "#fbe3e3" if got != of else None

    widths = [0.2] + [0.8 / (len(header) - 1)] * (len(header) - 1)
    f = draw_tables(blocks, "Supplementary table: the claims under each reading the paper leaves open", ctx.profile,
                    model_note(ctx.params), width=13.0, col_widths=widths, cell_colour=shade, fontsize=7.2)
    return Rendered(tidy_frame(rows), f, markdown=markdown_tables(blocks, fig.title, note))


def _render_fig92(fig, results, ctx) -> Rendered:
    """Package check: the Fig. 2 window and the Fig. 3 verdicts as the sensitivity s varies (from the table91 run)."""
    (rid, res), = results.items()
    scan = res["s_scan"]
    rows = s_scan_rows(rid, scan, "fig92")
    s = np.array([r["sensitivity"] for r in scan["rows"]])
    n = len(scan["epsilon_grid"])
    f, axes = subplots(1, 3, width=4.3, height=3.6)
    ax = axes[0, 0]
    lo = np.array([r["fig2_window"][0] if r["fig2_window"] else np.nan for r in scan["rows"]])
    hi = np.array([r["fig2_window"][1] if r["fig2_window"] else np.nan for r in scan["rows"]])
    ax.fill_between(s, lo, hi, color="#9ecae1", alpha=0.7, label="all three Fig. 2 shapes hold")
    ax.plot(s, lo, color="#2171b5", lw=0.8)
    ax.plot(s, hi, color="#2171b5", lw=0.8)
    ax.plot([ctx.params["sensitivity"]], [ctx.params["fig2_epsilon"]], marker="*", ms=13, color="#d62728", ls="none",
            label=f"as run (s = {ctx.params['sensitivity']:g}, ε̄ = {ctx.params['fig2_epsilon']:g})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sensitivity s of eq. (7)")
    ax.set_ylabel(r"Fig. 2 privacy level $\bar\epsilon$")
    ax.set_title("(a) Fig. 2: eps_bar window with the paper's shapes", fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    for key, colour, marker in (("4 beats 1, 2", "#1f77b4", "o"), ("4 beats 3", "#2ca02c", "^"),
                                ("4 beats 5", "#d62728", "v"), ("bound within 10 %", "#9467bd", "D")):
        ax.plot(s, [r[key] for r in scan["rows"]], marker=marker, color=colour, label=_HEADERS[key].replace("\n", " "))
    ax.axhline(n, color="0.5", lw=0.8, ls=":")
    ax.axvline(ctx.params["sensitivity"], color="#d62728", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_ylim(0, n + 1)
    ax.set_xlabel("sensitivity s of eq. (7)")
    ax.set_ylabel(f"eps_bar points (of {n}) where the rule holds")
    ax.set_title("(b) Fig. 3 rules (verdicts need all points)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax = axes[0, 2]
    ax.fill_between(s, [r["log10_loss_min"] for r in scan["rows"]], [r["log10_loss_max"] for r in scan["rows"]],
                    color="0.75", alpha=0.8, label="six Fig. 3(a) curves, all eps_bar")
    ax.axhspan(2, 5, color="#fdd0a2", alpha=0.5, label="paper's Fig. 3(a) y axis (10^2 .. 10^5)")
    ax.axvline(ctx.params["sensitivity"], color="#d62728", lw=0.8, ls="--", label="s as run")
    ax.set_xscale("log")
    ax.set_xlabel("sensitivity s of eq. (7)")
    ax.set_ylabel("log10 loss difference")
    ax.set_title("(c) Fig. 3(a) range vs the paper's axis", fontsize=9)
    ax.legend(fontsize=7)
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    for ax in axes.flat:
        ax.set_xticks([t for t in (1, 2, 3, 5, 10, 20, 30) if s.min() / 1.2 <= t <= s.max() * 1.2])
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
    suptitle(f, "Package check (not in the paper): the age_dp verdicts as the sensitivity s varies", ctx.profile,
             model_note(ctx.params) + "\nverdicts C7, C8, C12, C13 are judged over the s the paper's Fig. 3(a) axis allows (s as run: package derivation of eq. (7)); here Fig. 2's eps_bar is "
             "varied with s, since the Fig. 2 shapes depend on both")
    return Rendered(tidy_frame(rows), f)


# ---------------------------------------------------------------------------------------------- privacy


def privacy_rows(fig2_id, fig2, fig3_id, fig3, shown_eps) -> list[dict]:
    """One row group per private configuration run: nominal eps_bar, certified classical epsilon of the
    worst client's release, ratio, and the age-dependent epsilon recomputed with Prop. 1."""
    s = fig3["sensitivity"]
    rows = []

    def group(panel, series, nominal, certified, age_dep, rid):
        base = dict(figure="privacy", panel=panel, series=series, x=nominal, seed=EXACT_SEED, run_id=rid)
        vals = {"nominal_epsilon": nominal, "certified_epsilon": certified, "ratio": certified / nominal,
                "age_dependent_epsilon": age_dep, "delta": fig3["pure_dp_delta"], "releases": 1, "sensitivity": s,
                "noise_scale": s / certified}
        return [dict(base, metric=k, value=float(v)) for k, v in vals.items()]

    eps2 = fig2["epsilon"]
    for i, entry in enumerate(fig2["clients"]):
        worst = int(np.argmax(entry["epsilon_c"]))
        age_dep = float(age_dependent_epsilon(entry["delta"][worst], entry["epsilon_c"][worst]))
        rows += group(f"fig2 ({'abc'[i]})", f"client {i + 1}, adaptive noise (5), t_c = 1..t_agg", eps2,
                      max(entry["epsilon_c"]), age_dep, fig2_id)
    for j, e in enumerate(fig3["epsilon_grid"]):
        for key in SCHEMES:
            rel = fig3["releases"][key]
            rows += group(f"fig3 eps_bar={e:g}", f"{SCHEME_NUMBERS[key]}) {SCHEME_LEGENDS[key]}", e, rel["certified_epsilon"][j],
                          rel["age_dependent_epsilon"][j], fig3_id)
    shown = {f"fig3 eps_bar={e:g}" for e in shown_eps} | {f"fig2 ({p})" for p in "abc"}
    for r in rows:
        r["shown"] = r["panel"] in shown
    return rows


def _render_privacy(fig, results, ctx) -> Rendered:
    ids = {r.task: r.run_id for r in fig.runs}
    fig2, fig3 = results[ids["fig2_exact"]], results[ids["fig3_exact"]]
    rows = privacy_rows(ids["fig2_exact"], fig2, ids["fig3_exact"], fig3, ctx.params["privacy_epsilons"])
    shown = [r for r in rows if r.pop("shown")]
    data = tidy_frame(shown)
    table = {}
    for r in shown:
        table.setdefault((r["panel"], r["series"]), {})[r["metric"]] = r["value"]
    header = ["figure", "configuration", "nominal eps_bar\n(age-dependent, Prop. 1)",
              "certified classical eps\n(worst client's release)", "certified /\nnominal", "Prop. 1 eps\nrecomputed"]
    cells = [[panel, series, f"{v['nominal_epsilon']:g}", f"{v['certified_epsilon']:.4g}", f"{v['ratio']:.2f}",
              f"{v['age_dependent_epsilon']:.4g}"] for (panel, series), v in table.items()]
    note = ("Each client releases once its local mean plus Laplace(s / eps_c,i) noise, s = "
            f"{fig3['sensitivity']:g} (l1 sensitivity of a mean of {ctx.params['num_records']} values in "
            f"[{min(ctx.params['values'])}, {max(ctx.params['values'])}], replace-one). 'certified': the epsilon "
            "dp-accounting's Laplace privacy-loss distribution certifies for that release (pure DP, read at delta = "
            f"{fig3['pure_dp_delta']:g}) with respect to the data at collection; the random schemes take the worst schedule. "
            "The paper's eps_bar is an age-dependent guarantee with respect to the data at t_agg (Prop. 1 of the paper, "
            "[11, Th. 1]) resting on the mixing bound (8); no standard accountant covers it. Listed: the eps_bar points "
            f"{', '.join(f'{e:g}' for e in ctx.params['privacy_epsilons'])} of Fig. 3; the largest ratio over its whole "
            f"grid, {max_release_ratio(fig3):.1f}, is stated on Fig. 3.")
    blocks = [("", header, cells)]
    f = draw_tables(blocks, "Privacy as run: nominal age-dependent eps_bar vs certified classical epsilon", ctx.profile,
                    model_note(ctx.params), width=12.0, col_widths=[0.12, 0.38, 0.13, 0.15, 0.09, 0.13])
    return Rendered(data, f, markdown=markdown_tables(blocks, fig.title, note))


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"fig1": _render_fig1, "fig2": _render_fig2, "fig3": _render_fig3, "fig91": _render_fig91,
             "table91": _render_table91, "fig92": _render_fig92, "privacy": _render_privacy}
