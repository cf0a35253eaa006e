"""DP-Ditto: figures -> runs (guide §4). No torch at module level (Snakemake imports this).

Run sharing (guide §4): a DP-Ditto run is keyed by (panel, eps, C, T, seed) and carries a *set* of
lambda values (all lambda share the FL trajectory, Algorithm 1 never lets varpi feed back into u),
so Figs. 3/4 (lambda*), 5 (0.1), 6 (lambda grid) and the lambda sweep read the same run. The plan
is built in two passes: every figure states what it needs, the requests are merged per key, and
then each figure gets the merged RunSpecs.

Tasks (few, large runs: each process start costs seconds)
-----
``ditto_batch``     all DP-Ditto trainings of one (panel, seed): jobs (eps, clip, T, lambdas, per_round).
``baseline_batch``  all trainings of the DP-perturbed baselines (fedamp / pfedme / apple / fedala) on one
                    (panel, seed): jobs (algorithm, hp, eps, clip, T).
``fig2``            the analytic Theorem-1 curves of Fig. 2 (ms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from repro.experiment import Task, ConfigError, FigureSpec, RunContext, RunSpec

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
    if model == "cnn":  # quick: fewer samples for the (costliest) CNN panels; null = as the other panels
        for k in ("train_per_client", "test_per_client"):
            if params[f"cnn_{k}"] is not None:
                out[k] = params[f"cnn_{k}"]
    out.update(panel=panel, model=model, dataset=dataset, lr=float(params["lr"][model]))
    return out


@dataclass
class _DittoJob:
    lambdas: set = field(default_factory=set)
    per_round: bool = False


def job_key(eps: float, clip: float, T: int) -> str:
    """Name of one training configuration inside a batch run."""
    return f"eps={eps_key(eps)}|C={float(clip):g}|T={int(T)}"


class Plan:
    """All training of the paper, grouped into few batch runs (guide §4 run sharing).

    A *job* is one training configuration (one DP-Ditto run with a lambda-set, or one baseline run);
    a *batch* is one RunSpec that executes several jobs in one process, sharing data loading:
    one DP-Ditto batch and one baseline batch (all four algorithms) per (panel, seed). Every
    figure lists the (batch, job) pairs it reads (``needs``); jobs requested by several figures are
    merged (lambda sets united, per-round logging if any figure needs it)."""

    def __init__(self, params: dict):
        self.params = params
        self.ditto: dict[tuple, dict[str, tuple]] = {}  # (panel, seed) -> job key -> (eps, clip, T, _DittoJob)
        self.base: dict[tuple, dict[str, tuple]] = {}  # (panel, seed) -> job key -> (algo, eps, clip, T)
        self.needs: dict[str, list[tuple[tuple, str]]] = {}

    def request_ditto(self, fig, panel, eps, clip, T, seed, lambdas, per_round=False):
        jobs = self.ditto.setdefault((panel, int(seed)), {})
        k = job_key(eps, clip, T)
        job = jobs.setdefault(k, (float(eps), float(clip), int(T), _DittoJob()))[3]
        job.lambdas |= {float(l) for l in lambdas}
        job.per_round |= per_round
        self.needs.setdefault(fig, []).append((("ditto", panel, int(seed)), k))

    def request_baseline(self, fig, algo, panel, eps, clip, T, seed):
        if algo not in BASELINES:
            raise ConfigError(f"unknown baseline {algo!r}; allowed: {', '.join(BASELINES)}")
        k = f"{algo}|{job_key(eps, clip, T)}"
        self.base.setdefault((panel, int(seed)), {})[k] = (algo, float(eps), float(clip), int(T))
        self.needs.setdefault(fig, []).append((("baseline", panel, int(seed)), k))

    def spec(self, batch: tuple) -> RunSpec:
        """The batch RunSpec: the panel's common params plus ``jobs`` (sorted by key)."""
        if batch[0] == "ditto":
            _, panel, seed = batch
            p = _common(self.params, panel)
            jobs = self.ditto[(panel, seed)]
            p["jobs"] = [{"key": k, "epsilon": e, "clip": c, "T": T, "lambdas": sorted(j.lambdas), "per_round": j.per_round}
                         for k, (e, c, T, j) in sorted(jobs.items())]
            return RunSpec(SLUG, "ditto_batch", p, seed)
        _, panel, seed = batch
        p = _common(self.params, panel)
        p["jobs"] = [{"key": k, "algorithm": a, "hp": self.hyper(a, panel), "epsilon": e, "clip": c, "T": T}
                     for k, (a, e, c, T) in sorted(self.base[(panel, seed)].items())]
        return RunSpec(SLUG, "baseline_batch", p, seed)

    def hyper(self, algo: str, panel: str) -> dict:
        """The baseline's hyper-parameters (guide §6) for ``panel``."""
        hp = dict(self.params[algo])
        if algo == "pfedme":
            hp["personal_lr"] = float(hp["personal_lr"][panel])
        return hp

    def runs_of(self, fig: str) -> list[RunSpec]:
        batches = list(dict.fromkeys(b for b, _ in self.needs.get(fig, [])))
        return [self.spec(b) for b in batches]

    def jobs_of(self, fig: str, results: dict):
        """Yield (job params q, seed, batch run id, job result) for every job figure ``fig`` reads; q is the
        batch's common params plus the job's (epsilon, clip, T, lambdas / algorithm). An unavailable batch
        yields its unavailable result for each job."""
        specs = {}
        for batch, k in dict.fromkeys(self.needs.get(fig, [])):
            spec = specs.setdefault(batch, self.spec(batch))
            q = {key: v for key, v in spec.params.items() if key != "jobs"}
            q.update(next(j for j in spec.params["jobs"] if j["key"] == k))
            res = None if results is None else results[spec.run_id]
            if res is not None and res.get("status") == "ok":
                res = res["jobs"][k]
            yield q, spec.seed, spec.run_id, res


def _panel_datasets(params: dict, panels) -> tuple[str, ...]:
    return tuple(sorted({panel_model_dataset(params, p)[1] for p in panels}))


def _est_minutes(plan: "Plan", fig: str) -> float:
    """Paper-profile CPU-equivalent minutes of the jobs figure ``fig`` reads, from the per-round cost
    measured on the quick profile (guide §4 units: DNN 0.07 s per 100-sample round of 20 models;
    scaled by samples and model)."""
    per_unit_s = {"mlr": 0.01, "dnn": 0.07, "cnn": 0.2 * 28.0}  # paper CNN ~28x the reduced CNN's flops
    total = 0.0
    for q, _seed, _rid, _res in plan.jobs_of(fig, None):
        scale = (2625 if q["dataset"] != "cifar10" else 2250) / 100.0
        sets = (1 + len(q["lambdas"])) if "algorithm" not in q else METHOD_UNITS[q["algorithm"]]
        total += q["T"] * sets * per_unit_s[q["model"]] * scale
    return round(total / 60.0, 1)


def build_plan(params: dict) -> Plan:
    """Every figure's DP-Ditto and baseline jobs (deterministic in ``params``; renderers rebuild it)."""
    seeds = [int(s) for s in params["seeds"]]
    clip = float(params["clip"])
    plan = Plan(params)
    # Figs. 3/4
    for fig, eps, lam in (("fig3", params["fig3_epsilon"], params["fig3_lambda"]),
                          ("fig4", params["fig4_epsilon"], params["fig4_lambda"])):
        for panel in params["fig34_panels"]:
            for T in params["fig34_T"][panel]:
                for seed in seeds:
                    plan.request_ditto(fig, panel, eps, clip, T, seed, [lam])
                    for algo in params["baselines"]:
                        plan.request_baseline(fig, algo, panel, eps, clip, T, seed)
    # Fig. 5: finite eps one job per T; eps = inf one per-round job to T_max (also carries lambda = 0
    # and the lambda* of Figs. 3/4 so claim 18 can compare lambda = 0 with eps = 10)
    for panel in params["fig5_panels"]:
        Ts = params["fig5_T"][panel]
        for eps in params["fig5_epsilons"]:
            for seed in seeds:
                if math.isinf(eps):
                    extra = [0.0, params["fig3_lambda"], params["fig4_lambda"]]
                    plan.request_ditto("fig5", panel, eps, clip, max(Ts), seed, [params["fig5_lambda"], *extra], per_round=True)
                else:
                    for T in Ts:
                        plan.request_ditto("fig5", panel, eps, clip, T, seed, [params["fig5_lambda"]])
    # Fig. 6: one per-round job (eps = 10, T = fig6_T) per panel
    for panel in params["fig6_panels"]:
        for seed in seeds:
            plan.request_ditto("fig6", panel, params["fig6_epsilon"], clip, params["fig6_T"], seed, params["fig6_lambdas"],
                               per_round=True)
    # Fig. 7: one job per T carrying the lambda grid (C = 10, eps = 100)
    for T in params["fig7_T"]:
        for seed in seeds:
            plan.request_ditto("fig7", params["fig7_panel"], params["fig7_epsilon"], params["fig7_clip"], T, seed,
                               params["fig7_lambdas"])
    # lambda sweep (claim 7), table92
    for eps in (params["fig3_epsilon"], params["fig4_epsilon"]):
        for seed in seeds:
            plan.request_ditto(SWEEP_ID, params["sweep_panel"], eps, clip, params["sweep_T"], seed, params["sweep_lambdas"])
    return plan


SWEEP_ID = "table92"  # supplementary lambda sweep (claim 7)
PRIVACY_ID = "table91"  # supplementary privacy diagnostic (guide §3.4)


def figures(params: dict) -> list[FigureSpec]:
    plan = build_plan(params)
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
                   runs=[fig2_run], paper_ref="Fig. 2"),
    ]
    for fig, eps, lam in (("fig3", params["fig3_epsilon"], params["fig3_lambda"]),
                          ("fig4", params["fig4_epsilon"], params["fig4_lambda"])):
        runs = plan.runs_of(fig)
        out.append(FigureSpec(
            SLUG, fig, f"Test accuracy and fairness vs T: DP-Ditto (lambda*={lam:g}) vs DP baselines, eps={eps:g}",
            "DP-Ditto with a small lambda beats DP-perturbed FedAMP, pFedMe, APPLE and FedALA in accuracy and fairness.",
            runs=runs, paper_ref="Fig. 3" if fig == "fig3" else "Fig. 4",
            datasets=_panel_datasets(params, params["fig34_panels"])))
    runs = plan.runs_of("fig5")
    out.append(FigureSpec(SLUG, "fig5", "PL training loss vs T for several eps (eps=inf: Ditto)",
                          "The PL loss decreases and approaches Ditto's as eps grows; at small eps it degrades beyond a critical T.",
                          runs=runs, paper_ref="Fig. 5", datasets=_panel_datasets(params, params["fig5_panels"])))
    runs = plan.runs_of("fig6")
    out.append(FigureSpec(SLUG, "fig6", f"Accuracy and fairness vs round t for several lambda (T={params['fig6_T']}, eps={params['fig6_epsilon']:g})",
                          "Smaller lambda gives better fairness; accuracy rises then falls with t for large lambda.",
                          runs=runs, paper_ref="Fig. 6", datasets=_panel_datasets(params, params["fig6_panels"])))
    runs = plan.runs_of("fig7")
    out.append(FigureSpec(SLUG, "fig7", f"Fairness vs lambda and PL loss vs T (eps={params['fig7_epsilon']:g}, C={params['fig7_clip']:g})",
                          "lambda* decreases as T grows; the joint optimum (T*, lambda*) = (80, 0.1) for DNN/MNIST.",
                          runs=runs, paper_ref="Fig. 7", datasets=_panel_datasets(params, [params["fig7_panel"]])))
    runs = plan.runs_of(SWEEP_ID)
    out.append(FigureSpec(SLUG, SWEEP_ID, "Supplementary: fairness-optimal lambda at eps = 10 and 100 (lambda sweep)",
                          "The optimal lambda is smaller at smaller eps (0.005 at eps=10 vs 0.01 at eps=100).",
                          runs=runs, kind="table", paper_ref="Figs. 3/4 (lambda*)",
                          datasets=_panel_datasets(params, [params["sweep_panel"]])))
    out.append(FigureSpec(SLUG, PRIVACY_ID, "Supplementary: noise of eq. (8) and the epsilon an RDP accountant certifies for it",
                          "Eq. (8) calibrates sigma_u with q = 1/N; every client takes part in every round (diagnostic).",
                          kind="table", paper_ref="eq. (8)"))
    return out



#: run task -> the function in runs.py that does it
TASKS = {
    "fig2": Task("repro.papers.dp_ditto.runs:fig2"),
    "ditto_batch": Task("repro.papers.dp_ditto.runs:batch", gpu=True),
    "baseline_batch": Task("repro.papers.dp_ditto.runs:batch", gpu=True),
}
