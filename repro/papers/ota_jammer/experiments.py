"""Figures of the ota_jammer paper and the runs they need. Cheap: no torch at module level.

Runs per evaluation seed (README, run plan):

* ``A``   Upcycled-FL, FedProx, FedAvg with the proposed power control (PC), no jammer (Figs 2-5);
* ``ref`` FedAvg, non-private (dashed reference, not in the paper);
* ``B``   [13] calibrated to the same privacy under the paper's accountant (``ma``): one run, because
  under one accountant (6.52, 1e-5) and (4.39, 0.01) are one noise level; with [13]'s own accountant
  (``ls``, where listed) one run per level;
* ``C``   the three algorithms x the jammer targets of Figs 6-8;
* ``D``   synthetic IID: proposed FedAvg, [13] per accountant, non-private (Figs 9-10);
* ``F``   the package's certified runs: one gradient step per round with per-sample clipping, for which
  the paper's accountant is a valid bound (Upcycled, FedAvg, [13]) (fig91);

and on ``tuning_seed`` the [13] gamma grid (table91).
"""

from __future__ import annotations

from repro.experiment import ConfigError, FigureSpec, RunSpec, Task

SLUG = "ota_jammer"
ALGO_LABEL = {"upcycled": "Upcycled-FL (Alg. 1)", "fedprox": "FedProx + proposed PC", "fedavg": "FedAvg + proposed PC"}
IID_LABEL = "FedAvg + proposed PC (i.i.d.)"
BASELINE_LABEL = {"ma": "[13], calibrated by the paper's accountant", "ls": "[13], calibrated by its own accountant"}
NONPRIVATE_LABEL = "FedAvg, non-private (reference, not in paper)"
NO_CJ_LABEL = "no CJ, eps 6.52 (reference, not in paper)"
ONE_STEP_LABEL = {"upcycled": "Upcycled-FL, one step", "fedavg": "FedAvg + proposed PC, one step",
                  "baseline": "[13], one step, paper's accountant"}



def cj_series(eps: float) -> str:
    """Series name of a jammer run in the figures' CSVs (the paper's legend value: the jammer's target)."""
    return f"CJ target eps = {eps:g}"


#: run task -> the function in runs.py that does it
TASKS = {"train": Task("repro.papers.ota_jammer.runs:train", gpu=True)}

_SHARED = ("num_classes", "hidden", "snr_db", "sigma_c", "tau", "mu", "lambda_schedule", "rounds", "eps0", "delta0",
           "partition_seed", "size_scale")
_EPOCHS = ("local_epochs", "lr", "momentum", "batch_size")


def _baseline(params, accountant, eps, delta, gamma) -> dict:
    return {"accountant": accountant, "gamma": gamma, "epsilon": eps, "delta": delta}


def femnist_run(params, seed, algorithm, mode, *, cj_epsilon=None, baseline=None, local_rule="epochs",
                eval_train_loss=True) -> RunSpec:
    """One training on the FEMNIST surrogate (MLP). Only the keys the run uses enter its id."""
    cfg = {k: params[k] for k in _SHARED}
    if local_rule == "epochs":
        cfg.update({k: params[k] for k in _EPOCHS})
    else:
        cfg["one_step_clip"] = params["one_step_clip"]
    cfg.update(algorithm=algorithm, mode=mode, model="mlp", data="femnist", local_rule=local_rule, baseline=baseline,
               cj_epsilon=cj_epsilon, cj_delta=params["cj_delta"], kappa=params["kappa"],
               eval_odd=bool(params["eval_odd"]) and algorithm == "upcycled", eval_train_loss=eval_train_loss)
    return RunSpec(SLUG, "train", cfg, seed)


def iid_run(params, seed, mode, accountant=None, gamma=None) -> RunSpec:
    """One FedAvg training on the synthetic IID set (multinomial logistic regression)."""
    cfg = {k: params[k] for k in ("snr_db", "sigma_c", "mu", "lambda_schedule")}
    cfg.update(algorithm="fedavg", mode=mode, model="mlr", num_classes=10, rounds=params["iid_rounds"], tau=params["iid_tau"],
               local_epochs=params["iid_local_epochs"], lr=params["iid_lr"], batch_size=params["iid_batch_size"],
               momentum=params["momentum"], eps0=params["iid_eps"], delta0=params["iid_delta"], eval_odd=False,
               eval_train_loss=True, local_rule="epochs", cj_epsilon=None, cj_delta=params["cj_delta"],
               kappa=params["kappa"], data="synthetic_iid", data_seed=params["iid_data_seed"],
               num_clients=params["num_clients"],
               baseline=(_baseline(params, accountant, params["iid_eps"], params["iid_delta"],
                                   params["iid_baseline_gamma"] if gamma is None else gamma) if mode == "baseline13" else None))
    return RunSpec(SLUG, "train", cfg, seed)


def baseline_levels(params) -> dict[str, list[tuple[float, float]]]:
    """(epsilon, delta) targets of the [13] runs per accountant: under ``ma`` one level (the proposed
    design's noise gives both (eps0, delta0) and (4.39, 0.01)), under ``ls`` one run per printed level."""
    out = {}
    for acc in params["baseline_accountants"]:
        out[acc] = [(params["eps0"], params["delta0"])]
        if acc == "ls":
            out[acc].append((params["eps_alt"], params["delta_alt"]))
    return out


def run_groups(params) -> dict[str, list[RunSpec]]:
    """Runs by group (see the module docstring)."""
    g = {k: [] for k in ("A", "ref", "B", "C", "D", "F", "tune")}
    for seed in params["seeds"]:
        for algo in ("upcycled", "fedprox", "fedavg"):
            g["A"].append(femnist_run(params, seed, algo, "proposed"))
            for eps in params["cj_epsilons"]:
                g["C"].append(femnist_run(params, seed, algo, "proposed", cj_epsilon=eps, eval_train_loss=False))
        g["ref"].append(femnist_run(params, seed, "fedavg", "nonprivate"))
        for acc, levels in baseline_levels(params).items():
            for eps, delta in levels:
                g["B"].append(femnist_run(params, seed, "fedavg", "baseline13",
                                          baseline=_baseline(params, acc, eps, delta, params["baseline_gamma"])))
        g["D"].append(iid_run(params, seed, "proposed"))
        g["D"] += [iid_run(params, seed, "baseline13", acc) for acc in params["iid_baseline_accountants"]]
        g["D"].append(iid_run(params, seed, "nonprivate"))
        for algo in ("upcycled", "fedavg"):
            g["F"].append(femnist_run(params, seed, algo, "proposed", local_rule="one_step", eval_train_loss=False))
        g["F"].append(femnist_run(params, seed, "fedavg", "baseline13", local_rule="one_step", eval_train_loss=False,
                                  baseline=_baseline(params, "ma", params["eps0"], params["delta0"], params["baseline_gamma"])))
    t = params["tuning_seed"]
    for gamma in params["tuning_gammas"]:
        if "femnist" in params["tuning_datasets"]:
            g["tune"].append(femnist_run(params, t, "fedavg", "baseline13",
                                         baseline=_baseline(params, "ma", params["eps0"], params["delta0"], gamma)))
        if "iid" in params["tuning_datasets"]:
            g["tune"].append(iid_run(params, t, "baseline13", "ma", gamma))
    return g


def _b(runs, accountant=None, eps=None):
    return [r for r in runs if (accountant is None or r.params["baseline"]["accountant"] == accountant)
            and (eps is None or r.params["baseline"]["epsilon"] == eps)]


def figures(params: dict) -> list[FigureSpec]:
    g = run_groups(params)
    eps0, d0, e2, d2 = params["eps0"], params["delta0"], params["eps_alt"], params["delta_alt"]
    level1 = g["A"] + g["ref"] + _b(g["B"], "ma") + _b(g["B"], "ls", eps0)
    level2 = g["A"] + g["ref"] + _b(g["B"], "ma") + _b(g["B"], "ls", e2)
    curves = ("Per round (x = communication round m; Upcycled-FL after its even step): the seed mean and its 95 % "
              "Student-t interval over seeds. Every epsilon named is the paper's eq. (21); the privacy table gives the "
              "epsilon certified for what was run.")
    figs = [FigureSpec(SLUG, "fig1", "Differentially private over-the-air FL system with a cooperative jammer",
                       "Schematic: K single-antenna clients and a cooperative jammer transmit at once; the server receives "
                       "the superposition plus receiver noise (eq. 10).", kind="diagram", paper_ref="Fig. 1")]
    for fid, metric, runs, eps, delta, ref in (
        ("fig2", "Test accuracy", level1, eps0, d0, "Fig. 2"),
        ("fig3", "Training loss", level1, eps0, d0, "Fig. 3"),
        ("fig4", "Test accuracy", level2, e2, d2, "Fig. 4"),
        ("fig5", "Training loss", level2, e2, d2, "Fig. 5"),
    ):
        figs.append(FigureSpec(SLUG, fid, f"{metric} without cooperative jammer (paper: eps = {eps:g}, delta = {delta:g})",
                               f"{metric} of the three algorithms with the proposed power control, [13] and a non-private "
                               f"FedAvg reference. {curves}", runs=runs, paper_ref=ref, datasets=("mnist",)))
    for fid, algo, ref in (("fig6", "upcycled", "Fig. 6"), ("fig7", "fedprox", "Fig. 7"), ("fig8", "fedavg", "Fig. 8")):
        runs = [r for r in g["C"] + g["A"] if r.params["algorithm"] == algo]
        figs.append(FigureSpec(SLUG, fid, f"Test accuracy with cooperative jammer: {ALGO_LABEL[algo]}",
                               f"Test accuracy of {ALGO_LABEL[algo]} with the jammer at each target and without it. {curves}",
                               runs=runs, paper_ref=ref, datasets=("mnist",)))
    for fid, metric, ref in (("fig9", "Test accuracy", "Fig. 9"), ("fig10", "Training loss", "Fig. 10")):
        figs.append(FigureSpec(SLUG, fid, f"{metric}, synthetic i.i.d., no jammer (paper: eps = {params['iid_eps']:g}, "
                               f"delta = {params['iid_delta']:g})",
                               f"{metric} of FedAvg with the proposed power control, [13] and a non-private reference on the "
                               f"synthetic i.i.d. set. {curves}", runs=g["D"], paper_ref=ref))
    figs.append(FigureSpec(SLUG, "fig91", "Test accuracy with one gradient step per round, where the paper's epsilon is certified",
                           "Package addition: the same power control and accountant, with one full-batch gradient step per "
                           "round and per-sample clipping (the sensitivity the paper's Appendix A assumes), at the no-jammer "
                           f"level. {curves}", runs=g["F"], paper_ref="", datasets=("mnist",)))
    evaluated_b13 = [r for r in g["B"] + g["D"] if r.params["mode"] == "baseline13" and r.params["baseline"]["accountant"] == "ma"]
    figs.append(FigureSpec(SLUG, "table91", "Tuning of [13]'s power-allocation decay gamma",
                           "Package addition: [13] (paper's accountant) for each gamma of the grid on a tuning seed disjoint "
                           "from the evaluation seeds; criterion: training loss averaged over all rounds (lower is better). "
                           "Also: the share of rounds in which the evaluation runs of [13] transmit at their power cap "
                           "(there gamma has no effect).", runs=g["tune"] + evaluated_b13, kind="table", paper_ref="",
                           datasets=("mnist",)))
    private = [r for grp in ("A", "B", "C", "D", "F") for r in g[grp] if r.params["mode"] != "nonprivate"]
    figs.append(FigureSpec(SLUG, "privacy", "Privacy as run: the paper's epsilon and the epsilon certified for what was trained",
                           "One row per private configuration: the paper's nominal epsilon, eq. (21) for the noise actually "
                           "run, and the epsilon dp-accounting certifies for the mechanism executed (its real sensitivity).",
                           runs=private, kind="table", paper_ref="", datasets=("mnist",)))
    return figs


def validate(params: dict) -> None:
    """Rules across keys; raises ConfigError naming the key and the rule."""
    rows = sorted(params["lambda_schedule"], key=lambda r: r[0])
    expect = 1
    for first, last, _ in rows:
        if first != expect or last < first:
            raise ConfigError(f"lambda_schedule rows must cover 1..{rows[-1][1]} contiguously with first <= last; "
                              f"got {params['lambda_schedule']!r}")
        expect = last + 1
    for key in ("baseline_gamma", "iid_baseline_gamma"):
        if params[key] not in params["tuning_gammas"]:
            raise ConfigError(f"{key} = {params[key]!r} must be one of tuning_gammas {params['tuning_gammas']!r} "
                              "(it is the grid's argmin in the tuning table)")
    if params["tuning_seed"] in params["seeds"]:
        raise ConfigError(f"tuning_seed {params['tuning_seed']} must not be an evaluation seed {params['seeds']}")
    if params["classes_per_client"] > params["num_classes"]:
        raise ConfigError(f"classes_per_client {params['classes_per_client']} exceeds num_classes {params['num_classes']}")
