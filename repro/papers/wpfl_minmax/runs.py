"""Run tasks of wpfl_minmax (``experiments.TASKS``): the Table II computation and one training group."""

from __future__ import annotations

from repro.experiment import RunContext, RunSpec, unavailable_result
from repro.papers.wpfl_minmax.experiments import CONFIG_DATASET


def table2(spec: RunSpec, ctx: RunContext) -> dict:
    """Table II: sigma_DP of Theorem 1 for every model and T0, beside the printed values."""
    from repro.privacy.quantized_gaussian import wpfl_delta, wpfl_sigma_dp

    p = spec.params

    fam_of = {"mlr": "mlr", "dnn": "dnn", "cnn": "cnn"}
    rows = []
    for fam in fam_of:
        for t0 in p["t0_grid"]:
            comp = wpfl_sigma_dp(float(p["delta_q"][fam]), float(p["clip"][fam]), t0, float(p["epsilon_q"]), int(p["bits"]), float(p["q"]))
            printed = p["printed"].get(fam, {}).get(str(t0))
            rows.append({"model": fam, "t0": t0, "computed": comp, "printed": printed,
                         "delta_at_printed": wpfl_delta(printed, float(p["clip"][fam]), t0, float(p["epsilon_q"]), int(p["bits"]), float(p["q"])) if printed else None})
    eps_check = {str(e): wpfl_sigma_dp(1e-3, 7.0, 20, e, 16, 0.01) for e in (0.1, 1.0, 10.0)}
    return {"rows": rows, "epsilon_independence": eps_check}


def train_group(spec: RunSpec, ctx: RunContext) -> dict:
    """Every series of one group (mech S1-S6, sched S7-S10, pfl S11-S14) at every T0 of the grid, one seed."""
    from repro.data import DatasetUnavailableError
    from repro.papers.wpfl_minmax.training import GROUPS, build_environment, run_series

    cfg, group = spec.params["config"], spec.params["group"]
    params = dict(spec.params["settings"])
    params["sigma_table"] = {m: {int(k): v for k, v in t.items()} for m, t in params["sigma_table"].items()}
    try:
        env = build_environment(cfg, params, spec.seed, device=ctx.device)
    except DatasetUnavailableError:
        return unavailable_result(f"dataset {CONFIG_DATASET[cfg]} not available offline")
    t_max = max(params["t0_grid"])
    out = {"config": cfg, "group": group, "seed": spec.seed, "g0": env.g0, "series": {}}
    for series in GROUPS[group]:
        out["series"][series] = {}
        for t0 in params["t0_grid"]:
            ev = int(params["fig5_eval_every"]) if (t0 == t_max and series in ("S1", *GROUPS["pfl"])) else None
            if group == "pfl":
                from repro.papers.wpfl_minmax.pfl_baselines import run_pfl_series

                res = run_pfl_series(env, series, t0, eval_every=ev, log=ctx.log)
            else:
                res = run_series(env, series, t0, eval_every=ev, log=ctx.log)
            if not ev:
                res.pop("records", None)
            out["series"][series][str(t0)] = res
    return out
