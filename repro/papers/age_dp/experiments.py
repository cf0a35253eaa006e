"""Figures and runs of ``age_dp`` (contract: :mod:`repro.experiment`). numpy only, no torch.

Runs (one job each): ``fig2`` and ``fig3`` per Monte-Carlo seed, and ``table91`` (deterministic).
Figures: ``fig1`` (schematic, no runs), ``fig2``, ``fig3`` (the paper's), and the supplementary
``fig91`` (= guide's Fig. S1, the bound values) and ``table91`` (= guide's Table S1, sensitivity).
"""

from __future__ import annotations

from repro.experiment import Task, ConfigError, FigureSpec, RunSpec, check_choice

SLUG = "age_dp"

#: parameters that define the model and the search (every run gets them)
MODEL_KEYS = ("num_records", "values", "transition_q", "initial_laws", "t_agg", "chain_anchor", "sensitivity",
              "delta_mode", "fse_form", "sub_exp_params", "eq11_noise_coef", "literal_eq12", "distinct_slots",
              "random_constant")
MODEL_NOTE = "synthetic 3-client Markov model, s = {s:g}, t_agg = {t} (assumed)"

_CHOICES = {
    "chain_anchor": ("time", "collection"),
    "delta_mode": ("bound", "exact"),
    "fse_form": ("standard", "printed"),
    "sub_exp_params": ("paper", "laplace"),
    "eq11_noise_coef": ("1/m", "1/m^2"),
    "random_constant": ("classic", "worst"),
}


def validate(params: dict) -> None:
    """Reject bad parameter values with a message naming the value and what is allowed."""
    for key, allowed in _CHOICES.items():
        check_choice(key, params[key], allowed)
    for key in ("literal_eq12", "distinct_slots"):
        if not isinstance(params[key], bool):
            raise ConfigError(f"{key} must be true or false, got {params[key]!r}")
    if params["sensitivity"] <= 0:
        raise ConfigError(f"sensitivity must be > 0, got {params['sensitivity']!r}")
    grid = [float(e) for e in params["epsilon_grid"]]
    if not grid or any(e <= 0 for e in grid) or grid != sorted(grid):
        raise ConfigError(f"epsilon_grid must be increasing positive values, got {params['epsilon_grid']!r}")
    if params["mc_replicates"] < 0 or params["mc_replicates"] == 1:
        raise ConfigError(f"mc_replicates must be 0 (off) or >= 2, got {params['mc_replicates']!r}")
    if not params["mc_seeds"] or any(int(s) != s or s < 0 for s in params["mc_seeds"]):
        raise ConfigError(f"mc_seeds must be a non-empty list of non-negative integers, got {params['mc_seeds']!r}")


def _subset(params: dict, keys) -> dict:
    return {k: params[k] for k in keys}


def figures(params: dict) -> list[FigureSpec]:
    validate(params)
    model = _subset(params, MODEL_KEYS)
    seeds = [int(s) for s in params["mc_seeds"]]
    fig2_runs = [RunSpec(SLUG, "fig2", {**model, **_subset(params, ("fig2_epsilon", "fig2_extra_epsilons", "mc_replicates"))}, seed=s)
                 for s in seeds]
    fig3_runs = [RunSpec(SLUG, "fig3", {**model, **_subset(params, ("epsilon_grid", "mc_replicates", "mc_objective_replicates"))}, seed=s)
                 for s in seeds]
    table_run = RunSpec(SLUG, "table91", {**model, **_subset(params, ("epsilon_grid", "fig2_epsilon"))}, seed=0)
    return [
        FigureSpec(SLUG, "fig1", "Time-varying FL with scheduled data collection (schematic)",
                   "Clients collect data at scheduled times t_c,i, train, upload; the server aggregates at t_agg.",
                   runs=[], kind="diagram", paper_ref="Fig. 1"),
        FigureSpec(SLUG, "fig2", "Loss difference vs data collection time",
                   "Client 1's optimum is the freshest time; Clients 2 and 3 have an interior optimum.",
                   runs=fig2_runs, paper_ref="Fig. 2"),
        FigureSpec(SLUG, "fig3", "Loss difference and 1/eps_c vs privacy level",
                   "Bound-optimal scheduling with adaptive noise beats random scheduling and constant noise; "
                   "constant noise needs more noise.",
                   runs=fig3_runs, paper_ref="Fig. 3"),
        FigureSpec(SLUG, "fig91", "Supplementary: Theorem-1 surrogate (G2) vs exact loss at the chosen schedules",
                   "Not in the paper: the bound's value is a ranking surrogate, larger than the loss it ranks.",
                   runs=fig3_runs[:1], paper_ref="supplementary (guide Fig. S1)"),
        FigureSpec(SLUG, "table91", "Supplementary: sensitivity of the Fig. 2/3 claims to the open modelling choices",
                   "Not in the paper: which claims survive each reading of the ambiguous text.",
                   runs=[table_run], kind="table", paper_ref="supplementary (guide Table S1)"),
    ]



#: run task -> the function in runs.py that does it
TASKS = {
    "fig2": Task("repro.papers.age_dp.runs:fig2"),
    "fig3": Task("repro.papers.age_dp.runs:fig3"),
    "table91": Task("repro.papers.age_dp.runs:table91"),
}
