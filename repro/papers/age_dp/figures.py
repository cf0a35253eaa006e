"""Rendering of ``age_dp``'s figures and tables from the run results (tidy CSV + picture).

CSV conventions (read by ``claims.py``): exact (deterministic) rows have ``seed = -1``; Monte-Carlo
rows carry their seed. Metrics: ``loss_difference`` (exact (G1)), ``loss_difference_mc`` and
``loss_difference_mc_se`` (per seed), ``inverse_epsilon_c``, ``t_c_1..t_c_m`` (chosen schedule),
``upper_bound`` (G2), ``delta_tv`` and ``epsilon_c[eps_bar=...]`` (calibration table of eq. (5)),
``schedules_evaluated`` (search size).
"""

from __future__ import annotations

import re

import numpy as np

from repro.experiment import Rendered
from repro.papers.age_dp.scheduler import SCHEME_LEGENDS, SCHEMES
from repro.plotting import draw_tables, markdown_tables, subplots, suptitle
from repro.results import tidy_frame

EXACT_SEED = -1
_STYLE = {  # colour, marker, linestyle per scheme
    "rc": ("#1f77b4", "o", "-"), "ra": ("#ff7f0e", "s", "-"), "nc": ("#2ca02c", "^", "--"),
    "sc": ("#d62728", "v", ":"), "na": ("#9467bd", "D", "-"), "sa": ("#8c564b", "x", ":"),
}
_EPS_METRIC = re.compile(r"^epsilon_c\[eps_bar=(?P<eps>[0-9.eE+-]+)\]$")


def epsilon_metric(eps_bar: float) -> str:
    return f"epsilon_c[eps_bar={eps_bar:g}]"


def parse_epsilon_metric(metric: str) -> float | None:
    m = _EPS_METRIC.match(str(metric))
    return float(m.group("eps")) if m else None


def model_note(params: dict) -> str:
    return (f"synthetic {len(params['transition_q'])}-client Markov model, s = {params['sensitivity']:g}, "
            f"t_agg = {params['t_agg']} (assumed); anchor = {params['chain_anchor']}, f_SE = {params['fse_form']}")


def _by_seed(results: dict) -> list[tuple[str, dict]]:
    return sorted(results.items(), key=lambda kv: kv[1]["seed"])


def _pool_mc(results: list[tuple[str, dict]], getter) -> tuple[np.ndarray, np.ndarray] | None:
    """Mean of the per-seed MC means and its SE (independent seeds)."""
    means, ses = [], []
    for _, res in results:
        got = getter(res)
        if got is None:
            return None
        means.append(np.asarray(got[0], dtype=float))
        ses.append(np.asarray(got[1], dtype=float))
    k = len(means)
    return np.mean(means, axis=0), np.sqrt(np.sum(np.square(ses), axis=0)) / k


# ---------------------------------------------------------------------------------------------- fig1


def _render_fig1(fig, results, ctx) -> Rendered:
    marks = dict(ctx.params["fig1_markers"])
    t_agg = marks["t_agg"]
    clients = [1, 2, 3]
    f, axes = subplots(1, 1, width=8.0, height=3.6)
    ax = axes[0, 0]
    ax.set_xlim(-2.6, t_agg + 3.4)
    ax.set_ylim(-0.9, 3.9)
    ax.axis("off")
    rows = []
    for row, i in enumerate(clients):
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
    """A rounded, labelled box."""
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.05", facecolor=colour, edgecolor="0.3"))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=8.5)


# ---------------------------------------------------------------------------------------------- fig2


def _mc_label(results) -> str:
    seeds = [res["seed"] for _, res in results]
    R = results[0][1].get("mc_replicates", 0)
    return f"Monte Carlo ± 2 SE (R = {R}, seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))})"


def _render_fig2(fig, results, ctx) -> Rendered:
    runs = _by_seed(results)
    first_id, first = runs[0]
    t_c = np.asarray(first["t_c"])
    rows = []
    f, axes = subplots(1, len(first["clients"]), width=3.6, height=3.1)
    for i, entry in enumerate(first["clients"]):
        panel = "abc"[i] if i < 3 else str(i + 1)
        ax = axes[0, i]
        ld = np.asarray(entry["loss"])
        ax.plot(t_c, ld, "-o", color="#1f77b4", label=f"exact (G1), ε̄ = {first['epsilon']:g}")
        k = int(np.argmin(ld))
        ax.plot([t_c[k]], [ld[k]], marker="*", ms=12, color="#d62728", ls="none", label="minimum over $t_c$")
        rows += [{"figure": "fig2", "panel": panel, "series": "exact", "x": int(x), "metric": "loss_difference",
                  "value": float(v), "seed": EXACT_SEED, "run_id": first_id} for x, v in zip(t_c, ld)]
        for eps, vals in entry["extra"].items():
            rows += [{"figure": "fig2", "panel": panel, "series": f"exact (eps_bar={eps})", "x": int(x),
                      "metric": "loss_difference", "value": float(v), "seed": EXACT_SEED, "run_id": first_id}
                     for x, v in zip(t_c, vals)]
        for rid, res in runs:
            e = res["clients"][i]
            if "mc_mean" in e:
                for x, mean, se in zip(t_c, e["mc_mean"], e["mc_se"]):
                    rows.append({"figure": "fig2", "panel": panel, "series": "monte carlo", "x": int(x),
                                 "metric": "loss_difference_mc", "value": mean, "seed": res["seed"], "run_id": rid})
                    rows.append({"figure": "fig2", "panel": panel, "series": "monte carlo", "x": int(x),
                                 "metric": "loss_difference_mc_se", "value": se, "seed": res["seed"], "run_id": rid})
        pooled = _pool_mc(runs, lambda r, i=i: (r["clients"][i]["mc_mean"], r["clients"][i]["mc_se"])
                          if "mc_mean" in r["clients"][i] else None)
        if pooled is not None:
            ax.errorbar(t_c + 0.12, pooled[0], yerr=2 * pooled[1], fmt="s", ms=3.5, mfc="none", color="0.35",
                        capsize=2, lw=0.8, label=_mc_label(runs))
        ax.set_yscale("log")
        ax.set_xticks(t_c)
        ax.set_xlabel("Data collection time $t_{c,%d}$" % (i + 1))
        ax.set_ylabel("Loss difference (Wh$^2$)")
        ax.set_title(f"({panel}) Client {i + 1}: optimum t_c = {t_c[k]}")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    f.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.01))
    suptitle(f, "Fig. 2: loss difference vs one client's data collection time (others at t_c = t_agg)",
             ctx.profile, model_note(ctx.params) + f"; adaptive noise (5) at ε̄ = {first['epsilon']:g}")
    f.subplots_adjust(bottom=0.25)
    return Rendered(tidy_frame(rows), f)


# ---------------------------------------------------------------------------------------------- fig3


def _scheme_label(key: str) -> str:
    return SCHEME_LEGENDS[key]   # the paper's legend, verbatim


def _render_fig3(fig, results, ctx) -> Rendered:
    runs = _by_seed(results)
    first_id, first = runs[0]
    eps = np.asarray(first["epsilon_grid"])
    m = first["num_clients"]
    T = first["t_agg"]
    rows = []
    f, axes = subplots(1, 2, width=4.8, height=3.8)
    for key in SCHEMES:
        curve = first["schemes"][key]
        colour, marker, ls = _STYLE[key]
        for panel, metric, values in (("a", "loss_difference", curve["loss"]), ("b", "inverse_epsilon_c", curve["inv_eps"])):
            axes[0, "ab".index(panel)].plot(eps, values, marker=marker, ls=ls, color=colour, ms=4,
                                            label=_scheme_label(key))
            rows += [{"figure": "fig3", "panel": panel, "series": SCHEME_LEGENDS[key], "x": float(x), "metric": metric,
                      "value": float(v), "seed": EXACT_SEED, "run_id": first_id} for x, v in zip(eps, values)]
        if key not in ("rc", "ra"):
            ages = np.asarray(curve["ages"])
            for c in range(m):
                rows += [{"figure": "fig3", "panel": "a", "series": SCHEME_LEGENDS[key], "x": float(x),
                          "metric": f"t_c_{c + 1}", "value": int(T - a), "seed": EXACT_SEED, "run_id": first_id}
                         for x, a in zip(eps, ages[:, c])]
        if "bound" in curve:
            rows += [{"figure": "fig3", "panel": "a", "series": SCHEME_LEGENDS[key], "x": float(x), "metric": "upper_bound",
                      "value": float(v), "seed": EXACT_SEED, "run_id": first_id} for x, v in zip(eps, curve["bound"])]
        for rid, res in runs:
            c = res["schemes"][key]
            if "mc_mean" in c:
                for x, mean, se in zip(eps, c["mc_mean"], c["mc_se"]):
                    rows.append({"figure": "fig3", "panel": "a", "series": SCHEME_LEGENDS[key], "x": float(x),
                                 "metric": "loss_difference_mc", "value": mean, "seed": res["seed"], "run_id": rid})
                    rows.append({"figure": "fig3", "panel": "a", "series": SCHEME_LEGENDS[key], "x": float(x),
                                 "metric": "loss_difference_mc_se", "value": se, "seed": res["seed"], "run_id": rid})
        pooled = _pool_mc(runs, lambda r, k=key: (r["schemes"][k]["mc_mean"], r["schemes"][k]["mc_se"])
                          if "mc_mean" in r["schemes"][k] else None)
        if pooled is not None:
            axes[0, 0].errorbar(eps, pooled[0], yerr=2 * pooled[1], fmt=".", ms=2, color=colour, capsize=1.5, lw=0.6,
                                alpha=0.7)
    rows += _fig3_supplementary_rows(first_id, first, runs)
    if "mc_mean" in first["schemes"]["na"]:
        axes[0, 0].errorbar([], [], yerr=[], fmt=".", color="0.3", label=_mc_label(runs))
    for ax, ylabel, title in ((axes[0, 0], "Loss difference (Wh$^2$)", "(a) loss difference"),
                              (axes[0, 1], r"$1/\epsilon_c$", r"(b) noise: $\epsilon_c = \frac{1}{m}\sum_i \epsilon_{c,i}$")):
        ax.set_yscale("log")
        ax.set_xlabel(r"Privacy $\bar\epsilon$")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.set_xlim(0, 1.02)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    f.legend(handles, labels, loc="lower center", ncol=3, fontsize=7.5, frameon=False, bbox_to_anchor=(0.5, -0.01))
    suptitle(f, "Fig. 3: loss difference / noise vs DP requirement", ctx.profile,
             model_note(ctx.params) + f"\nexhaustive search over {first['num_schedules']} schedules; "
             "proposed scheme = numerical opt adaptive noise")
    f.subplots_adjust(bottom=0.27)
    return Rendered(tidy_frame(rows), f)


def _fig3_supplementary_rows(first_id, first, runs) -> list[dict]:
    """CSV-only rows: calibration table (C15), search size (C16), parametric constant noise, MC objective."""
    rows = []
    cal = first["calibration"]
    for c, deltas in enumerate(cal["delta"]):
        rows += [{"figure": "fig3", "panel": "calibration", "series": f"client {c + 1}", "x": int(a), "metric": "delta_tv",
                  "value": float(d), "seed": EXACT_SEED, "run_id": first_id} for a, d in zip(cal["ages"], deltas)]
        for e, table in zip(first["epsilon_grid"], cal["epsilon_c"]):
            rows += [{"figure": "fig3", "panel": "calibration", "series": f"client {c + 1}", "x": int(a),
                      "metric": epsilon_metric(e), "value": float(v), "seed": EXACT_SEED, "run_id": first_id}
                     for a, v in zip(cal["ages"], table[c])]
    rows.append({"figure": "fig3", "panel": "search", "series": "exhaustive search", "x": 0, "metric": "schedules_evaluated",
                 "value": first["num_schedules"], "seed": EXACT_SEED, "run_id": first_id})
    for key, curve in first["parametric"].items():
        series = SCHEME_LEGENDS[key] + " (parametric: fixed eps_c)"
        for x, loss, inv in zip(curve["x"], curve["loss"], curve["inv_eps"]):
            rows.append({"figure": "fig3", "panel": "parametric", "series": series, "x": x, "metric": "loss_difference",
                         "value": loss, "seed": EXACT_SEED, "run_id": first_id})
            rows.append({"figure": "fig3", "panel": "parametric", "series": series, "x": x, "metric": "inverse_epsilon_c",
                         "value": inv, "seed": EXACT_SEED, "run_id": first_id})
    for rid, res in runs:
        for key, var in res.get("mc_objective", {}).items():
            series = SCHEME_LEGENDS[key] + " (MC objective)"
            for x, mc_min, exact, gap, ages in zip(res["epsilon_grid"], var["mc_min"], var["exact_at_mc_choice"],
                                                   var["winners_curse_gap"], var["ages"]):
                for metric, value in (("loss_difference", exact), ("loss_difference_mc_min", mc_min),
                                      ("winners_curse_gap", gap)):
                    rows.append({"figure": "fig3", "panel": "mc_objective", "series": series, "x": x, "metric": metric,
                                 "value": value, "seed": res["seed"], "run_id": rid})
                for c, a in enumerate(ages):
                    rows.append({"figure": "fig3", "panel": "mc_objective", "series": series, "x": x,
                                 "metric": f"t_c_{c + 1}", "value": res["t_agg"] - a, "seed": res["seed"], "run_id": rid})
    return rows


# ---------------------------------------------------------------------------------------------- fig91


def _render_fig91(fig, results, ctx) -> Rendered:
    rid, res = _by_seed(results)[0]
    eps = np.asarray(res["epsilon_grid"])
    rows = []
    f, axes = subplots(1, 1, width=6.0, height=4.0)
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
    ax.set_xlabel(r"Privacy $\bar\epsilon$")
    ax.set_ylabel("Value at the bound-chosen schedule (Wh$^2$)")
    ax.legend(fontsize=7.5)
    suptitle(f, "Supplementary (not in the paper): Theorem-1 surrogate vs exact loss", ctx.profile, model_note(ctx.params))
    return Rendered(tidy_frame(rows), f)


# ---------------------------------------------------------------------------------------------- table91

_TABLE_COLUMNS = (("C1_C3", "Fig. 2 shapes\n(C1-C3)"), ("C5", "C5"), ("C6", "C6"), ("C7", "C7"), ("C8", "C8"),
                  ("C9_majority", "C9\nmajority"), ("C9_max_ratio_low", "C9 max ratio\n(ε̄ ≤ 0.2)"),
                  ("C9_max_ratio_grid", "C9 max ratio\n(grid)"), ("C10", "C10"), ("C11", "C11"))


def _cell(key, value, n) -> str:
    if isinstance(value, bool):
        return "holds" if value else "fails"
    if key.startswith("C9_max"):
        return f"{value:.3f}"
    return f"{value}/{n}"


def _render_table91(fig, results, ctx) -> Rendered:
    rid, res = next(iter(results.items()))
    n = len(res["epsilon_grid"])
    rows, cells = [], []
    for idx, row in enumerate(res["rows"]):
        cells.append([row["variant"]] + [_cell(k, row[k], n) for k, _ in _TABLE_COLUMNS])
        for k, _ in _TABLE_COLUMNS:
            rows.append({"figure": "table91", "panel": "sensitivity", "series": row["variant"], "x": idx, "metric": k,
                         "value": float(row[k]), "seed": EXACT_SEED, "run_id": rid})
        rows.append({"figure": "table91", "panel": "sensitivity", "series": row["variant"], "x": idx,
                     "metric": "C6_max_na_over_sc", "value": row["C6_max_na_over_sc"], "seed": EXACT_SEED, "run_id": rid})
    header = ["variant"] + [h for _, h in _TABLE_COLUMNS]
    note = ("Supplementary Table S1 (not in the paper). Cells 'x/16' = the claim holds on x of the 16 ε̄ grid points; "
            "C10 counts points where all six curves are non-increasing. Non-monotone curves: "
            + "; ".join(f"{r['variant']}: {', '.join(r['C10_non_monotone'])}" for r in res["rows"] if r["C10_non_monotone"]))
    blocks = [("", header, cells)]

    def shade_failures(_block, r, c):
        text = cells[r - 1][c]
        partial = c > 0 and "/" in text and text.split("/")[0] != text.split("/")[1] and header[c] != "C6"
        return "#fbe3e3" if text == "fails" or partial else None

    markdown = markdown_tables(blocks, fig.title, note)
    widths = [0.2] + [0.08] * (len(header) - 1)
    f = draw_tables(blocks, "Supplementary Table S1: claims under each modelling variant (holds on x/16)", ctx.profile,
                    model_note(ctx.params) + " (defaults; each row changes the named setting)", width=12.0,
                    col_widths=widths, cell_colour=shade_failures)
    return Rendered(tidy_frame(rows), f, markdown=markdown)


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"fig1": _render_fig1, "fig2": _render_fig2, "fig3": _render_fig3, "fig91": _render_fig91,
             "table91": _render_table91}
