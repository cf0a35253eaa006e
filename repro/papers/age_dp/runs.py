"""The computations behind each run of the paper (one function per run task).

``fig2``  Fig. 2: LD vs one client's collection time, the others fresh; exact (G1) + Monte Carlo.
``fig3``  Fig. 3: the six schemes on the epsilon grid, exact (G1) + Monte Carlo; also the (G2) values
          of the chosen schedules (Fig. S1 = ``fig91``), the calibration table, the parametric
          constant-noise series and (paper profile) the ``sim_objective = mc`` variant.
``table91`` Table S1: the claim checks C1-C3, C5-C11 under every model variant of guide §4.

All return plain JSON-able dicts. Exact values are deterministic; MC uses the run's seed streams.
"""

from __future__ import annotations

import numpy as np

from repro.engine.rng import RngStreams
from repro.papers.age_dp import checks
from repro.papers.age_dp import scheduler as sch
from repro.papers.age_dp import simulation as sim
from repro.papers.age_dp import theory as th
from repro.papers.age_dp.markov_database import MarkovEnergyDatabase
from repro.privacy.age_dependent import age_dependent_epsilon


#: Table S1 rows: (label, overrides of the profile's model parameters)
SENSITIVITY_VARIANTS = (
    ("default", {}),
    ("fse_form = printed", {"fse_form": "printed"}),
    ("s = 5.4", {"sensitivity": 5.4}),
    ("s = 18", {"sensitivity": 18.0}),
    ("distinct_slots", {"distinct_slots": True}),
    ("delta_mode = exact", {"delta_mode": "exact"}),
    ("anchor = collection", {"chain_anchor": "collection"}),
    ("anchor = collection, printed f_SE", {"chain_anchor": "collection", "fse_form": "printed"}),
    ("anchor = collection, literal (12)", {"chain_anchor": "collection", "literal_eq12": True}),
    ("literal_eq12", {"literal_eq12": True}),
    ("eq11_noise_coef = 1/m^2", {"eq11_noise_coef": "1/m^2"}),
)


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

    def single_client_sweep(self, client: int, eps_bar: float) -> tuple[np.ndarray, np.ndarray]:
        """Fig. 2 schedules (client ``client`` ages 9..0, i.e. t_c = 1..10; others age 0) and their LD."""
        T, m = self.db.t_agg, self.db.num_clients
        ages = np.zeros((T, m), dtype=int)
        ages[:, client] = T - np.arange(1, T + 1)                # t_c = 1..T  ->  a = T - t_c
        eps_c = th.classic_epsilons(self.tables, ages, eps_bar, "adaptive")
        return ages, th.loss_difference(self.tables, ages, eps_c, self.n, self.s)

    def curves(self, eps_grid) -> dict:
        return sch.scheme_curves(self.tables, eps_grid, self.n, self.s, self.schedules, self.surrogate, self.random_constant)


def _streams_draws(model: Model, seed: int, replicates: int):
    streams = RngStreams(seed)
    draws = sim.draw_monte_carlo(model.db, model.n, replicates, streams.numpy("data"), streams.numpy("dp_noise"))
    return streams, draws


# ---------------------------------------------------------------------------------------------- fig2


def run_fig2(p: dict, seed: int, log=print) -> dict:
    model = Model(p)
    m, T = model.db.num_clients, model.db.t_agg
    eps_bar = float(p["fig2_epsilon"])
    out = {"t_c": list(range(1, T + 1)), "epsilon": eps_bar, "seed": seed, "clients": []}
    R = int(p["mc_replicates"])
    _, draws = _streams_draws(model, seed, R) if R > 0 else (None, None)
    for i in range(m):
        ages, ld = model.single_client_sweep(i, eps_bar)
        entry = {"loss": ld.tolist(), "extra": {}}
        for e in p["fig2_extra_epsilons"]:
            entry["extra"][f"{float(e):g}"] = model.single_client_sweep(i, float(e))[1].tolist()
        if draws is not None:
            eps_c = th.classic_epsilons(model.tables, ages, eps_bar, "adaptive")
            mc = [sim.mc_loss_difference(draws, a, e, model.s) for a, e in zip(ages, eps_c)]
            entry["mc_mean"], entry["mc_se"] = [x[0] for x in mc], [x[1] for x in mc]
        out["clients"].append(entry)
    out["mc_replicates"] = R
    log(f"fig2: {m} panels x {T} collection times, MC R={R}")
    return out


# ---------------------------------------------------------------------------------------------- fig3


def _mc_scheme_points(model: Model, curves: dict, eps_grid, draws, sched_rng) -> dict:
    """MC at every plotted point: the chosen schedule (schemes 3-6) or a random schedule per replicate (1-2)."""
    R, m = draws.replicates, model.db.num_clients
    random_ages = sch.uniform_random_schedules(model.db.t_agg, m, R, sched_rng, bool(model.params["distinct_slots"]))
    mode_of = {"rc": "classic" if model.random_constant == "classic" else "constant", "ra": "adaptive",
               "nc": "constant", "sc": "constant", "na": "adaptive", "sa": "adaptive"}
    out = {k: {"mc_mean": [], "mc_se": []} for k in sch.SCHEMES}
    for j, eps_bar in enumerate(eps_grid):
        for k in sch.SCHEMES:
            ages = random_ages if k in ("rc", "ra") else curves[k]["ages"][j][None, :]
            eps_c = th.classic_epsilons(model.tables, ages, eps_bar, mode_of[k])
            mean, se = sim.mc_loss_difference(draws, ages if k in ("rc", "ra") else ages[0],
                                              eps_c if k in ("rc", "ra") else eps_c[0], model.s)
            out[k]["mc_mean"].append(mean)
            out[k]["mc_se"].append(se)
    return out


def _mc_objective_variant(model: Model, eps_grid, draws, replicates: int) -> dict:
    """``sim_objective = mc``: argmin over the MC estimates of all schedules (common random numbers)."""
    out = {}
    for key, mode in (("sc", "constant"), ("sa", "adaptive")):
        rows = {"ages": [], "mc_min": [], "exact_at_mc_choice": [], "winners_curse_gap": []}
        for eps_bar in eps_grid:
            eps_c = th.classic_epsilons(model.tables, model.schedules, eps_bar, mode)
            est = sim.mc_loss_all_schedules(draws, model.schedules, eps_c, model.s, replicates)
            best = sch.exhaustive_schedule_search(est)
            exact = float(th.loss_difference(model.tables, model.schedules[best:best + 1], eps_c[best:best + 1], model.n, model.s)[0])
            rows["ages"].append(model.schedules[best].tolist())
            rows["mc_min"].append(float(est[best]))
            rows["exact_at_mc_choice"].append(exact)
            rows["winners_curse_gap"].append(float(est[best]) - exact)
        out[key] = rows
    return out


def run_fig3(p: dict, seed: int, log=print) -> dict:
    model = Model(p)
    eps_grid = [float(e) for e in p["epsilon_grid"]]
    curves = model.curves(eps_grid)
    log(f"fig3: exact curves over {curves['num_schedules']} schedules x {len(eps_grid)} privacy levels")
    out = {"epsilon_grid": eps_grid, "seed": seed, "num_schedules": curves["num_schedules"],
           "t_agg": model.db.t_agg, "num_clients": model.db.num_clients, "schemes": {}}
    for k in sch.SCHEMES:
        out["schemes"][k] = {name: np.asarray(val).tolist() for name, val in curves[k].items()}
    R = int(p["mc_replicates"])
    if R > 0:
        streams, draws = _streams_draws(model, seed, R)
        mc = _mc_scheme_points(model, curves, eps_grid, draws, streams.numpy("scheduling"))
        for k in sch.SCHEMES:
            out["schemes"][k].update(mc[k])
        log(f"fig3: Monte Carlo R={R} at every plotted point")
        R_obj = int(p["mc_objective_replicates"])
        if R_obj > 0:
            out["mc_objective"] = _mc_objective_variant(model, eps_grid, draws, R_obj)
            out["mc_objective_replicates"] = min(R_obj, R)
            log(f"fig3: sim_objective = mc variant, R={min(R_obj, R)}")
    out["mc_replicates"] = R
    ages = np.arange(model.db.t_agg)
    delta = model.tables.delta
    out["calibration"] = {"delta": delta.tolist(), "ages": ages.tolist(),
                          "epsilon_c": [th.classic_epsilons(model.tables, np.tile(ages[:, None], (1, delta.shape[0])), e,
                                                            "adaptive").T.tolist() for e in eps_grid]}
    param = sch.parametric_constant_curves(model.tables, eps_grid, model.n, model.s, model.schedules, model.surrogate)
    out["parametric"] = param
    return out


# ---------------------------------------------------------------------------------------------- table91


def fig2_shapes_hold(model: Model, eps_bar: float) -> bool:
    """C1-C3 on the exact Fig. 2 curves of ``model`` at ``eps_bar``."""
    ok = []
    for i in range(model.db.num_clients):
        ld = model.single_client_sweep(i, eps_bar)[1]
        ok.append(fig2_panel_shape(ld, monotone=(i == 0)))
    return all(ok)


def fig2_panel_shape(ld, monotone: bool, interior_ratio: float = 0.95) -> bool:
    """C1 (``monotone``): argmin at the last time and non-increasing; C2/C3: interior argmin with
    ``min <= interior_ratio * min(ends)``."""
    ld = np.asarray(ld, dtype=float)
    k = int(np.argmin(ld))
    if monotone:
        return k == len(ld) - 1 and bool(np.all(np.diff(ld) <= 0))
    return 0 < k < len(ld) - 1 and ld[k] <= interior_ratio * min(ld[0], ld[-1])


def run_table91(p: dict, log=print) -> dict:
    eps_grid = [float(e) for e in p["epsilon_grid"]]
    rows = []
    for label, overrides in SENSITIVITY_VARIANTS:
        model = Model({**p, **overrides})
        curves = model.curves(eps_grid)
        loss = {k: curves[k]["loss"] for k in sch.SCHEMES}
        inv = {k: curves[k]["inv_eps"] for k in sch.SCHEMES}
        row = {"variant": label, "overrides": overrides, **checks.fig3_summary(loss, inv, eps_grid),
               "C1_C3": fig2_shapes_hold(model, float(p["fig2_epsilon"]))}
        rows.append(row)
        log(f"table91: {label}: C5 {row['C5']}/{len(eps_grid)}, C9 max(<=0.2) {row['C9_max_ratio_low']:.3f}")
    return {"epsilon_grid": eps_grid, "rows": rows}


def age_dependent_check(delta, eps_c) -> np.ndarray:
    """Prop. 1 applied to stored (Delta, eps_c) pairs (used by C15)."""
    return age_dependent_epsilon(np.asarray(delta), np.asarray(eps_c))


# ---------------------------------------------------------------------------------------------- tasks
# (experiments.TASKS): fn(spec, ctx) -> JSON-able dict


def fig2(spec, ctx) -> dict:
    return run_fig2(spec.params, spec.seed, ctx.log)


def fig3(spec, ctx) -> dict:
    return run_fig3(spec.params, spec.seed, ctx.log)


def table91(spec, ctx) -> dict:
    return run_table91(spec.params, ctx.log)
