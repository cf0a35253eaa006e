"""The computations behind each run of ``age_dp`` (one function per run task; plain JSON-able dicts).

``fig2_exact``  Fig. 2: exact loss difference (G1) as one client's collection time varies, the
                others fresh; the same at the extra eps_bar values; the (eps_bar, s) region where
                each panel has the paper's shape.
``fig2_mc``     Fig. 2: Monte-Carlo estimate at every plotted point (one seed).
``fig3_exact``  Fig. 3: the six schemes on the eps_bar grid (exact (G1)), with the "numerical opt"
                schemes also under the other f~_SE form; the surrogate (G2) values (fig91); the
                calibration table of eq. (5); the parametric constant-noise reading; the classical
                epsilon of every release (privacy table).
``fig3_mc``     Fig. 3: Monte-Carlo estimate at every plotted point (one seed).
``table91``     the Fig. 2 / Fig. 3 rules under every model variant, and under a joint variation of
                the sensitivity s and Fig. 2's eps_bar (package check; also drawn as fig92).
"""

from __future__ import annotations

import numpy as np

from repro.papers.age_dp import checks
from repro.papers.age_dp import scheduler as sch
from repro.papers.age_dp import simulation as sim
from repro.papers.age_dp import theory as th
from repro.papers.age_dp.markov_database import MarkovEnergyDatabase
from repro.privacy.age_dependent import age_dependent_epsilon
from repro.privacy.laplace_mechanism import PURE_DP_DELTA, certified_laplace_epsilon

#: table91 rows: (label, overrides of the profile's model parameters). The sensitivity s is varied
#: jointly with Fig. 2's eps_bar in the s scan (the Fig. 2 shapes depend on both; README: decisions).
SENSITIVITY_VARIANTS = (
    ("as run", {}),
    ("f~_SE continuous (standard)", {"fse_form": "standard"}),
    ("one client per slot", {"distinct_slots": True}),
    ("Delta exact (not bound (8))", {"delta_mode": "exact"}),
    ("chain starts at t_c", {"chain_anchor": "collection"}),
    ("chain starts at t_c, literal (12)", {"chain_anchor": "collection", "literal_eq12": True}),
    ("literal (12)", {"literal_eq12": True}),
    ("(11) with 1/m^2", {"eq11_noise_coef": "1/m^2"}),
    ("SE parameters of Laplace (2 eta)", {"sub_exp_params": "laplace"}),
)
OTHER_FSE = {"printed": "standard", "standard": "printed"}
#: noise modes of the Theorem-1 check: adaptive (eq. 5) and constant (worst client) budgets
BOUND_CHECK_MODES = ("adaptive", "constant")


class Model:
    """The database, its age tables, the schedule set and the surrogate options of one parameter set."""

    def __init__(self, p: dict):
        self.params = p
        self.db = MarkovEnergyDatabase(values=tuple(p["values"]), q=tuple(p["transition_q"]),
                                       initial_laws=tuple(tuple(r) for r in p["initial_laws"]),
                                       t_agg=int(p["t_agg"]), anchor=p["chain_anchor"])
        self.tables = th.age_tables(self.db, p["delta_mode"])
        self.n = int(p["num_records"])
        self.s = float(p["sensitivity"])
        self.schedules = sch.all_schedules(self.db.t_agg, self.db.num_clients, bool(p["distinct_slots"]))
        self.surrogate = sch.SurrogateOptions(p["fse_form"], p["sub_exp_params"], p["eq11_noise_coef"], bool(p["literal_eq12"]))
        self.random_constant = p["random_constant"]

    def sweep_ages(self, client: int) -> np.ndarray:
        """Fig. 2 schedules: client ``client`` at t_c = 1..t_agg (ages t_agg-1..0), the others at age 0."""
        T, m = self.db.t_agg, self.db.num_clients
        ages = np.zeros((T, m), dtype=int)
        ages[:, client] = T - np.arange(1, T + 1)
        return ages

    def single_client_sweep(self, client: int, eps_bar: float, sensitivity: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Fig. 2 schedules of ``client`` and their exact loss difference (G1) with adaptive noise (5)."""
        ages = self.sweep_ages(client)
        eps_c = th.classic_epsilons(self.tables, ages, eps_bar, "adaptive")
        return ages, th.loss_difference(self.tables, ages, eps_c, self.n, self.s if sensitivity is None else sensitivity)

    def curves(self, eps_grid, fse_form: str | None = None) -> dict:
        surrogate = self.surrogate if fse_form is None else sch.SurrogateOptions(
            fse_form, self.surrogate.sub_exp_params, self.surrogate.eq11_noise_coef, self.surrogate.literal_eq12)
        return sch.scheme_curves(self.tables, eps_grid, self.n, self.s, self.schedules, surrogate, self.random_constant)

    def draws(self, seed: int, replicates: int, streams):
        return sim.draw_monte_carlo(self.db, self.n, replicates, streams.numpy("data"), streams.numpy("dp_noise"))


def _json(curves: dict) -> dict:
    return {k: {name: np.asarray(v).tolist() for name, v in curves[k].items()} for k in sch.SCHEMES}


# ---------------------------------------------------------------------------------------------- fig2


def shape_region(model: Model, eps_values, s_values) -> dict:
    """Where each Fig. 2 panel has the paper's shape, on an (eps_bar, s) grid: flags[client][i_eps][i_s].

    (G1) is ``data + s^2 * noise`` with both parts independent of s, so each eps_bar costs one sweep."""
    m = model.db.num_clients
    flags = np.zeros((m, len(eps_values), len(s_values)), dtype=bool)
    s2 = np.asarray(s_values, dtype=float) ** 2
    for j, eps in enumerate(eps_values):
        for i in range(m):
            ages = model.sweep_ages(i)
            data, noise = th.loss_difference_parts(model.tables, ages, th.classic_epsilons(model.tables, ages, eps, "adaptive"),
                                                   model.n)
            ld = data[None, :] + s2[:, None] * noise[None, :]          # [len(s), T]
            flags[i, j] = [checks.panel_shape_holds(row, checks.PANEL_SHAPES[i]) for row in ld]
    return {"epsilon": list(map(float, eps_values)), "sensitivity": list(map(float, s_values)),
            "holds": flags.astype(int).tolist()}


def run_fig2_exact(p: dict, log=print) -> dict:
    model = Model(p)
    eps_bar = float(p["fig2_epsilon"])
    out = {"t_c": list(range(1, model.db.t_agg + 1)), "epsilon": eps_bar, "sensitivity": model.s, "clients": []}
    for i in range(model.db.num_clients):
        ages, ld = model.single_client_sweep(i, eps_bar)
        eps_c = th.classic_epsilons(model.tables, ages, eps_bar, "adaptive")
        out["clients"].append({
            "loss": ld.tolist(),
            "extra": {f"{float(e):g}": model.single_client_sweep(i, float(e))[1].tolist() for e in p["fig2_extra_epsilons"]},
            "epsilon_c": eps_c[:, i].tolist(),                      # the swept client's classical budget per t_c
            "delta": th.at_ages(model.tables.delta, ages)[:, i].tolist()})
    (e_lo, e_hi), (s_lo, s_hi), k = p["fig2_region_epsilon_range"], p["fig2_region_sensitivity_range"], int(p["fig2_region_points"])
    out["region"] = shape_region(model, np.geomspace(e_lo, e_hi, k), np.geomspace(s_lo, s_hi, k))
    log(f"fig2_exact: {model.db.num_clients} panels x {model.db.t_agg} collection times; region map {k} x {k}")
    return out


def run_fig2_mc(p: dict, seed: int, streams, log=print) -> dict:
    model = Model(p)
    eps_bar, R = float(p["fig2_epsilon"]), int(p["mc_replicates"])
    draws = model.draws(seed, R, streams)
    out = {"seed": seed, "replicates": R, "epsilon": eps_bar, "clients": []}
    for i in range(model.db.num_clients):
        ages = model.sweep_ages(i)
        eps_c = th.classic_epsilons(model.tables, ages, eps_bar, "adaptive")
        mc = [sim.mc_loss_difference(draws, a, e, model.s) for a, e in zip(ages, eps_c)]
        out["clients"].append({"mc_mean": [x[0] for x in mc], "mc_se": [x[1] for x in mc]})
    log(f"fig2_mc: seed {seed}, R = {R} at {model.db.num_clients * model.db.t_agg} points")
    return out


# ---------------------------------------------------------------------------------------------- fig3


def _release_epsilons(model: Model, curves: dict, eps_grid) -> dict:
    """Per scheme and eps_bar: each client's classical budget eps_c,i (chosen schedule; for the random
    schemes the largest over all schedules, since any may be drawn) and the age-dependent epsilon that
    Prop. 1 gives back for it (max over clients)."""
    mode_of = {"rc": "classic" if model.random_constant == "classic" else "constant", "ra": "adaptive",
               "nc": "constant", "sc": "constant", "na": "adaptive", "sa": "adaptive"}
    out = {k: {"epsilon_c": [], "age_dependent_epsilon": [], "certified_epsilon": []} for k in sch.SCHEMES}
    for j, eps_bar in enumerate(eps_grid):
        for k in sch.SCHEMES:
            ages = model.schedules if k in ("rc", "ra") else np.asarray(curves[k]["ages"][j])[None, :]
            eps_c = th.classic_epsilons(model.tables, ages, eps_bar, mode_of[k])
            delta = th.at_ages(model.tables.delta, ages)
            per_client = eps_c.max(axis=0)
            out[k]["epsilon_c"].append(per_client.tolist())
            out[k]["age_dependent_epsilon"].append(float(age_dependent_epsilon(delta, eps_c).max()))
            worst = float(per_client.max())   # the largest classical epsilon of any client's single release
            out[k]["certified_epsilon"].append(certified_laplace_epsilon(model.s / worst, model.s))
    return out


def bound_check(model: Model, eps_grid, surrogate: sch.SurrogateOptions) -> dict:
    """Theorem 1 as specialised in eqs. (9)-(12): is (G2) >= (G1) for every schedule, eps_bar and noise mode?

    Per noise mode and eps_bar: the schedule where the bound is tightest (smallest UB - LD), its UB and
    LD, how many of the schedules have UB < LD, and how many were checked."""
    out = {}
    for mode in BOUND_CHECK_MODES:
        rows = {"ub": [], "ld": [], "violations": [], "schedules": [], "ages": []}
        for eps_bar in eps_grid:
            eps_c = th.classic_epsilons(model.tables, model.schedules, eps_bar, mode)
            ld = th.loss_difference(model.tables, model.schedules, eps_c, model.n, model.s)
            ub = th.upper_bound(model.tables, model.schedules, eps_c, model.n, model.s, **surrogate.kwargs())
            k = int(np.argmin(ub - ld))
            rows["ub"].append(float(ub[k]))
            rows["ld"].append(float(ld[k]))
            rows["violations"].append(int(np.sum(ub < ld)))
            rows["schedules"].append(int(len(ld)))
            rows["ages"].append(model.schedules[k].tolist())
        out[mode] = rows
    return out


def bound_check_readings(model: Model, eps_grid) -> dict:
    """:func:`bound_check` as run and under the other readings of (9)-(12) (f~_SE form, "+L(w*)" of (12))."""
    base = model.surrogate
    other_fse = sch.SurrogateOptions(OTHER_FSE[base.fse_form], base.sub_exp_params, base.eq11_noise_coef, base.literal_eq12)
    other_12 = sch.SurrogateOptions(base.fse_form, base.sub_exp_params, base.eq11_noise_coef, not base.literal_eq12)
    return {"as run": bound_check(model, eps_grid, base),
            f"f~_SE {other_fse.fse_form}": bound_check(model, eps_grid, other_fse),
            "(12) " + ("with" if other_12.literal_eq12 else "without") + " +L(w*)": bound_check(model, eps_grid, other_12)}


def run_fig3_exact(p: dict, log=print) -> dict:
    model = Model(p)
    eps_grid = [float(e) for e in p["epsilon_grid"]]
    curves = model.curves(eps_grid)
    other = OTHER_FSE[p["fse_form"]]
    alt = model.curves(eps_grid, fse_form=other)
    log(f"fig3_exact: {curves['num_schedules']} schedules x {len(eps_grid)} privacy levels, f~_SE {p['fse_form']} "
        f"(and {other} for the numerical-opt schemes)")
    ages = np.arange(model.db.t_agg)
    delta = model.tables.delta
    every_age = np.tile(ages[:, None], (1, delta.shape[0]))
    return {
        "epsilon_grid": eps_grid, "num_schedules": curves["num_schedules"], "t_agg": model.db.t_agg,
        "num_clients": model.db.num_clients, "sensitivity": model.s, "fse_form": p["fse_form"],
        "schemes": _json(curves),
        "alternative": {"fse_form": other, "schemes": {k: v for k, v in _json(alt).items() if k in ("nc", "na")}},
        "calibration": {"delta": delta.tolist(), "ages": ages.tolist(),
                        "epsilon_c": [th.classic_epsilons(model.tables, every_age, e, "adaptive").T.tolist() for e in eps_grid]},
        "parametric": sch.parametric_constant_curves(model.tables, eps_grid, model.n, model.s, model.schedules, model.surrogate),
        "releases": _release_epsilons(model, curves, eps_grid),
        "pure_dp_delta": PURE_DP_DELTA,
        "bound_check": bound_check_readings(model, eps_grid),
    }


def run_fig3_mc(p: dict, seed: int, streams, log=print) -> dict:
    """Monte Carlo at every plotted point: the chosen schedule (schemes 3-6) or a random schedule per
    replicate (schemes 1-2), with common random numbers across schemes and eps_bar."""
    model = Model(p)
    eps_grid = [float(e) for e in p["epsilon_grid"]]
    curves = model.curves(eps_grid)
    R = int(p["mc_replicates"])
    draws = model.draws(seed, R, streams)
    m = model.db.num_clients
    random_ages = sch.uniform_random_schedules(model.db.t_agg, m, R, streams.numpy("scheduling"), bool(p["distinct_slots"]))
    mode_of = {"rc": "classic" if model.random_constant == "classic" else "constant", "ra": "adaptive",
               "nc": "constant", "sc": "constant", "na": "adaptive", "sa": "adaptive"}
    out = {k: {"mc_mean": [], "mc_se": []} for k in sch.SCHEMES}
    for j, eps_bar in enumerate(eps_grid):
        for k in sch.SCHEMES:
            if k in ("rc", "ra"):
                ages = random_ages
                eps_c = th.classic_epsilons(model.tables, ages, eps_bar, mode_of[k])
            else:
                ages = np.asarray(curves[k]["ages"][j])
                eps_c = th.classic_epsilons(model.tables, ages[None, :], eps_bar, mode_of[k])[0]
            mean, se = sim.mc_loss_difference(draws, ages, eps_c, model.s)
            out[k]["mc_mean"].append(mean)
            out[k]["mc_se"].append(se)
    log(f"fig3_mc: seed {seed}, R = {R} at {len(eps_grid) * len(sch.SCHEMES)} points")
    return {"seed": seed, "replicates": R, "epsilon_grid": eps_grid, "schemes": out}


# ---------------------------------------------------------------------------------------------- table91


def run_table91(p: dict, log=print) -> dict:
    eps_grid = [float(e) for e in p["epsilon_grid"]]
    rows = []
    for label, overrides in SENSITIVITY_VARIANTS:
        model = Model({**p, **overrides})
        curves = model.curves(eps_grid)
        loss = {k: np.asarray(curves[k]["loss"]) for k in sch.SCHEMES}
        inv = {k: np.asarray(curves[k]["inv_eps"]) for k in sch.SCHEMES}
        shapes = checks.fig2_shapes([model.single_client_sweep(i, float(p["fig2_epsilon"]))[1]
                                     for i in range(model.db.num_clients)])
        row = {"variant": label, "overrides": overrides, **checks.fig3_summary(loss, inv),
               "Fig. 2 shapes": int(sum(shapes))}
        rows.append(row)
        log(f"table91: {label}: 4 beats 1, 2 on {row['4 beats 1, 2']}/{len(eps_grid)}; Fig. 2 shapes {sum(shapes)}/3")
    return {"epsilon_grid": eps_grid, "rows": rows, "s_scan": run_s_scan(p, log)}


def run_s_scan(p: dict, log=print) -> dict:
    """Package check: the sensitivity s varied jointly with Fig. 2's eps_bar (README: decisions).

    For each s of ``s_scan`` (and the s as run): the eps_bar window of Fig. 2 where all three panels have
    the paper's shape (on a fine log grid), every Fig. 3 rule on the eps_bar grid, and the range of the six
    Fig. 3(a) curves (to set beside the paper's y axis)."""
    eps_grid = [float(e) for e in p["epsilon_grid"]]
    s_values = sorted({float(v) for v in p["s_scan"]} | {float(p["sensitivity"])})
    lo, hi = p["s_scan_fig2_epsilon_range"]
    fine = np.geomspace(lo, hi, int(p["s_scan_fig2_points"]))
    base = Model(p)
    region = shape_region(base, fine, s_values)                 # (G1) = data + s^2 noise: one sweep per eps_bar
    holds = np.asarray(region["holds"]).all(axis=0)            # [eps, s]: all three panels
    rows = []
    for j, s in enumerate(s_values):
        model = Model({**p, "sensitivity": s})
        curves = model.curves(eps_grid)
        loss = {k: np.asarray(curves[k]["loss"]) for k in sch.SCHEMES}
        inv = {k: np.asarray(curves[k]["inv_eps"]) for k in sch.SCHEMES}
        ok = holds[:, j]
        window = [float(fine[ok].min()), float(fine[ok].max())] if ok.any() else None
        every = np.concatenate([loss[k] for k in sch.SCHEMES])
        bounds = {}
        for name, literal in (("bound (12) printed holds", True), ("bound (12) corrected holds", False)):
            sur = model.surrogate
            bc = bound_check(model, eps_grid, sch.SurrogateOptions(sur.fse_form, sur.sub_exp_params, sur.eq11_noise_coef, literal))
            bounds[name] = int(np.sum(np.all([np.asarray(bc[m]["violations"]) == 0 for m in bc], axis=0)))
        rows.append({"sensitivity": s, "as_run": bool(np.isclose(s, base.s)), **checks.fig3_summary(loss, inv), **bounds,
                     "fig2_window": window, "fig2_window_points": int(ok.sum()),
                     "fig2_window_contiguous": bool(ok.any() and ok[np.argmax(ok):len(ok) - np.argmax(ok[::-1])].all()),
                     "log10_loss_min": float(np.log10(every.min())), "log10_loss_max": float(np.log10(every.max()))})
        log(f"s scan: s = {s:g}: Fig. 2 window {window}; 4 beats 5 on {rows[-1]['4 beats 5']}/{len(eps_grid)}")
    return {"epsilon_grid": eps_grid, "fig2_epsilon_grid": fine.tolist(), "rows": rows}


# ---------------------------------------------------------------------------------------------- tasks
# (experiments.TASKS): fn(spec, ctx) -> JSON-able dict


def fig2_exact(spec, ctx) -> dict:
    return run_fig2_exact(spec.params, ctx.log)


def fig2_mc(spec, ctx) -> dict:
    return run_fig2_mc(spec.params, spec.seed, ctx.streams(spec), ctx.log)


def fig3_exact(spec, ctx) -> dict:
    return run_fig3_exact(spec.params, ctx.log)


def fig3_mc(spec, ctx) -> dict:
    return run_fig3_mc(spec.params, spec.seed, ctx.streams(spec), ctx.log)


def table91(spec, ctx) -> dict:
    return run_table91(spec.params, ctx.log)
