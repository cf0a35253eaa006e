"""Rendering of wpfl_minmax's figures and tables (guide §4 panel order)."""

from __future__ import annotations

import numpy as np

from repro.experiment import Rendered, is_unavailable
from repro.papers.wpfl_minmax.experiments import CONFIG_LABELS
from repro.plotting import draw_tables, mark_unavailable, markdown_tables, subplots, suptitle
from repro.results import tidy_frame

LABELS = {"S1": "Proposed", "S2": "Gaussian", "S3": "MA", "S4": "Dithering", "S5": "Perfect Gaussian",
          "S6": "WPFL without DP", "S7": "Proposed (error-free)", "S8": "Round-Robin", "S9": "Random",
          "S10": "Non-Adjustment", "S11": "pFedMe", "S12": "APPLE", "S13": "FedAMP", "S14": "FedALA"}
STYLE = {"S1": ("tab:red", "o"), "S2": ("tab:blue", "s"), "S3": ("tab:green", "^"), "S4": ("tab:purple", "v"),
         "S5": ("tab:orange", "D"), "S6": ("tab:gray", "x"), "S7": ("k", "*"), "S8": ("tab:blue", "s"),
         "S9": ("tab:green", "^"), "S10": ("tab:purple", "v"), "S11": ("tab:blue", "s"), "S12": ("tab:green", "^"),
         "S13": ("tab:purple", "v"), "S14": ("tab:orange", "D")}
FIG_SERIES = {"fig2": ["S1", "S2", "S3", "S4", "S5", "S6"], "fig3": ["S1", "S7", "S8", "S9", "S10"],
              "fig4": ["S1", "S7", "S8", "S9", "S10"], "fig5": ["S1", "S11", "S12", "S13", "S14"],
              "fig6": ["S1", "S11", "S12", "S13", "S14"], "fig7": ["S1", "S11", "S12", "S13", "S14"]}


def _note(ctx) -> str:
    p = ctx.params
    parts = []
    if ctx.profile != "paper":
        parts.append(f"{ctx.profile}: {int(p['data_fraction'] * 100)} % data, T0 in {p['t0_grid']}, tau = {p['local_steps']}, "
                     f"{len(p['seeds'])} seed(s)" + (", reduced CNN (CNN-q)" if p["reduced_cnn"] else ""))
    return "; ".join(parts)


def _collect(fig, results):
    """-> {config: {series: {t0: (summary, run_id, seed)}}} and {config: reason} for unavailable configs."""
    data, missing = {}, {}
    for rid, res in results.items():
        if is_unavailable(res):
            continue
        for s, by_t in res["series"].items():
            for t0, summ in by_t.items():
                data.setdefault(res["config"], {}).setdefault(s, {}).setdefault(int(t0), []).append((summ, rid, res["seed"]))
    for r in fig.runs:
        res = results.get(r.run_id)
        if is_unavailable(res):
            cfg = r.params["config"]
            missing.setdefault(cfg, {})[r.params["group"]] = res["reason"]
    return data, missing


def _vs_t0(fig, results, ctx, metrics):
    data, missing = _collect(fig, results)
    configs = ctx.params["configs"]
    series = FIG_SERIES[fig.fig_id]
    ncols = len(configs) if len(metrics) == 1 else len(configs)
    nrows = len(metrics)
    f, axes = subplots(nrows, ncols, width=3.6, height=2.9)
    rows = []
    letters = "abcdefghijklmnop"
    for ci, cfg in enumerate(configs):
        for mi, (metric, ylabel) in enumerate(metrics):
            ax = axes[mi, ci]
            idx = ci * len(metrics) + mi if len(metrics) > 1 else ci
            ax.set_title(f"({letters[idx]}) {CONFIG_LABELS[cfg]}")
            ax.set_xlabel("max uploads per client $T_0$")
            ax.set_ylabel(ylabel)
            avail = data.get(cfg, {})
            drawn = 0
            for s in series:
                if s not in avail:
                    continue
                t0s = sorted(avail[s])
                vals = [[np.nan if summ.get(metric) is None else summ[metric] for summ, _, _ in avail[s][t]] for t in t0s]
                mean = np.array([np.mean(v) for v in vals])
                bad = [t for t, m in zip(t0s, mean) if not np.isfinite(m)]
                label = LABELS[s]
                if bad:  # diverged runs (NaN/inf loss) leave gaps; the legend says so instead of hiding them
                    label += f" (non-finite at T0 = {', '.join(map(str, bad))})"
                    mean = np.where(np.isfinite(mean), mean, np.nan)
                col, mk = STYLE[s]
                ax.plot(t0s, mean, color=col, marker=mk, label=label, ls="--" if s == "S7" else "-")
                if max(len(v) for v in vals) > 1:
                    sd = np.array([np.std(v) for v in vals])
                    ax.fill_between(t0s, mean - sd, mean + sd, color=col, alpha=0.15)
                drawn += 1
                for t in t0s:
                    for summ, rid, seed in avail[s][t]:
                        rows.append(dict(figure=fig.fig_id, panel=cfg, series=LABELS[s], x=t, metric=metric,
                                         value=np.nan if summ.get(metric) is None else summ[metric], seed=seed, run_id=rid))
            absent = [s for s in series if s not in avail]
            if not drawn:
                reason = "; ".join(sorted(set(missing.get(cfg, {}).values()))) or "no runs"
                mark_unavailable(ax, reason[:90])
            elif absent:
                reasons = sorted({r for g, r in missing.get(cfg, {}).items()})
                ax.text(0.02, 0.02, f"not regenerated: {', '.join(LABELS[s] for s in absent)}\n" + (reasons[0][:70] if reasons else ""),
                        transform=ax.transAxes, fontsize=6, color="#a00000", va="bottom")
            if drawn:
                ax.legend(fontsize=6)
                if metric == "max_test_loss":  # baselines' worst-client losses span decades
                    from matplotlib.ticker import FuncFormatter

                    ax.set_yscale("log")
                    plain = FuncFormatter(lambda v, _: f"{v:g}")
                    ax.yaxis.set_major_formatter(plain)
                    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:.1e}"[0] in "25" else ""))
    suptitle(f, f"{fig.paper_ref}: {fig.title}", ctx.profile, _note(ctx))
    return Rendered(tidy_frame(rows), f)


def _fig5(fig, results, ctx):
    data, missing = _collect(fig, results)
    configs = ctx.params["configs"]
    t_max = max(ctx.params["t0_grid"])
    f, axes = subplots(1, len(configs), width=3.6, height=2.9)
    rows = []
    for ci, cfg in enumerate(configs):
        ax = axes[0, ci]
        ax.set_title(f"({'abcd'[ci]}) {CONFIG_LABELS[cfg]}, $T_0$ = {t_max}")
        ax.set_xlabel("aggregation round t")
        ax.set_ylabel("PL test accuracy")
        drawn = 0
        for s in FIG_SERIES["fig5"]:
            entries = data.get(cfg, {}).get(s, {}).get(t_max, [])
            if not entries:
                continue
            for k, (summ, rid, seed) in enumerate(entries):
                recs = [r for r in summ.get("records", []) if "accuracy" in r]
                ts = [r["t"] for r in recs]
                acc = [r["accuracy"] for r in recs]
                col, _ = STYLE[s]
                if k == 0:
                    ax.plot(ts, acc, color=col, label=LABELS[s])
                for r in recs:
                    rows.append(dict(figure="fig5", panel=cfg, series=LABELS[s], x=r["t"], metric="accuracy",
                                     value=r["accuracy"], seed=seed, run_id=rid))
                rows.append(dict(figure="fig5", panel=cfg, series=LABELS[s], x=summ["rounds"], metric="final_train_accuracy",
                                 value=summ["train_accuracy"], seed=seed, run_id=rid))
            drawn += 1
        if not drawn:
            mark_unavailable(ax, "; ".join(sorted(set(missing.get(cfg, {}).values())))[:90] or "no runs")
        else:
            absent = [s for s in FIG_SERIES["fig5"] if not data.get(cfg, {}).get(s)]
            if absent:
                ax.text(0.02, 0.02, "not regenerated: " + ", ".join(LABELS[s] for s in absent), transform=ax.transAxes,
                        fontsize=6, color="#a00000")
            ax.legend(fontsize=6)
    suptitle(f, f"{fig.paper_ref}: {fig.title}", ctx.profile, _note(ctx))
    return Rendered(tidy_frame(rows), f)


def _draw_table(header, body, title, ctx, col_width=1.1):
    """One table filling its figure, columns as wide as their longest cell."""
    return draw_tables([(None, header, body)], title, ctx.profile, _note(ctx) or None,
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
             ("Sampling rate q", p["sampling_rate_q"], p["sampling_rate_q"]),
             ("Distances", f"U[{p['d_min_m']:g}, {p['d_max_m']:g}] m", p["d_max_m"]),
             ("Quantization bits R", p["bits"], p["bits"]),
             ("Privacy budget eps_Q", p["epsilon_q"], p["epsilon_q"])]
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
    f = _draw_table(header, body, "Table II: sigma_DP from Theorem 1 (eps_Q = 1, R = 16, q = 0.01) vs printed", ctx)
    return Rendered(tidy_frame(rows), f, markdown_tables([("Table II: sigma_DP, computed from (23) and as printed", header, body)]))


TABLE3_PRINTED = {  # (Bq, Bo) per mechanism, Table III
    "mlr_mnist": {"S1": (6.81, 2.61), "S3": (8.98, 4.00), "S2": (14.32, 3.93), "S4": (8.01, 1.34), "S6": (4.70, 1.63)},
    "dnn_mnist": {"S1": (4.55, 3.04), "S3": (11.13, 4.00), "S2": (14.82, 2.10), "S4": (6.91, 1.20), "S6": (2.54, 0.72)},
    "cnn_fmnist": {"S1": (5.17, 4.00), "S3": (10.95, 4.00), "S2": (14.79, 1.09), "S4": (5.59, 4.00), "S6": (3.88, 3.85)},
    "cnn_cifar10": {"S1": (4.93, 4.00), "S3": (11.34, 4.00), "S2": (14.84, 0.89), "S4": (5.20, 4.00), "S6": (3.55, 3.92)},
}
TABLE3_ORDER = ["S1", "S3", "S2", "S4", "S6"]


def _table3(fig, results, ctx):
    data, missing = _collect(fig, results)
    t0 = int(ctx.params["t0_default"])
    rows, body = [], []
    for cfg in ctx.params["configs"]:
        line = [CONFIG_LABELS[cfg] + (" (CNN-q)" if cfg.startswith("cnn") and ctx.params["reduced_cnn"] else "")]
        for s in TABLE3_ORDER:
            entries = data.get(cfg, {}).get(s, {}).get(t0, [])
            bits = [e[0].get("bits") for e in entries if e[0].get("bits")]
            pr = TABLE3_PRINTED[cfg][s]
            if not bits:
                line.append(f"n/a ({pr[0]:.2f}/{pr[1]:.2f})")
                continue
            bq = float(np.mean([b["bq"] for b in bits]))
            bo = float(np.mean([b["bo"] for b in bits]))
            total = min(16.0, bq + bo)
            line.append(f"{bq:.2f}/{bo:.2f} ({pr[0]:.2f}/{pr[1]:.2f})")
            rid, seed = entries[0][1], entries[0][2]
            for metric, v in (("bq", bq), ("bo", bo), ("total", total)):
                rows.append(dict(figure="table3", panel=cfg, series=LABELS[s], x=t0, metric=metric, value=v, seed=seed, run_id=rid))
            for metric, v in (("bq_printed", pr[0]), ("bo_printed", pr[1])):
                rows.append(dict(figure="table3", panel=cfg, series=LABELS[s], x=t0, metric=metric, value=v, seed=-1, run_id=""))
            if s == "S4" and bits[0].get("raw") is not None:
                rows.append(dict(figure="table3", panel=cfg, series=LABELS[s], x=t0, metric="raw_bits",
                                 value=float(np.mean([b["raw"] for b in bits])), seed=seed, run_id=rid))
        body.append(line)
    header = ["Model-dataset"] + [f"{LABELS[s]} Bq/Bo (paper)" for s in TABLE3_ORDER]
    f = _draw_table(header, body, f"Table III: mean quantization / overhead bits per parameter, T0 = {t0} (regenerated (printed))", ctx, col_width=2.0)
    return Rendered(tidy_frame(rows), f, markdown_tables([(f"Table III: B_q / B_o per parameter at T0 = {t0}; printed values in parentheses", header, body)]))


def _fig1(fig, results, ctx):
    f, axes = subplots(1, 1, width=11, height=2.6)
    ax = axes[0, 0]
    ax.axis("off")
    steps = ["Stage 1: KM selection +\nsubchannel assignment\n(full power)", "Downlink: Q_G(global),\n256-QAM bit errors\n(all N clients)",
             "FL update (20a) on\nreceived global,\nclip C, + N(0, sigma^2)", "Quantize R = 16 bits,\nOFDMA uplink,\nbit errors (15)",
             "Aggregate (16),\nglobal quantization (19)", "PL update (20b), all N;\nStage 2: eta_P, lambda (P7)"]
    for i, s in enumerate(steps):
        x = 0.01 + i * 0.165
        ax.add_patch(__import__("matplotlib").patches.FancyBboxPatch((x, 0.25), 0.145, 0.5, boxstyle="round,pad=0.01",
                                                                    transform=ax.transAxes, facecolor="#e8eef8", edgecolor="#335"))
        ax.text(x + 0.0725, 0.5, s, transform=ax.transAxes, ha="center", va="center", fontsize=7)
        if i < len(steps) - 1:
            ax.annotate("", xy=(x + 0.163, 0.5), xytext=(x + 0.147, 0.5), xycoords="axes fraction",
                        arrowprops=dict(arrowstyle="->", color="#335"))
    ax.text(0.5, 0.1, "round t (repeat while some client has fewer than T0 uploads)", transform=ax.transAxes, ha="center", fontsize=8)
    suptitle(f, "Fig. 1: one round of quantization-assisted DP wireless PFL (schematic)", ctx.profile)
    return Rendered(tidy_frame([]), f)


def _accuracy_vs_t0(fig, results, ctx) -> Rendered:
    return _vs_t0(fig, results, ctx, [("accuracy", "PL test accuracy")])


def _fairness_vs_t0(fig, results, ctx) -> Rendered:
    return _vs_t0(fig, results, ctx, [("jain", "Jain fairness (train loss)"), ("max_test_loss", "max test loss")])


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"fig1": _fig1, "table1": _table1, "table2": _table2, "table3": _table3, "fig2": _accuracy_vs_t0,
             "fig3": _accuracy_vs_t0, "fig6": _accuracy_vs_t0, "fig4": _fairness_vs_t0, "fig7": _fairness_vs_t0,
             "fig5": _fig5}
