"""ACFL: figures -> runs (guide section 4). Cheap; imports no torch (Snakemake builds the DAG from it).

Job grouping (guide section 4, a DESIGN adaptation): one training costs ~0.1 s, so a RunSpec trains a
whole panel -- every (method x noise level) configuration and every seed -- in one batched kernel
call. Each seed still draws from its own ``RngStreams(seed)`` (data, init, dp_noise, scfl_code,
straggler), so the numbers of a seed do not depend on which other seeds share the call, and all
methods / noise levels / both p share the data, start point, noise draw and straggler uniforms (D6).

Tasks
-----
``fig1_bound``     Fig. 1 analytic curves (eqs. 17, 33-38).
``train_panel``    one panel of Fig. 3 or Fig. 4 (the shared kernel of ``simulate``).
``privacy_map``    table91: eps <-> sigma^2 maps and Remark 1 overhead.
``theory_checks``  table92: analytic identities and Monte Carlo checks of Lemmas 1-2, Theorem 2.
"""

from __future__ import annotations

from repro.experiment import Task, FigureSpec, RunContext, RunSpec

SLUG = "acfl"
PROBLEM_KEYS = ("num_devices", "samples_per_device", "dim_in", "dim_out", "eta0", "iterations", "seeds")
FIG1_KEYS = ("fig1_N", "fig1_d", "fig1_o", "fig1_p", "fig1_beta", "fig1_C", "fig1_T", "fig1_lambda", "fig1_alphas",
             "fig1_eps_range", "fig1_points", "fig1_reference_eps")
SCFL_KEYS = ("scfl_code_rows", "scfl_debias", "scfl_privacy_map")


def _pick(params: dict, keys) -> dict:
    return {k: params[k] for k in keys}


def fig3_run(params: dict, panel: str, p: float) -> RunSpec:
    methods = ["ACFL", "NA"] + (["ALPHA0"] if params["alpha0_reference"] else [])
    run = dict(_pick(params, PROBLEM_KEYS), figure="fig3", panel=panel, p=float(p), methods=methods,
               noise="sigma2", levels=[float(s) for s in params["fig3_sigma2"]], na_alpha=params["na_alpha"],
               fresh_noise=params["fresh_noise"])
    return RunSpec(SLUG, "train_panel", run, seed=int(params["seeds"][0]))


def fig4_run(params: dict) -> RunSpec:
    run = dict(**_pick(params, PROBLEM_KEYS), **_pick(params, SCFL_KEYS), figure="fig4", panel="a",
               p=float(params["fig4_straggler_prob"]), methods=["ACFL", "SCFL"], noise="epsilon",
               levels=[float(e) for e in params["fig4_epsilons"]], na_alpha=params["na_alpha"],
               fresh_noise=params["fresh_noise"])
    return RunSpec(SLUG, "train_panel", run, seed=int(params["seeds"][0]))


def figures(params: dict) -> list[FigureSpec]:
    probs = params["fig3_straggler_probs"]
    if len(probs) != 2:
        raise ValueError(f"fig3_straggler_probs must name the two panels' p (paper: [0.2, 0.4]), got {probs!r}")
    n_seeds, T = len(params["seeds"]), params["iterations"]
    checks = dict(**_pick(params, PROBLEM_KEYS), **_pick(params, FIG1_KEYS),
                  **_pick(params, ("mc_draws", "mc_straggler_prob", "mc_sigma2", "mc_alpha", "thm2_repetitions",
                                   "identity_draws")))
    checks["seeds"] = [int(params["seeds"][0])]
    table91 = dict(**_pick(params, ("dim_in", "dim_out", "num_devices", "iterations", "bits_per_real", "fig3_sigma2",
                                  "fig4_epsilons", "fig4_straggler_prob")), **_pick(params, SCFL_KEYS),
                   fig1_d=params["fig1_d"], fig1_o=params["fig1_o"])
    return [
        FigureSpec(SLUG, "fig1", "Upper bound (33) vs eps-MI-DP: fixed and adaptive aggregation weights",
                   "At equal privacy eps, the adaptive weight alpha* (eq. 36) gives the smallest convergence bound.",
                   runs=[RunSpec(SLUG, "fig1_bound", _pick(params, FIG1_KEYS))], paper_ref="Fig. 1"),
        FigureSpec(SLUG, "fig2", "The implementation of ACFL (schematic)", "Block diagram of Algorithm 1 (no data).",
                   kind="diagram", paper_ref="Fig. 2"),
        FigureSpec(SLUG, "fig3", "Training loss of ACFL and NA under different noise variances",
                   "More noise hurts NA (alpha = 0.5) a lot but ACFL only modestly, for p = 0.2 and p = 0.4.",
                   runs=[fig3_run(params, "a", probs[0]), fig3_run(params, "b", probs[1])], paper_ref="Fig. 3"),
        FigureSpec(SLUG, "fig4", "Training loss of ACFL and SCFL (reconstructed) at equal eps-MI-DP",
                   "At equal eps, ACFL beats SCFL and degrades less as eps decreases.",
                   runs=[fig4_run(params)], paper_ref="Fig. 4"),
        FigureSpec(SLUG, "table91", "Supplementary: privacy map eps <-> sigma^2 and Stage-1 overhead (not in the paper)",
                   "Theorem 1 (eq. 17) and its inverse, the SCFL fallback map, Remark 1 (eqs. 12-13).",
                   runs=[RunSpec(SLUG, "privacy_map", table91)], kind="table", paper_ref="T-S (supplementary)"),
        FigureSpec(SLUG, "table92", "Supplementary: checks of the theory (Theorems 1-3, Lemmas 1-2, eqs. 38, 43)",
                   "Analytic identities and Monte Carlo checks behind claims C1-C12 (not in the paper).",
                   runs=[RunSpec(SLUG, "theory_checks", checks)], kind="table", paper_ref="theory checks"),
    ]



#: run task -> the function in runs.py that does it
TASKS = {
    "fig1_bound": Task("repro.papers.acfl.runs:fig1_bound"),
    "train_panel": Task("repro.papers.acfl.runs:train_panel"),
    "privacy_map": Task("repro.papers.acfl.runs:privacy_map"),
    "theory_checks": Task("repro.papers.acfl.runs:theory_checks"),
}
