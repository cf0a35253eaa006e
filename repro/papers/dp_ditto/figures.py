"""Rendering of the DP-Ditto figures and tables (layout of the paper's Figs. 1-7 and Table 1).

Training results are drawn as the mean over seeds with its 95 % Student-t interval (repro.stats); the
tidy CSV holds every seed. Every figure of private training names the nominal eps beside the eps an
RDP accountant certifies for the uploads actually run (``privacy.py``) where they differ by > 2x.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from repro.experiment import FigureSpec, RenderContext, Rendered, is_unavailable
from repro.papers.dp_ditto import privacy as pv
from repro.papers.dp_ditto.experiments import (CONSTANTS_ID, LITERAL_ID, PANEL_TITLES, PRIVACY_ID, SWEEP_ID, TUNING_ID, build_plan, eps_key,
                                               constants_need, literal_figure, literal_need, variant_series)
from repro.plotting import draw_tables, mark_unavailable, markdown_tables, note_clear, subplots, suptitle
from repro.results import tidy_frame
from repro.stats import mean_interval

METHOD_LABELS = {"ditto": "DP-Ditto", "fedamp": "DP-FedAMP", "pfedme": "DP-pFedMe", "apple": "DP-APPLE", "fedala": "DP-FedALA"}
LOCAL = "Local training (lambda=0)"
METHOD_STYLE = {"DP-Ditto": ("C3", "o", "-"), "DP-FedAMP": ("C0", "s", "-"), "DP-pFedMe": ("C1", "^", "-"),
                "DP-APPLE": ("C2", "v", "-"), "DP-FedALA": ("C4", "D", "-"), LOCAL: ("0.35", "x", "--")}
LETTERS = "abcdefgh"


def lam_key(lam: float) -> str:
    return f"{float(lam):g}"


def _rounds(result: dict, series: str) -> list[int]:
    """The rounds after which ``series`` was evaluated."""
    return result["series"][series]["round"]


def _value(result: dict, series: str, metric: str, t: int | None = None) -> float:
    """Metric of ``series`` after round ``t`` (default: the training's last evaluated round)."""
    rounds = _rounds(result, series)
    vals = result["series"][series][metric]
    i = len(rounds) - 1 if t is None else rounds.index(int(t))
    v = vals[i]
    return float("nan") if v is None else float(v)


def seed_band(values) -> tuple[float, float, float]:
    """Mean and 95 % Student-t interval of the finite seed values (NaN: a diverged seed, left out)."""
    v = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    if not v:
        return float("nan"), float("nan"), float("nan")
    iv = mean_interval(v)
    if len(v) < 2:
        return iv.mean, iv.mean, iv.mean
    return iv.mean, iv.low, iv.high


def plot_series(ax, df: pd.DataFrame, order=None, styles=None, label=str, logy=False):
    """One line per series: seed mean with its 95 % interval (band), from tidy rows of one metric. On a log axis
    both are taken on log10 values (geometric mean and its interval), so a band never runs below zero."""
    if df.empty:
        return
    for s in order or list(dict.fromkeys(df["series"])):
        d = df[df["series"] == s]
        if d.empty:
            continue
        x = pd.to_numeric(d["x"])
        if logy:
            v = pd.to_numeric(d["value"]).to_numpy(float)
            with np.errstate(divide="ignore", invalid="ignore"):
                lv = np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)
            stats = [(xv, *(10.0 ** np.array(seed_band(g)))) for xv, g in pd.Series(lv).groupby(x.to_numpy())]
        else:
            stats = [(xv, *seed_band(g["value"])) for xv, g in d.assign(x=x).groupby("x")]
        xs, m, lo, hi = (np.array(c, float) for c in zip(*stats))
        color, marker, ls = (styles or {}).get(s, (None, "o", "-"))
        line, = ax.plot(xs, m, marker=marker, color=color, ls=ls, label=label(s))
        if d["seed"].nunique() > 1:
            ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
    if logy:
        ax.set_yscale("log")


def _legend_outside(ax) -> None:
    """Legend to the right of the axes, so that it covers no data."""
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def _eps_words(p: dict) -> str:
    """What the legends' eps mean: the paper's nominal value, with the noise calibrated by eq. (8) for the paper
    profile's |D_n| while the client trains on fewer samples where the profile says so."""
    held = [str(n) for n in (p.get("train_per_client"), p.get("cnn_train_per_client")) if n]
    if p.get("dp_sample_size") == "split" and held:
        return f"eps: nominal (eq. (8) noise calibrated for the full |D_n|, ~2,625; trained on {' / '.join(held)} samples)"
    return "eps: nominal (eq. (8))"


def _note(ctx: RenderContext, extra: str = "") -> str:
    n = len(ctx.params["seeds"])
    txt = f"mean over {n} seed(s), band: 95 % Student-t interval (log axes: of log10 values)" if n > 1 else "one seed"
    txt += f"; {_eps_words(ctx.params)}"
    return txt + (f"\n{extra}" if extra else "")


def _certs(jobs, delta: float) -> dict[float, dict]:
    """Certificates per nominal eps of the private trainings among ``jobs`` ((q, seed, rid, res) tuples)."""
    out = {}
    for q, _seed, _rid, res in jobs:
        eps = float(q["epsilon"])
        if math.isinf(eps) or res is None or is_unavailable(res) or eps in out:
            continue
        out[eps] = pv.job_certificates(eps, float(q["clip"]), int(q["T"]), delta, res["sigma_u"], res["split_sizes"],
                                       res["train_sizes"])
    return out


# --------------------------------------------------------------------------------------------- Table 1, Fig. 1


def _table1(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    rows = [
        ("D, D_n", "local datasets of all clients / of client n", "repro.data partition; runs.load_clients"),
        ("F(.), F_n(.)", "global loss / local loss of client n", "cross-entropy of the model"),
        ("f_n(.)", "loss of client n's personalised model, eq. (3a)", "(1-lambda/2) F_n + lambda/2 ||varpi - omega||^2"),
        ("omega, omega*", "global model and optimal global model", "DittoState.global_params"),
        ("u_n, u_n*", "local model of client n and its optimum", "stacked local models [N, d]"),
        ("varpi_n, varpi_n*", "personalised model of client n and its optimum", "stacked [|Lambda| N, d]"),
        ("z_n^t, z^t", "DP noise of client n / on the global model", "dp_noise stream, N(0, sigma_u^2 I)"),
        ("sigma_u, sigma_z", "std of z_n^t and of z^t (eq. (8))", "theory.sigma_u, theory.sigma_z"),
        ("C", "clipping threshold of the local model", "params clip / fig7_clip"),
        ("T", "maximum number of global aggregations", "job param T"),
        ("epsilon, delta", "DP requirement", "job param epsilon; params delta"),
        ("lambda", "weight of the personalised model, in [0, 2]", "job param lambdas"),
        ("Delta s", "sensitivity 2C/|D_n| (eq. (7))", "theory.sensitivity; privacy.VIEWS"),
        ("eta_G, eta_L", "learning rates of local / personalised model", "params lr"),
        ("varrho(.)", "fairness: variance of PL training losses (Def. 1)", "metric 'fairness'"),
        ("Y_n, X_n, b", "linear-model observations and sample count (Sec. 5)", "theory.FairnessSetup"),
        ("u_hat_n, tau_n, nu_n", "estimate of u_n*, its deviation, observation noise", "theory.personalised_*"),
        ("zeta^2, sigma^2, sigma_w^2, rho", "variances and X_n^T X_n = rho I", "theory.FairnessSetup, sigma_w2"),
    ]
    header = ["symbol", "meaning", "in the code"]
    f = draw_tables([(None, header, rows)], "Table 1: notation and definitions", ctx.profile, width=10,
                    col_widths=[0.25, 0.43, 0.32], fontsize=7, cell_loc="left")
    data = tidy_frame([{"figure": "table1", "series": a, "x": i, "metric": "row", "value": i, "seed": -1}
                       for i, (a, _, _) in enumerate(rows)])
    return Rendered(data=data, figure=f, markdown=markdown_tables([(None, header, rows)], "Table 1: notation and definitions"))


def _fig1(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    f, axes = subplots(1, 1, width=9, height=4.2)
    ax = axes[0, 0]
    ax.axis("off")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 6)
    box = dict(boxstyle="round,pad=0.4", facecolor="#eef3fb", edgecolor="#335")
    ax.text(5, 5.3, "Server: omega^{t+1} = (1/N) sum_n u~_n^{t+1}   (Alg. 1 step 13)", ha="center", bbox=box, fontsize=9)
    for i, x in enumerate((1.6, 5.0, 8.4)):
        name = ["client 1", "client n", "client N"][i]
        ax.text(x, 1.6, f"{name}\nlocal model u_n <- SGD on D_n\npersonalised varpi_n <- (1-lambda/2) grad F_n\n"
                        f"   + lambda (varpi_n - omega^t)\nclip ||u_n|| <= C, add z_n ~ N(0, sigma_u^2 I)",
                ha="center", va="center", bbox=dict(boxstyle="round,pad=0.4", facecolor="#f7f7f7", edgecolor="#555"),
                fontsize=7)
        ax.annotate("", xy=(5 + (x - 5) * 0.3, 4.95), xytext=(x, 2.55), arrowprops=dict(arrowstyle="->", color="C3"))
        ax.annotate("", xy=(x + 0.25, 2.55), xytext=(5 + (x - 5) * 0.3 + 0.25, 4.95),
                    arrowprops=dict(arrowstyle="->", color="C0"))
    ax.text(2.6, 3.9, "upload u~_n = clip(u_n) + z_n", color="C3", fontsize=8)
    ax.text(6.3, 3.9, "broadcast omega^t", color="C0", fontsize=8)
    ax.text(5, 0.2, "personalised models varpi_n never leave the client", ha="center", fontsize=8, style="italic")
    suptitle(f, "Fig. 1: PFL with DP (DP-Ditto) - schematic", ctx.profile)
    return Rendered(data=tidy_frame([]), figure=f)


# --------------------------------------------------------------------------------------------- Fig. 2

FIG2_SOURCES = {"mlr_mnist": "measured on MLR / MNIST", "dnn_mnist": "measured on DNN / MNIST",
                "cnn_fashion_mnist": "measured on CNN / FMNIST", "illustrative": "illustrative constants (not measured)"}
CONSTANT_NAMES = ("mu", "smooth", "g0", "m_gap", "psi1", "psi2", "dim", "num_samples", "eta_g")
VIOLATION_TEXT = {"mu": "mu <= (2 - 2 lambda)/(2 - lambda)", "eta_G": "eta_G > 2/L", "lambda": "lambda outside [0, 2]"}


def _fig2(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    runs = [(r.seed, r.run_id, results[r.run_id]) for r in sorted(fig.runs, key=lambda r: r.seed)]
    first = runs[0][2]
    sources = list(first["measured"]) + ["illustrative"]
    rows = []
    f, axes = subplots(1, len(sources), width=4.3, height=4.4)
    for i, src in enumerate(sources):
        ax = axes[0, i]
        ax.set_title(f"({LETTERS[i]}) {FIG2_SOURCES.get(src, src)}", fontsize=9)
        ax.set_xlabel("maximum aggregation number T")
        per_seed = [(seed, rid, r["illustrative"] if src == "illustrative" else r["measured"][src]) for seed, rid, r in runs]
        if src == "illustrative":
            per_seed = per_seed[:1]  # no randomness: one curve
        if per_seed[0][2].get("status") != "ok":
            mark_unavailable(ax, per_seed[0][2].get("reason", "not available"))
            continue
        for j, (seed, rid, cur) in enumerate(per_seed):
            T, h = np.array(cur["T"], float), np.array(cur["h"], float)
            base = {"figure": "fig2", "panel": src, "seed": -1 if src == "illustrative" else seed, "run_id": rid}
            rows += [{**base, "series": "h(T, lambda) eq. (14)", "x": t, "metric": "h", "value": v} for t, v in zip(T, h)]
            ax.semilogy(T, h, color="C0", alpha=1.0 if j == 0 else 0.5, label="h(T, lambda), eq. (14)" if j == 0 else None)
            if cur.get("h_low") is not None:
                hl = np.array(cur["h_low"], float)
                rows += [{**base, "series": "h_Low(T) eq. (17)", "x": t, "metric": "h_low", "value": v} for t, v in zip(T, hl)]
                rows += [{**base, "series": "h(T, lambda) eq. (16a)", "x": t, "metric": "h", "value": v}
                         for t, v in zip(T, cur["h_16a"])]
                pos = hl > 0
                ax.semilogy(T[pos], hl[pos], color="C1", ls="--", alpha=1.0 if j == 0 else 0.5,
                            label="h_Low(T), eq. (17) (> 0 part)" if j == 0 else None)
                rows.append({**base, "series": "H0", "x": 0, "metric": "H0", "value": cur["H0"]})
                rows.append({**base, "series": "T'", "x": 0, "metric": "T_prime", "value": cur["T_prime"]})
            rows.append({**base, "series": "T*", "x": cur["T_star"], "metric": "T_star", "value": cur["T_star"]})
            rows.append({**base, "series": "T*", "x": cur["T_star"], "metric": "h_star", "value": cur["h_star"]})
            rows.append({**base, "series": "h(0)", "x": 0, "metric": "h0", "value": h[0]})
            rows.append({**base, "series": "eps_L", "x": 0, "metric": "eps_l", "value": cur["eps_l"]})
            rows.append({**base, "series": "eps_G", "x": 0, "metric": "eps_g", "value": cur["eps_g"]})
            rows.append({**base, "series": "Assumption 1", "x": 0, "metric": "violations", "value": len(cur["violations"])})
            for name in CONSTANT_NAMES:
                rows.append({**base, "series": "constant", "x": 0, "metric": name, "value": cur["constants"][name]})
            for row in cur["table"]:
                rows.append({**base, "series": f"eps={eps_key(row['epsilon'])}", "x": row["epsilon"], "metric": "T_star_eps",
                             "value": row["T_star"]})
        cur = per_seed[0][2]
        c = cur["constants"]
        if cur["T_star"] <= T.max():
            ax.axvline(cur["T_star"], color="C3", ls=":", label=f"T* = {cur['T_star']}" + (" (seed 0)" if len(per_seed) > 1 else ""))
        txt = (("seed 0: " if len(per_seed) > 1 else "") + f"mu={c['mu']:.3g}, L={c['smooth']:.3g}, G0={c['g0']:.3g}, "
               f"M={c['m_gap']:.3g}, Psi1={c['psi1']:.3g}, Psi2={c['psi2']:.3g}, d={c['dim']}\n"
               f"eps_L={cur['eps_l']:.5f}, eps_G={cur['eps_g']:.5f}, T*={cur['T_star']}")
        if cur["violations"]:
            txt += "\nAssumption 1 violated: " + "; ".join(VIOLATION_TEXT.get(v.split("=")[0], v) for v in cur["violations"])
        if cur.get("h_low") is None:
            txt += "\nh_Low and T' undefined (they need eps_L, eps_G < 1)"
        ax.text(0.0, -0.2, txt, transform=ax.transAxes, fontsize=6.8, va="top")
        ax.legend(fontsize=7, loc="upper right")
    axes[0, 0].set_ylabel("bound on E||varpi - varpi*||^2")
    cap = ctx.params["fig2"]["caption"]
    n = len(runs)
    suptitle(f, "Fig. 2: Theorem 1's bound h(T, lambda) and its lower bound h_Low(T)", ctx.profile,
             f"caption's setting: lambda={cap['lam']}, eps={cap['epsilon']:g}, delta={cap['delta']}, eta={ctx.params['fig2']['eta']}; "
             f"constants measured on non-private trainings ({n} seed(s), one curve each; README D30)")
    return Rendered(data=tidy_frame(rows), figure=f)


# --------------------------------------------------------------------------------------------- Figs. 3, 4


def pull_per_round(lam: float, lr: float, steps: float) -> float:
    """Share of the gap varpi - omega that the lambda-term of eq. (34) closes in one round of ``steps``
    SGD steps at rate ``lr``: 1 - (1 - lr lambda)^steps (gradient term left out)."""
    return 1.0 - (1.0 - lr * lam) ** steps


def _fig34(fig: FigureSpec, results: dict, ctx: RenderContext, src: str = "", tag: str = "", reading: str = "") -> Rendered:
    """Fig. 3 or 4 (``src``; default the figure's id), drawn from the jobs the plan names ``tag`` (default ``src``; the
    CSV's ``figure`` value): the literal figures draw the same panels at Algorithm 1 as printed."""
    p = ctx.params
    src = src or fig.fig_id
    tag = tag or src
    eps = p["fig3_epsilon"] if src == "fig3" else p["fig4_epsilon"]
    lam = p["fig3_lambda"] if src == "fig3" else p["fig4_lambda"]
    panels = p["fig34_panels"]
    rows, unavailable, pulls = [], {}, {}
    jobs = list(build_plan(p).jobs_of(tag, results))
    for q, seed, rid, res in jobs:
        if is_unavailable(res):
            unavailable[q["panel"]] = res["reason"]
            continue
        i = panels.index(q["panel"])
        base = {"figure": tag, "seed": seed, "run_id": rid}
        if "algorithm" in q:
            method, series, Ts = METHOD_LABELS[q["algorithm"]], "personalized", [None]
            if q.get("variant"):  # the baseline at another published value of a constant the paper does not state
                method = variant_series(method, q["variant"])
        elif math.isinf(float(q["epsilon"])):  # local-training reference read at every T of the grid
            method, series, Ts = LOCAL, "0", list(p["fig34_T"][q["panel"]])
        else:
            method, series, Ts = "DP-Ditto", lam_key(lam), [None]
            pulls[q["panel"]] = pull_per_round(lam, float(q["lr"]), res["steps_per_round"])
        for T in Ts:
            x = q["T"] if T is None else T
            for k, metric in enumerate(("accuracy", "fairness")):
                letter = LETTERS[2 * i + k]
                for m in ((metric, "accuracy_unweighted") if metric == "accuracy" else (metric, "fairness_std", "loss")):
                    rows.append({**base, "panel": letter, "series": method, "x": x, "metric": m, "value": _value(res, series, m, T)})
        if q.get("algorithm") == "fedamp":
            for m in ("mean_self_weight", "same_group_weight", "other_group_weight"):
                rows.append({**base, "panel": LETTERS[2 * i], "series": method, "x": q["T"], "metric": m,
                             "value": float(res["info"].get(m, float("nan")))})
    for panel, v in pulls.items():
        rows.append({"figure": tag, "panel": LETTERS[2 * panels.index(panel)], "series": "DP-Ditto", "x": 0,
                     "metric": "pull_per_round", "value": v, "seed": -1, "run_id": ""})
    df = tidy_frame(rows)
    f, axes = subplots(len(panels), 2, width=4.4, height=3.1)
    variants = [s for s in dict.fromkeys(df["series"]) if s not in METHOD_STYLE] if len(df) else []
    order = list(METHOD_STYLE) + variants
    styles = {**METHOD_STYLE, **{v: (METHOD_STYLE[v.split(" [")[0]][0], "x", ":") for v in variants}}
    for i, panel in enumerate(panels):
        for k, (metric, ylabel) in enumerate((("accuracy", "test accuracy"), ("fairness", "fairness (var of PL loss)"))):
            ax = axes[i, k]
            letter = LETTERS[2 * i + k]
            ax.set_title(f"({letter}) {PANEL_TITLES[panel]}")
            ax.set_xlabel("maximum aggregation number T")
            ax.set_ylabel(ylabel)
            if panel in unavailable:
                mark_unavailable(ax, unavailable[panel])
                continue
            d = df[(df["panel"] == letter) & (df["metric"] == metric)]
            plot_series(ax, d, order, styles, logy=metric == "fairness")
            if k == 0 and panel in pulls:
                same = _coincide(d[d["series"].isin(["DP-Ditto", "DP-FedAMP", LOCAL])], LOCAL)
                note_clear(ax, f"lambda*={lam:g}: pull per round {100 * pulls[panel]:.2g} %"
                           + (f"\n{' and '.join(same)} on local training (< {100 * COINCIDE_RTOL:g} % apart)" if same else ""),
                           fontsize=7, color="C3")
            if k == 1:
                _legend_outside(ax)
    cert = pv.figure_note(_certs(jobs, float(p["delta"])))
    suptitle(f, f"{'Fig. 3' if src == 'fig3' else 'Fig. 4'}{reading}: DP-Ditto (lambda*={lam:g}) vs DP baselines and local training, eps={eps:g}, "
                f"delta={p['delta']}", ctx.profile, _note(ctx, cert))
    return Rendered(data=df, figure=f)


# --------------------------------------------------------------------------------------------- Fig. 5


#: Fig. 5: an eps curve whose seed mean is within this relative distance of the eps = inf curve at every T is
#: said (on the panel) to coincide with it
COINCIDE_RTOL = 0.01


def _coincide(d: pd.DataFrame, ref: str) -> list[str]:
    m = d.assign(x=pd.to_numeric(d["x"])).groupby(["series", "x"])["value"].mean().unstack("x")
    if ref not in m.index:
        return []
    r = m.loc[ref]
    return [s for s in m.index if s != ref and bool((np.abs(m.loc[s] / r - 1) < COINCIDE_RTOL).all())]


def _fig5(fig: FigureSpec, results: dict, ctx: RenderContext, src: str = "fig5", tag: str = "fig5", reading: str = "") -> Rendered:
    """Fig. 5 from the jobs the plan names ``tag`` (the CSV's ``figure`` value; see _fig34)."""
    p = ctx.params
    panels, lam = p["fig5_panels"], lam_key(p["fig5_lambda"])
    rows, unavailable = [], {}
    jobs = list(build_plan(p).jobs_of(tag, results))
    for q, seed, rid, res in jobs:
        if is_unavailable(res):
            unavailable[q["panel"]] = res["reason"]
            continue
        letter = LETTERS[panels.index(q["panel"])]
        eps = float(q["epsilon"])
        base = {"figure": tag, "panel": letter, "seed": seed, "run_id": rid}
        if math.isinf(eps):
            for T in p["fig5_T"][q["panel"]]:
                rows.append({**base, "series": "Ditto (eps=inf)", "x": T, "metric": "loss", "value": _value(res, lam, "loss", T)})
            for t in _rounds(res, "0"):  # claim 18.b: lambda = 0 without noise, every round
                for metric in ("loss", "accuracy"):
                    rows.append({**base, "series": "lambda=0 (eps=inf)", "x": t, "metric": metric, "value": _value(res, "0", metric, t)})
        else:
            rows.append({**base, "series": f"eps={eps_key(eps)}", "x": q["T"], "metric": "loss", "value": _value(res, lam, "loss")})
    df = tidy_frame(rows)
    f, axes = subplots((len(panels) + 1) // 2, 2, width=4.4, height=3.1)  # no empty row when two panels are run
    order = [f"eps={eps_key(e)}" for e in p["fig5_epsilons"] if not math.isinf(e)] + ["Ditto (eps=inf)"]
    for i, panel in enumerate(panels):
        ax = axes.flat[i]
        ax.set_title(f"({LETTERS[i]}) {PANEL_TITLES[panel]}")
        ax.set_xlabel("maximum aggregation number T")
        ax.set_ylabel("PL training loss")
        if panel in unavailable:
            mark_unavailable(ax, unavailable[panel])
            continue
        d = df[(df["panel"] == LETTERS[i]) & (df["metric"] == "loss") & df["series"].isin(order)]
        styles = {s: (None, "o", "--") for s in order[:-1]} | {order[-1]: ("k", "none", "-")}
        plot_series(ax, d, order, styles, logy=True)
        same = [s for s in order if s in _coincide(d, order[-1])]  # in the legend's order
        if same:
            note_clear(ax, f"within {100 * COINCIDE_RTOL:g} % of {order[-1]} at every T:\n{', '.join(same)}")
        if i % 2 == 1 or i == len(panels) - 1:
            _legend_outside(ax)
    for j in range(len(panels), axes.size):
        axes.flat[j].axis("off")
    cert = pv.figure_note(_certs(jobs, float(p["delta"])))
    suptitle(f, f"Fig. 5{reading}: PL training loss vs T, lambda={p['fig5_lambda']:g}, C={p['clip']:g}, delta={p['delta']}",
             ctx.profile, _note(ctx, cert))
    return Rendered(data=df, figure=f)


# --------------------------------------------------------------------------------------------- Fig. 6


def _fig6(fig: FigureSpec, results: dict, ctx: RenderContext, src: str = "fig6", tag: str = "fig6", reading: str = "") -> Rendered:
    """Fig. 6 (``tag``: the CSV's ``figure`` value and the plan's name of the jobs drawn; the literal_step figure draws
    the same panels at its reading)."""
    p = ctx.params
    panels = p["fig6_panels"]
    rows, unavailable = [], {}
    jobs = list(build_plan(p).jobs_of(tag, results))
    for q, seed, rid, res in jobs:
        if is_unavailable(res):
            unavailable[q["panel"]] = res["reason"]
            continue
        i = panels.index(q["panel"])
        for lam in p["fig6_lambdas"]:
            s = lam_key(lam)
            for metric in ("accuracy", "fairness", "fairness_std", "loss"):
                letter = LETTERS[2 * i + (0 if metric == "accuracy" else 1)]
                for t, v in zip(_rounds(res, s), res["series"][s][metric]):
                    rows.append({"figure": tag, "panel": letter, "series": f"lambda={s}", "x": t, "metric": metric,
                                 "value": float("nan") if v is None else v, "seed": seed, "run_id": rid})
    df = tidy_frame(rows)
    f, axes = subplots(len(panels), 2, width=4.4, height=3.1)
    order = [f"lambda={lam_key(l)}" for l in p["fig6_lambdas"]]
    for i, panel in enumerate(panels):
        for k, (metric, ylabel) in enumerate((("accuracy", "test accuracy"), ("fairness", "fairness (var of PL loss)"))):
            ax = axes[i, k]
            letter = LETTERS[2 * i + k]
            ax.set_title(f"({letter}) {PANEL_TITLES[panel]}, T={p['fig6_T'][panel]}")
            ax.set_xlabel("aggregation round t")
            ax.set_ylabel(ylabel)
            if panel in unavailable:
                mark_unavailable(ax, unavailable[panel])
                continue
            plot_series(ax, df[(df["panel"] == letter) & (df["metric"] == metric)], order, logy=metric == "fairness")
            if k == 1:
                _legend_outside(ax)
    cert = pv.figure_note(_certs(jobs, float(p["delta"])))
    suptitle(f, f"Fig. 6{reading}: accuracy and fairness vs t, eps={p['fig6_epsilon']:g}, delta={p['delta']}", ctx.profile,
             _note(ctx, cert))
    return Rendered(data=df, figure=f)


def _literal_step(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    """Fig. 6 and the lambda sweep (those listed in ``literal_step``) with u_n and varpi_n taking Algorithm 1's one
    full-gradient step per round (the reading check of D1): Fig. 6's panels drawn, the sweep's table in the markdown; the
    CSV rows carry ``figure`` = literal_step:<figure> (claims.py reads them in place of that figure)."""
    todo = ctx.params["literal_step"]
    if not fig.runs:
        return _not_run_literal(fig, ctx)
    parts = []
    if SWEEP_ID in todo:
        parts.append(_table_sweep(fig, results, ctx, tag=literal_need(SWEEP_ID)))
    if "fig6" in todo:
        parts.append(_fig6(fig, results, ctx, tag=literal_need("fig6"),
                           reading=LITERAL_READING
                                   + ("; the lambda sweep's table: literal_step.md" if SWEEP_ID in todo else "")))
    shown = parts[-1]
    for r in parts[:-1]:  # the sweep's own plot: its numbers are in the CSV and its table in the markdown
        import matplotlib.pyplot as plt

        plt.close(r.figure)
    data = pd.concat([r.data for r in parts], ignore_index=True)
    md = "\n\n".join(r.markdown for r in parts if getattr(r, "markdown", None))
    return Rendered(data=data, figure=shown.figure, markdown=md or None)


LITERAL_READING = " at Algorithm 1 as printed (one full-gradient step per round)"


def _baseline_constants(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    """The baselines of Figs. 3-4 run at a constant the paper does not state: the package's tuned value (solid) beside
    other published values (``constant_variants``, dotted, dashed), and DP-Ditto's curve of Figs. 3-4 for reference, per
    figure and reading of Algorithm 1's step; the CSV rows
    carry ``figure`` = baseline_constants:<fig3 | fig4 | literal_step:fig3 | ...> (claims.py judges the comparisons
    with these baselines at both constants)."""
    if not fig.runs:
        f, axes = subplots(1, 1)
        mark_unavailable(axes[0, 0], f"not run in this profile (constant_variants: {ctx.params.get('constant_variants') or {}}): "
                                     "the baselines at other published constants run at paper scale")
        suptitle(f, fig.title, ctx.profile)
        return Rendered(tidy_frame([]), f)
    p = ctx.params
    views = [(src, "") for src in ("fig3", "fig4")] + [(src, LITERAL_READING) for src in ("fig3", "fig4") if src in p["literal_step"]]
    parts = []
    for src, reading in views:
        r = _fig34(fig, results, ctx, src=src, tag=constants_need(literal_need(src) if reading else src), reading=reading)
        import matplotlib.pyplot as plt

        plt.close(r.figure)
        parts.append((src, reading, r.data))
    data = pd.concat([d for _, _, d in parts], ignore_index=True)
    panels = p["fig34_panels"]
    rows = [(src, reading, d, i, panel) for src, reading, d in parts for i, panel in enumerate(panels)]
    f, axes = subplots(len(rows), 2, width=4.4, height=2.8)
    series = list(dict.fromkeys(data["series"])) if len(data) else []
    variant_lines = iter((":", "--", "-.") * len(series))  # the variants of one baseline in distinct line styles
    styles = {s: (METHOD_STYLE[s.split(" [")[0]][0], "o" if " [" not in s else "x", "-" if " [" not in s else next(variant_lines))
              for s in series}
    for r, (src, reading, d, i, panel) in enumerate(rows):
        eps = p["fig3_epsilon"] if src == "fig3" else p["fig4_epsilon"]
        for k, (metric, ylabel) in enumerate((("accuracy", "test accuracy"), ("fairness", "fairness (var of PL loss)"))):
            ax = axes[r, k]
            ax.set_title(f"{'Fig. 3' if src == 'fig3' else 'Fig. 4'} (eps={eps:g}), {PANEL_TITLES[panel]}"
                         f"{', printed step' if reading else ', D1'}", fontsize=9)
            ax.set_xlabel("maximum aggregation number T")
            ax.set_ylabel(ylabel)
            dd = d[(d["panel"] == LETTERS[2 * i + k]) & (d["metric"] == metric)]
            plot_series(ax, dd, series, styles, logy=metric == "fairness")
            if k == 1 and r == 0:
                _legend_outside(ax)
    suptitle(f, "Supplementary: the baselines of Figs. 3-4 at the package's constants (solid) and other published ones "
                "(dotted, dashed, dash-dot), DP-Ditto at lambda* as in Figs. 3-4",
             ctx.profile, "D1: one epoch of minibatch SGD per round; printed step: Algorithm 1's one full-gradient step "
             "per round. A claim comparing DP-Ditto with such a baseline keeps its verdict only where every constant gives it.")
    return Rendered(data=data, figure=f)



def _not_run_literal(fig: FigureSpec, ctx: RenderContext) -> Rendered:
    f, axes = subplots(1, 1)
    mark_unavailable(axes[0, 0], f"not run in this profile (literal_step: {list(ctx.params['literal_step'])}): Algorithm 1 "
                                 "as printed (one full-gradient step per round) runs at paper scale")
    suptitle(f, f"{fig.paper_ref}: {fig.title}", ctx.profile)
    return Rendered(tidy_frame([]), f)


def _literal_of(src: str):
    """The renderer of ``src``'s figure at Algorithm 1 as printed (``fig3_literal``, ...): ``src``'s own renderer on the
    jobs the plan names literal_step:<src>; its CSV rows carry that name as ``figure`` (claims.py reads them in place
    of ``src``)."""
    def render(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
        if not fig.runs:
            return _not_run_literal(fig, ctx)
        return RENDERERS[src](fig, results, ctx, src=src, tag=literal_need(src), reading=LITERAL_READING)
    render.__name__ = f"_{src}_literal"
    return render


# --------------------------------------------------------------------------------------------- Fig. 7


def joint_optimum(loss: pd.Series, fair: pd.Series, max_iter: int = 5, lam0: float = 0.1) -> tuple[float, float, int]:
    """D16 (Sec. 5.2, last paragraph): alternate 1-D searches from lambda = lam0: T* = argmin_T loss(lambda),
    lambda* = argmin_lambda fairness(lambda, T*), until both stop changing (<= max_iter). ``loss`` and
    ``fair`` are indexed by (lambda, T); NaN ranks last."""
    lams = sorted(set(loss.index.get_level_values(0)))
    lam = min(lams, key=lambda l: abs(l - lam0))
    T_star = None
    for it in range(1, max_iter + 1):
        new_T = float(loss.xs(lam, level=0).fillna(np.inf).idxmin())
        new_lam = float(fair.xs(new_T, level=1).fillna(np.inf).idxmin())
        if new_T == T_star and new_lam == lam:
            return T_star, lam, it
        T_star, lam = new_T, new_lam
    return T_star, lam, max_iter


def _fig7(fig: FigureSpec, results: dict, ctx: RenderContext, src: str = "fig7", tag: str = "fig7", reading: str = "") -> Rendered:
    """Fig. 7 from the jobs the plan names ``tag`` (the CSV's ``figure`` value; see _fig34)."""
    p = ctx.params
    rows, unavailable = [], None
    jobs = list(build_plan(p).jobs_of(tag, results))
    for q, seed, rid, res in jobs:
        if is_unavailable(res):
            unavailable = res["reason"]
            continue
        for lam in p["fig7_lambdas"]:
            s = lam_key(lam)
            base = {"figure": tag, "seed": seed, "run_id": rid}
            rows.append({**base, "panel": "a", "series": f"T={q['T']}", "x": float(lam), "metric": "fairness",
                         "value": _value(res, s, "fairness")})
            rows.append({**base, "panel": "b", "series": f"lambda={s}", "x": q["T"], "metric": "loss",
                         "value": _value(res, s, "loss")})
    df = tidy_frame(rows)
    f, axes = subplots(1, 2, width=4.6, height=3.5)
    if unavailable:
        for ax in axes.flat:
            mark_unavailable(ax, unavailable)
    if not df.empty:
        a, b = df[df["panel"] == "a"], df[df["panel"] == "b"]
        plot_series(axes[0, 0], a, [f"T={T}" for T in p["fig7_T"]], logy=True)
        axes[0, 0].set_xscale("log")
        plot_series(axes[0, 1], b, [f"lambda={lam_key(l)}" for l in p["fig7_lambdas"]], logy=True)
        extra = []
        for seed in sorted(set(a["seed"])) + [-1]:  # per seed, then on the seed means
            aa, bb = (a, b) if seed == -1 else (a[a["seed"] == seed], b[b["seed"] == seed])
            fair = aa.assign(lam=aa["x"].astype(float), T=aa["series"].str[2:].astype(float)).groupby(["lam", "T"])["value"].mean()
            loss = bb.assign(lam=bb["series"].str[7:].astype(float), T=bb["x"].astype(float)).groupby(["lam", "T"])["value"].mean()
            T_star, lam_star, iters = joint_optimum(loss, fair)
            e = {"figure": tag, "panel": "b", "series": "joint optimum (D16)", "seed": seed, "run_id": ""}
            extra += [{**e, "x": T_star, "metric": "T_star", "value": T_star},
                      {**e, "x": T_star, "metric": "lambda_star", "value": lam_star},
                      {**e, "x": T_star, "metric": "iterations", "value": iters}]
            for T in sorted(set(fair.index.get_level_values(1))):  # fairness-optimal lambda per T (claim 14.a)
                extra.append({"figure": tag, "panel": "a", "series": "argmin_lambda fairness", "seed": seed, "run_id": "",
                              "x": T, "metric": "lambda_star_T", "value": float(fair.xs(T, level=1).fillna(np.inf).idxmin())})
        df = pd.concat([df, tidy_frame(extra)], ignore_index=True)
        sel = b[b["series"] == f"lambda={lam_key(lam_star)}"].groupby("x")["value"].mean()
        if T_star in sel.index:
            axes[0, 1].plot([T_star], [sel[T_star]], marker="*", ms=14, color="k", ls="none",
                            label=f"(T*, lambda*) = ({T_star:g}, {lam_star:g}), seed means")
        for ax in axes.flat:
            _legend_outside(ax)
    axes[0, 0].set_xlabel("lambda")
    axes[0, 0].set_ylabel("fairness (var of PL loss)")
    axes[0, 0].set_title("(a) fairness vs lambda")
    axes[0, 1].set_xlabel("maximum aggregation number T")
    axes[0, 1].set_ylabel("PL training loss")
    axes[0, 1].set_title("(b) PL training loss vs T")
    cert = pv.figure_note(_certs(jobs, float(p["delta"])))
    suptitle(f, f"Fig. 7{reading}: DNN/MNIST, eps={p['fig7_epsilon']:g}, delta={p['delta']}, C={p['fig7_clip']:g}", ctx.profile,
             _note(ctx, cert))
    return Rendered(data=df, figure=f)


# --------------------------------------------------------------------------------------------- supplementary


def _table_sweep(fig: FigureSpec, results: dict, ctx: RenderContext, tag: str = SWEEP_ID) -> Rendered:
    """The lambda sweep (``tag``: the CSV's ``figure`` value and the plan's name of the jobs tabulated)."""
    p = ctx.params
    rows, reason = [], None
    for q, seed, rid, res in build_plan(p).jobs_of(tag, results):
        if is_unavailable(res):
            reason = res["reason"]
            continue
        for lam in p["sweep_lambdas"]:
            for metric in ("fairness", "accuracy", "loss"):
                rows.append({"figure": tag, "panel": "sweep", "series": f"eps={eps_key(q['epsilon'])}", "x": float(lam),
                             "metric": metric, "value": _value(res, lam_key(lam), metric), "seed": seed, "run_id": rid})
    df = tidy_frame(rows)
    f, axes = subplots(1, 2, width=4.4, height=3.1)
    body = []
    if reason:
        for ax in axes.flat:
            mark_unavailable(ax, reason)
    if not df.empty:
        for s in dict.fromkeys(df["series"]):
            for lam in p["sweep_lambdas"]:
                cells = [s[4:], f"{lam:g}"]
                for metric, fmt in (("fairness", "{:.3g}"), ("accuracy", "{:.4f}"), ("loss", "{:.3g}")):
                    m, lo, hi = seed_band(df[(df["series"] == s) & (df["x"] == float(lam)) & (df["metric"] == metric)]["value"])
                    cells.append(f"{fmt.format(m)} [{fmt.format(lo)}, {fmt.format(hi)}]")
                body.append(cells)
        for k, metric in enumerate(("fairness", "accuracy")):
            plot_series(axes[0, k], df[df["metric"] == metric], logy=metric == "fairness")
            axes[0, k].set_xscale("log")
            axes[0, k].set_xlabel("lambda")
            axes[0, k].set_ylabel(metric)
            axes[0, k].legend(fontsize=7)
    axes[0, 0].set_title("fairness vs lambda")
    axes[0, 1].set_title("accuracy vs lambda")
    suptitle(f, f"Supplementary: lambda sweep, {PANEL_TITLES[p['sweep_panel']]}, T={p['sweep_T']}", ctx.profile, _note(ctx))
    caption = f"Lambda sweep, {PANEL_TITLES[p['sweep_panel']]}, T={p['sweep_T']}: seed mean [95 % interval]"
    md = markdown_tables([(caption, ["eps", "lambda", "fairness", "accuracy", "PL loss"], body)])
    return Rendered(data=df, figure=f, markdown=md)


def _table_tuning(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    p = ctx.params
    tu = p["tuning"]
    plan = build_plan(p)
    rows, reason = [], None
    for q, seed, rid, res in plan.jobs_of(fig.fig_id, results):
        if is_unavailable(res):
            reason = res["reason"]
            continue
        algo = q["algorithm"]
        default = plan.hyper(algo, tu["panel"])
        for name in tu["grids"][algo]:  # a job varies one hyper-parameter from the defaults (the default job: all)
            if any(q["hp"][k] != default[k] for k in default if k != name):
                continue
            rows.append({"figure": fig.fig_id, "panel": algo, "series": name, "x": float(q["hp"][name]),
                         "metric": "val_accuracy", "value": _value(res, "personalized", "accuracy"), "seed": seed, "run_id": rid})
    df = tidy_frame(rows)
    body = []
    if not df.empty:
        for (algo, name), g in df[df["metric"] == "val_accuracy"].groupby(["panel", "series"], sort=False):
            means = {x: seed_band(gg["value"]) for x, gg in g.groupby("x")}
            best = max(means, key=lambda x: means[x][0])
            for x, (m, lo, hi) in means.items():
                used = float(plan.hyper(algo, tu["panel"])[name]) == x
                body.append([METHOD_LABELS[algo], name, f"{x:g}", f"{m:.4f} [{lo:.4f}, {hi:.4f}]",
                             ("best" if x == best else "") + (" / used" if used else "")])
    title = (f"Supplementary: tuning sweep, {PANEL_TITLES[tu['panel']]}, eps={tu['epsilon']:g}, T={tu['T']}, "
             f"validation accuracy ({p['val_per_client']} held-out training samples per client)")
    header = ["baseline", "hyper-parameter", "value", "validation accuracy [95 % interval]", "best / used"]
    f = draw_tables([(None, header, body or [["-", "-", "-", reason or "no data", "-"]])], title, ctx.profile, width=9,
                    col_widths="auto")
    return Rendered(data=df, figure=f, markdown=markdown_tables([(None, header, body)], title, _note(ctx)))


def _table_privacy(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    p = ctx.params
    plan = build_plan(p)
    delta = float(p["delta"])
    groups: dict[tuple, dict] = {}
    for fig_id in plan.needs:  # every figure's trainings (the literal ones included)
        for q, _seed, rid, res in plan.jobs_of(fig_id, results):
            if math.isinf(float(q["epsilon"])) or res is None or is_unavailable(res):
                continue
            method = "baselines" if "algorithm" in q else "DP-Ditto"
            key = (q["panel"], float(q["epsilon"]), float(q["clip"]))
            g = groups.setdefault(key, {"T": set(), "methods": set(), "certs": {}, "z": {}})
            g["T"].add(int(q["T"]))
            g["methods"].add(method)
            certs = pv.job_certificates(float(q["epsilon"]), float(q["clip"]), int(q["T"]), delta, res["sigma_u"],
                                        res["split_sizes"], res["train_sizes"])
            g["z"][int(q["T"])] = min(g["z"].get(int(q["T"]), math.inf), certs["eq7"].noise_std / certs["eq7"].sensitivity)
            for view, c in certs.items():  # the largest certified eps over the group's configurations
                old = g["certs"].get(view)
                if old is None or c.certified_epsilon > old.certified_epsilon:
                    g["certs"][view] = c
    rows, body = [], []
    for (panel, eps, clip), g in sorted(groups.items()):
        series = f"{panel}|C={clip:g}"
        for view, c in g["certs"].items():
            for r in c.tidy_rows(PRIVACY_ID, view, series):
                rows.append(r)
        cs = g["certs"]
        body.append([PANEL_TITLES[panel], ", ".join(sorted(g["methods"])), f"{eps:g}", f"{clip:g}",
                     ", ".join(map(str, sorted(g["T"]))), ", ".join(f"{g['z'][T]:.3g}" for T in sorted(g["z"])),
                     pv.short(cs["eq7"].certified_epsilon), pv.short(cs["eq7_tight"].certified_epsilon),
                     pv.short(cs["eq7_held"].certified_epsilon),
                     pv.short(cs["clip"].certified_epsilon), pv.short(cs["sum"].certified_epsilon)])
    header = ["panel", "trained", "nominal eps (eq. 8)", "C", "T run", "z per T (eq. 7)", "RDP upper bound: eq. (7) Delta s",
              "... tight (PLD)", "... RDP, samples held", "... RDP, Delta s = 2C", "... RDP, sum only"]
    note = ("Certified eps: T Gaussian releases per client (every client uploads every round, no subsampling), "
            f"delta = {delta}; dp-accounting's RDP accountant (an upper bound) and, for eq. (7)'s reading, the tight value "
            "of the Gaussian composition (what a PLD accountant gives); the largest over the configurations of a row and "
            "over clients. z = sigma_u / Delta s grows as sqrt(T) (eq. (8)), so the certificate does not depend on T. "
            "Readings: " + "; ".join(f"{k}: {v}" for k, v in pv.VIEWS.items()) + ". Eq. (7) holds for a model averaged over "
            "per-sample minimisers; the uploaded SGD model is clipped once as a whole, so only Delta s = 2C is guaranteed.")
    title = "Privacy: the paper's nominal eps and the eps certified for the uploads run"
    f = draw_tables([(None, header, body or [["-"] * len(header)])], title, ctx.profile, width=13, col_widths="auto", fontsize=6.5)
    return Rendered(data=tidy_frame(rows), figure=f, markdown=markdown_tables([(None, header, body)], title, note))


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"table1": _table1, "fig1": _fig1, "fig2": _fig2, "fig3": _fig34, "fig4": _fig34, "fig5": _fig5,
             "fig6": _fig6, "fig7": _fig7, LITERAL_ID: _literal_step, SWEEP_ID: _table_sweep, TUNING_ID: _table_tuning, PRIVACY_ID: _table_privacy,
             CONSTANTS_ID: _baseline_constants}
RENDERERS.update({literal_figure(src): _literal_of(src) for src in ("fig3", "fig4", "fig5", "fig7")})
