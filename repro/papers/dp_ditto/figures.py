"""Rendering of the DP-Ditto figures and tables (layout of the paper's Figs. 1-7 and Table 1)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from repro.experiment import FigureSpec, RenderContext, Rendered, is_unavailable
from repro.papers.dp_ditto import theory as th
from repro.papers.dp_ditto.experiments import PANEL_TITLES, PRIVACY_ID, SWEEP_ID, build_plan, eps_key
from repro.plotting import draw_tables, mark_unavailable, markdown_tables, subplots, suptitle
from repro.results import tidy_frame

METHOD_LABELS = {"ditto": "DP-Ditto", "fedamp": "DP-FedAMP", "pfedme": "DP-pFedMe", "apple": "DP-APPLE", "fedala": "DP-FedALA"}
METHOD_STYLE = {"DP-Ditto": ("C3", "o"), "DP-FedAMP": ("C0", "s"), "DP-pFedMe": ("C1", "^"), "DP-APPLE": ("C2", "v"),
                "DP-FedALA": ("C4", "D")}
LETTERS = "abcdefgh"


def _note(ctx: RenderContext) -> str | None:
    if ctx.profile == "paper":
        return "mean over seeds (band: +-1 std)"
    p = ctx.params
    cnn = ("" if p["cnn_train_per_client"] is None else
           f" (CNN: {p['cnn_train_per_client']} / {p['cnn_test_per_client']})")
    return (f"{ctx.profile}: {p['train_per_client']} train / {p['test_per_client']} test samples per client{cnn}, "
            f"{'reduced' if p['cnn'] == 'reduced' else 'paper'} CNN, {len(p['seeds'])} seed(s), lr {p['lr']}")


def lam_key(lam: float) -> str:
    return f"{float(lam):g}"


def _value(result: dict, series: str, metric: str, t: int | None = None) -> float:
    """Metric of ``series`` after round ``t`` (default: the run's last evaluated round)."""
    rounds = result["eval_rounds"]
    vals = result["series"][series][metric]
    i = len(rounds) - 1 if t is None else rounds.index(int(t))
    v = vals[i]
    return float("nan") if v is None else float(v)


def _plot_series(ax, df: pd.DataFrame, series_order=None, styles=None, logx=False, label_fmt=str):
    """Mean over seeds with a +-1 std band, one line per series."""
    if df.empty:
        return
    order = series_order or list(dict.fromkeys(df["series"]))
    for s in order:
        d = df[df["series"] == s]
        if d.empty:
            continue
        g = d.groupby("x")["value"]
        m, sd = g.mean(), g.std(ddof=0).fillna(0.0)
        color, marker = (styles or {}).get(s, (None, "o"))
        ax.plot(m.index, m.values, marker=marker, color=color, label=label_fmt(s))
        if d["seed"].nunique() > 1:
            ax.fill_between(m.index, (m - sd).values, (m + sd).values, color=color, alpha=0.15)
    if logx:
        ax.set_xscale("log")


# ---------------------------------------------------------------------------------------------


def _table1(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    rows = [
        ("D, D_n", "local datasets of all clients / of client n", "repro.data partition; ClientData"),
        ("F(.), F_n(.)", "global loss / local loss of client n", "cross-entropy of the model"),
        ("f_n(.)", "loss of client n's personalised model, eq. (3a)", "(1-lambda/2) F_n + lambda/2 ||varpi - omega||^2"),
        ("omega, omega*", "global model and optimal global model", "DittoState.global_params"),
        ("u_n, u_n*", "local model of client n and its optimum", "stacked local models [N, d]"),
        ("varpi_n, varpi_n*", "personalised model of client n and its optimum", "stacked [|Lambda| N, d]"),
        ("z_n^t, z^t", "DP noise of client n / on the global model", "dp_noise stream, N(0, sigma_u^2 I)"),
        ("sigma_u, sigma_z", "std of z_n^t and of z^t (eq. (8))", "theory.sigma_u, theory.sigma_z"),
        ("C", "clipping threshold of the local model", "config clip / fig7_clip"),
        ("T", "maximum number of global aggregations", "run param T"),
        ("epsilon, delta", "DP requirement", "run param epsilon; config delta"),
        ("lambda", "weight of the personalised model, in [0, 2]", "run param lambdas"),
        ("Delta s", "sensitivity 2C/|D_n| (eq. (7))", "theory.sensitivity"),
        ("eta_G, eta_L", "learning rates of local / personalised model", "config lr"),
        ("varrho(.)", "fairness: variance of PL training losses (Def. 1)", "metric 'fairness'"),
        ("Y_n, X_n, b", "linear-model observations and sample count (Sec. 5)", "theory.FairnessSetup"),
        ("u_hat_n, tau_n, nu_n", "estimate of u_n*, its deviation, observation noise", "theory.personalised_*"),
        ("zeta^2, sigma^2, sigma_w^2, rho", "variances and X_n^T X_n = rho I", "theory.FairnessSetup, sigma_w2"),
    ]
    header = ["symbol", "meaning", "in the code"]
    f = draw_tables([(None, header, rows)], "Table 1: notation and definitions", ctx.profile, width=10,
                    col_widths=[0.25, 0.43, 0.32], fontsize=7, cell_loc="left")
    data = tidy_frame([{"figure": "table1", "series": a, "x": i, "metric": "row", "value": i} for i, (a, _, _) in enumerate(rows)])
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
    ax.text(2.6, 3.9, "upload u~_n = clip(u_n) + z_n", color="C3", fontsize=8, rotation=0)
    ax.text(6.3, 3.9, "broadcast omega^t", color="C0", fontsize=8)
    ax.text(5, 0.2, "personalised models varpi_n never leave the client", ha="center", fontsize=8, style="italic")
    suptitle(f, "Fig. 1: PFL with DP (DP-Ditto) - schematic", ctx.profile)
    return Rendered(data=tidy_frame([]), figure=f)


def _fig2(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    r = results[fig.runs[0].run_id]
    rid = fig.runs[0].run_id
    T, h, hl = np.array(r["T"]), np.array(r["h"]), np.array(r["h_low"])
    rows = []
    for t, a, b, c in zip(T, h, hl, r["h_16a"]):
        rows += [{"panel": "a", "series": "h(T, lambda) eq. (14)", "x": t, "metric": "h", "value": a},
                 {"panel": "a", "series": "h(T, lambda) eq. (16a)", "x": t, "metric": "h", "value": c},
                 {"panel": "b", "series": "h_Low(T) eq. (17)", "x": t, "metric": "h_low", "value": b}]
    rows.append({"panel": "a", "series": "T*", "x": r["T_star"], "metric": "T_star", "value": r["T_star"]})
    rows.append({"panel": "a", "series": "T*", "x": r["T_star"], "metric": "h_star", "value": r["h_star"]})
    rows.append({"panel": "b", "series": "H0", "x": 0, "metric": "H0", "value": r["H0"]})
    rows.append({"panel": "b", "series": "T'", "x": 0, "metric": "T_prime", "value": r["T_prime"]})
    for row in r["table"]:
        rows.append({"panel": "table", "series": f"eps={eps_key(row['epsilon'])}", "x": row["epsilon"], "metric": "T_star",
                     "value": row["T_star"]})
    for row in rows:
        row.update(figure="fig2", seed=0, run_id=rid)
    f, axes = subplots(1, 2, width=4.6, height=3.4)
    ax = axes[0, 0]
    ax.semilogy(T, h, color="C0", label="h(T, lambda), eq. (14)")
    ax.semilogy(T[T > 0], np.where(hl[T > 0] > 0, hl[T > 0], np.nan), color="C1", ls="--", label="h_Low(T), eq. (17) (>0 part)")
    ax.axvline(r["T_star"], color="C3", ls=":", label=f"T* = {r['T_star']}")
    ax.set_xlabel("maximum aggregation number T")
    ax.set_ylabel("bound on E||varpi - varpi*||^2")
    ax.set_title("(a) h(T, lambda) and h_Low(T)")
    ax.legend()
    ax = axes[0, 1]
    zoom = (T >= 80)
    ax.plot(T[zoom], h[zoom], color="C0", label="h(T, lambda)")
    ax.plot(T[zoom], hl[zoom], color="C1", ls="--", label="h_Low(T)")
    ax.axvline(r["T_star"], color="C3", ls=":", label=f"T* = {r['T_star']}")
    ax.set_ylim(1.1 * r["H0"], 3e-4)
    ax.set_xlim(80, T.max())
    ax.set_xlabel("maximum aggregation number T")
    ax.set_title("(b) zoom near T*")
    txt = "T*(eps):\n" + "\n".join(f"eps={eps_key(x['epsilon'])}: {x['T_star']}" for x in r["table"])
    txt += f"\nT' = {r['T_prime']:.3g}"
    ax.text(0.98, 0.04, txt, transform=ax.transAxes, ha="right", va="bottom", fontsize=7,
            bbox=dict(facecolor="white", edgecolor="#999"))
    ax.legend(loc="upper left")
    c = ctx.params["fig2_constants"]
    suptitle(f, "Fig. 2: convergence bound vs its lower bound", ctx.profile,
             f"MLR/MNIST-like constants, lambda={c['lam']}, eps={c['epsilon']:g}, delta={c['delta']}; "
             f"mu={c['mu']}, L={c['smooth']}, G0={c['g0']}, M={c['m_gap']}, Psi1={c['psi1']}, Psi2={c['psi2']} (NOT from the paper)")
    return Rendered(data=tidy_frame(rows), figure=f)


def _fig34(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    p = ctx.params
    eps = p["fig3_epsilon"] if fig.fig_id == "fig3" else p["fig4_epsilon"]
    lam = p["fig3_lambda"] if fig.fig_id == "fig3" else p["fig4_lambda"]
    panels = p["fig34_panels"]
    rows, unavailable = [], {}
    for q, seed, rid, res in build_plan(ctx.params).jobs_of(fig.fig_id, results):
        if is_unavailable(res):
            unavailable[q["panel"]] = res["reason"]
            continue
        if "algorithm" not in q:
            if float(q["epsilon"]) != float(eps):
                continue
            method, series = "ditto", lam_key(lam)
        else:
            method, series = q["algorithm"], "personalized"
        i = panels.index(q["panel"])
        for k, metric in enumerate(("accuracy", "fairness")):
            rows.append({"figure": fig.fig_id, "panel": LETTERS[2 * i + k], "series": METHOD_LABELS[method], "x": q["T"],
                         "metric": metric, "value": _value(res, series, metric), "seed": seed, "run_id": rid})
            rows.append({"figure": fig.fig_id, "panel": LETTERS[2 * i + k], "series": METHOD_LABELS[method], "x": q["T"],
                         "metric": {"accuracy": "accuracy_unweighted", "fairness": "fairness_std"}[metric],
                         "value": _value(res, series, {"accuracy": "accuracy_unweighted", "fairness": "fairness_std"}[metric]),
                         "seed": seed, "run_id": rid})
    df = tidy_frame(rows)
    f, axes = subplots(len(panels), 2, width=4.2, height=3.0)
    for i, panel in enumerate(panels):
        for k, (metric, ylabel) in enumerate((("accuracy", "test accuracy"), ("fairness", "fairness (var of PL loss)"))):
            ax = axes[i, k]
            ax.set_title(f"({LETTERS[2 * i + k]}) {PANEL_TITLES[panel]}")
            ax.set_xlabel("maximum aggregation number T")
            ax.set_ylabel(ylabel)
            if panel in unavailable:
                mark_unavailable(ax, unavailable[panel])
                continue
            d = df[(df["panel"] == LETTERS[2 * i + k]) & (df["metric"] == metric)]
            _plot_series(ax, d, list(METHOD_STYLE), METHOD_STYLE)
            if metric == "fairness":
                ax.set_yscale("log")
            ax.legend()
    suptitle(f, f"{fig.paper_ref}: DP-Ditto (lambda*={lam:g}) vs DP baselines, eps={eps:g}, delta={p['delta']}", ctx.profile,
             _note(ctx))
    return Rendered(data=df, figure=f)


def _fig5(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    p = ctx.params
    panels, lam = p["fig5_panels"], lam_key(p["fig5_lambda"])
    rows, unavailable = [], {}
    for q, seed, rid, res in build_plan(ctx.params).jobs_of(fig.fig_id, results):
        if is_unavailable(res):
            unavailable[q["panel"]] = res["reason"]
            continue
        i = panels.index(q["panel"])
        eps = float(q["epsilon"])
        if float(p["fig5_lambda"]) not in [float(x) for x in q["lambdas"]]:
            continue
        if math.isinf(eps):
            pts = [(T, _value(res, lam, "loss", T)) for T in p["fig5_T"][q["panel"]]]
            series = "Ditto (eps=inf)"
        else:
            if float(eps) not in [float(e) for e in p["fig5_epsilons"]]:
                continue
            pts = [(q["T"], _value(res, lam, "loss"))]
            series = f"eps={eps_key(eps)}"
        for T, v in pts:
            rows.append({"figure": "fig5", "panel": LETTERS[i], "series": series, "x": T, "metric": "loss", "value": v,
                         "seed": seed, "run_id": rid})
        if math.isinf(eps) and "0" in res["series"]:  # claim 18: lambda = 0 at eps = inf, every evaluated round
            for t in res["eval_rounds"]:
                for metric in ("loss", "accuracy"):
                    rows.append({"figure": "fig5", "panel": LETTERS[i], "series": "Ditto (eps=inf) lambda=0", "x": t,
                                 "metric": metric, "value": _value(res, "0", metric, t), "seed": seed,
                                 "run_id": rid})
    df = tidy_frame(rows)
    f, axes = subplots(2, 2, width=4.2, height=3.0)
    order = [f"eps={eps_key(e)}" for e in p["fig5_epsilons"] if not math.isinf(e)] + ["Ditto (eps=inf)"]
    for i, panel in enumerate(panels):
        ax = axes.flat[i]
        ax.set_title(f"({LETTERS[i]}) {PANEL_TITLES[panel]}")
        ax.set_xlabel("maximum aggregation number T")
        ax.set_ylabel("PL training loss")
        if panel in unavailable:
            mark_unavailable(ax, unavailable[panel])
            continue
        _plot_series(ax, df[df["panel"] == LETTERS[i]], order)
        ax.set_yscale("log")
        ax.legend()
    for j in range(len(panels), 4):
        axes.flat[j].axis("off")
    suptitle(f, f"Fig. 5: PL training loss vs T, lambda={p['fig5_lambda']:g}, C={p['clip']:g}, delta={p['delta']}",
             ctx.profile, _note(ctx))
    return Rendered(data=df, figure=f)


def _fig6(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    p = ctx.params
    panels = p["fig6_panels"]
    rows, unavailable = [], {}
    for q, seed, rid, res in build_plan(ctx.params).jobs_of(fig.fig_id, results):
        if is_unavailable(res):
            unavailable[q["panel"]] = res["reason"]
            continue
        i = panels.index(q["panel"])
        for lam in p["fig6_lambdas"]:
            s = lam_key(lam)
            for k, metric in enumerate(("accuracy", "fairness", "fairness_std", "loss")):
                letter = LETTERS[2 * i + (0 if metric == "accuracy" else 1)]
                for t, v in zip(res["eval_rounds"], res["series"][s][metric]):
                    rows.append({"figure": "fig6", "panel": letter, "series": f"lambda={s}", "x": t, "metric": metric,
                                 "value": float("nan") if v is None else v, "seed": seed, "run_id": rid})
    df = tidy_frame(rows)
    f, axes = subplots(len(panels), 2, width=4.2, height=3.0)
    order = [f"lambda={lam_key(l)}" for l in p["fig6_lambdas"]]
    for i, panel in enumerate(panels):
        for k, (metric, ylabel) in enumerate((("accuracy", "test accuracy"), ("fairness", "fairness (var of PL loss)"))):
            ax = axes[i, k]
            letter = LETTERS[2 * i + k]
            ax.set_title(f"({letter}) {PANEL_TITLES[panel]}")
            ax.set_xlabel("aggregation round t")
            ax.set_ylabel(ylabel)
            if panel in unavailable:
                mark_unavailable(ax, unavailable[panel])
                continue
            _plot_series(ax, df[(df["panel"] == letter) & (df["metric"] == metric)], order)
            if metric == "fairness":
                ax.set_yscale("log")
            ax.legend()
    suptitle(f, f"Fig. 6: accuracy and fairness vs t, T={p['fig6_T']}, eps={p['fig6_epsilon']:g}, delta={p['delta']}",
             ctx.profile, _note(ctx))
    return Rendered(data=df, figure=f)


def joint_optimum(df: pd.DataFrame, max_iter: int = 5, lam0: float = 0.1) -> tuple[float, float, int]:
    """D16: alternate 1-D searches from lambda = lam0: T* = argmin_T loss(lambda), lambda* = argmin_lambda
    fairness(lambda, T*), until both stop changing (<= max_iter). df: fig7 tidy rows (means over seeds)."""
    loss = df[df["metric"] == "loss"].groupby(["lam", "x"])["value"].mean()
    fair = df[df["metric"] == "fairness"].groupby(["lam", "x"])["value"].mean()
    lams = sorted(set(loss.index.get_level_values(0)))
    lam = min(lams, key=lambda l: abs(l - lam0))
    T_star = None
    for it in range(1, max_iter + 1):
        s = loss.xs(lam, level=0).fillna(np.inf)
        new_T = float(s.idxmin())
        fr = fair.xs(new_T, level=1).fillna(np.inf)
        new_lam = float(fr.idxmin())
        if new_T == T_star and new_lam == lam:
            return T_star, lam, it
        T_star, lam = new_T, new_lam
    return T_star, lam, max_iter


def _fig7(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    p = ctx.params
    rows, unavailable = [], None
    for q, seed, rid, res in build_plan(ctx.params).jobs_of(fig.fig_id, results):
        if is_unavailable(res):
            unavailable = res["reason"]
            continue
        for lam in p["fig7_lambdas"]:
            s = lam_key(lam)
            base = {"figure": "fig7", "seed": seed, "run_id": rid}
            rows.append({**base, "panel": "a", "series": f"T={q['T']}", "x": float(lam), "metric": "fairness",
                         "value": _value(res, s, "fairness")})
            rows.append({**base, "panel": "b", "series": f"lambda={s}", "x": q["T"], "metric": "loss",
                         "value": _value(res, s, "loss")})
    df = tidy_frame(rows)
    f, axes = subplots(1, 2, width=4.6, height=3.4)
    for ax in axes.flat:
        if unavailable:
            mark_unavailable(ax, unavailable)
    if not df.empty:
        a = df[df["panel"] == "a"]
        _plot_series(axes[0, 0], a, [f"T={T}" for T in p["fig7_T"]], logx=True)
        axes[0, 0].set_yscale("log")
        b = df[df["panel"] == "b"]
        _plot_series(axes[0, 1], b, [f"lambda={lam_key(l)}" for l in p["fig7_lambdas"]])
        axes[0, 1].set_yscale("log")
        j = pd.concat([a.assign(lam=a["x"], x=a["series"].str[2:].astype(float)),
                       b.assign(lam=b["series"].str[7:].astype(float))])
        T_star, lam_star, iters = joint_optimum(j)
        extra = {"figure": "fig7", "panel": "b", "series": "joint optimum (D16)", "seed": -1, "run_id": ""}
        df = pd.concat([df, tidy_frame([{**extra, "x": T_star, "metric": "T_star", "value": T_star},
                                        {**extra, "x": T_star, "metric": "lambda_star", "value": lam_star},
                                        {**extra, "x": T_star, "metric": "iterations", "value": iters}])],
                       ignore_index=True)
        sel = b[b["series"] == f"lambda={lam_key(lam_star)}"].groupby("x")["value"].mean()
        if T_star in sel.index:
            axes[0, 1].plot([T_star], [sel[T_star]], marker="*", ms=14, color="k", ls="none",
                            label=f"(T*, lambda*) = ({T_star:g}, {lam_star:g})")
        for ax in axes.flat:
            ax.legend(fontsize=7)
    axes[0, 0].set_xlabel("lambda")
    axes[0, 0].set_ylabel("fairness (var of PL loss)")
    axes[0, 0].set_title("(a) fairness vs lambda")
    axes[0, 1].set_xlabel("maximum aggregation number T")
    axes[0, 1].set_ylabel("PL training loss")
    axes[0, 1].set_title("(b) PL training loss vs T")
    suptitle(f, f"Fig. 7: DNN/MNIST, eps={p['fig7_epsilon']:g}, delta={p['delta']}, C={p['fig7_clip']:g}", ctx.profile,
             _note(ctx))
    return Rendered(data=df, figure=f)


def _table_sweep(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    p = ctx.params
    rows, reason = [], None
    for q, seed, rid, res in build_plan(ctx.params).jobs_of(fig.fig_id, results):
        if is_unavailable(res):
            reason = res["reason"]
            continue
        for lam in p["sweep_lambdas"]:
            for metric in ("fairness", "accuracy", "loss"):
                rows.append({"figure": fig.fig_id, "panel": "sweep", "series": f"eps={eps_key(q['epsilon'])}", "x": float(lam),
                             "metric": metric, "value": _value(res, lam_key(lam), metric), "seed": seed,
                             "run_id": rid})
    df = tidy_frame(rows)
    f, axes = subplots(1, 2, width=4.2, height=3.0)
    body = []
    if reason:
        for ax in axes.flat:
            mark_unavailable(ax, reason)
    if not df.empty:
        m = df.groupby(["series", "x", "metric"])["value"].mean()
        for s in dict.fromkeys(df["series"]):
            for lam in p["sweep_lambdas"]:
                body.append([s[4:], f"{lam:g}", f"{m[(s, float(lam), 'fairness')]:.4g}",
                             f"{m[(s, float(lam), 'accuracy')]:.4f}", f"{m[(s, float(lam), 'loss')]:.4g}"])
        for k, metric in enumerate(("fairness", "accuracy")):
            _plot_series(axes[0, k], df[df["metric"] == metric], logx=True)
            axes[0, k].set_xlabel("lambda")
            axes[0, k].set_ylabel(metric)
            axes[0, k].legend()
        axes[0, 0].set_yscale("log")
    axes[0, 0].set_title("fairness vs lambda")
    axes[0, 1].set_title("accuracy vs lambda")
    suptitle(f, "Supplementary: lambda sweep at eps = 10 and 100 (claim 7)", ctx.profile, _note(ctx))
    caption = f"Lambda sweep, {PANEL_TITLES[p['sweep_panel']]}, T={p['sweep_T']} (mean over seeds)"
    md = markdown_tables([(caption, ["eps", "lambda", "fairness", "accuracy", "PL loss"], body)])
    return Rendered(data=df, figure=f, markdown=md)


def _table_privacy(fig: FigureSpec, results: dict, ctx: RenderContext) -> Rendered:
    cfg = ctx.params["privacy_table"]
    N, delta, C, n, T = ctx.params["num_clients"], ctx.params["delta"], cfg["clip"], cfg["num_samples"], cfg["rounds"]
    note = (f"Eq. (8) with C={C:g}, |D_n|={n}, N={N}, delta={delta}, T={T}; eps_RDP: dp-accounting RDP accountant, "
            "Gaussian mechanism composed T times without subsampling (diagnostic)")
    header = ["nominal eps", "sigma_u", "sigma_z", "z = sigma_u/Delta s", "eps_RDP"]
    rows, body = [], []
    for eps in cfg["epsilons"]:
        su, sz = th.sigma_u(eps, delta, T, N, C, n), th.sigma_z(eps, delta, T, N, C, n)
        z = su / th.sensitivity(C, n)
        er = th.rdp_epsilon(z, T, delta)
        for metric, v in (("sigma_u", su), ("sigma_z", sz), ("noise_multiplier", z), ("eps_rdp", er)):
            rows.append({"figure": PRIVACY_ID, "panel": "eq8", "series": metric, "x": eps, "metric": metric, "value": v})
        body.append([f"{eps:g}", f"{su:.6e}", f"{sz:.6e}", f"{z:.5f}", f"{er:.4g}"])
    title = f"Supplementary: noise of eq. (8) (C={C:g}, |D_n|={n}, T={T}) and certified eps"
    f = draw_tables([(None, header, body)], title, ctx.profile, width=7)
    return Rendered(data=tidy_frame(rows), figure=f, markdown=markdown_tables([(None, header, body)], title, note))


#: figure id -> renderer (fig, results, ctx) -> Rendered
RENDERERS = {"table1": _table1, "fig1": _fig1, "fig2": _fig2, "fig3": _fig34, "fig4": _fig34, "fig5": _fig5,
             "fig6": _fig6, "fig7": _fig7, SWEEP_ID: _table_sweep, PRIVACY_ID: _table_privacy}
