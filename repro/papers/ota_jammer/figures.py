"""Rendering of the ota_jammer figures and tables.

Curves: the seed mean with its 95 % Student-t interval over seeds; the tidy CSV holds every per-seed
value (panel ``curve``) plus the per-run privacy and power scalars the claims read (panel ``privacy``,
x = NaN). Every epsilon in a legend or title is the paper's eq. (21); the subtitle gives the epsilon
certified for what was run (the ``privacy`` table has the details).
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from repro.experiment import Rendered, is_unavailable
from repro.papers.ota_jammer import privacy, theory
from repro.papers.ota_jammer.experiments import (ALGO_LABEL, BASELINE_LABEL, IID_LABEL, NO_CJ_LABEL, NONPRIVATE_LABEL,
                                                 ONE_STEP_LABEL, cj_series)
from repro.plotting import draw_tables, mark_unavailable, markdown_tables, subplots, suptitle
from repro.results import tidy_frame
from repro.stats import t_quantile

CURVES = ("test_acc", "train_loss")
SCALARS = ("epsilon", "epsilon_numeric", "epsilon_delta_0.01", "epsilon_per_client_max", "epsilon_kappa1",
           "epsilon_variance_reading", "epsilon_ls", "max_power_ratio", "min_s", "frac_s_above_1", "frac_clipped",
           "frac_samples_clipped", "num_transmissions", "num_iterations", "dataset_size", "p_max", "alpha_u",
           "channel_std", "jammer_std", "noise_std_mean", "noise_std_eff", "mu2_update", "mu2_one_step",
           "jammer_power_over_P_median", "beta_sum", "frac_rounds_at_power_cap")
PLOTTED = {"fig2": "test_acc", "fig3": "train_loss", "fig4": "test_acc", "fig5": "train_loss", "fig6": "test_acc",
           "fig7": "test_acc", "fig8": "test_acc", "fig9": "test_acc", "fig10": "train_loss", "fig91": "test_acc"}
YLABEL = {"test_acc": "test accuracy", "train_loss": "training loss"}
STYLE = {ALGO_LABEL["upcycled"]: dict(color="C3", marker="o"), ALGO_LABEL["fedprox"]: dict(color="C0", marker="s"),
         ALGO_LABEL["fedavg"]: dict(color="C2", marker="^"), BASELINE_LABEL["ma"]: dict(color="C1", marker="x"),
         BASELINE_LABEL["ls"]: dict(color="C5", marker="+", ls=":"), NONPRIVATE_LABEL: dict(color="grey", ls="--"),
         NO_CJ_LABEL: dict(color="grey", ls="--"), IID_LABEL: dict(color="C2", marker="^"),
         ONE_STEP_LABEL["upcycled"]: dict(color="C3", marker="o"), ONE_STEP_LABEL["fedavg"]: dict(color="C2", marker="^"),
         ONE_STEP_LABEL["baseline"]: dict(color="C1", marker="x")}
CJ_MARKER = {1.0: "o", 0.5: "s", 0.1: "^"}
TIE_RTOL = 1e-9  # tuning criteria within this relative difference are a tie


def series_label(fig_id: str, p: dict) -> str:
    """The series name of a run in a figure (stable: the claims select on it)."""
    if p.get("local_rule") == "one_step":
        return ONE_STEP_LABEL["baseline" if p["mode"] == "baseline13" else p["algorithm"]]
    if p["mode"] == "baseline13":
        return BASELINE_LABEL[p["baseline"]["accountant"]]
    if p["mode"] == "nonprivate":
        return NONPRIVATE_LABEL
    if fig_id in ("fig9", "fig10"):
        return IID_LABEL
    if fig_id in ("fig6", "fig7", "fig8"):
        return NO_CJ_LABEL if p["cj_epsilon"] is None else cj_series(p["cj_epsilon"])
    return ALGO_LABEL[p["algorithm"]]


def tidy_rows(fig, results: dict) -> tuple[list[dict], list[str], str | None]:
    """(tidy rows, reasons of unavailable runs, dataset note) of a curve figure."""
    rows, reasons, note = [], [], None
    for spec in fig.runs:
        res = results[spec.run_id]
        if is_unavailable(res):
            reasons.append(res["reason"])
            continue
        note = res.get("dataset", note)
        base = dict(figure=fig.fig_id, series=series_label(fig.fig_id, spec.params), seed=spec.seed, run_id=spec.run_id)
        for metric in CURVES:
            for x, v in zip(res["rounds"], res[metric]):
                rows.append(dict(base, panel="curve", x=x, metric=metric, value=v))
        for metric in SCALARS:
            v = res.get(metric)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v)):
                rows.append(dict(base, panel="privacy", x=np.nan, metric=metric, value=float(v)))
    return rows, reasons, note


def theory_rows(fig_id: str, params: dict, dataset_size: int) -> list[dict]:
    """The jammer-need check per target (claim C3) and Thm 5's C5 + C6 (claim C18), closed forms."""
    M = params["rounds"]
    cal = theory.calibrate(M, dataset_size, params["eps0"], params["delta0"])
    rows = []
    for eps in sorted(set(params["cj_epsilons"]) | {params["eps0"], 7.0, 10.0}):
        c = theory.calibrate(M, dataset_size, params["eps0"], params["delta0"], eps, params["cj_delta"], 1.0)
        rows.append(dict(figure=fig_id, panel="theory", series="jammer need", x=eps, metric="required_minus_channel_var",
                         value=c.required_var - cal.channel_std ** 2, seed=-1, run_id=""))
        rows.append(dict(figure=fig_id, panel="theory", series="jammer at bound", x=eps, metric="epsilon_kappa1",
                         value=c.epsilon, seed=-1, run_id=""))
    for eps in (6.0, 3.0, 1.0, 0.5, 0.25, 0.1):
        t = theory.convergence_terms(eps, smoothness=1.0, num_params=theory.mlp_num_params(params["hidden"]),
                                     num_transmissions=M, dataset_size=dataset_size, eps0=params["eps0"],
                                     delta0=params["delta0"], cj_delta=params["cj_delta"], kappa=params["kappa"])
        rows.append(dict(figure=fig_id, panel="theory", series="Thm 5 (L_s = 1)", x=eps, metric="C5_plus_C6",
                         value=t["total"], seed=-1, run_id=""))
    return rows


# ------------------------------------------------------------------------------------------------ curves


def mean_band(values: pd.DataFrame) -> pd.DataFrame:
    """Per x: seed mean, 95 % Student-t half-width (0 with one seed) of ``values`` (columns x, seed, value)."""
    g = values.groupby("x")["value"]
    n, mean, sd = g.count(), g.mean(), g.std(ddof=1).fillna(0.0)
    half = np.array([t_quantile(int(k)) if k > 1 else 0.0 for k in n]) * sd.to_numpy() / np.sqrt(n.to_numpy())
    return pd.DataFrame({"mean": mean, "half": half, "n": n})


def _series_order(name: str):
    if name.startswith("CJ target"):
        return (1, -float(name.split("=")[1]))
    fixed = [ALGO_LABEL["upcycled"], ALGO_LABEL["fedprox"], ALGO_LABEL["fedavg"], IID_LABEL, ONE_STEP_LABEL["upcycled"],
             ONE_STEP_LABEL["fedavg"], BASELINE_LABEL["ma"], ONE_STEP_LABEL["baseline"], BASELINE_LABEL["ls"]]
    return (0 if name in fixed else 2, fixed.index(name) if name in fixed else 0)


def _legend(name: str, scal: pd.DataFrame) -> str:
    """Legend text: jammer runs name both the paper's target and eq. (21) for the noise actually run."""
    if name.startswith("CJ target"):
        e = scal[(scal.series == name) & (scal.metric == "epsilon")]["value"]
        return f"{name} (paper's label); eq. (21) as run: {e.max():.3g}" if len(e) else name
    return name


def _configs_of(fig, results, params):
    groups: dict = {}
    for spec in fig.runs:
        res = results[spec.run_id]
        if spec.params["mode"] == "nonprivate" or is_unavailable(res):
            continue
        cfg = privacy.configuration(spec.params, params)
        groups.setdefault(cfg, []).append(res)
    return groups


def certified_note(fig, results, params) -> str:
    """One line: the epsilon certified for what was run, per private configuration of the figure."""
    parts = []
    for cfg, res in _configs_of(fig, results, params).items():
        c = privacy.certificate(cfg, res)
        parts.append(f"{cfg.short}: {_fmt(c.certified_epsilon)}")
    if not parts:
        return ""
    return ("eps named: the paper's eq. (21), which assumes one gradient step per round. Certified (RDP) for what "
            f"was run, delta as named: {'; '.join(parts)}")


def _fmt(v: float) -> str:
    return "inf" if math.isinf(v) else (f"{v:.3g}" if abs(v) < 1e4 else f"{v:.2e}")


def _render_curves(fig, results, ctx):
    rows, reasons, note = tidy_rows(fig, results)
    p = ctx.params
    if fig.fig_id == "fig6":
        sizes = [r["value"] for r in rows if r["metric"] == "dataset_size"]
        rows += theory_rows(fig.fig_id, p, int(sizes[0]) if sizes else sum(theory.FEMNIST_TRAIN_SIZES))
    df = tidy_frame(rows)
    metric = PLOTTED[fig.fig_id]
    f, axes = subplots(1, 1, width=8.0, height=4.6)
    ax = axes[0, 0]
    curves = df[(df.panel == "curve") & (df.metric == metric)].dropna(subset=["value"])
    scal = df[df.panel == "privacy"]
    if curves.empty:
        mark_unavailable(ax, "; ".join(sorted(set(reasons))) or "no results")
    order = sorted(curves.series.unique(), key=_series_order)
    for name in order:
        band = mean_band(curves[curves.series == name])
        st = dict(STYLE.get(name, {}))
        if name.startswith("CJ target"):
            st = dict(marker=CJ_MARKER.get(float(name.split("=")[1]), "d"))
        st.setdefault("markevery", max(1, len(band) // 10))
        ax.plot(band.index, band["mean"], label=_legend(name, scal), **st)
        ax.fill_between(band.index, band["mean"] - band["half"], band["mean"] + band["half"], alpha=0.15,
                        color=ax.lines[-1].get_color(), lw=0)
    ax.set_xlabel("communication round m (Upcycled-FL: after its even step)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(YLABEL[metric])
    if len(order):
        ax.legend(loc="lower right" if metric == "test_acc" else "upper right", fontsize=7)
    iid = fig.fig_id in ("fig9", "fig10")
    seeds = sorted({r.seed for r in fig.runs})
    rule = "one gradient step per round" if fig.fig_id == "fig91" else f"E = {p['iid_local_epochs'] if iid else p['local_epochs']}"
    sub = (f"{note or ''}\nM = {p['iid_rounds'] if iid else p['rounds']}, {rule}, {len(seeds)} seeds: mean and 95 % "
           f"t-interval; clipped: {_clip_text(scal)}\n" + "\n".join(textwrap.wrap(certified_note(fig, results, p), 150)))
    suptitle(f, f"{fig.paper_ref or 'Package addition'}: {fig.title}", ctx.profile, sub)
    return Rendered(df, f)


def _clip_text(scal: pd.DataFrame) -> str:
    per_sample = scal[scal.metric == "frac_samples_clipped"]["value"]
    if len(per_sample):  # one-step runs: the per-sample gradients are clipped, the updates are within tau
        return f"per-sample gradients {100 * per_sample.min():.1f}-{100 * per_sample.max():.1f} % of samples"
    v = scal[scal.metric == "frac_clipped"]["value"]
    if not len(v):
        return "n/a"
    lo, hi = 100 * v.min(), 100 * v.max()
    return f"{lo:.1f} % of client-rounds" if round(lo, 1) == round(hi, 1) else f"{lo:.1f}-{hi:.1f} % of client-rounds"


# ------------------------------------------------------------------------------------------------ tables


def _render_tuning(fig, results, ctx):
    p = ctx.params
    rows, reasons, capped = [], [], {"femnist": [], "iid": []}
    for spec in fig.runs:
        res = results[spec.run_id]
        if is_unavailable(res):
            reasons.append(res["reason"])
            continue
        panel = "femnist" if spec.params["data"] == "femnist" else "iid"
        if spec.seed != p["tuning_seed"]:  # an evaluation run of [13]: how often it sits at its power cap
            capped[panel].append(res["frac_rounds_at_power_cap"])
            rows.append(dict(figure=fig.fig_id, panel=panel, series="evaluation runs", x=np.nan,
                             metric="frac_rounds_at_power_cap", value=res["frac_rounds_at_power_cap"], seed=spec.seed,
                             run_id=spec.run_id))
            continue
        g = spec.params["baseline"]["gamma"]
        vals = {"mean_train_loss": float(np.mean(res["train_loss"])), "final_train_loss": float(res["train_loss"][-1]),
                "mean_test_acc": float(np.mean(res["test_acc"]))}
        for k, v in vals.items():
            rows.append(dict(figure=fig.fig_id, panel=panel, series=f"gamma = {g:g}", x=g, metric=k, value=v,
                             seed=spec.seed, run_id=spec.run_id))
    df = tidy_frame(rows)
    blocks, extra = [], []
    for panel, used_key, title in (("femnist", "baseline_gamma", "FEMNIST surrogate, MLP (eps 6.52, delta 1e-5)"),
                                   ("iid", "iid_baseline_gamma", "synthetic i.i.d., logistic regression (eps 0.15, delta 0.01)")):
        cap = capped[panel]
        span = f"{100 * min(cap):.0f}" + ("" if cap and round(100 * min(cap)) == round(100 * max(cap)) else f"-{100 * max(cap):.0f}") \
            if cap else ""
        cap_txt = f"evaluation runs of [13] at their power cap in {span} % of rounds" if cap else ""
        d = df[(df.panel == panel) & (df.series != "evaluation runs")] if len(df) else df
        if d.empty:
            if cap:
                blocks.append((f"{title}: not tuned in this profile; {cap_txt}", ["gamma used"], [[f"{p[used_key]:g}"]]))
            continue
        wide = d.pivot_table(index="x", columns="metric", values="value").sort_index(ascending=False)
        crit = wide["mean_train_loss"]
        best = set(crit.index[crit <= crit.min() * (1 + TIE_RTOL)])  # ties: gamma has no effect
        used = float(p[used_key])
        for x in wide.index:
            extra += [dict(figure=fig.fig_id, panel=panel, series=f"gamma = {x:g}", x=x, metric=m, value=float(v),
                           seed=-1, run_id="") for m, v in (("selected", x in best), ("in_use", x == used))]
        tie = len(best) > 1
        body = [[f"{x:g}", f"{wide.loc[x, 'mean_train_loss']:.4f}", f"{wide.loc[x, 'final_train_loss']:.4f}",
                 f"{wide.loc[x, 'mean_test_acc']:.4f}", ("tied argmin" if tie else "argmin") if x in best else "",
                 "yes" if x == used else ""] for x in wide.index]
        status = "" if used in best else f"; STALE: {used_key} = {used:g} is not the argmin"
        if tie:
            status += "; all tied (gamma has no effect)" if len(best) == len(crit) else "; tie"
        blocks.append((f"{title}, tuning seed {p['tuning_seed']}{status}" + (f"; {cap_txt}" if cap_txt else ""),
                       ["gamma", "mean train loss (criterion)", "final train loss", "mean test acc (not used)", "selected",
                        "used by the runs"], body))
    df = tidy_frame(rows + extra)
    note = "[13] with the paper's accountant; gamma = 1 is the capped uniform allocation"
    if not blocks:
        f, axes = subplots(1, 1)
        mark_unavailable(axes[0, 0], "; ".join(sorted(set(reasons))) or "no results")
        suptitle(f, f"Package addition: {fig.title}", ctx.profile)
        return Rendered(df, f, f"# {fig.title}\n\nNOT REGENERATED: {'; '.join(sorted(set(reasons)))}\n")
    f = draw_tables(blocks, f"Package addition: {fig.title}", ctx.profile, note, width=10.0, col_widths="auto")
    return Rendered(df, f, markdown_tables(blocks, fig.title, note))


def _render_privacy(fig, results, ctx):
    p = ctx.params
    groups: dict = {}
    reasons = []
    for spec in fig.runs:
        res = results[spec.run_id]
        if is_unavailable(res):
            reasons.append(res["reason"])
            continue
        groups.setdefault(privacy.configuration(spec.params, p), []).append(res)
    rows, body, notes = [], [], []
    for cfg, res in groups.items():
        cert = privacy.certificate(cfg, res)
        as_paper = privacy.certificate(cfg, res, one_step_sensitivity=True)
        eq21 = privacy.paper_epsilon(res)
        rows += cert.tidy_rows("privacy", cfg.panel, cfg.name)
        sens_ratio = cert.sensitivity / as_paper.sensitivity
        extra = {"eq21_epsilon_as_run": eq21, "certified_epsilon_one_step_sensitivity": as_paper.certified_epsilon,
                 "sensitivity": cert.sensitivity, "one_step_sensitivity": as_paper.sensitivity,
                 "sensitivity_ratio": sens_ratio, "flagged": float(cert.flagged),
                 "frac_clipped": float(np.mean([r["frac_clipped"] for r in res])), "seeds": float(len(res))}
        rows += [dict(figure="privacy", panel=cfg.panel, series=cfg.name, x=cfg.nominal_epsilon, metric=k, value=float(v),
                      seed=-1, run_id="") for k, v in extra.items()]
        body.append([cfg.name, cfg.panel, f"{cfg.nominal_epsilon:g}", f"{cfg.delta:g}", _fmt(eq21),
                     _fmt(cert.certified_epsilon), _fmt(cert.ratio) + (" (!)" if cert.flagged else ""),
                     _fmt(as_paper.certified_epsilon), f"{sens_ratio:.3g}"])
        notes.append(f"- **{cfg.name}**: {cert.assumptions}. Nominal: {cfg.nominal_source}.")
    df = tidy_frame(rows)
    header = ["configuration", "figures", "paper's eps", "delta", "eq. (21) as run", "certified (RDP) for what was run",
              "certified / paper", "certified if one step (paper's sensitivity)", "sensitivity / paper's"]
    note = ("eq. (21): the paper's closed form for the noise actually run. Certified: dp-accounting's RDP accountant on "
            "the sensitivity of what was trained; (!) marks a factor > 2 from the paper's value.")
    if not body:
        f, axes = subplots(1, 1)
        mark_unavailable(axes[0, 0], "; ".join(sorted(set(reasons))) or "no results")
        suptitle(f, fig.title, ctx.profile)
        return Rendered(df, f, f"# {fig.title}\n\nNOT REGENERATED: {'; '.join(sorted(set(reasons)))}\n")
    blocks = [(None, header, body)]
    f = draw_tables(blocks, fig.title, ctx.profile, note, width=13.5, col_widths="auto", fontsize=6.5)
    md = markdown_tables(blocks, fig.title, note) + "\nAssumptions (worst client, least private seed):\n\n" + "\n".join(notes) + "\n"
    return Rendered(df, f, md)


# ------------------------------------------------------------------------------------------------ diagram


def _render_diagram(fig, results, ctx):
    f, axes = subplots(1, 1, width=8.0, height=4.6)
    ax = axes[0, 0]
    ax.set_xlim(0, 10), ax.set_ylim(-0.3, 6.5), ax.axis("off")
    ax.add_patch(_box((7.2, 2.6), 2.4, 1.3, "#dde8f5"))
    ax.text(8.4, 3.25, "Parameter server\n(base station)\nhonest-but-curious", ha="center", va="center", fontsize=8)
    users = [(1.2, 5.4), (1.2, 4.1), (1.2, 2.8), (1.2, 0.8)]
    for i, (x, y) in enumerate(users):
        ax.add_patch(_box((x - 0.6, y - 0.35), 1.2, 0.7, "#e8f4e0"))
        ax.text(x, y, f"user {i + 1}" if i < 3 else "user K", ha="center", va="center", fontsize=8)
        ax.annotate("", xy=(7.2, 3.25), xytext=(x + 0.6, y), arrowprops=dict(arrowstyle="->", color="C0", lw=1))
        idx = i + 1 if i < 3 else "K"
        ax.text((x + 7.2) / 2 - 0.6, (y + 3.25) / 2 + 0.12, f"$h_{{{idx}}}x_{{{idx}}}$", fontsize=7, color="C0")
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
    return Rendered(tidy_frame([]), f)


def _box(xy, w, h, color):
    from matplotlib.patches import FancyBboxPatch

    return FancyBboxPatch(xy, w, h, boxstyle="round,pad=0.05", facecolor=color, edgecolor="k", lw=0.8)


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"fig1": _render_diagram, **{f"fig{i}": _render_curves for i in range(2, 11)}, "fig91": _render_curves,
             "table91": _render_tuning, "privacy": _render_privacy}
