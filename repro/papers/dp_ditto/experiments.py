"""DP-Ditto: figures -> runs (guide §4). No torch at module level (Snakemake imports this).

Run sharing (guide §4): a DP-Ditto run is keyed by (panel, eps, C, T, seed) and carries a *set* of
lambda values (all lambda share the FL trajectory, Algorithm 1 never lets varpi feed back into u),
so Figs. 3/4 (lambda*), 5 (0.1), 6 (lambda grid) and the lambda sweep read the same run. The plan
is built in two passes: every figure states what it needs, the requests are merged per key, and
then each figure gets the merged RunSpecs.

Tasks
-----
``ditto``     one DP-Ditto training (eps = inf: Ditto), params: panel, eps, clip, T, lambdas, per_round.
``baseline``  one DP-perturbed baseline training (fedamp / pfedme / apple / fedala).
``fig2``      the analytic Theorem-1 curves of Fig. 2 (ms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from repro.experiment import ConfigError, FigureSpec, RunContext, RunSpec

SLUG = "dp_ditto"
BASELINES = ("fedamp", "pfedme", "apple", "fedala")
DATA_KEYS = ("num_clients", "partition", "classes_per_client", "dirichlet_alpha", "partition_seed", "test_fraction",
             "train_per_client", "test_per_client", "subsample_seed", "cnn", "batch_size", "local_epochs",
             "aggregation", "delta")
PANEL_TITLES = {"dnn_mnist": "DNN / MNIST", "mlr_mnist": "MLR / MNIST", "cnn_fashion_mnist": "CNN / FMNIST",
                "cnn_cifar10": "CNN / CIFAR-10"}
# per-round cost relative to one DP-Ditto model set (guide §4 quick budget): for est_paper_minutes
METHOD_UNITS = {"ditto": 1.0, "pfedme": 5.0, "apple": 2.0, "fedamp": 1.0, "fedala": 2.0}


def eps_key(eps: float) -> str:
    """Canonical text of an epsilon (``inf`` for Ditto)."""
    return "inf" if math.isinf(eps) else f"{float(eps):g}"


def panel_model_dataset(params: dict, panel: str) -> tuple[str, str]:
    panels = params["panels"]
    if panel not in panels:
        raise ConfigError(f"unknown panel {panel!r}; allowed: {', '.join(panels)}")
    model, dataset = panels[panel]
    return model, dataset


def _common(params: dict, panel: str) -> dict:
    model, dataset = panel_model_dataset(params, panel)
    out = {k: params[k] for k in DATA_KEYS}
    out.update(panel=panel, model=model, dataset=dataset, lr=float(params["lr"][model]))
    return out


@dataclass
class _DittoRequest:
    lambdas: set = field(default_factory=set)
    per_round: bool = False


class _Plan:
    """Collects DP-Ditto requests from all figures, then materialises merged RunSpecs."""

    def __init__(self, params: dict):
        self.params = params
        self.ditto: dict[tuple, _DittoRequest] = {}

    @staticmethod
    def key(panel, eps, clip, T, seed):
        return (panel, float(eps), float(clip), int(T), int(seed))

    def request(self, panel, eps, clip, T, seed, lambdas, per_round=False):
        k = self.key(panel, eps, clip, T, seed)
        req = self.ditto.setdefault(k, _DittoRequest())
        req.lambdas |= {float(l) for l in lambdas}
        req.per_round |= per_round
        return k

    def ditto_spec(self, k) -> RunSpec:
        panel, eps, clip, T, seed = k
        req = self.ditto[k]
        p = _common(self.params, panel)
        p.update(epsilon=eps, clip=clip, T=T, lambdas=sorted(req.lambdas), per_round=req.per_round)
        return RunSpec(SLUG, "ditto", p, seed)

    def baseline_spec(self, algo, panel, eps, clip, T, seed) -> RunSpec:
        if algo not in BASELINES:
            raise ConfigError(f"unknown baseline {algo!r}; allowed: {', '.join(BASELINES)}")
        p = _common(self.params, panel)
        hp = dict(self.params[algo])
        if algo == "pfedme":
            hp["personal_lr"] = float(hp["personal_lr"][panel])
        p.update(algorithm=algo, epsilon=float(eps), clip=float(clip), T=int(T), hp=hp)
        return RunSpec(SLUG, "baseline", p, seed)


def _panel_datasets(params: dict, panels) -> tuple[str, ...]:
    return tuple(sorted({panel_model_dataset(params, p)[1] for p in panels}))


def _est_minutes(params: dict, runs: list[RunSpec]) -> float:
    """Paper-profile CPU-equivalent minutes from the per-round cost measured on the quick profile
    (guide §4 units: DNN 0.07 s per 100-sample round of 20 models; scaled by samples and model)."""
    per_unit_s = {"mlr": 0.01, "dnn": 0.07, "cnn": 0.2 * 28.0}  # paper CNN ~28x the reduced CNN's flops
    total = 0.0
    for r in runs:
        p = r.params
        if r.task == "fig2":
            continue
        samples = 2625 if p["dataset"] != "cifar10" else 2250
        scale = samples / 100.0
        sets = (1 + len(p["lambdas"])) if r.task == "ditto" else METHOD_UNITS[p["algorithm"]]
        total += p["T"] * sets * per_unit_s[p["model"]] * scale
    return round(total / 60.0, 1)


def figures(params: dict, profile: str) -> list[FigureSpec]:
    seeds = [int(s) for s in params["seeds"]]
    clip = float(params["clip"])
    plan = _Plan(params)
    needs: dict[str, list] = {k: [] for k in ("fig3", "fig4", "fig5", "fig6", "fig7", "table_lambda_sweep")}
    base_runs: dict[str, list[RunSpec]] = {"fig3": [], "fig4": []}

    # Figs. 3/4
    for fig, eps, lam in (("fig3", params["fig3_epsilon"], params["fig3_lambda"]),
                          ("fig4", params["fig4_epsilon"], params["fig4_lambda"])):
        for panel in params["fig34_panels"]:
            for T in params["fig34_T"][panel]:
                for seed in seeds:
                    needs[fig].append(plan.request(panel, eps, clip, T, seed, [lam]))
                    for algo in params["baselines"]:
                        base_runs[fig].append(plan.baseline_spec(algo, panel, eps, clip, T, seed))
    # Fig. 5: finite eps one run per T; eps = inf one per-round run to T_max (also carries lambda = 0
    # and the lambda* of Figs. 3/4 so claim 18 can compare lambda = 0 with eps = 10)
    for panel in params["fig5_panels"]:
        Ts = params["fig5_T"][panel]
        for eps in params["fig5_epsilons"]:
            for seed in seeds:
                if math.isinf(eps):
                    extra = [0.0, params["fig3_lambda"], params["fig4_lambda"]]
                    needs["fig5"].append(plan.request(panel, eps, clip, max(Ts), seed, [params["fig5_lambda"], *extra],
                                                      per_round=True))
                else:
                    for T in Ts:
                        needs["fig5"].append(plan.request(panel, eps, clip, T, seed, [params["fig5_lambda"]]))
    # Fig. 6: one per-round run (eps = 10, T = fig6_T) per panel
    for panel in params["fig6_panels"]:
        for seed in seeds:
            needs["fig6"].append(plan.request(panel, params["fig6_epsilon"], clip, params["fig6_T"], seed,
                                              params["fig6_lambdas"], per_round=True))
    # Fig. 7: one run per T carrying the lambda grid (C = 10, eps = 100)
    for T in params["fig7_T"]:
        for seed in seeds:
            needs["fig7"].append(plan.request(params["fig7_panel"], params["fig7_epsilon"], params["fig7_clip"], T, seed,
                                              params["fig7_lambdas"]))
    # lambda sweep (claim 7)
    for eps in (params["fig3_epsilon"], params["fig4_epsilon"]):
        for seed in seeds:
            needs["table_lambda_sweep"].append(plan.request(params["sweep_panel"], eps, clip, params["sweep_T"], seed,
                                                            params["sweep_lambdas"]))

    def runs_of(fig: str) -> list[RunSpec]:
        specs = {plan.ditto_spec(k).run_id: plan.ditto_spec(k) for k in needs[fig]}
        for r in base_runs.get(fig, []):
            specs[r.run_id] = r
        return list(specs.values())

    fig2_run = RunSpec(SLUG, "fig2", {"constants": params["fig2_constants"], "T_max": params["fig2_T_max"],
                                      "search_max": params["fig2_search_max"],
                                      "table_epsilons": params["fig2_table_epsilons"]}, 0)
    out = [
        FigureSpec(SLUG, "table1", "Notation and definitions", "Notation of the paper and where each symbol lives in the code.",
                   kind="table", paper_ref="Table 1"),
        FigureSpec(SLUG, "fig1", "Diagram of PFL with DP (DP-Ditto)",
                   "Clients train local and personalised models; clipped, noised local models are averaged by the server.",
                   kind="diagram", paper_ref="Fig. 1"),
        FigureSpec(SLUG, "fig2", "Convergence bound h(T, lambda) and its lower bound h_Low(T)",
                   "h(T, lambda) has a unique minimiser T* in (0, T') found by a 1-D search; h >= h_Low.",
                   runs=[fig2_run], paper_ref="Fig. 2", est_paper_minutes=0.0),
    ]
    for fig, eps, lam in (("fig3", params["fig3_epsilon"], params["fig3_lambda"]),
                          ("fig4", params["fig4_epsilon"], params["fig4_lambda"])):
        runs = runs_of(fig)
        out.append(FigureSpec(
            SLUG, fig, f"Test accuracy and fairness vs T: DP-Ditto (lambda*={lam:g}) vs DP baselines, eps={eps:g}",
            "DP-Ditto with a small lambda beats DP-perturbed FedAMP, pFedMe, APPLE and FedALA in accuracy and fairness.",
            runs=runs, paper_ref="Fig. 3" if fig == "fig3" else "Fig. 4",
            datasets=_panel_datasets(params, params["fig34_panels"]), est_paper_minutes=_est_minutes(params, runs)))
    runs = runs_of("fig5")
    out.append(FigureSpec(SLUG, "fig5", "PL training loss vs T for several eps (eps=inf: Ditto)",
                          "The PL loss decreases and approaches Ditto's as eps grows; at small eps it degrades beyond a critical T.",
                          runs=runs, paper_ref="Fig. 5", datasets=_panel_datasets(params, params["fig5_panels"]),
                          est_paper_minutes=_est_minutes(params, runs)))
    runs = runs_of("fig6")
    out.append(FigureSpec(SLUG, "fig6", f"Accuracy and fairness vs round t for several lambda (T={params['fig6_T']}, eps={params['fig6_epsilon']:g})",
                          "Smaller lambda gives better fairness; accuracy rises then falls with t for large lambda.",
                          runs=runs, paper_ref="Fig. 6", datasets=_panel_datasets(params, params["fig6_panels"]),
                          est_paper_minutes=_est_minutes(params, runs)))
    runs = runs_of("fig7")
    out.append(FigureSpec(SLUG, "fig7", f"Fairness vs lambda and PL loss vs T (eps={params['fig7_epsilon']:g}, C={params['fig7_clip']:g})",
                          "lambda* decreases as T grows; the joint optimum (T*, lambda*) = (80, 0.1) for DNN/MNIST.",
                          runs=runs, paper_ref="Fig. 7", datasets=_panel_datasets(params, [params["fig7_panel"]]),
                          est_paper_minutes=_est_minutes(params, runs)))
    runs = runs_of("table_lambda_sweep")
    out.append(FigureSpec(SLUG, "table_lambda_sweep", "Fairness-optimal lambda at eps = 10 and 100 (lambda sweep)",
                          "The optimal lambda is smaller at smaller eps (0.005 at eps=10 vs 0.01 at eps=100).",
                          runs=runs, kind="table", paper_ref="Figs. 3/4 (lambda*)",
                          datasets=_panel_datasets(params, [params["sweep_panel"]]),
                          est_paper_minutes=_est_minutes(params, runs)))
    out.append(FigureSpec(SLUG, "table_privacy", "Noise of eq. (8) and the epsilon an RDP accountant certifies for it",
                          "Eq. (8) calibrates sigma_u with q = 1/N; every client takes part in every round (diagnostic).",
                          kind="table", paper_ref="eq. (8)", est_paper_minutes=0.0))
    return out


def execute(spec: RunSpec, ctx: RunContext) -> dict:
    if spec.task == "fig2":
        from repro.papers.dp_ditto.analytic import fig2_curves

        return fig2_curves(spec.params)
    if spec.task in ("ditto", "baseline"):
        from repro.papers.dp_ditto.runner import run_training

        return run_training(spec, ctx)
    raise ConfigError(f"unknown task {spec.task!r} of {SLUG}; allowed: fig2, ditto, baseline")
