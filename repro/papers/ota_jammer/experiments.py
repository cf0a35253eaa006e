"""Figures of the ota_jammer paper and the runs they need (guide §4). No torch at module level.

Run inventory per seed (guide §4.1): group A (Upcycled, FedProx, FedAvg, proposed PC, no CJ), A'
(non-private FedAvg), B ([13] at (6.52, 1e-5) and at (4.4, 0.01)), C (the three algorithms x three CJ
targets), D (IID: proposed FedAvg, [13], non-private). The proposed runs of Figs 2-3 and 4-5 are the
same runs: one noise configuration gives both privacy levels (guide §3.2).
"""

from __future__ import annotations

from repro.experiment import Task, FigureSpec, RunSpec

SLUG = "ota_jammer"
ALGO_LABEL = {"upcycled": "Upcycled-FL (Alg. 1)", "fedprox": "FedProx + proposed PC", "fedavg": "FedAvg + proposed PC"}
BASELINE_LABEL = "[13] Liu & Simeone (reconstructed)"
NONPRIVATE_LABEL = "FedAvg, non-private (reference, not in paper)"
NO_CJ_LABEL = "no CJ (reference, not in paper)"

_TRAIN_KEYS = ("num_classes", "hidden", "snr_db", "sigma_c", "tau", "local_epochs", "lr", "momentum", "batch_size",
               "mu", "lambda_schedule", "rounds", "eps0", "delta0", "eval_odd", "partition_seed", "size_scale")




def _mlp(params, seed, algorithm, mode, cj_epsilon=None, baseline=None) -> RunSpec:
    cfg = {k: params[k] for k in _TRAIN_KEYS}
    cfg.update(algorithm=algorithm, mode=mode, model="mlp", cj_epsilon=cj_epsilon, cj_delta=params["cj_delta"],
               kappa=params["kappa"], baseline=baseline, data="femnist")
    if algorithm != "upcycled":
        cfg["eval_odd"] = False
    return RunSpec(SLUG, "train", cfg, seed)


def _iid(params, seed, mode) -> RunSpec:
    cfg = {k: params[k] for k in ("snr_db", "sigma_c", "tau", "momentum", "mu", "lambda_schedule")}
    cfg.update(algorithm="fedavg", mode=mode, model="mlr", num_classes=10, rounds=params["iid_rounds"],
               local_epochs=params["iid_local_epochs"], lr=params["iid_lr"], batch_size=params["iid_batch_size"],
               eps0=params["iid_eps"], delta0=params["iid_delta"], eval_odd=False, cj_epsilon=None,
               cj_delta=params["cj_delta"], kappa=params["kappa"], data="synthetic_iid",
               data_seed=params["iid_data_seed"], num_clients=params["num_clients"],
               baseline=_baseline(params, params["iid_eps"], params["iid_delta"]) if mode == "baseline13" else None)
    return RunSpec(SLUG, "train", cfg, seed)


def _baseline(params, eps, delta) -> dict:
    return {"accountant": params["baseline_accountant"], "gamma": params["baseline_gamma"], "epsilon": eps, "delta": delta}


def run_groups(params) -> dict[str, list[RunSpec]]:
    """Runs by group name (per seed), as in guide §4.1."""
    g = {"A": [], "A_ref": [], "B1": [], "B2": [], "C": [], "D": []}
    for seed in params["seeds"]:
        for algo in ("upcycled", "fedprox", "fedavg"):
            g["A"].append(_mlp(params, seed, algo, "proposed"))
            for eps in params["cj_epsilons"]:
                g["C"].append(_mlp(params, seed, algo, "proposed", cj_epsilon=eps))
        g["A_ref"].append(_mlp(params, seed, "fedavg", "nonprivate"))
        g["B1"].append(_mlp(params, seed, "fedavg", "baseline13", baseline=_baseline(params, params["eps0"], params["delta0"])))
        g["B2"].append(_mlp(params, seed, "fedavg", "baseline13", baseline=_baseline(params, params["eps_alt"], params["delta_alt"])))
        for mode in ("proposed", "baseline13", "nonprivate"):
            g["D"].append(_iid(params, seed, mode))
    return g


def figures(params: dict) -> list[FigureSpec]:
    g = run_groups(params)
    n_seeds = len(params["seeds"])
    # paper-profile CPU-minutes per MLP run: ~8-10 core-min (guide §4.3); IID ~3 min.
    mlp_min, iid_min = 9.0 * params["rounds"] / 80 * params["local_epochs"] / 20, 3.0
    eps0, d0, e2, d2 = params["eps0"], params["delta0"], params["eps_alt"], params["delta_alt"]
    figs = [FigureSpec(SLUG, "fig1", "Differentially private over-the-air FL system with a cooperative jammer",
                       "K single-antenna clients and a cooperative jammer transmit simultaneously; the PS sees the "
                       "superposition plus receiver noise.", kind="diagram", paper_ref="Fig. 1")]
    for fid, metric, runs, eps, delta, ref in (
        ("fig2", "test accuracy", g["A"] + g["A_ref"] + g["B1"], eps0, d0, "Fig. 2"),
        ("fig3", "training loss", g["A"] + g["A_ref"] + g["B1"], eps0, d0, "Fig. 3"),
        ("fig4", "test accuracy", g["A"] + g["B2"], e2, d2, "Fig. 4"),
        ("fig5", "training loss", g["A"] + g["B2"], e2, d2, "Fig. 5"),
    ):
        figs.append(FigureSpec(SLUG, fid, f"{metric.capitalize()} without cooperative jammer (eps={eps:g}, delta={delta:g})",
                               "Upcycled-FL > FedProx > FedAvg (proposed PC) > [13]", runs=runs, paper_ref=ref,
                               datasets=("mnist",)))
    for fid, algo, ref in (("fig6", "upcycled", "Fig. 6"), ("fig7", "fedprox", "Fig. 7"), ("fig8", "fedavg", "Fig. 8")):
        runs = [r for r in g["C"] + g["A"] if r.params["algorithm"] == algo]
        figs.append(FigureSpec(SLUG, fid, f"Test accuracy with cooperative jammer: {ALGO_LABEL[algo]}",
                               "accuracy falls as epsilon falls; epsilon = 0.1 badly impedes convergence",
                               runs=runs, paper_ref=ref, datasets=("mnist",)))
    for fid, metric, ref in (("fig9", "test accuracy", "Fig. 9"), ("fig10", "training loss", "Fig. 10")):
        figs.append(FigureSpec(SLUG, fid, f"{metric.capitalize()}, synthetic i.i.d., no CJ (eps={params['iid_eps']:g}, "
                               f"delta={params['iid_delta']:g})", "proposed-PC FedAvg significantly outperforms [13]",
                               runs=g["D"], paper_ref=ref))
    assert all(len(f.runs) % n_seeds == 0 for f in figs)
    return figs



#: run task -> the function in runs.py that does it
TASKS = {"train": Task("repro.papers.ota_jammer.runs:train", gpu=True)}
