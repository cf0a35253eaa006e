"""Figures of the ota_jammer paper and the runs they need. Cheap: no torch at module level.

Runs per evaluation seed (README, run plan):

* ``A``   Upcycled-FL, FedProx, FedAvg with the proposed power control (PC), no jammer (Figs 2-5);
  FedProx and FedAvg at the server step ``server_step`` (the paper's 1; Upcycled-FL's even step is eq. 9);
* ``ref`` FedAvg, non-private (dashed reference, not in the paper), at FedAvg's server step;
* ``B``   [13] calibrated to the same privacy under the paper's accountant (``ma``): one run, because
  under one accountant (6.52, 1e-5) and (4.39, 0.01) are one noise level; with [13]'s own accountant
  (``ls``, where listed) one run per level;
* ``C``   the three algorithms x the jammer targets of Figs 6-8, jammer at ``kappa`` (7) x its bound (22);
* ``K1``  the three algorithms with the jammer exactly at its bound (kappa = 1) at ``bound_cj_epsilons``
  (the noise the target requires; claim C14);
* ``CO``  FedAvg with receiver noise only, alpha_u calibrated to a jammer target (package ablation, C22);
* ``D``   synthetic IID: proposed FedAvg, [13] per accountant, non-private (Figs 9-10);
* ``F``   the package's certified runs: one gradient step per round with per-sample clipping, for which
  the paper's accountant is a valid bound under zero-out adjacency (Upcycled, FedAvg, [13]) (fig91);

on ``tuning_seed`` the [13] gamma grid (table91) and the server-step grid of FedAvg, FedProx and [13]
(table92, a package observation: the figures keep the paper's step 1); and the regime measurements of this profile's setting and the paper's (fig92).
"""

from __future__ import annotations

from repro.experiment import ConfigError, FigureSpec, RunSpec, Task

SLUG = "ota_jammer"
EVEN_STEP = "even_step"  # = theory.EVEN_STEP (theory imports numpy; this module stays cheap)
ALGO_LABEL = {"upcycled": "Upcycled-FL (Alg. 1)", "fedprox": "FedProx + proposed PC", "fedavg": "FedAvg + proposed PC"}
IID_LABEL = "FedAvg + proposed PC (i.i.d.)"
BASELINE_LABEL = {"ma": "[13], calibrated by the paper's accountant", "ls": "[13], calibrated by its own accountant"}
NONPRIVATE_LABEL = "FedAvg, non-private (reference, not in paper)"
NO_CJ_LABEL = "no CJ, eps 6.52 (reference, not in paper)"
ONE_STEP_LABEL = {"upcycled": "Upcycled-FL, one step", "fedavg": "FedAvg + proposed PC, one step",
                  "baseline": "[13], one step, paper's accountant", "baseline_ls": "[13]-native: one step, its own accountant"}
#: server-step keys of ``params["server_step"]`` (the tuned value of each baseline, table92)
STEP_KEYS = ("fedavg", "fedprox", "baseline13", "one_step_fedavg", "one_step_baseline13", "iid_fedavg", "iid_baseline13")


def cj_series(eps: float, kappa: float | None = None) -> str:
    """Series name of a jammer run in the figures' CSVs: the paper's legend value (the jammer's target) for the
    runs at the paper's 7x bound; ``kappa`` names runs at another multiple of the bound (1: exactly at it)."""
    base = f"CJ target eps = {eps:g}"
    return base if kappa is None else f"{base}, jammer at {kappa:g}x the bound"


def channel_only_series(eps: float) -> str:
    return f"no CJ, alpha_u for eps = {eps:g} (channel noise only; package ablation)"


#: run task -> the function in runs.py that does it
TASKS = {"train": Task("repro.papers.ota_jammer.runs:train", gpu=True),
         "regime": Task("repro.papers.ota_jammer.runs:regime", gpu=True)}

#: tasks whose runs are packed into batch jobs of ``runs_per_job`` runs (repro.experiment, "Jobs")
BATCH_TASKS = ("train",)

_SHARED = ("num_classes", "hidden", "snr_db", "sigma_c", "tau", "mu", "lambda_schedule", "rounds", "eps0", "delta0",
           "partition_seed", "size_scale")
_EPOCHS = ("local_epochs", "lr", "momentum", "batch_size")


def _baseline(params, accountant, eps, delta, gamma) -> dict:
    return {"accountant": accountant, "gamma": gamma, "epsilon": eps, "delta": delta}


def step_key(algorithm: str, mode: str, local_rule: str = "epochs", data: str = "femnist") -> str:
    """The ``server_step`` key of a run's method (Upcycled-FL has none: its step is eq. 9)."""
    method = "baseline13" if mode == "baseline13" else "fedavg" if mode == "nonprivate" else algorithm
    prefix = "iid_" if data != "femnist" else "one_step_" if local_rule == "one_step" else ""
    return prefix + method


def femnist_run(params, seed, algorithm, mode, *, cj_epsilon=None, baseline=None, local_rule="epochs",
                eval_train_loss=True, server_step=None, kappa=None, eps0=None) -> RunSpec:
    """One training on the FEMNIST surrogate (MLP). Only the keys the run uses enter its id.

    ``server_step``: None = the tuned value of the method (``params["server_step"]``; Upcycled-FL: 1, its
    even step is eq. 9). ``kappa``: the jammer's multiple of its bound (None: the paper's). ``eps0``: the
    level alpha_u is calibrated to (None: the paper's no-CJ level)."""
    cfg = {k: params[k] for k in _SHARED}
    if local_rule == "epochs":
        cfg.update({k: params[k] for k in _EPOCHS})
        if params["last_batch"] != "partial":  # an epoch's incomplete last batch (repro.engine.schedule); the
            cfg["last_batch"] = params["last_batch"]  # rule of the earlier runs keeps their ids
    else:
        cfg["one_step_clip"] = params["one_step_clip"]
    if server_step is None:
        server_step = 1.0 if algorithm == "upcycled" else params["server_step"][step_key(algorithm, mode, local_rule)]
    if eps0 is not None:
        cfg["eps0"] = eps0
    cfg.update(algorithm=algorithm, mode=mode, model="mlp", data="femnist", local_rule=local_rule, baseline=baseline,
               cj_epsilon=cj_epsilon, cj_delta=params["cj_delta"], kappa=params["kappa"] if kappa is None else kappa,
               eval_odd=bool(params["eval_odd"]) and algorithm == "upcycled", eval_train_loss=eval_train_loss,
               server_step=server_step)
    return RunSpec(SLUG, "train", cfg, seed)


def iid_run(params, seed, mode, accountant=None, gamma=None, server_step=None) -> RunSpec:
    """One FedAvg training on the synthetic IID set (multinomial logistic regression)."""
    cfg = {k: params[k] for k in ("snr_db", "sigma_c", "mu", "lambda_schedule")}
    if server_step is None:
        server_step = params["server_step"][step_key("fedavg", mode, data="iid")]
    cfg.update(algorithm="fedavg", mode=mode, model="mlr", num_classes=10, rounds=params["iid_rounds"], tau=params["iid_tau"],
               local_epochs=params["iid_local_epochs"], lr=params["iid_lr"], batch_size=params["iid_batch_size"],
               **({"last_batch": params["last_batch"]} if params["last_batch"] != "partial" else {}),
               momentum=params["momentum"], eps0=params["iid_eps"], delta0=params["iid_delta"], eval_odd=False,
               eval_train_loss=True, local_rule="epochs", cj_epsilon=None, cj_delta=params["cj_delta"],
               kappa=params["kappa"], data="synthetic_iid", data_seed=params["iid_data_seed"],
               num_clients=params["num_clients"], server_step=server_step,
               baseline=(_baseline(params, accountant, params["iid_eps"], params["iid_delta"],
                                   params["iid_baseline_gamma"] if gamma is None else gamma) if mode == "baseline13" else None))
    return RunSpec(SLUG, "train", cfg, seed)


def regime_run(params, setting: dict) -> RunSpec:
    """The regime measurement of one setting (rounds, local_epochs, size_scale) at the initial model of seed 0."""
    cfg = {k: params[k] for k in ("num_classes", "hidden", "snr_db", "sigma_c", "tau", "mu", "lr", "momentum",
                                  "batch_size", "eps0", "delta0", "cj_epsilons", "cj_delta", "kappa", "partition_seed")}
    cfg.update(rounds=int(setting["rounds"]), local_epochs=int(setting["local_epochs"]),
               size_scale=float(setting["size_scale"]), draws=int(params["regime_draws"]))
    return RunSpec(SLUG, "regime", cfg, params["seeds"][0])


def this_setting(params) -> dict:
    return {"rounds": params["rounds"], "local_epochs": params["local_epochs"], "size_scale": params["size_scale"]}


def baseline_levels(params) -> dict[str, list[tuple[float, float]]]:
    """(epsilon, delta) targets of the [13] runs per accountant: under ``ma`` one level (the proposed
    design's noise gives both (eps0, delta0) and (4.39, 0.01)), under ``ls`` one run per printed level."""
    out = {}
    for acc in params["baseline_accountants"]:
        out[acc] = [(params["eps0"], params["delta0"])]
        if acc == "ls":
            out[acc].append((params["eps_alt"], params["delta_alt"]))
    return out


def _b13(params, acc="ma"):
    return _baseline(params, acc, params["eps0"], params["delta0"], params["baseline_gamma"])


def run_groups(params) -> dict[str, list[RunSpec]]:
    """Runs by group (see the module docstring)."""
    g = {k: [] for k in ("A", "ref", "B", "C", "K1", "CO", "D", "F", "tune", "steps", "regime")}
    for seed in params["seeds"]:
        for algo in ("upcycled", "fedprox", "fedavg"):
            g["A"].append(femnist_run(params, seed, algo, "proposed"))
            for eps in params["cj_epsilons"]:
                g["C"].append(femnist_run(params, seed, algo, "proposed", cj_epsilon=eps, eval_train_loss=False))
            for eps in params["bound_cj_epsilons"]:
                g["K1"].append(femnist_run(params, seed, algo, "proposed", cj_epsilon=eps, eval_train_loss=False, kappa=1.0))
        for eps in params["channel_only_epsilons"]:
            g["CO"].append(femnist_run(params, seed, "fedavg", "proposed", eval_train_loss=False, eps0=eps))
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
        for acc in params["one_step_baseline_accountants"]:
            g["F"].append(femnist_run(params, seed, "fedavg", "baseline13", local_rule="one_step", eval_train_loss=False,
                                      baseline=_b13(params, acc)))
    t = params["tuning_seed"]
    for gamma in params["tuning_gammas"]:
        if "femnist" in params["tuning_datasets"]:
            g["tune"].append(femnist_run(params, t, "fedavg", "baseline13",
                                         baseline=_baseline(params, "ma", params["eps0"], params["delta0"], gamma)))
        if "iid" in params["tuning_datasets"]:
            g["tune"].append(iid_run(params, t, "baseline13", "ma", gamma))
    for step in params["server_step_grid"]:  # table92: every baseline on the same grid, tuning seed only
        for algo in ("fedavg", "fedprox"):
            g["steps"].append(femnist_run(params, t, algo, "proposed", server_step=step))
        g["steps"].append(femnist_run(params, t, "fedavg", "baseline13", baseline=_b13(params), server_step=step))
        g["steps"].append(femnist_run(params, t, "fedavg", "proposed", local_rule="one_step", server_step=step))
        g["steps"].append(femnist_run(params, t, "fedavg", "baseline13", local_rule="one_step", baseline=_b13(params),
                                      server_step=step))
        g["steps"].append(iid_run(params, t, "proposed", server_step=step))
        g["steps"].append(iid_run(params, t, "baseline13", "ma", server_step=step))
    g["regime"].append(regime_run(params, this_setting(params)))
    if dict(params["paper_setting"]) != this_setting(params):
        g["regime"].append(regime_run(params, params["paper_setting"]))
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
              "epsilon certified for what was run. FedProx, FedAvg and [13] run at the server step 1 as in the paper (FedProx "
              "'not tuned'); the steps tuned on table92's grid are a package observation there.")
    same = {"fig4": "fig2", "fig5": "fig3"}
    figs = [FigureSpec(SLUG, "fig1", "Differentially private over-the-air FL system with a cooperative jammer",
                       "Schematic: K single-antenna clients and a cooperative jammer transmit at once; the server receives "
                       "the superposition plus receiver noise (eq. 10).", kind="diagram", paper_ref="Fig. 1")]
    for fid, metric, runs, eps, delta, ref in (
        ("fig2", "Test accuracy", level1, eps0, d0, "Fig. 2"),
        ("fig3", "Training loss", level1, eps0, d0, "Fig. 3"),
        ("fig4", "Test accuracy", level2, e2, d2, "Fig. 4"),
        ("fig5", "Training loss", level2, e2, d2, "Fig. 5"),
    ):
        shared = ""
        if fid in same:
            which = "the same runs" if {r.run_id for r in level2} == {r.run_id for r in level1} else \
                "the same runs except [13] with its own accountant (calibrated to this level)"
            shared = (f" {which.capitalize()} as {same[fid].replace('fig', 'Fig. ')}: under the paper's accountant one noise "
                      f"level gives both (6.52, 1e-5) and (4.39, 0.01); certificates here are at delta = {delta:g}.")
        figs.append(FigureSpec(SLUG, fid, f"{metric} without cooperative jammer (paper: eps = {eps:g}, delta = {delta:g})",
                               f"{metric} of the three algorithms with the proposed power control, [13] and a non-private "
                               f"FedAvg reference.{shared} {curves}", runs=runs, paper_ref=ref))
    for fid, algo, ref in (("fig6", "upcycled", "Fig. 6"), ("fig7", "fedprox", "Fig. 7"), ("fig8", "fedavg", "Fig. 8")):
        runs = [r for r in g["C"] + g["K1"] + g["A"] + g["CO"] if r.params["algorithm"] == algo]
        figs.append(FigureSpec(SLUG, fid, f"Test accuracy with cooperative jammer: {ALGO_LABEL[algo]}",
                               f"Test accuracy of {ALGO_LABEL[algo]} with the jammer at {params['kappa']:g}x its bound (22) "
                               f"for each target (the paper's figure), exactly at its bound for "
                               f"{', '.join(f'{e:g}' for e in params['bound_cj_epsilons'])} (the noise the target requires), "
                               f"and without it." + (" Also FedAvg with receiver noise only, alpha_u calibrated to the target "
                                                     "(package ablation, claim C22)." if algo == "fedavg" and g["CO"] else "")
                               + f" {curves}", runs=runs, paper_ref=ref))
    iid_curves = curves.replace("; Upcycled-FL after its even step", "").replace(
        " FedProx, FedAvg and [13] run at the server step 1 as in the paper (FedProx 'not tuned'); the steps tuned on "
        "table92's grid are a package observation there.", " Both methods run at the server step 1 as in the paper.")
    for fid, metric, ref in (("fig9", "Test accuracy", "Fig. 9"), ("fig10", "Training loss", "Fig. 10")):
        figs.append(FigureSpec(SLUG, fid, f"{metric}, synthetic i.i.d., no jammer (paper: eps = {params['iid_eps']:g}, "
                               f"delta = {params['iid_delta']:g})",
                               f"{metric} of FedAvg with the proposed power control, [13] and a non-private reference on the "
                               f"synthetic i.i.d. set. {iid_curves}", runs=g["D"], paper_ref=ref))
    figs.append(FigureSpec(SLUG, "fig91", "Test accuracy with one gradient step per round, where the paper's epsilon is "
                           "certified (zero-out adjacency, |D_i| public)",
                           "Package addition: the same power control and accountant, with one full-batch gradient step per "
                           "round and per-sample clipping (the sensitivity 1/(s_i |D|) the paper's Appendix A assumes, valid "
                           "for zero-out neighbours with |D_i| public; replace-one neighbours double it: privacy table), at "
                           f"the no-jammer level; [13] also with its own accountant ([13]-native: gradient descent). {curves}",
                           runs=g["F"], paper_ref=""))
    figs.append(FigureSpec(SLUG, "fig92", "Regime of this profile against the paper's setting",
                           "Package addition: quantities that decide how the power control and the noise act, measured at "
                           "the initial model (seed 0) for this profile's setting and for the paper's (M = 80, E = 20, full "
                           "client data), and averaged over rounds in this profile's runs: alpha_u, the share of "
                           "client-rounds with s_i > 1, the relative bias of the aggregate from s_i > 1, the per-round "
                           "noise-to-signal ratio (no jammer; each target with the jammer at 7x and at 1x its bound), and "
                           "how much FedProx's proximal term changes the aggregate.",
                           runs=g["regime"] + [r for r in g["A"] if r.params["algorithm"] == "fedavg"], kind="table",
                           paper_ref=""))
    figs.append(FigureSpec(SLUG, "theory", "Closed forms: the jammer each target needs, the jammer at its bound, Thm 5",
                           "The paper's closed forms at this profile's parameters, no training: sigma_req^2 - "
                           "sigma_c^2/alpha_u^2 (eqs. 22-23: a jammer is needed only below eps0, Thm 2), eq. (21) with the "
                           "jammer exactly at its bound (Thms 2, 4) and Thm 5's C5 + C6 over eps (eqs. 28, 33-34).",
                           kind="table", paper_ref=""))
    evaluated_b13 = [r for r in g["B"] + g["D"] if r.params["mode"] == "baseline13" and r.params["baseline"]["accountant"] == "ma"]
    figs.append(FigureSpec(SLUG, "table91", "Tuning of [13]'s power-allocation decay gamma",
                           "Package addition: [13] (paper's accountant) for each gamma of the grid on a tuning seed disjoint "
                           "from the evaluation seeds; criterion: training loss averaged over all rounds (lower is better). "
                           "Also: the share of rounds in which the evaluation runs of [13] transmit at their power cap "
                           "(there gamma has no effect).", runs=g["tune"] + evaluated_b13, kind="table", paper_ref=""))
    figs.append(FigureSpec(SLUG, "table92", "Tuning of the server step of FedAvg, FedProx and [13]",
                           "Package observation: every baseline on the same grid of server steps (w <- w + step x aggregate) on "
                           "a tuning seed disjoint from the evaluation seeds; criterion: training loss averaged over all "
                           "rounds (lower is better). The figures and claims use the paper's step 1; the grid leaves out "
                           "1 + c_m, the step Upcycled-FL's even iteration implies (eq. 9: FedProx at it is Upcycled-FL).", runs=g["steps"], kind="table", paper_ref=""))
    private = [r for grp in ("A", "B", "C", "K1", "CO", "D", "F") for r in g[grp] if r.params["mode"] != "nonprivate"]
    figs.append(FigureSpec(SLUG, "privacy", "Privacy as run: the paper's epsilon and the epsilon certified for what was trained",
                           "One row per private configuration: the paper's nominal epsilon, eq. (21) for the noise actually "
                           "run, and the epsilon dp-accounting certifies for the mechanism executed (its real sensitivity), "
                           "under zero-out adjacency (|D_i| public, the paper's Appendix A) and under replace-one adjacency "
                           "(Sec. II-C: 'alteration of a single data sample').",
                           runs=private, kind="table", paper_ref="", rows_per_configuration=True))
    return figs


def run_datasets(spec: RunSpec) -> tuple[str, ...]:
    """The datasets run ``spec`` reads (its workflow inputs; figures declare the union over their runs): a FEMNIST
    run (and the regime measurement) reads real FEMNIST where the user provides it, else MNIST as the labelled
    surrogate (ota_jammer.data), so both; the synthetic i.i.d. runs none."""
    if spec.task == "regime" or spec.params.get("data") == "femnist":
        return ("femnist", "mnist")
    return ()


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
    if set(params["server_step"]) != set(STEP_KEYS):
        raise ConfigError(f"server_step must give exactly the keys {list(STEP_KEYS)}; got {sorted(params['server_step'])}")
    if EVEN_STEP in params["server_step_grid"]:
        raise ConfigError(f"server_step_grid {params['server_step_grid']!r} must not hold {EVEN_STEP!r}: eq. (9) makes FedProx "
                          "at the server step 1 + c_m Upcycled-FL itself, and a tuning grid never contains the method")
    for key, step in params["server_step"].items():
        if step not in params["server_step_grid"]:
            raise ConfigError(f"server_step.{key} = {step!r} must be one of server_step_grid {params['server_step_grid']!r} "
                              "(table92 shows it beside the grid's argmin)")
    for key in ("cj_epsilons", "bound_cj_epsilons", "channel_only_epsilons"):
        if any(e >= params["eps0"] for e in params[key]):
            raise ConfigError(f"{key} {params[key]!r} must lie below eps0 = {params['eps0']:g} (stricter than the receiver "
                              "noise alone gives; claim C3)")
    if params["classes_per_client"] > params["num_classes"]:
        raise ConfigError(f"classes_per_client {params['classes_per_client']} exceeds num_classes {params['num_classes']}")


#: the parameters that set a training's arithmetic per round (the others: privacy targets, power control,
#: channel and noise levels, server steps, only change numbers)
_COST_KEYS = ("data", "num_clients", "size_scale", "model", "hidden", "num_classes", "local_rule", "local_epochs",
              "batch_size", "algorithm", "eval_odd", "eval_train_loss")


def cost_probe(spec: RunSpec, rounds: int):
    """``repro.costs`` hook: a training costs its set-up plus M rounds; measured on copies with ``rounds``
    and ``2 x rounds`` rounds (at least 2 and 4, so that Upcycled-FL's odd and even iterations are both
    timed), shared by every run with the same arithmetic (:data:`_COST_KEYS`)."""
    from repro.costs import Probe, ProbePart

    if spec.task != "train":
        return None
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    p = spec.params
    short = max(2, 2 * ((rounds + 1) // 2))
    key = ", ".join(f"{k}={p[k]}" for k in _COST_KEYS if k in p)

    def cut(m):
        return RunSpec(spec.paper, spec.task, {**p, "rounds": m}, spec.seed)

    return Probe([ProbePart(key, cut(short), cut(2 * short), short, 2 * short, full_units=int(p["rounds"]),
                            data=f"{p['data']}/{p.get('size_scale')}/{p.get('num_clients')}")],
                 rounds=int(p["rounds"]))
