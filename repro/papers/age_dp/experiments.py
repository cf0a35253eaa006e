"""Figures and runs of ``age_dp`` (contract: :mod:`repro.experiment`). numpy only, no torch.

Runs: the exact curves are one deterministic run per figure (``fig2_exact``, ``fig3_exact``); the
Monte-Carlo "simulation" that checks them is one run per seed (``fig2_mc``, ``fig3_mc``); the
sensitivity table is ``table91``. Figures: ``fig1`` (schematic), ``fig2``, ``fig3`` (the paper's),
``fig91`` (the bound values and the Theorem-1 check), ``table91`` (sensitivity of the claims to the
readings the paper leaves open), ``fig92`` (package check: s varied with Fig. 2's eps_bar) and
``privacy`` (nominal age-dependent epsilon vs the classical epsilon certified for every Laplace release).
"""

from __future__ import annotations

from repro.experiment import ConfigError, FigureSpec, RunSpec, Task, check_choice

SLUG = "age_dp"

#: parameters that define the model and the search (every run gets them)
MODEL_KEYS = ("num_records", "values", "transition_q", "initial_laws", "t_agg", "chain_anchor", "sensitivity",
              "delta_mode", "fse_form", "sub_exp_params", "eq11_noise_coef", "literal_eq12", "distinct_slots",
              "random_constant")

_CHOICES = {
    "chain_anchor": ("time", "collection"),
    "delta_mode": ("bound", "exact"),
    "fse_form": ("printed", "standard"),
    "sub_exp_params": ("paper", "laplace"),
    "eq11_noise_coef": ("1/m", "1/m^2"),
    "random_constant": ("classic", "worst"),
}


def validate(params: dict) -> None:
    """Rules across keys (the schema checks each key alone)."""
    for key, allowed in _CHOICES.items():
        check_choice(key, params[key], allowed)
    m = len(params["transition_q"])
    if len(params["initial_laws"]) != m:
        raise ConfigError(f"initial_laws needs one law per client ({m} transition_q values), got {len(params['initial_laws'])}")
    k = len(params["values"])
    for i, law in enumerate(params["initial_laws"]):
        if len(law) != k or abs(sum(law) - 1.0) > 1e-9:
            raise ConfigError(f"initial_laws[{i}] must be a probability vector over the {k} values, got {law!r}")
    if params["distinct_slots"] and m > params["t_agg"]:
        raise ConfigError(f"distinct_slots needs t_agg >= number of clients, got t_agg={params['t_agg']}, m={m}")
    grid = [float(e) for e in params["epsilon_grid"]]
    if grid != sorted(set(grid)):
        raise ConfigError(f"epsilon_grid must be strictly increasing, got {params['epsilon_grid']!r}")
    for key in ("privacy_epsilons",):
        missing = [e for e in params[key] if not any(abs(e - g) < 1e-12 for g in grid)]
        if missing:
            raise ConfigError(f"{key} must be points of epsilon_grid, {missing} are not")
    lo, hi = params["fig2_region_epsilon_range"]
    s_lo, s_hi = params["fig2_region_sensitivity_range"]
    if not (lo < hi and s_lo < s_hi):
        raise ConfigError("fig2_region_*_range must be [low, high] with low < high")
    lo, hi = params["s_scan_fig2_epsilon_range"]
    if not lo < hi:
        raise ConfigError("s_scan_fig2_epsilon_range must be [low, high] with low < high")


def _subset(params: dict, keys) -> dict:
    return {k: params[k] for k in keys}


def _privacy_note(params: dict) -> str:
    return (f"eps_bar = the paper's age-dependent DP target (nominal, Prop. 1 with the bound (8)); each client's single "
            f"Laplace release is classically eps_c,i-DP (certified: table 'privacy'), s = {params['sensitivity']:g}")


def figures(params: dict) -> list[FigureSpec]:
    model = _subset(params, MODEL_KEYS)
    seeds = [int(s) for s in params["mc_seeds"]]
    fig2_model = {**model, **_subset(params, ("fig2_epsilon", "fig2_extra_epsilons"))}
    fig2_exact = RunSpec(SLUG, "fig2_exact", {**fig2_model, **_subset(params, (
        "fig2_region_epsilon_range", "fig2_region_sensitivity_range", "fig2_region_points"))})
    fig2_mc = [RunSpec(SLUG, "fig2_mc", {**fig2_model, "mc_replicates": params["mc_replicates"]}, seed=s) for s in seeds]
    fig3_model = {**model, "epsilon_grid": params["epsilon_grid"]}
    fig3_exact = RunSpec(SLUG, "fig3_exact", fig3_model)
    fig3_mc = [RunSpec(SLUG, "fig3_mc", {**fig3_model, "mc_replicates": params["mc_replicates"]}, seed=s) for s in seeds]
    table_run = RunSpec(SLUG, "table91", {**model, **_subset(params, (
        "epsilon_grid", "fig2_epsilon", "s_scan", "s_scan_fig2_epsilon_range", "s_scan_fig2_points"))})
    return [
        FigureSpec(SLUG, "fig1", "Time-varying FL with scheduled data collection (schematic)",
                   "Three client time lines with illustrative collection times t_c,i, the uploads and the aggregation "
                   "at t_agg. No data.", runs=[], kind="diagram", paper_ref="Fig. 1"),
        FigureSpec(SLUG, "fig2", "Loss difference vs one client's data collection time",
                   "(a)-(c): exact expected loss difference (G1) as one client's collection time varies, the others at "
                   "t_agg, adaptive Laplace noise (5) at eps_bar; Monte-Carlo means over seeds with 95 % intervals. "
                   "(d): the (eps_bar, s) region where each panel has the shape the paper describes. "
                   + _privacy_note(params), runs=[fig2_exact, *fig2_mc], paper_ref="Fig. 2"),
        FigureSpec(SLUG, "fig3", "Loss difference and 1/eps_c vs the privacy level",
                   "(a) exact expected loss difference (G1) of the six schemes of Sec. IV-B vs eps_bar, with "
                   "Monte-Carlo means over seeds; the 'numerical opt' schemes also with the other f~_SE form. "
                   "(b) 1/eps_c, eps_c = mean of the clients' classical budgets. " + _privacy_note(params),
                   runs=[fig3_exact, *fig3_mc], paper_ref="Fig. 3"),
        FigureSpec(SLUG, "fig91", "Supplementary: Theorem-1 surrogate (G2) vs exact loss at the chosen schedules",
                   "Not in the paper: the value of the surrogate the 'numerical opt' schemes minimise, beside the "
                   "exact loss difference of the schedule it picks.", runs=[fig3_exact], paper_ref="supplementary"),
        FigureSpec(SLUG, "table91", "Supplementary: the claims under each reading the paper leaves open",
                   "Not in the paper: (a) for each modelling variant, on how many eps_bar points each Fig. 3 ordering "
                   "holds, and whether the three Fig. 2 shapes hold; (b) package check: the sensitivity s varied "
                   "jointly with Fig. 2's eps_bar.", runs=[table_run], kind="table", paper_ref="supplementary"),
        FigureSpec(SLUG, "fig92", "Package check: the Fig. 2 window and the Fig. 3 rules as the sensitivity s varies",
                   "Not in the paper: for each s, the Fig. 2 eps_bar window where all three panels have the paper's "
                   "shape, on how many eps_bar points each Fig. 3 rule holds, and the range of the Fig. 3(a) curves "
                   "beside the paper's axis. The verdicts are judged at the s as run.", runs=[table_run],
                   paper_ref="supplementary"),
        FigureSpec(SLUG, "privacy", "Privacy as run: the paper's age-dependent eps_bar vs the classical eps certified "
                   "for each Laplace release",
                   "Per configuration: nominal eps_bar (age-dependent DP, Prop. 1), the largest classical epsilon of a "
                   "client's release certified by dp-accounting (Laplace PLD, l1 sensitivity s, one release), their "
                   "ratio, and the age-dependent epsilon recomputed from Prop. 1.",
                   runs=[fig2_exact, fig3_exact], kind="table", paper_ref="supplementary"),
    ]


#: run task -> the function in runs.py that does it
TASKS = {
    "fig2_exact": Task("repro.papers.age_dp.runs:fig2_exact"),
    "fig2_mc": Task("repro.papers.age_dp.runs:fig2_mc"),
    "fig3_exact": Task("repro.papers.age_dp.runs:fig3_exact"),
    "fig3_mc": Task("repro.papers.age_dp.runs:fig3_mc"),
    "table91": Task("repro.papers.age_dp.runs:table91"),
}
