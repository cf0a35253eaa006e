"""Claims of Li, Xiao, Skoglund, *Adaptive Coded Federated Learning* (arXiv:2403.14905v1), judged on the
regenerated tables.

Analytic results (Theorems 1 and 3, Remarks 1-2, eq. (43), Fig. 1) are ``exact`` verdicts recomputed
from the plotted columns (and, where a random-draw identity is needed, the checks of ``table92``). The
Monte-Carlo checks of Lemmas 1-2 and Theorem 2 are one replicate per seed, judged from their components.
The training claims (Figs. 3-4) are judged per noise level (or per step between neighbouring levels), and
every part must hold: once on the whole curve, S = the time average over t in [1, T] of log10 f(W_t)
(trapezoid on the recorded iterations), and once on the final loss f(W_T); effects are paired by seed (all
methods share data, start point, noise draw and stragglers) and judged by their 95 % interval over seeds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from repro.claims import (ClaimSet, Evidence, MissingData, combine, comparisons, direction, edit, exact, exact_holds, need, number,
                          unchanged)

CLAIMS = ClaimSet("acfl")

#: Lemma 1: the Monte-Carlo mean of G^All may differ from G^True by this fraction of ||G^True|| (along it)
UNBIASED_ATOL = 0.01
#: closed-form identities: rounding only
IDENTITY_RTOL = 1e-12
#: Theorem 3: distance of alpha* from a bounded scalar minimiser of u (its tolerance is 1e-10)
MINIMISER_ATOL = 1e-6
#: Remark 1: 'negligible' read as a Stage-1 share of the whole upload below this fraction
NEGLIGIBLE_SHARE = 0.01
#: eq. (43) recomputed from the plotted estimates: rounding through the CSV only
WEIGHT_RTOL = 1e-9
#: Theorem 3 on the plotted sigma^2: u is minimised over this many alphas in [0, 1] to check alpha*
ALPHA_GRID = 2001
DET = -1


# ------------------------------------------------------------------------------------------ readers


def _curves(tables, fig: str, panel: str) -> pd.DataFrame:
    t = need(tables, fig, panel=panel, metric="loss")
    return t[t["seed"] >= 0].assign(x=lambda d: d["x"].astype(float))


def curve_scores(tables, fig: str, panel: str) -> pd.DataFrame:
    """S per (series, seed): time average over t in [1, T] of log10 f(W_t); columns = series, index = seed."""
    out = {}
    for (series, seed), g in _curves(tables, fig, panel).groupby(["series", "seed"]):
        g = g[g["x"] >= 1].sort_values("x")
        x, y = g["x"].to_numpy(), np.log10(g["value"].to_numpy(dtype=float))
        out.setdefault(series, {})[int(seed)] = float(np.trapezoid(y, x) / (x[-1] - x[0]))
    return pd.DataFrame(out).sort_index()


def final_scores(tables, fig: str, panel: str) -> pd.DataFrame:
    """log10 f(W_T) per (series, seed); columns = series, index = seed."""
    t = _curves(tables, fig, panel)
    t = t[t["x"] == t["x"].max()]
    return np.log10(t.pivot_table(index="seed", columns="series", values="value"))


def _levels(S: pd.DataFrame, method: str, noise: str) -> list[float]:
    prefix = f"{method} {noise}="
    return sorted(float(c[len(prefix):]) for c in S.columns if c.startswith(prefix))


def _col(S, method, noise, level) -> pd.Series:
    name = method if level is None else f"{method} {noise}={level:g}"
    if name not in S:
        raise MissingData(f"no series {name!r}")
    return S[name]


def _table92(tables, seeded: bool) -> pd.DataFrame:
    t = need(tables, "table92")
    return t[t["seed"] >= 0] if seeded else t[t["seed"] == DET]


def _identity(tables, check: str) -> float:
    t = _table92(tables, seeded=False)
    v = t.loc[t["metric"] == check, "value"]
    if len(v) == 0:
        raise MissingData(f"table92 has no identity check {check!r}")
    return float(v.iloc[0])


def _mc(tables, check: str) -> pd.Series:
    t = _table92(tables, seeded=True)
    v = t[t["metric"] == check]
    if len(v) == 0:
        raise MissingData(f"table92 has no Monte-Carlo check {check!r}")
    return v.groupby("seed")["value"].mean()


# ------------------------------------------------------------------------------------------ closed forms (recomputed here)


def _eq17(sigma2, d, o):
    """eq. (17) with sigma1^2 = sigma2^2, nats."""
    s = np.asarray(sigma2, float)
    return (d - 0.5) * np.log1p(1.0 / s) + 0.5 * o * np.log1p(1.0 / s)


def _u(sigma2, alpha, params):
    """u of eq. (34) at the Fig. 1 constants, sigma1^2 = sigma2^2."""
    N, d, o, p, b, C = (params[k] for k in ("fig1_N", "fig1_d", "fig1_o", "fig1_p", "fig1_beta", "fig1_C"))
    c_alpha = alpha**2 * p + (1 - p) * (alpha + (1 - alpha) / (1 - p)) ** 2
    return (c_alpha + N - 1) * N * b**2 + alpha**2 * N * d * sigma2 * C**2 + alpha**2 * N * sigma2 * o * d


def _eq36(sigma2, params):
    N, d, o, p, b, C = (params[k] for k in ("fig1_N", "fig1_d", "fig1_o", "fig1_p", "fig1_beta", "fig1_C"))
    s = p * N * b**2 / (1 - p)
    return s / (s + N * d * sigma2 * C**2 + N * sigma2 * o * d)


# ------------------------------------------------------------------------------------------ counterfactual helpers


def _set_identity(check, value):
    return lambda t, p: (edit(t, "table92", lambda v: v * 0 + value, metric=check, seed=DET), p)


def _scale_loss(fig, series_prefix, factor_of_x):
    """Counterfactual: the loss curves of the series starting with ``series_prefix`` multiplied by
    ``factor_of_x(t)`` (t = iteration)."""
    return lambda t, p: (edit(t, fig, lambda r: r["value"] * factor_of_x(r["x"].astype(float)), rows=True, metric="loss",
                              series=lambda c: c.astype(str).str.startswith(series_prefix)), p)


def _level(series: str) -> float:
    return float(series.split("=", 1)[1])


def _noisiest_first(series: list[str]) -> list[str]:
    """Series of one method ordered from the least to the most noise (sigma^2 up, eps down)."""
    return sorted(series, key=lambda s: _level(s) if "sigma2=" in s else -_level(s))


def _scale_level(fig, method, which: str, factor: float):
    """Counterfactual: the loss curve of ``method`` at its least / most noisy level times ``factor``."""
    def run(t, p):
        series = need(t, fig, metric="loss")["series"].astype(str).unique()
        mine = _noisiest_first([s for s in series if s.startswith(method + " ")])
        return edit(t, fig, lambda v: v * factor, metric="loss", series=mine[0 if which == "least" else -1]), p
    return run


def _noise_staircase(fig, method):
    """Counterfactual: the loss curve of ``method`` at its k-th least noisy level times 10^k (every step up in
    noise costs one decade, on the whole curve and at the end)."""
    def run(t, p):
        series = need(t, fig, metric="loss")["series"].astype(str).unique()
        for k, s in enumerate(_noisiest_first([s for s in series if s.startswith(method + " ")])):
            t = edit(t, fig, lambda v, k=k: v * 10.0**k, metric="loss", series=s)
        return t, p
    return run


def _swap(fig, a, b):
    return lambda t, p: (relabel_prefix(t, fig, a, b), p)


def relabel_prefix(tables, fig, a: str, b: str) -> dict:
    """Swap the method prefixes ``a`` and ``b`` of every series of ``fig``."""
    t = need(tables, fig).copy()
    s = t["series"].astype(str)
    t["series"] = np.where(s.str.startswith(a + " ") | (s == a), b + s.str[len(a):],
                           np.where(s.str.startswith(b + " ") | (s == b), a + s.str[len(b):], s))
    return {**tables, fig: t}


def _chain(*steps):
    def run(t, p):
        for s in steps:
            t, p = s(t, p)
        return t, p
    return run


# ------------------------------------------------------------------------------------------ analytic claims


@CLAIMS.claim("C1", figures=("table91", "table92"), kind="exact",
              paper_says="Remark 2: eps 'is a decreasing function with respect to' sigma1^2 and sigma2^2 (eq. 17); 'perfect "
                         "privacy can be asymptotically achieved when the variances of the additive noise approach infinity' "
                         "(eq. 23)",
              tests="on the plotted privacy map (table91 (b), sigma1^2 = sigma2^2 up to 1e8): eps equals eq. (17) recomputed "
                    "at the plotted sigma^2, falls strictly along the grid and is below 1e-6 at the largest sigma^2 (>= 1e8); "
                    "table92: strictly decreasing in each variance alone on a 100-point log grid",
              refute=lambda t, p: (edit(t, "table91", lambda r: r["value"] + 100.0 * (r["x"].astype(float) >= 1e8), rows=True,
                                        panel="b", metric="epsilon_for_sigma2"), p),
              support=unchanged)
def eps_decreases_with_noise(tables, params):
    t = need(tables, "table91", panel="b", metric="epsilon_for_sigma2")
    t = t[t["series"].astype(str) == f"ACFL (d={params['dim_in']}, o={params['dim_out']})"]
    if len(t) == 0:
        raise MissingData("table91 (b) has no ACFL privacy map at the simulation dimensions")
    t = t.assign(x=t["x"].astype(float)).sort_values("x")
    s2, eps = t["x"].to_numpy(), t["value"].to_numpy(dtype=float)
    ref = _eq17(s2, params["dim_in"], params["dim_out"])
    d1, d2 = _identity(tables, "eps_min_decrease_in_sigma1"), _identity(tables, "eps_min_decrease_in_sigma2")
    return combine({
        "plotted eps = eq. (17)": exact(float(np.max(np.abs(eps / ref - 1))), 0.0, atol=IDENTITY_RTOL),
        "decreasing along the plotted grid": exact_holds(bool(np.all(np.diff(eps) < 0)), regenerated=f"largest step "
                                                         f"{np.max(np.diff(eps)):.3g}", expected="< 0"),
        "-> 0": exact_holds(bool(s2[-1] >= 1e8 and eps[-1] < 1e-6), regenerated=f"eps({s2[-1]:g}) = {eps[-1]:.3g}",
                            expected="< 1e-6 at sigma^2 >= 1e8"),
        "decreasing in each variance (table92)": exact_holds(d1 > 0 and d2 > 0, regenerated=f"min decrease {min(d1, d2):.3g}",
                                                             expected="> 0"),
    }, reason=f"{len(s2)} plotted sigma^2 from {s2[0]:g} to {s2[-1]:g}: eps {eps[0]:.4g} -> {eps[-1]:.3g}")


@CLAIMS.claim("C2", figures=("fig1", "table92"), kind="exact",
              paper_says="Theorem 3: alpha* = pN beta^2/(1-p) / (pN beta^2/(1-p) + Nd sigma1^2 C^2 + N sigma2^2 od) "
                         "(eq. 36) minimises the bound u over [0, 1] (problem (35)), with the optimal value u~ of eq. (38)",
              tests=f"on the plotted Fig. 1 columns: alpha* equals eq. (36) at the plotted sigma^2 (Fig. 1 constants); u(alpha*) "
                    f"<= min of u over {ALPHA_GRID} alphas in [0, 1]; the plotted adaptive bound equals 4 u(alpha*)/(lambda^2 T) "
                    f"(rel {IDENTITY_RTOL:g}); table92: |alpha* - bounded numerical minimiser| <= {MINIMISER_ATOL:g} and u~ = "
                    "u(alpha*) on random constant draws",
              refute=lambda t, p: (edit(t, "fig1", lambda v: v * 0 + 0.5, panel="a", metric="alpha_star"), p), support=unchanged)
def alpha_star_minimises_the_bound(tables, params):
    a = need(tables, "fig1", panel="a", series="adaptive")
    wide = a.assign(x=a["x"].astype(float)).pivot_table(index="x", columns="metric", values="value").sort_index()
    for col in ("sigma2", "alpha_star", "bound"):
        if col not in wide:
            raise MissingData(f"fig1 (a) has no adaptive {col!r} column")
    s2, a_star, bound = (wide[c].to_numpy(dtype=float) for c in ("sigma2", "alpha_star", "bound"))
    grid = np.linspace(0.0, 1.0, ALPHA_GRID)
    u_grid = _u(s2[:, None], grid[None, :], params).min(axis=1)
    u_star = _u(s2, np.clip(a_star, 0.0, 1.0), params)
    lam, T = params["fig1_lambda"], params["fig1_T"]
    return combine({
        "plotted alpha* = eq. (36)": exact(float(np.max(np.abs(a_star / _eq36(s2, params) - 1))), 0.0, atol=IDENTITY_RTOL),
        "alpha* minimises u (plotted sigma^2)": exact_holds(bool(np.all(u_star <= u_grid * (1 + IDENTITY_RTOL))),
                                                            regenerated=f"max u(alpha*)/min_grid u - 1 = "
                                                                        f"{np.max(u_star / u_grid - 1):.3g}", expected="<= 0"),
        "plotted bound = 4 u(alpha*)/(lambda^2 T)": exact(float(np.max(np.abs(bound / (4 * u_star / (lam**2 * T)) - 1))), 0.0,
                                                          atol=IDENTITY_RTOL),
        "alpha* = argmin u (random draws)": exact(_identity(tables, "alpha_star_vs_bounded_minimiser_max_abs_err"), 0.0,
                                                  atol=MINIMISER_ATOL),
        "u~ = u(alpha*) (random draws)": exact(_identity(tables, "u_tilde_vs_u_at_alpha_star_max_rel_err"), 0.0,
                                               atol=IDENTITY_RTOL),
    }, reason=f"{len(s2)} plotted sigma^2; alpha* from {a_star.max():.4g} to {a_star.min():.3g}")


def _plotted_weights(tables, params) -> tuple[int, float]:
    """ACFL's plotted alpha_t (Figs. 3-4) against eq. (43) recomputed from the plotted beta_hat^2, C_hat^2, p and
    sigma^2: (number of values, largest relative difference)."""
    d, o = params["dim_in"], params["dim_out"]
    count, worst = 0, 0.0
    for fig, ps in (("fig3", dict(zip("ab", params["fig3_straggler_probs"]))), ("fig4", {"a": params["fig4_straggler_prob"]})):
        t = tables.get(fig)
        if t is None:
            continue
        t = t[(t["seed"] >= 0) & t["series"].astype(str).str.startswith("ACFL ")]
        s2 = t[t["metric"] == "sigma2"].groupby(["panel", "series", "seed"])["value"].first()
        est = t[t["metric"].isin(["alpha", "beta2_hat", "C2_hat"])]
        wide = est.pivot_table(index=["panel", "series", "seed", "x"], columns="metric", values="value").dropna()
        if len(wide) == 0 or not {"alpha", "beta2_hat", "C2_hat"} <= set(wide.columns):
            continue
        key = [k[:3] for k in wide.index]
        sig = s2.loc[key].to_numpy()
        p = np.array([ps[str(k[0])] for k in wide.index])
        b2, c2 = wide["beta2_hat"].to_numpy(), wide["C2_hat"].to_numpy()
        eq43 = p * b2 / (p * b2 + (1 - p) * (d * sig * c2 + sig * o * d))
        worst = max(worst, float(np.max(np.abs(wide["alpha"].to_numpy() / eq43 - 1))))
        count += len(wide)
    if count == 0:
        raise MissingData("no plotted ACFL weights with their estimates (Figs. 3-4)")
    return count, worst


@CLAIMS.claim("C3", figures=("fig3", "fig4", "table92"), kind="exact",
              paper_says="eq. (43): the practical weight alpha_t = p beta^2 / (p beta^2 + d sigma1^2 C^2 (1-p) + sigma2^2 od (1-p)) "
                         "with the estimates of eq. (42) in place of beta and C of eq. (36) (Sec. IV-C)",
              tests=f"every plotted alpha_t of ACFL (Figs. 3-4, every seed and recorded iteration) equals eq. (43) recomputed "
                    f"from the plotted beta_hat^2 (eq. 42), C_hat^2 = ||W_t||^2, p and sigma^2 (rel {WEIGHT_RTOL:g}); table92: "
                    f"eq. (43) at beta_hat = beta, C_hat = C equals eq. (36) (rel {IDENTITY_RTOL:g}) and stays in [0, 1] on "
                    "5,003 extreme estimates",
              refute=lambda t, p: (edit(t, "fig3", lambda v: v * 1.01, metric="alpha"), p), support=unchanged)
def practical_weight_is_eq36(tables, params):
    lo, hi = _identity(tables, "practical_alpha_min"), _identity(tables, "practical_alpha_max")
    n, worst = _plotted_weights(tables, params)
    return combine({"plotted alpha_t = eq. (43)": exact(worst, 0.0, atol=WEIGHT_RTOL, reason=f"{n} plotted weights"),
                    "(43) = (36)": exact(_identity(tables, "eq43_vs_eq36_max_rel_err"), 0.0, atol=IDENTITY_RTOL),
                    "alpha in [0, 1]": exact_holds(0 <= lo and hi <= 1, regenerated=f"[{lo:.3g}, {hi:.3g}]", expected="[0, 1]")},
                   reason=f"{n} plotted weights, largest relative difference {worst:.2g}")


@CLAIMS.claim("C4", figures=("fig1", "table92"), kind="exact",
              paper_says="'under equivalent privacy levels, the upper bound in (33) reaches its minimum with the adaptive "
                         "policy' (Sec. IV-C, Fig. 1(a))",
              tests="at every eps of Fig. 1: the adaptive bound <= each plotted fixed-alpha bound and <= the bound of "
                    "every alpha in linspace(0, 1, 101) (table92), with equality only at alpha = alpha*",
              refute=lambda t, p: (edit(t, "fig1", lambda v: v * 1.01, panel="a", series="adaptive", metric="bound"), p),
              support=unchanged)
def adaptive_bound_is_lowest(tables, params):
    a = need(tables, "fig1", panel="a", metric="bound")
    curves = {s: g.assign(x=g["x"].astype(float)).sort_values("x")["value"].to_numpy() for s, g in a.groupby("series")}
    if "adaptive" not in curves:
        raise MissingData("fig1 has no adaptive curve")
    adaptive = curves.pop("adaptive")
    plotted_gap = min(float(np.min(c - adaptive)) for c in curves.values())
    grid_gap, ties = _identity(tables, "min_gap_fixed_minus_adaptive"), _identity(tables, "ties_away_from_alpha_star")
    ok = plotted_gap >= -IDENTITY_RTOL * float(np.max(adaptive)) and grid_gap >= -1e-12 and ties == 0
    return exact_holds(ok, regenerated=f"min gap fixed - adaptive: plotted {plotted_gap:.4g}, alpha grid {grid_gap:.4g}; "
                                       f"ties away from alpha* {ties:g}", expected=">= 0; no ties")


@CLAIMS.claim("C5", figures="fig1", kind="exact",
              paper_says="Remark 4: 'the learning performance of ACFL improves as the variances of the additive noise "
                         "decrease, whereas the privacy performance benefits from an increase' (Fig. 1(b))",
              tests="the adaptive bound of Fig. 1(b) strictly decreases as eps grows, on the whole eps grid",
              refute=lambda t, p: (edit(t, "fig1", lambda r: r["x"].astype(float), rows=True, panel="b", series="adaptive",
                                        metric="bound"), p),
              support=unchanged)
def tradeoff_bound_falls_with_eps(tables, params):
    b = need(tables, "fig1", panel="b", series="adaptive", metric="bound")
    v = b.assign(x=b["x"].astype(float)).sort_values("x")["value"].to_numpy()
    return exact_holds(bool(np.all(np.diff(v) < 0)), regenerated=f"bound {v[0]:.6g} -> {v[-1]:.6g}; largest step {np.max(np.diff(v)):.3g}",
                       expected="strictly decreasing")


@CLAIMS.claim("C6", figures="table91", kind="exact",
              paper_says="Remark 1: psi_1 = phi(d^2 + od)N (eq. 12), psi_2 = phi(Tod)N (eq. 13); 'the extra communication "
                         "overhead induced by the first stage ... is negligible' when T >> d",
              tests=f"psi_2/psi_1 of the simulation sizes equals To/(d+o) exactly, and Stage 1 is a negligible share of the "
                    f"whole upload: psi_1/(psi_1 + psi_2) < {NEGLIGIBLE_SHARE:.0%}",
              refute=lambda t, p: (edit(t, "table91", lambda v: v * 100, metric="psi1"), p), support=unchanged)
def stage1_overhead_negligible(tables, params):
    t = need(tables, "table91", panel="c")
    get = lambda m: float(t.loc[t["metric"] == m, "value"].iloc[0])  # noqa: E731
    psi1, psi2 = get("psi1"), get("psi2")
    T, d, o = params["iterations"], params["dim_in"], params["dim_out"]
    share = psi1 / (psi1 + psi2)
    return combine({"psi2/psi1 = To/(d+o)": exact(psi2 / psi1, T * o / (d + o), rtol=IDENTITY_RTOL),
                    f"share < {NEGLIGIBLE_SHARE:.0%}": exact_holds(share < NEGLIGIBLE_SHARE, regenerated=f"{share:.3%}",
                                                                   expected=f"< {NEGLIGIBLE_SHARE:.0%}")},
                   reason=f"psi_1 = {psi1:,.0f} bits, psi_2 = {psi2:,.0f} bits (T = {T}): Stage 1 is {share:.2%} of the upload")


# ------------------------------------------------------------------------------------------ Monte-Carlo theory checks


@CLAIMS.claim("C7", category="by_construction", figures="table92", kind="number",
              paper_says="Lemma 1: E[G_t^All | W_t] = G_t^True for every alpha_t in [0, 1] (eqs. 25-26): relative bias 0 "
                         "-- judged here as printed at W0 only, where it is trivially true (the noise is drawn afresh and is "
                         "independent of W0); the informative part, along the Algorithm-1 trajectory (t >= 1, the Stage-1 "
                         "noise fixed once and W_t depending on it), is not regenerated by the package",
              tests=f"trivially true at W0: per seed, Monte-Carlo mean of G^All at W0 (fresh noise and stragglers) projected on "
                    f"G^True, relative to ||G^True||^2, minus 1, for alpha = mc_alpha and for ACFL's alpha at W0; the 95 % "
                    f"interval over seeds within 0 +- {UNBIASED_ATOL:g} (package tolerance)",
              refute=lambda t, p: (edit(t, "table92", lambda v: v + 0.1, metric=lambda c: c.str.startswith("mc_mean_along")), p),
              support=lambda t, p: (edit(t, "table92", lambda v: v * 0 + 1.0, metric=lambda c: c.str.startswith("mc_mean_along")), p))
def coded_gradient_unbiased(tables, params):
    return combine({name: number(_mc(tables, f"mc_mean_along_G_true_{name}") - 1.0, 0.0, atol=UNBIASED_ATOL)
                    for name in ("alpha", "acfl_alpha_at_W0")},
                   reason=f"at W0 only (trivially true there; the Algorithm-1 trajectory, t >= 1, is not checked): K = "
                          f"{params['mc_draws']} draws per seed, p = {params['mc_straggler_prob']:g}, sigma^2 = {params['mc_sigma2']:g}")


@CLAIMS.claim("C8", figures="table92", kind="direction",
              paper_says="Lemma 2: E||G_t^All||_F^2 <= [alpha^2 p + (1-p)(alpha + (1-alpha)/(1-p))^2 + N - 1] N beta^2 + "
                         "alpha^2 N d sigma1^2 C^2 + alpha^2 N sigma2^2 od (eq. 27)",
              tests="per seed, log10(bound (27) / Monte-Carlo second moment) at W0 with beta^2 = max_i ||G_i||^2, C^2 = ||W0||^2, "
                    "both from table92; the paper's direction is positive",
              refute=lambda t, p: (edit(t, "table92", lambda r: 2.0 * _mc(t, "lemma2_bound").loc[r["seed"]].to_numpy(),
                                        rows=True, metric="mc_second_moment"), p),
              support=lambda t, p: (edit(t, "table92", lambda v: v * 0.5, metric="mc_second_moment"), p))
def second_moment_bound_holds(tables, params):
    r = _mc(tables, "mc_second_moment") / _mc(tables, "lemma2_bound")
    return direction(-np.log10(r), expect="positive", reason=f"MC / bound per seed: {', '.join(f'{v:.3g}' for v in r)}")


THM2_PARTS = (("alpha_0.5", "fresh"), ("acfl", "fresh"), ("alpha_0.5", "alg1"), ("acfl", "alg1"))
THM2_WHAT = {"fresh": "noise redrawn every iteration (the proof's assumption)", "alg1": "noise drawn once (Algorithm 1)"}


def _thm2_scale_error(factor_of_bound):
    """Counterfactual: every Theorem-2 mean error set to ``factor_of_bound`` x its bound, per seed."""
    def run(t, p):
        for name, mode in THM2_PARTS:
            bound = _mc(t, f"thm2_bound_{name}_{mode}")
            t = edit(t, "table92", lambda r, b=bound: factor_of_bound * b.loc[r["seed"]].to_numpy(), rows=True,
                     metric=f"thm2_mean_dist2_{name}_{mode}")
        return t, p
    return run


@CLAIMS.claim("C9", figures="table92", kind="direction",
              paper_says="Theorem 2: with eta_t = 1/(lambda t), E||W_T - W*||_F^2 <= sup_t 4 u(sigma1^2, sigma2^2, alpha_t) / "
                         "(lambda^2 T) (eqs. 33-34)",
              tests="per seed (one problem, repetitions averaged), log10(bound / mean ||W_T - W*||^2) from table92, for alpha = "
                    "0.5 and for ACFL, (i) with the Stage-1 noise redrawn every iteration, as the proof assumes, and (ii) "
                    "with Algorithm 1 as written (noise drawn once, as in Figs. 3-4); the paper's direction is positive "
                    "for all four",
              refute=_thm2_scale_error(3.0), support=_thm2_scale_error(0.01))
def convergence_bound_holds(tables, params):
    parts, notes = {}, []
    for name, mode in THM2_PARTS:
        margin = _mc(tables, f"thm2_bound_{name}_{mode}") / _mc(tables, f"thm2_mean_dist2_{name}_{mode}")
        label = f"{'alpha = 0.5' if name == 'alpha_0.5' else 'ACFL'}, {THM2_WHAT[mode]}"
        parts[label] = direction(np.log10(margin), expect="positive")
        notes.append(f"{label}: bound / error {margin.mean():.3g} (per seed {margin.min():.3g}-{margin.max():.3g})")
    return combine(parts, reason=f"T = {params['iterations']}, {params['thm2_repetitions']} repetitions per seed, sigma^2 = "
                                 f"{params['mc_sigma2']:g}; " + "; ".join(notes))


# ------------------------------------------------------------------------------------------ Fig. 3


def _panels(params):
    return tuple(zip(("a", "b"), params["fig3_straggler_probs"]))


def _both(groups, notes, part, level, curve_effect, final_effect):
    """Add one level (a noise variance, a step between two, an eps) of comparison ``part`` on the whole curve and on
    the final loss: two comparisons, each pooled over its levels within each seed (the engine's rules a, g)."""
    groups.setdefault(f"{part} [curve]", {})[level] = curve_effect
    groups.setdefault(f"{part} [final]", {})[level] = final_effect
    notes.append(f"{part} {level}: {curve_effect.mean():+.4f} curve, {final_effect.mean():+.4f} final decades")


def _judge(groups, reason: str) -> Evidence:
    """The comparisons of ``groups`` ({comparison: {level: per-seed Series}}) by repro.claims.comparisons."""
    return comparisons({k: pd.DataFrame(v) for k, v in groups.items()}, reason=reason)


def _steps(S, method, noise):
    lv = _levels(S, method, noise)
    if len(lv) < 2:
        raise MissingData(f"{method} needs two noise levels or more")
    return list(zip(lv[:-1], lv[1:]))


@CLAIMS.claim("C10", figures="fig3", kind="direction",
              paper_says="'an increase in noise variances, aimed at enhancing privacy, inversely affects the learning "
                         "performance of both methods' (Sec. V, Fig. 3)",
              tests="per p, method (ACFL, NA) and step between neighbouring sigma^2, per seed: S(larger sigma^2) - "
                    "S(smaller) on the whole curve, and log10 f(W_T)(larger) - log10 f(W_T)(smaller); each comparison (method, panel, curve or final) pooled over its levels within each seed, the seed the unit (rules a, g), every comparison positive",
              refute=_scale_level("fig3", "ACFL", "least", 10.0),
              support=_chain(_noise_staircase("fig3", "ACFL"), _noise_staircase("fig3", "NA")))
def noise_hurts_both_methods(tables, params):
    parts, notes = {}, []
    for panel, p in _panels(params):
        S, F = curve_scores(tables, "fig3", panel), final_scores(tables, "fig3", panel)
        for m in ("ACFL", "NA"):
            for lo, hi in _steps(S, m, "sigma2"):
                _both(parts, notes, f"p={p:g} {m}", f"sigma2 {lo:g}->{hi:g}",
                      _col(S, m, "sigma2", hi) - _col(S, m, "sigma2", lo), _col(F, m, "sigma2", hi) - _col(F, m, "sigma2", lo))
    return _judge(parts, "; ".join(notes))


@CLAIMS.claim("C11", figures="fig3", kind="direction",
              paper_says="'the performance deterioration in ACFL remains relatively modest in comparison to NA upon increasing "
                         "the noise, while there is a pronounced decline in the learning performance of NA' (Sec. V, Fig. 3)",
              tests="per p and step between neighbouring sigma^2, per seed: NA's deterioration minus ACFL's, on the whole curve "
                    "(S) and on the final loss (log10 f(W_T)); each comparison (method, panel, curve or final) pooled over its levels within each seed, the seed the unit (rules a, g), every comparison positive",
              refute=_swap("fig3", "ACFL", "NA"), support=_noise_staircase("fig3", "NA"))
def acfl_deteriorates_less_than_na(tables, params):
    parts, notes = {}, []
    for panel, p in _panels(params):
        S, F = curve_scores(tables, "fig3", panel), final_scores(tables, "fig3", panel)
        for lo, hi in _steps(S, "ACFL", "sigma2"):
            step = lambda X, m: _col(X, m, "sigma2", hi) - _col(X, m, "sigma2", lo)  # noqa: E731
            _both(parts, notes, f"p={p:g}", f"sigma2 {lo:g}->{hi:g}", step(S, "NA") - step(S, "ACFL"), step(F, "NA") - step(F, "ACFL"))
    return _judge(parts, "; ".join(notes))


@CLAIMS.claim("C12", figures="fig3", kind="direction",
              paper_says="'This discrepancy underscores the superior capability of ACFL ... and validates the advantage of "
                         "employing the adaptive policy' (Sec. V, Fig. 3); 'simulations ... demonstrate the superiority of ACFL' "
                         "(abstract)",
              tests="per p and sigma^2, per seed: S_NA - S_ACFL (whole curve) and log10 f_NA(W_T) - log10 f_ACFL(W_T); every "
                    "part positive. Reported: the share of the curve gain that alpha = 0 (no coded data) also obtains",
              refute=_swap("fig3", "ACFL", "NA"), support=_scale_loss("fig3", "NA ", lambda x: 10.0))
def acfl_beats_na(tables, params):
    parts, notes = {}, []
    for panel, p in _panels(params):
        S, F = curve_scores(tables, "fig3", panel), final_scores(tables, "fig3", panel)
        for lv in _levels(S, "ACFL", "sigma2"):
            gain = _col(S, "NA", "sigma2", lv) - _col(S, "ACFL", "sigma2", lv)
            _both(parts, notes, f"p={p:g}", f"sigma2={lv:g}", gain, _col(F, "NA", "sigma2", lv) - _col(F, "ACFL", "sigma2", lv))
            if "ALPHA0" in S and gain.mean() > 0:
                notes[-1] += f" (alpha = 0 obtains {((_col(S, 'NA', 'sigma2', lv) - S['ALPHA0']).mean() / gain.mean()):.0%})"
    return _judge(parts, "; ".join(notes))


@CLAIMS.claim("C13", category="package_check", figures="fig3", kind="direction",
              paper_says="(package check, not a claim of the paper) the paper attributes ACFL's gain to 'the superior "
                         "capability of ACFL to leverage gradients from both the central server and devices more effectively "
                         "with the adaptive policy' (Sec. V, Fig. 3), but compares only with alpha = 0.5; the package asks "
                         "whether ACFL beats alpha = 0, which uses the devices' gradients only",
              tests="per p and sigma^2, per seed: S_(alpha = 0) - S_ACFL (whole curve) and log10 f_(alpha = 0)(W_T) - "
                    "log10 f_ACFL(W_T); each comparison (method, panel, curve or final) pooled over its levels within each seed, the seed the unit (rules a, g), every comparison positive (the coded gradient helps)",
              refute=_scale_loss("fig3", "ACFL", lambda x: 2.0), support=_scale_loss("fig3", "ACFL", lambda x: 0.5))
def acfl_beats_no_coding(tables, params):
    parts, notes = {}, []
    for panel, p in _panels(params):
        S, F = curve_scores(tables, "fig3", panel), final_scores(tables, "fig3", panel)
        if "ALPHA0" not in S:
            raise MissingData("the alpha = 0 reference was not trained (alpha0_reference: false)")
        for lv in _levels(S, "ACFL", "sigma2"):
            _both(parts, notes, f"p={p:g}", f"sigma2={lv:g}", S["ALPHA0"] - _col(S, "ACFL", "sigma2", lv),
                  F["ALPHA0"] - _col(F, "ACFL", "sigma2", lv))
    return _judge(parts, "; ".join(notes))


# ------------------------------------------------------------------------------------------ Fig. 4


def _fig4(tables):
    S, F = curve_scores(tables, "fig4", "a"), final_scores(tables, "fig4", "a")
    eps = sorted(set(_levels(S, "ACFL", "epsilon")) & set(_levels(S, "SCFL", "epsilon")))
    if len(eps) < 2:
        raise MissingData("fig4 needs ACFL and SCFL at two eps or more")
    return S, F, eps


def _scfl_sizes(F, eps) -> str:
    """Final-loss ratio SCFL / ACFL per eps, for the paper's SCFL and any alternative coded dataset."""
    out = []
    for prefix in sorted({c.split(" ", 1)[0] for c in F.columns if c.startswith("SCFL")}):
        ratios = [10 ** (F[f"{prefix} epsilon={e:g}"] - F[f"ACFL epsilon={e:g}"]).mean() for e in eps
                  if f"{prefix} epsilon={e:g}" in F]
        name = "SCFL (the paper's sum of local coded datasets)" if prefix == "SCFL" else f"{prefix} (package alternative)"
        out.append(f"{name}: " + ", ".join(f"eps {e:g}: {r:.3g}x" for e, r in zip(eps, ratios)))
    return "final loss over ACFL's, geometric mean over seeds: " + "; ".join(out)


def _scfl_variants(F, eps) -> list[str]:
    """The SCFL reconstructions drawn in Fig. 4 (series prefixes) that have every eps."""
    out = sorted({c.split(" ", 1)[0] for c in F.columns if c.startswith("SCFL")})
    out = [v for v in out if all(f"{v} epsilon={e:g}" in F for e in eps)]
    if not out:
        raise MissingData("fig4 has no SCFL reconstruction at every eps")
    return out


def _most_generous(X, variants, key) -> str:
    """The SCFL reconstruction with the smallest mean of ``key(X, variant)`` (the most favourable to SCFL)."""
    return min(variants, key=lambda v: float(key(X, v).mean()))


_GENEROUS = ("direction only, against the most generous SCFL reconstruction of Fig. 4 at each comparison (judging rule 2): "
             "SCFL is the package's reconstruction, with the package's privacy map, so its size against ACFL is a package "
             "observation, not the paper's")


@CLAIMS.claim("C14", figures="fig4", kind="direction",
              paper_says="'From Fig. 4, it is evident that ACFL achieves superior learning performance under equivalent "
                         "privacy level' (Sec. V) -- against SCFL (here the package's reconstruction)",
              tests="per eps, per seed: S_SCFL - S_ACFL (whole curve) and log10 f_SCFL(W_T) - log10 f_ACFL(W_T), where SCFL is "
                    "the reconstruction drawn in Fig. 4 with the lowest mean final loss at that eps (the paper's sum of local "
                    "coded datasets, or the package's composite alternative); each comparison (method, panel, curve or final) pooled over its levels within each seed, the seed the unit (rules a, g), every comparison positive (direction only). "
                    "Reported (package observation): the final-loss ratio SCFL / ACFL per eps for each reconstruction",
              refute=_swap("fig4", "ACFL", "SCFL"), support=_scale_loss("fig4", "SCFL", lambda x: 10.0))
def acfl_beats_scfl(tables, params):
    S, F, eps = _fig4(tables)
    variants = _scfl_variants(F, eps)
    parts, notes = {}, []
    for e in eps:
        v = _most_generous(F, variants, lambda X, v: _col(X, v, "epsilon", e))
        _both(parts, notes, "ACFL vs the most generous SCFL", f"eps={e:g} ({v})",
              _col(S, v, "epsilon", e) - _col(S, "ACFL", "epsilon", e), _col(F, v, "epsilon", e) - _col(F, "ACFL", "epsilon", e))
    return _judge(parts, f"{_GENEROUS} (privacy map {params['scfl_privacy_map']}); " + "; ".join(notes)
                  + "; package observation: " + _scfl_sizes(F, eps))


@CLAIMS.claim("C15", figures="fig4", kind="direction",
              paper_says="'the learning performance of ACFL exhibits greater resilience and suffers less from increasing the "
                         "noise variances to heighten the privacy level' (Sec. V, Fig. 4)",
              tests="per step between neighbouring eps (towards more privacy), per seed: SCFL's deterioration minus ACFL's, on "
                    "the whole curve (S) and on the final loss, where SCFL is the reconstruction drawn in Fig. 4 that "
                    "deteriorates least over that step (mean, final loss); each comparison (method, panel, curve or final) pooled over its levels within each seed, the seed the unit (rules a, g), every comparison positive (direction only)",
              refute=_swap("fig4", "ACFL", "SCFL"),
              support=_chain(_noise_staircase("fig4", "SCFL"), _noise_staircase("fig4", "SCFL-composite")))
def acfl_more_resilient(tables, params):
    S, F, eps = _fig4(tables)
    variants = _scfl_variants(F, eps)
    parts, notes = {}, []
    for lo, hi in zip(eps[:-1], eps[1:]):
        step = lambda X, m: _col(X, m, "epsilon", lo) - _col(X, m, "epsilon", hi)  # noqa: E731
        v = _most_generous(F, variants, step)
        _both(parts, notes, "ACFL vs the most generous SCFL", f"eps {hi:g}->{lo:g} ({v})", step(S, v) - step(S, "ACFL"),
              step(F, v) - step(F, "ACFL"))
    return _judge(parts, f"{_GENEROUS} (privacy map {params['scfl_privacy_map']}); " + "; ".join(notes))


# ------------------------------------------------------------------------------------------ Theorem 1 (MI-DP)


def _mi_rows(tables) -> pd.DataFrame:
    """table92 'Theorem 1' rows: one row per sigma^2 with eps17, mi_lower, mi_upper."""
    t = _table92(tables, seeded=False)
    t = t[t["metric"].astype(str).str.contains("_sigma2=")]
    if len(t) == 0:
        raise MissingData("table92 has no Theorem-1 information bounds")
    parts = t["metric"].astype(str).str.rsplit("_sigma2=", n=1, expand=True)
    wide = t.assign(what=parts[0], tag=parts[1]).pivot_table(index="tag", columns="what", values="value")
    if not {"sigma2", "eps17", "mi_lower"} <= set(wide.columns):
        raise MissingData("table92's Theorem-1 rows are incomplete")
    return wide.set_index("sigma2").sort_index()


@CLAIMS.claim("C16", figures="table92", kind="exact",
              paper_says="Theorem 1: 'the local coded dataset satisfies' eps-MI-DP with eps of eq. (17), i.e. sup over the "
                         "data law of I(X_jk; upload | the other entries) <= eps (Definition 1, eq. 16)",
              tests="at every noise variance of Figs. 3-4 (ACFL, sigma1^2 = sigma2^2, d = o = 10): an upper bound on the "
                    "worst-case I(X_jk; upload | rest) (Gaussian bounds on the linear and the squared part, recomputed "
                    "here) <= eq. (17) recomputed here: reproduced; an achieved information (Blahut-Arimoto input law, "
                    "table92) > eq. (17): not reproduced; else inconclusive. Reported: how loose eq. (17) is",
              refute=lambda t, p: (edit(t, "table92", lambda v: v * 0 + 1e3, metric=lambda c: c.str.startswith("mi_lower_")), p),
              support=unchanged)
def theorem1_mi_dp_holds(tables, params):
    mi = _mi_rows(tables)
    d, o = params["dim_in"], params["dim_out"]
    parts, notes = {}, []
    for s2, r in mi.iterrows():
        eps = float(_eq17(s2, d, o))
        upper = 0.5 * np.log1p((2.0 * (d - 1) + o) / s2) + 0.5 * np.log1p(0.25 / s2)
        lower = float(r["mi_lower"])
        if lower > eps:                 # an input law that leaks more than eq. (17) allows
            verdict = "not_reproduced"
        elif upper <= eps:
            verdict = "reproduced"
        else:
            verdict = "inconclusive"
        parts[f"sigma^2 = {s2:.4g}"] = Evidence(verdict, effect=eps - upper, regenerated=f"I in [{lower:.3g}, {upper:.3g}]",
                                                paper_value=f"<= {eps:.4g}", tolerance="exact")
        notes.append(f"sigma^2 {s2:.3g}: eps {eps:.3g} vs I in [{lower:.3g}, {upper:.3g}] ({eps / upper:.1f}-{eps / lower:.1f}x)")
    consistent = float(np.max(np.abs(mi["eps17"].to_numpy() / _eq17(mi.index.to_numpy(), d, o) - 1)))
    parts["tabled eq. (17) = recomputed"] = exact(consistent, 0.0, atol=IDENTITY_RTOL)
    return combine(parts, reason="eq. (17) holds but overstates the information: " + "; ".join(notes))
