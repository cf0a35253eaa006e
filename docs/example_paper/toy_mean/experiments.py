"""toy_mean: figures -> runs. Cheap, no torch (Snakemake imports this while it builds the DAG)."""

from __future__ import annotations

from repro.experiment import FigureSpec, RunSpec, Task

SLUG = "toy_mean"

#: run task -> "module:function" (imported only when a run executes)
TASKS = {"error_curve": Task("repro.papers.toy_mean.runs:error_curve")}


def figures(params: dict) -> list[FigureSpec]:
    runs = [RunSpec(SLUG, "error_curve", {k: params[k] for k in ("n", "delta", "epsilons", "trials")}, seed=int(s))
            for s in params["seeds"]]
    return [FigureSpec(SLUG, "fig1", "Root-mean-square error of the private mean vs epsilon",
                       "Empirical RMSE of the Gaussian-mechanism mean (one curve per seed pooled) and the closed form.",
                       runs=runs, paper_ref="Fig. 1")]
