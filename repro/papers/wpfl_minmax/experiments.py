"""Figures and runs of wpfl_minmax (guide §4). No torch at module level.

Runs: one job per (model-dataset config, series group, seed) training every series of the group at
every T0 of the grid (groups: ``mech`` = S1-S6, ``sched`` = S7-S10, ``pfl`` = S11-S14), plus one
analytic run for Table II. S1 (Proposed) lives in the ``mech`` group and is shared by all figures.
"""

from __future__ import annotations

from repro.experiment import FigureSpec, RunSpec, Task

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



def _settings(params: dict) -> dict:
    s = {k: params[k] for k in TRAIN_KEYS}
    s["sigma_table"] = {m: {str(k): v for k, v in tab.items()} for m, tab in params["sigma_table"].items()}
    return s


def _group_runs(params: dict, group: str) -> list[RunSpec]:
    return [RunSpec(SLUG, "train_group", {"config": c, "group": group, "settings": _settings(params)}, seed=int(s))
            for c in params["configs"] for s in params["seeds"]]


def _datasets(params) -> tuple[str, ...]:
    return tuple(sorted({CONFIG_DATASET[c] for c in params["configs"]}))


def figures(params: dict) -> list[FigureSpec]:
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
                   paper_ref="Table II"),
        FigureSpec(SLUG, "table3", "Quantization and overhead bits per parameter",
                   "DP increases bits; the proposed mechanism needs the fewest among DP schemes", runs=mech, kind="table",
                   paper_ref="Table III", datasets=ds),
        FigureSpec(SLUG, "fig2", "PL accuracy vs T0 under DP mechanisms",
                   "the quantization-assisted mechanism is more accurate than Gaussian, MA and Dithering", runs=mech,
                   paper_ref="Fig. 2", datasets=ds),
        FigureSpec(SLUG, "fig3", "PL accuracy vs T0 under scheduling policies",
                   "min-max fair scheduling beats Round-Robin, Random and Non-Adjustment", runs=mech + sched,
                   paper_ref="Fig. 3", datasets=ds),
        FigureSpec(SLUG, "fig4", "Fairness and max test loss vs T0 under scheduling policies",
                   "the proposed scheduling lowers the worst-client loss and is fairer", runs=mech + sched,
                   paper_ref="Fig. 4", datasets=ds),
        FigureSpec(SLUG, "fig5", "PL accuracy vs round at the largest T0 against PFL baselines",
                   "Proposed converges to a higher accuracy than pFedMe, APPLE, FedAMP, FedALA", runs=mech + pfl,
                   paper_ref="Fig. 5", datasets=ds),
        FigureSpec(SLUG, "fig6", "PL accuracy vs T0 against PFL baselines", "Proposed beats the second best (FedAMP)",
                   runs=mech + pfl, paper_ref="Fig. 6", datasets=ds),
        FigureSpec(SLUG, "fig7", "Fairness and max test loss vs T0 against PFL baselines",
                   "Proposed lowers the max test loss", runs=mech + pfl, paper_ref="Fig. 7", datasets=ds),
    ]


#: run task -> the function in runs.py that does it
TASKS = {
    "table2": Task("repro.papers.wpfl_minmax.runs:table2"),
    "train_group": Task("repro.papers.wpfl_minmax.runs:train_group", gpu=True),
}
