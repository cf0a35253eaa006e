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
from repro.privacy.certify import tight_gaussian_epsilon
from repro.papers.ota_jammer.data import SURROGATE_METRIC, dataset_label, train_sizes
from repro.papers.ota_jammer.experiments import (ALGO_LABEL, BASELINE_LABEL, IID_LABEL, NO_CJ_LABEL, NONPRIVATE_LABEL,
                                                 ONE_STEP_LABEL, STEP_KEYS, channel_only_series, cj_series, step_key)
from repro.plotting import draw_tables, mark_unavailable, markdown_tables, subplots, suptitle
from repro.results import tidy_frame
from repro.stats import t_quantile

CURVES = ("test_acc", "train_loss")
SCALARS = ("epsilon", "epsilon_numeric", "epsilon_delta_0.01", "epsilon_per_client_max", "epsilon_kappa1",
           "epsilon_variance_reading", "epsilon_ls", "max_power_ratio", "min_s", "frac_s_above_1", "frac_clipped",
           "frac_samples_clipped", "num_transmissions", "num_iterations", "dataset_size", "p_max", "alpha_u",
           "channel_std", "jammer_std", "jammer_std_bound", "noise_std_mean", "noise_std_eff", "mu2_update", "mu2_one_step",
           "jammer_power_over_P_median", "beta_sum", "frac_rounds_at_power_cap", "server_step_mean", "signal_norm_median",
           "pc_bias_rel_mean", "noise_to_signal_median", "tx_power_ratio_mean")
PLOTTED = {"fig2": "test_acc", "fig3": "train_loss", "fig4": "test_acc", "fig5": "train_loss", "fig6": "test_acc",
           "fig7": "test_acc", "fig8": "test_acc", "fig9": "test_acc", "fig10": "train_loss", "fig91": "test_acc"}
YLABEL = {"test_acc": "test accuracy", "train_loss": "training loss"}
STYLE = {ALGO_LABEL["upcycled"]: dict(color="C3", marker="o"), ALGO_LABEL["fedprox"]: dict(color="C0", marker="s"),
         ALGO_LABEL["fedavg"]: dict(color="C2", marker="^"), BASELINE_LABEL["ma"]: dict(color="C1", marker="x"),
         BASELINE_LABEL["ls"]: dict(color="C5", marker="+", ls=":"), NONPRIVATE_LABEL: dict(color="grey", ls="--"),
         NO_CJ_LABEL: dict(color="grey", ls="--"), IID_LABEL: dict(color="C2", marker="^"),
         ONE_STEP_LABEL["upcycled"]: dict(color="C3", marker="o"), ONE_STEP_LABEL["fedavg"]: dict(color="C2", marker="^"),
         ONE_STEP_LABEL["baseline"]: dict(color="C1", marker="x"), ONE_STEP_LABEL["baseline_ls"]: dict(color="C5", marker="+", ls=":")}
CJ_MARKER = {1.0: "o", 0.5: "s", 0.1: "^"}
SHARED_RUNS = {"fig4": "Fig. 2", "fig5": "Fig. 3"}
TIE_RTOL = 1e-9  # tuning criteria within this relative difference are a tie


def series_label(fig_id: str, p: dict, params: dict) -> str:
    """The series name of a run (spec params ``p``) in a figure (stable: the claims select on it)."""
    if p.get("local_rule") == "one_step":
        if p["mode"] == "baseline13":
            return ONE_STEP_LABEL["baseline" if p["baseline"]["accountant"] == "ma" else "baseline_ls"]
        return ONE_STEP_LABEL[p["algorithm"]]
    if p["mode"] == "baseline13":
        return BASELINE_LABEL[p["baseline"]["accountant"]]
    if p["mode"] == "nonprivate":
        return NONPRIVATE_LABEL
    if fig_id in ("fig9", "fig10"):
        return IID_LABEL
    if fig_id in ("fig6", "fig7", "fig8"):
        if p["cj_epsilon"] is None:
            return NO_CJ_LABEL if p["eps0"] == params["eps0"] else channel_only_series(p["eps0"])
        return cj_series(p["cj_epsilon"], None if p["kappa"] == params["kappa"] else p["kappa"])
    return ALGO_LABEL[p["algorithm"]]


def _stored_number(v) -> float:
    """A curve value as a float: files written before stored a NaN as null and an infinity as "inf" (a diverged
    training: marked by repro.divergence, drawn as a gap instead of breaking the plot)."""
    return math.nan if v is None else float(v)


def tidy_rows(fig, results: dict, params: dict) -> tuple[list[dict], list[str], str | None]:
    """(tidy rows, reasons of unavailable runs, dataset note) of a curve figure."""
    rows, reasons, note = [], [], None
    for spec in fig.runs:
        res = results[spec.run_id]
        if is_unavailable(res):
            reasons.append(res["reason"])
            continue
        note = res.get("dataset", note)
        base = dict(figure=fig.fig_id, series=series_label(fig.fig_id, spec.params, params), seed=spec.seed, run_id=spec.run_id)
        for metric in CURVES:
            for x, v in zip(res["rounds"], res[metric]):
                rows.append(dict(base, panel="curve", x=x, metric=metric, value=_stored_number(v)))
        for metric in SCALARS:
            v = res.get(metric)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v)):
                rows.append(dict(base, panel="privacy", x=np.nan, metric=metric, value=float(v)))
        if spec.params.get("data") == "femnist":  # 1: trained on the MNIST-digit surrogate, not the paper's FEMNIST
            surrogate = dataset_label(res.get("dataset")) == "FEMNIST surrogate"
            rows.append(dict(base, panel="privacy", x=np.nan, metric=SURROGATE_METRIC, value=float(surrogate)))
    return rows, reasons, note


def theory_rows(fig_id: str, params: dict) -> list[dict]:
    """The jammer-need check per target (claim C3), eq. (21) with the jammer at its bound (C4) and Thm 5's C5 + C6
    (C18): closed forms of the profile's parameters (M, |D| of the split, eps0, delta0), no training."""
    M = params["rounds"]
    dataset_size = sum(train_sizes(params["classes_per_client"], params["size_scale"]))
    cal = theory.calibrate(M, dataset_size, params["eps0"], params["delta0"])
    rows = []
    rows.append(dict(figure=fig_id, panel="theory", series="channel noise", x=params["eps0"], metric="channel_var",
                     value=cal.channel_std ** 2, seed=-1, run_id=""))
    for eps in sorted(set(params["cj_epsilons"]) | {params["eps0"], 7.0, 10.0}):
        c = theory.calibrate(M, dataset_size, params["eps0"], params["delta0"], eps, params["cj_delta"], 1.0)
        rows.append(dict(figure=fig_id, panel="theory", series="jammer need", x=eps, metric="required_minus_channel_var",
                         value=c.required_var - cal.channel_std ** 2, seed=-1, run_id=""))
        rows.append(dict(figure=fig_id, panel="theory", series="jammer at bound", x=eps, metric="epsilon_kappa1",
                         value=c.epsilon, seed=-1, run_id=""))
    for eps in (6.0, 3.0, 1.0, 0.5, 0.25, 0.1):
        t = theory.convergence_terms(eps, smoothness=1.0, num_params=theory.mlp_num_params(hidden=params["hidden"]),
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


def _target(name: str) -> float:
    """The target epsilon in a jammer or channel-only series name."""
    return float(name.split("=")[1].split(",")[0].strip().split()[0])


def _series_order(name: str):
    if name.startswith("CJ target"):
        return (1, -_target(name), "bound" in name)
    fixed = [ALGO_LABEL["upcycled"], ALGO_LABEL["fedprox"], ALGO_LABEL["fedavg"], IID_LABEL, ONE_STEP_LABEL["upcycled"],
             ONE_STEP_LABEL["fedavg"], BASELINE_LABEL["ma"], ONE_STEP_LABEL["baseline"], BASELINE_LABEL["ls"],
             ONE_STEP_LABEL["baseline_ls"]]
    return (0 if name in fixed else 2, fixed.index(name) if name in fixed else 0, False)


def _legend(name: str, scal: pd.DataFrame) -> str:
    """Legend text: jammer (and channel-only) runs name both the target and eq. (21) for the noise actually run."""
    if name.startswith("CJ target") or name.startswith("no CJ, alpha_u"):
        e = scal[(scal.series == name) & (scal.metric == "epsilon")]["value"]
        tag = " (paper's label)" if name.startswith("CJ target") and "bound" not in name else ""
        return f"{name}{tag}; eq. (21) as run: {e.max():.3g}" if len(e) else name
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


def figure_delta(fig_id: str, params: dict) -> float | None:
    """The delta a curve figure names (Figs 4-5: the paper's second level; None: each configuration's own)."""
    return params["delta_alt"] if fig_id in ("fig4", "fig5") else None


def certified_note(fig, results, params) -> str:
    """One line: the epsilon certified for what was run, per private configuration of the figure, at the
    figure's delta."""
    parts = []
    delta = figure_delta(fig.fig_id, params)
    for cfg, res in _configs_of(fig, results, params).items():
        c = privacy.certificate(cfg, res, delta=delta)
        parts.append(f"{cfg.short}: {_fmt(c.certified_epsilon)}")
    if not parts:
        return ""
    at = f"delta = {delta:g}" if delta is not None else "delta as named"
    adj = " (zero-out adjacency; replace-one: privacy table)" if fig.fig_id == "fig91" else ""
    return ("eps named: the paper's eq. (21), which assumes one gradient step per round. Certified (RDP) for what "
            f"was run{adj}, {at}: {'; '.join(parts)}")


def _fmt(v: float) -> str:
    return "inf" if math.isinf(v) else (f"{v:.3g}" if abs(v) < 1e4 else f"{v:.2e}")


def _render_curves(fig, results, ctx):
    rows, reasons, note = tidy_rows(fig, results, ctx.params)
    p = ctx.params
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
            st = dict(marker=CJ_MARKER.get(_target(name), "d"), ls="--" if "bound" in name else "-")
        elif name.startswith("no CJ, alpha_u"):
            st = dict(color="k", ls=":", marker="v")
        st.setdefault("markevery", max(1, len(band) // 10))
        label = _legend(name, scal)
        if name == ALGO_LABEL["fedprox"] and p["server_step"]["fedprox"] == theory.EVEN_STEP:
            # eq. (9): FedProx at the server step 1 + c_m is Upcycled-FL; the two curves coincide
            label += " at step 1 + c_m (= Upcycled-FL, eq. 9)"
            st.update(ls="--", marker="s", mfc="none")
        ax.plot(band.index, band["mean"], label=label, **st)
        ax.fill_between(band.index, band["mean"] - band["half"], band["mean"] + band["half"], alpha=0.15,
                        color=ax.lines[-1].get_color(), lw=0)
    iid = fig.fig_id in ("fig9", "fig10")
    has_upcycled = any(s.startswith("Upcycled") for s in order)
    ax.set_xlabel("communication round m" + (" (Upcycled-FL: after its even step)" if has_upcycled or fig.fig_id == "fig6"
                                             else ""))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(YLABEL[metric])
    if len(order):
        ax.legend(loc="lower right" if metric == "test_acc" else "upper right", fontsize=7)
    seeds = sorted({r.seed for r in fig.runs})
    rule = "one gradient step per round" if fig.fig_id == "fig91" else f"E = {p['iid_local_epochs'] if iid else p['local_epochs']}"
    sub = (f"{note or ''}\nM = {p['iid_rounds'] if iid else p['rounds']}, {rule}, {len(seeds)} seeds: mean and 95 % "
           f"t-interval; clipped: {_clip_text(scal)}; {_steps_text(fig, p)}\n"
           + "\n".join(textwrap.wrap(certified_note(fig, results, p), 150)))
    if fig.fig_id in SHARED_RUNS:  # Figs 4-5 draw Figs 2-3's runs: one noise level gives both (eps, delta) pairs
        but = "" if "ls" not in p["baseline_accountants"] else " except [13] with its own accountant"
        sub += (f"\nThe runs of {SHARED_RUNS[fig.fig_id]}{but} (under the paper's accountant the noise that gives (6.52, 1e-5) "
                "gives (4.39, 0.01)); only the delta of the certificates differs.")
    suptitle(f, f"{fig.paper_ref or 'Package addition'}: {fig.title}", ctx.profile, sub)
    return Rendered(df, f)


def _steps_text(fig, params) -> str:
    """The server steps of the figure's methods (the paper's 1; table92: the grid, a package observation)."""
    keys = sorted({step_key(r.params["algorithm"], r.params["mode"], r.params.get("local_rule", "epochs"), r.params["data"])
                   for r in fig.runs if r.params["algorithm"] != "upcycled" and r.params["mode"] != "nonprivate"})
    return "server steps: " + ", ".join(f"{k} {theory.step_label(params['server_step'][k])}" for k in keys if k in STEP_KEYS)


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
        mean_loss = float(np.mean([_stored_number(v) for v in res["train_loss"]]))
        vals = {"mean_train_loss": mean_loss if math.isfinite(mean_loss) else math.inf,  # diverged: never the argmin
                "final_train_loss": _stored_number(res["train_loss"][-1]),
                "mean_test_acc": float(np.mean(res["test_acc"]))}
        for k, v in vals.items():
            rows.append(dict(figure=fig.fig_id, panel=panel, series=f"gamma = {g:g}", x=g, metric=k, value=v,
                             seed=spec.seed, run_id=spec.run_id))
    df = tidy_frame(rows)
    blocks, extra = [], []
    femnist = _femnist_label(fig, results)
    for panel, used_key, title in (("femnist", "baseline_gamma", f"{femnist}, MLP (eps 6.52, delta 1e-5)"),
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
    reasons, left_out = [], {}
    for spec in fig.runs:
        groups.setdefault(privacy.configuration(spec.params, p), []).append(results[spec.run_id])
    for cfg in list(groups):  # a configuration is certified over all its seeds or not at all
        missing = [r["reason"] for r in groups[cfg] if is_unavailable(r)]
        if missing:
            reasons += missing
            left_out[cfg.name] = f"{len(missing)} of {len(groups.pop(cfg))} runs: {missing[0]}"
    rows, body, notes = [], [], []
    for cfg, res in groups.items():
        cert = privacy.certificate(cfg, res)  # zero-out adjacency, |D_i| public (the paper's Appendix A)
        replace = privacy.certificate(cfg, res, adjacency="replace_one")  # Sec. II-C: one sample altered
        as_paper = privacy.certificate(cfg, res, one_step_sensitivity=True)
        eq21 = privacy.paper_epsilon(res)
        rows += cert.tidy_rows("privacy", cfg.panel, cfg.name)
        sens_ratio = cert.sensitivity / as_paper.sensitivity
        tight, tight_replace = (tight_gaussian_epsilon(c.noise_std / c.sensitivity, c.releases, c.delta) for c in (cert, replace))
        extra = {"eq21_epsilon_as_run": eq21, "certified_epsilon_replace_one": replace.certified_epsilon,
                 "certified_epsilon_tight": tight, "certified_epsilon_replace_one_tight": tight_replace,
                 "certified_epsilon_one_step_sensitivity": as_paper.certified_epsilon,
                 "sensitivity": cert.sensitivity, "one_step_sensitivity": as_paper.sensitivity,
                 "sensitivity_ratio": sens_ratio, "flagged": float(cert.flagged), "one_step": float(cfg.one_step),
                 "frac_clipped": float(np.mean([r["frac_clipped"] for r in res])), "seeds": float(len(res))}
        rows += [dict(figure="privacy", panel=cfg.panel, series=cfg.name, x=cfg.nominal_epsilon, metric=k, value=float(v),
                      seed=-1, run_id="") for k, v in extra.items()]
        body.append([cfg.name, cfg.panel, f"{cfg.nominal_epsilon:g}", f"{cfg.delta:g}", _fmt(eq21),
                     _fmt(cert.certified_epsilon), _fmt(tight), _fmt(cert.ratio) + (" (!)" if cert.flagged else ""),
                     _fmt(replace.certified_epsilon) + (" (!)" if replace.flagged else ""),
                     _fmt(as_paper.certified_epsilon), f"{sens_ratio:.3g}"])
        notes.append(f"- **{cfg.name}**: zero-out: {cert.assumptions}. Replace-one: "
                     f"{privacy.ONE_STEP_ASSUMPTION['replace_one'] if cfg.one_step else 'the same sensitivity'}. "
                     f"Nominal: {cfg.nominal_source}.")
    df = tidy_frame(rows)
    header = ["configuration", "figures", "paper's eps", "delta", "eq. (21) as run",
              "certified (RDP), zero-out adjacency, |D_i| public", "exact (Gaussian DP), zero-out", "certified / paper",
              "certified (RDP), replace-one adjacency", "certified if one step (paper's sensitivity, zero-out)",
              "sensitivity / paper's"]
    note = ("eq. (21): the paper's closed form for the noise actually run. Certified: dp-accounting's RDP accountant on "
            "the sensitivity of what was trained, under zero-out adjacency (one sample replaced by a null sample, |D_i| "
            "public: the paper's Appendix A bound) and under replace-one adjacency (Sec. II-C: 'alteration of a single "
            "data sample'; also bounds add/remove with the realised 1/|D_i|); the two differ only for one-step runs "
            "(sensitivity 1/(s_i |D|) vs 2/(s_i |D|)). Exact: the epsilon of the same M Gaussian releases (one Gaussian "
            "mechanism, Balle & Wang 2018): where the sensitivity is attained, the mechanism's epsilon itself; the RDP "
            "value is an upper bound. (!) marks a factor > 2 from the paper's value.")
    if not body:
        f, axes = subplots(1, 1)
        mark_unavailable(axes[0, 0], "; ".join(sorted(set(reasons))) or "no results")
        suptitle(f, fig.title, ctx.profile)
        return Rendered(df, f, f"# {fig.title}\n\nNOT REGENERATED: {'; '.join(sorted(set(reasons)))}\n")
    blocks = [(None, header, body)]
    f = draw_tables(blocks, fig.title, ctx.profile, note, width=13.5, col_widths="auto", fontsize=6.5)
    md = markdown_tables(blocks, fig.title, note) + "\nAssumptions (worst client, least private seed):\n\n" + "\n".join(notes) + "\n"
    if left_out:
        md += "\nConfigurations not certified (a run without a result):\n\n" + "\n".join(
            f"- **{name}**: {why}" for name, why in left_out.items()) + "\n"
    return Rendered(df, f, md)


STEP_PANELS = (("{femnist}, E local epochs (Figs 2-8)", ("fedavg", "fedprox", "baseline13")),
               ("{femnist}, one step per round (fig91)", ("one_step_fedavg", "one_step_baseline13")),
               ("synthetic i.i.d. (Figs 9-10)", ("iid_fedavg", "iid_baseline13")))


def _femnist_label(fig, results) -> str:
    """What the figure's FEMNIST runs trained on (data.dataset_label of the first that ran): the surrogate, or real
    FEMNIST with the format it was read from."""
    notes = [results[r.run_id].get("dataset") for r in fig.runs
             if r.params.get("data") == "femnist" and not is_unavailable(results[r.run_id])]
    return dataset_label(notes[0] if notes else None)
STEP_METHOD = {"fedavg": "FedAvg + PC", "fedprox": "FedProx + PC", "baseline13": "[13]"}


def _method_of(key: str) -> str:
    return STEP_METHOD[key.replace("one_step_", "").replace("iid_", "")]


def _render_steps(fig, results, ctx):
    """table92: the server-step grid per baseline on the tuning seed; argmin of the mean training loss."""
    p = ctx.params
    grid = list(p["server_step_grid"])
    rows, reasons, crit = [], [], {}
    for spec in fig.runs:
        res = results[spec.run_id]
        if is_unavailable(res):
            reasons.append(res["reason"])
            continue
        q = spec.params
        key = step_key(q["algorithm"], q["mode"], q.get("local_rule", "epochs"), q["data"])
        step = q["server_step"]
        mean_loss = float(np.mean([_stored_number(v) for v in res["train_loss"]]))
        vals = {"mean_train_loss": mean_loss if math.isfinite(mean_loss) else math.inf,  # diverged: never the argmin
                "final_train_loss": _stored_number(res["train_loss"][-1]),
                "mean_test_acc": float(np.mean(res["test_acc"])), "final_test_acc": float(res["test_acc"][-1])}
        crit[(key, grid.index(step))] = vals
        rows += [dict(figure=fig.fig_id, panel=key, series=theory.step_label(step), x=grid.index(step), metric=k, value=v,
                      seed=spec.seed, run_id=spec.run_id) for k, v in vals.items()]
    blocks = []
    femnist = _femnist_label(fig, results)
    for title, keys in STEP_PANELS:
        title = title.format(femnist=femnist)
        keys = [k for k in keys if any(c[0] == k for c in crit)]
        if not keys:
            continue
        cells, status = {}, []
        for k in keys:
            got = {i: v["mean_train_loss"] for (kk, i), v in crit.items() if kk == k}
            low = min(got.values())
            best = {i for i, v in got.items() if v <= low * (1 + TIE_RTOL)}
            used = grid.index(p["server_step"][k])
            for i, v in got.items():
                cells[(k, i)] = f"{v:.4f}" + (" argmin" if i in best else "") + (" [used]" if i == used else "")
                rows += [dict(figure=fig.fig_id, panel=k, series=theory.step_label(grid[i]), x=i, metric=m, value=float(b),
                              seed=-1, run_id="") for m, b in (("selected", i in best), ("in_use", i == used))]
            if used not in best:
                status.append(f"{_method_of(k)}: the figures use the paper's step {theory.step_label(grid[used])}, the "
                              f"argmin is {', '.join(theory.step_label(grid[i]) for i in sorted(best))} (package observation)")
        body = [[theory.step_label(grid[i])] + [cells.get((k, i), "") for k in keys] for i in range(len(grid))]
        caption = f"{title}, tuning seed {p['tuning_seed']}" + (f"; {'; '.join(status)}" if status else "")
        blocks.append((caption, ["server step"] + [f"{_method_of(k)}: mean train loss" for k in keys], body))
    df = tidy_frame(rows)
    note = ("Criterion: training loss averaged over all rounds on the tuning seed (test accuracy is in the CSV, not used). "
            "w <- w + step x aggregate. [used]: the step the figures and claims use, the paper's 1 (FedProx 'not tuned'); "
            "the argmin is a package observation, never in place of the paper's baseline. The grid leaves out 1 + c_m "
            "(c_m = mu/(mu + lambda_m), eq. 9), the step Upcycled-FL's even iteration applies: FedProx at it is "
            "Upcycled-FL itself.")
    if not blocks:
        f, axes = subplots(1, 1)
        mark_unavailable(axes[0, 0], "; ".join(sorted(set(reasons))) or "no results")
        suptitle(f, f"Package addition: {fig.title}", ctx.profile)
        return Rendered(df, f, f"# {fig.title}\n\nNOT REGENERATED: {'; '.join(sorted(set(reasons)))}\n")
    f = draw_tables(blocks, f"Package addition: {fig.title}", ctx.profile, note, width=10.0, col_widths="auto")
    return Rendered(df, f, markdown_tables(blocks, fig.title, note))


REGIME_ROWS = (("rounds", "M (transmissions)", "{:.0f}"), ("local_epochs", "E (local epochs)", "{:.0f}"),
               ("dataset_size", "|D| (training samples)", "{:.0f}"), ("alpha_u", "alpha_u (eq. 21 at eps0)", "{:.1f}"),
               ("p_shrink", "share of client-rounds with s_i > 1", "{:.4f}"),
               ("p_shrink_largest", "rounds in which the largest client has s_i > 1", "{:.4f}"),
               ("pc_bias_rel_mean", "relative bias of the aggregate from s_i > 1", "{:.4f}"),
               ("noise_to_signal_no_cj", "noise / signal per round, no jammer", "{:.3f}"))


def _render_regime(fig, results, ctx):
    """fig92: this profile's regime against the paper's setting (regime runs at the initial model) and as
    measured in this profile's FedAvg runs (median / mean over rounds, then over seeds)."""
    p = ctx.params
    here = (int(p["rounds"]), int(p["local_epochs"]), float(p["size_scale"]))
    cols, reasons, rows, runs_meas = {}, [], [], []
    for spec in fig.runs:
        res = results[spec.run_id]
        if is_unavailable(res):
            reasons.append(res["reason"])
            continue
        q = spec.params
        if spec.task == "regime":
            setting = (int(q["rounds"]), int(q["local_epochs"]), float(q["size_scale"]))
            names = (["this profile"] if setting == here else []) + (
                ["paper setting"] if setting == (int(p["paper_setting"]["rounds"]), int(p["paper_setting"]["local_epochs"]),
                                                 float(p["paper_setting"]["size_scale"])) else [])
            for name in names:
                cols[name] = res
        elif q["mode"] == "proposed":
            runs_meas.append(res)
    keys = [k for k, _, _ in REGIME_ROWS]
    extra = []
    for e in p["cj_epsilons"]:
        for kappa in (float(p["kappa"]), 1.0):
            k = f"noise_to_signal_cj_{e:g}_kappa_{kappa:g}"
            if kappa == float(p["kappa"]) or e in p["bound_cj_epsilons"]:
                extra.append((k, f"noise / signal per round, jammer at {kappa:g}x its bound, target {e:g}", "{:.2f}"))
    extra += [("prox_effect_rel", "FedProx vs FedAvg aggregate: relative difference", "{:.4f}"),
              ("prox_cosine", "FedProx vs FedAvg aggregate: cosine", "{:.5f}")]
    table_rows = list(REGIME_ROWS) + extra
    for name, res in cols.items():
        for k, _, _ in table_rows:
            if k in res:
                rows.append(dict(figure=fig.fig_id, panel="regime", series=name, x=np.nan, metric=k, value=float(res[k]),
                                 seed=-1, run_id=""))
    measured = {"p_shrink": "frac_s_above_1", "pc_bias_rel_mean": "pc_bias_rel_mean",
                "noise_to_signal_no_cj": "noise_to_signal_median", "alpha_u": "alpha_u", "dataset_size": "dataset_size"}
    for res in runs_meas:
        for k, src in measured.items():
            if src in res:
                rows.append(dict(figure=fig.fig_id, panel="regime", series="this profile's runs", x=np.nan, metric=k,
                                 value=float(res[src]), seed=-1, run_id=""))
    df = tidy_frame(rows)
    if not cols:
        f, axes = subplots(1, 1)
        mark_unavailable(axes[0, 0], "; ".join(sorted(set(reasons))) or "no results")
        suptitle(f, f"Package addition: {fig.title}", ctx.profile)
        return Rendered(df, f, f"# {fig.title}\n\nNOT REGENERATED: {'; '.join(sorted(set(reasons)))}\n")
    names = [n for n in ("this profile", "paper setting") if n in cols]
    header = ["quantity"] + [f"{n} (initial model)" for n in names] + (["this profile's FedAvg runs (over rounds, seeds)"]
                                                                        if runs_meas else [])
    body = []
    for k, label, fmt in table_rows:
        row = [label] + [fmt.format(cols[n][k]) if k in cols[n] else "" for n in names]
        if runs_meas:
            vals = [r[measured[k]] for r in runs_meas if k in measured and measured[k] in r]
            row.append((fmt.format(min(vals)) + ("" if min(vals) == max(vals) else f" - {fmt.format(max(vals))}")) if vals else "")
        body.append(row)
    note = ("alpha_u = |D| sqrt(2 S*/M) (eq. 21): the power control's s_i and the per-round noise depend on M and |D| "
            "only through it. Initial model: one local round of FedAvg / FedProx from seed 0's initialisation, clipped "
            f"updates, {int(p['regime_draws'])} Rayleigh channel draws. Signal = ||sum_i p_i u_i / s_i|| (u_i: clipped "
            "update / tau); noise = sqrt(d) x the per-coordinate std. The runs' column: medians (noise/signal) and means "
            "(bias, share) over rounds, range over seeds.")
    f = draw_tables([(None, header, body)], f"Package addition: {fig.title}", ctx.profile, note, width=11.0,
                    col_widths="auto")
    return Rendered(df, f, markdown_tables([(None, header, body)], fig.title, note))


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


def _render_theory(fig, results, ctx):
    """theory: the closed forms behind claims C3, C4 and C18 at this profile's parameters (no run)."""
    p = ctx.params
    df = tidy_frame(theory_rows(fig.fig_id, p))

    def val(series, metric, x):
        v = df[(df.series == series) & (df.metric == metric) & (df.x.astype(float) == float(x))]["value"]
        return float(v.iloc[0])

    chan = float(df[df.metric == "channel_var"]["value"].iloc[0])
    targets = sorted(df[df.metric == "required_minus_channel_var"].x.astype(float).unique(), reverse=True)
    need = [[f"{e:g}", f"{val('jammer need', 'required_minus_channel_var', e):.4g}",
             "yes" if e < p["eps0"] else "no", f"{val('jammer at bound', 'epsilon_kappa1', e):.6g}"] for e in targets]
    thm = sorted(df[df.metric == "C5_plus_C6"].x.astype(float).unique(), reverse=True)
    conv = [[f"{e:g}", f"{val('Thm 5 (L_s = 1)', 'C5_plus_C6', e):.4g}"] for e in thm]
    D = sum(train_sizes(p["classes_per_client"], p["size_scale"]))
    blocks = [(f"Jammer need per target (eqs. 22-23): sigma_req^2 - sigma_c^2/alpha_u^2, with sigma_c^2/alpha_u^2 = "
               f"{chan:.4g} at eps0 = {p['eps0']:g}", ["target eps", "sigma_req^2 - sigma_c^2/alpha_u^2",
                                                     "below eps0", "eq. (21) with the jammer at its bound"], need),
              (f"Thm 5: C5 + C6 (eqs. 28, 33-34; L_s = 1, jammer at {p['kappa']:g}x its bound)", ["eps", "C5 + C6"],
               conv)]
    note = (f"Closed forms at this profile's M = {p['rounds']}, |D| = {D:,} training samples, d = "
            f"{theory.mlp_num_params(hidden=p['hidden']):,} (MLP 784-{p['hidden']}-10), eps0 = {p['eps0']:g}, delta0 = "
            f"{p['delta0']:g}, jammer delta = {p['cj_delta']:g}; no training run enters this table.")
    f = draw_tables(blocks, f"Package addition: {fig.title}", ctx.profile, note, width=10.0, col_widths="auto")
    return Rendered(df, f, markdown_tables(blocks, fig.title, note))


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"fig1": _render_diagram, **{f"fig{i}": _render_curves for i in range(2, 11)}, "fig91": _render_curves,
             "fig92": _render_regime, "table91": _render_tuning, "table92": _render_steps, "privacy": _render_privacy,
             "theory": _render_theory}
