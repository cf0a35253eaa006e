"""Figures and runs of wpfl_minmax (guide §4). No torch at module level.

Runs: one job per (model-dataset config, series group, seed) training every series of the group at
every T0 of the grid (groups: ``mech`` = S1-S6, ``sched`` = S7-S10, ``pfl`` = S11-S14), plus one
analytic run for Table II. S1 (Proposed) lives in the ``mech`` group and is shared by all figures.
"""

from __future__ import annotations

from repro.experiment import FigureSpec, RunSpec, unavailable_result

SLUG = "wpfl_minmax"
CONFIG_LABELS = {"dnn_mnist": "DNN-MNIST", "mlr_mnist": "MLR-MNIST", "cnn_cifar10": "CNN-CIFAR10", "cnn_fmnist": "CNN-FMNIST"}
CONFIG_DATASET = {"dnn_mnist": "mnist", "mlr_mnist": "mnist", "cnn_cifar10": "cifar10", "cnn_fmnist": "fashion_mnist"}
# keys that change training results (the run id hashes them)
TRAIN_KEYS = ("t0_grid", "t0_default", "num_clients", "num_subchannels", "total_bw_hz", "bs_power_dbm", "client_power_dbm",
              "noise_dbm_per_hz", "pl0_db", "pl_exponent", "d_min_m", "d_max_m", "qam_order", "sampling_rate_q", "bits",
              "epsilon_q", "delta_q", "clip", "max_delay_s", "sigma_table", "default_lr", "default_lambda", "eps_p_fraction",
              "bound_constants", "local_steps", "batch_size", "reduced_cnn", "data_fraction", "dirichlet_alpha",
              "partition_seed", "test_fraction", "fig5_eval_every", "round_cap_factor", "rate_constraint", "dl_power_split",
              "pl_update_all_clients", "ma_conversion", "dither_bits_target", "perfect_gaussian_sigma", "b_ref", "fedala_slice_batches")
# paper-profile minutes per group and config on one H100-class GPU (guide §4 cost table, 3 seeds)
_EST_MIN = {"mech": 72.0, "sched": 48.0, "pfl": 60.0}


# Tasks that train torch models: on a cluster with device=cuda their runs ask for a GPU.
GPU_TASKS = {"train_group"}


def _settings(params: dict) -> dict:
    s = {k: params[k] for k in TRAIN_KEYS}
    s["sigma_table"] = {m: {str(k): v for k, v in tab.items()} for m, tab in params["sigma_table"].items()}
    return s


def _group_runs(params: dict, group: str) -> list[RunSpec]:
    return [RunSpec(SLUG, "train_group", {"config": c, "group": group, "settings": _settings(params)}, seed=int(s))
            for c in params["configs"] for s in params["seeds"]]


def _datasets(params) -> tuple[str, ...]:
    return tuple(sorted({CONFIG_DATASET[c] for c in params["configs"]}))


def figures(params: dict, profile: str) -> list[FigureSpec]:
    mech, sched, pfl = (_group_runs(params, g) for g in ("mech", "sched", "pfl"))
    ds = _datasets(params)
    table2 = RunSpec(SLUG, "table2", {"bits": params["bits"], "epsilon_q": params["epsilon_q"], "q": params["sampling_rate_q"],
                                       "clip": params["clip"], "delta_q": params["delta_q"],
                                       "t0_grid": [5, 10, 15, 20, 25, 30],
                                       "printed": {m: {str(k): v for k, v in t.items()} for m, t in params["sigma_table"].items()}})
    return [
        FigureSpec(SLUG, "fig1", "Timeline of one WPFL round", "selection, quantized DL, FL+DP upload over OFDMA, aggregation, PL update",
                   kind="diagram", paper_ref="Fig. 1"),
        FigureSpec(SLUG, "table1", "Simulation parameters", "the configuration used (Table I)", kind="table", paper_ref="Table I"),
        FigureSpec(SLUG, "table2", "sigma_DP of the quantization-assisted Gaussian mechanism",
                   "Theorem 1 gives the DP noise std for (eps_Q, delta_Q) by a 1-D search", runs=[table2], kind="table",
                   paper_ref="Table II", est_paper_minutes=0.1),
        FigureSpec(SLUG, "table3", "Quantization and overhead bits per parameter",
                   "DP increases bits; the proposed mechanism needs the fewest among DP schemes", runs=mech, kind="table",
                   paper_ref="Table III", datasets=ds, est_paper_minutes=0.0),
        FigureSpec(SLUG, "fig2", "PL accuracy vs T0 under DP mechanisms",
                   "the quantization-assisted mechanism is more accurate than Gaussian, MA and Dithering", runs=mech,
                   paper_ref="Fig. 2", datasets=ds, est_paper_minutes=_EST_MIN["mech"]),
        FigureSpec(SLUG, "fig3", "PL accuracy vs T0 under scheduling policies",
                   "min-max fair scheduling beats Round-Robin, Random and Non-Adjustment", runs=mech + sched,
                   paper_ref="Fig. 3", datasets=ds, est_paper_minutes=_EST_MIN["sched"]),
        FigureSpec(SLUG, "fig4", "Fairness and max test loss vs T0 under scheduling policies",
                   "the proposed scheduling lowers the worst-client loss and is fairer", runs=mech + sched,
                   paper_ref="Fig. 4", datasets=ds, est_paper_minutes=0.0),
        FigureSpec(SLUG, "fig5", "PL accuracy vs round at the largest T0 against PFL baselines",
                   "Proposed converges to a higher accuracy than pFedMe, APPLE, FedAMP, FedALA", runs=mech + pfl,
                   paper_ref="Fig. 5", datasets=ds, est_paper_minutes=_EST_MIN["pfl"]),
        FigureSpec(SLUG, "fig6", "PL accuracy vs T0 against PFL baselines", "Proposed beats the second best (FedAMP)",
                   runs=mech + pfl, paper_ref="Fig. 6", datasets=ds, est_paper_minutes=0.0),
        FigureSpec(SLUG, "fig7", "Fairness and max test loss vs T0 against PFL baselines",
                   "Proposed lowers the max test loss", runs=mech + pfl, paper_ref="Fig. 7", datasets=ds, est_paper_minutes=0.0),
    ]


def _table2(p: dict) -> dict:
    from repro.privacy.quantized_gaussian import wpfl_delta, wpfl_sigma_dp

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


def execute(spec: RunSpec, ctx) -> dict:
    if spec.task == "table2":
        return _table2(spec.params)
    if spec.task != "train_group":
        raise ValueError(f"unknown task {spec.task!r}; allowed: table2, train_group")
    from repro.data import DatasetUnavailableError
    from repro.papers.wpfl_minmax.training import GROUPS, build_environment, run_series

    cfg, group = spec.params["config"], spec.params["group"]
    params = dict(spec.params["settings"])
    params["sigma_table"] = {m: {int(k): v for k, v in t.items()} for m, t in params["sigma_table"].items()}
    if group == "pfl":
        try:
            from repro.papers.wpfl_minmax.pfl_baselines import run_pfl_series  # noqa: F401
        except ImportError as exc:
            return unavailable_result(f"PFL baselines not available ({type(exc).__name__})")
    try:
        env = build_environment(cfg, params, spec.seed, device=ctx.device)
    except DatasetUnavailableError as exc:
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
