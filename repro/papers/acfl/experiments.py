"""ACFL: figures -> runs. Cheap; imports no torch (Snakemake builds the DAG from it).

Job grouping: one training costs a few milliseconds, so a RunSpec trains a whole panel -- every
(method x noise level) configuration and every seed -- in one batched kernel call. Each seed still
draws from its own ``RngStreams(seed)`` (data, init, dp_noise, scfl_code, straggler), so a seed's
numbers do not depend on which other seeds share the call, and all methods, noise levels and both
straggler probabilities share the data, start point, noise draw and straggler uniforms (paired runs).

Tasks: ``fig1_bound`` (Fig. 1, analytic), ``train_panel`` (one panel of Fig. 3 or Fig. 4),
``privacy_map`` (table91), ``identities`` and ``theory_mc`` (table92: analytic identities; Monte-Carlo
checks of Lemmas 1-2 and Theorem 2, one run per seed).
"""

from __future__ import annotations

from repro.experiment import ConfigError, FigureSpec, RunSpec, Task

SLUG = "acfl"
PROBLEM_KEYS = ("num_devices", "samples_per_device", "dim_in", "dim_out", "eta0", "iterations", "seeds")
FIG1_KEYS = ("fig1_N", "fig1_d", "fig1_o", "fig1_p", "fig1_beta", "fig1_C", "fig1_T", "fig1_lambda", "fig1_alphas",
             "fig1_eps_range", "fig1_points", "fig1_reference_eps")
SCFL_KEYS = ("scfl_code_rows", "scfl_debias", "scfl_privacy_map", "scfl_aggregation", "scfl_alternative_aggregation")
MC_KEYS = ("num_devices", "samples_per_device", "dim_in", "dim_out", "iterations", "mc_draws", "mc_straggler_prob",
           "mc_sigma2", "mc_alpha", "thm2_repetitions")


def validate(params: dict) -> None:
    """Rules across keys (the schema checks each key alone)."""
    if params["samples_per_device"] <= params["dim_in"]:
        raise ConfigError(f"the paper assumes m_i > d (full column rank): samples_per_device = {params['samples_per_device']} "
                          f"<= dim_in = {params['dim_in']}")
    lo, hi = params["fig1_eps_range"]
    if not lo < hi:
        raise ConfigError(f"fig1_eps_range must be [low, high] with low < high, got {params['fig1_eps_range']!r}")
    if len(set(params["seeds"])) != len(params["seeds"]):
        raise ConfigError(f"seeds must be distinct, got {params['seeds']!r}")
    if params["scfl_alternative_aggregation"] == params["scfl_aggregation"]:
        raise ConfigError("scfl_alternative_aggregation must differ from scfl_aggregation (or be 'none'), got "
                          f"{params['scfl_alternative_aggregation']!r} twice")


def _pick(params: dict, keys) -> dict:
    return {k: params[k] for k in keys}


def _methods(params: dict, *names: str) -> list[str]:
    return list(names) + (["ALPHA0"] if params["alpha0_reference"] else [])


def fig3_run(params: dict, panel: str, p: float) -> RunSpec:
    run = dict(_pick(params, PROBLEM_KEYS), figure="fig3", panel=panel, p=float(p), methods=_methods(params, "ACFL", "NA"),
               noise="sigma2", levels=[float(s) for s in params["fig3_sigma2"]], na_alpha=params["na_alpha"],
               fresh_noise=params["fresh_noise"])
    return RunSpec(SLUG, "train_panel", run, seed=int(params["seeds"][0]))


def fig4_run(params: dict) -> RunSpec:
    scfl_methods = ("SCFL", "SCFL_ALT") if params["scfl_alternative_aggregation"] != "none" else ("SCFL",)
    run = dict(**_pick(params, PROBLEM_KEYS), **_pick(params, SCFL_KEYS), figure="fig4", panel="a",
               p=float(params["fig4_straggler_prob"]), methods=_methods(params, "ACFL", *scfl_methods), noise="epsilon",
               levels=[float(e) for e in params["fig4_epsilons"]], na_alpha=params["na_alpha"],
               fresh_noise=params["fresh_noise"])
    return RunSpec(SLUG, "train_panel", run, seed=int(params["seeds"][0]))


def figures(params: dict) -> list[FigureSpec]:
    probs = params["fig3_straggler_probs"]
    fig3_runs = [fig3_run(params, "a", probs[0]), fig3_run(params, "b", probs[1])]
    fig4 = fig4_run(params)
    identities = RunSpec(SLUG, "identities", dict(_pick(params, FIG1_KEYS), **_pick(params, (
        "identity_draws", "dim_in", "dim_out", "fig3_sigma2", "fig4_epsilons"))))
    theory_mc = [RunSpec(SLUG, "theory_mc", _pick(params, MC_KEYS), seed=int(s)) for s in params["seeds"]]
    table91 = dict(**_pick(params, ("dim_in", "dim_out", "num_devices", "iterations", "bits_per_real", "fig3_sigma2",
                                  "fig4_epsilons", "fig4_straggler_prob")), **_pick(params, SCFL_KEYS),
                   fig1_d=params["fig1_d"], fig1_o=params["fig1_o"])
    eps_note = ("eps: mutual-information DP of the Stage-1 upload (Theorem 1, eq. (17); nominal); the (eps, delta)-DP "
                "certified for that upload and for the whole protocol is in table 'privacy'")
    return [
        FigureSpec(SLUG, "fig1", "Upper bound (33) vs eps-MI-DP: fixed and adaptive aggregation weights",
                   "(a) the bound (33) with sigma^2 from eq. (17) for fixed weights and the weight alpha* of eq. (36); "
                   "(b) the adaptive curve alone on a linear axis. " + eps_note,
                   runs=[RunSpec(SLUG, "fig1_bound", _pick(params, FIG1_KEYS))], paper_ref="Fig. 1"),
        FigureSpec(SLUG, "fig2", "The implementation of ACFL (schematic)", "Block diagram of Algorithm 1 (no data).",
                   kind="diagram", paper_ref="Fig. 2"),
        FigureSpec(SLUG, "fig3", "Training loss of ACFL, NA and alpha = 0 under different noise variances",
                   "Training loss f(W_t) (eq. 1) vs iteration for ACFL (eq. 43), NA (alpha = 0.5) and the alpha = 0 "
                   "reference (no coded data), per Stage-1 noise variance sigma^2, straggler probability p = 0.2 (a) "
                   "and 0.4 (b); mean over seeds with 95 % interval. " + eps_note,
                   runs=fig3_runs, paper_ref="Fig. 3"),
        FigureSpec(SLUG, "fig4", "Training loss of ACFL, SCFL (reconstructed) and alpha = 0 at equal eps-MI-DP",
                   "Training loss f(W_t) vs iteration for ACFL and the package's SCFL reconstruction at equal nominal "
                   "eps (Theorem 1 for ACFL, the package's map for SCFL), and the alpha = 0 reference; p = 0.2; mean "
                   "over seeds with 95 % interval. " + eps_note, runs=[fig4], paper_ref="Fig. 4"),
        FigureSpec(SLUG, "fig91", "Supplementary: ACFL's adaptive weight alpha_t over the iterations",
                   "Not in the paper: the weight of eq. (43) that ACFL gives the coded gradient, per iteration, for the "
                   "Fig. 3 and Fig. 4 runs; mean over seeds.", runs=[*fig3_runs, fig4], paper_ref="supplementary"),
        FigureSpec(SLUG, "table91", "Supplementary: privacy map eps <-> sigma^2 and Stage-1 overhead",
                   "Not in the paper: Theorem 1 (eq. 17) and its inverse, the SCFL reconstruction's map (the package's), "
                   "Remark 1 (eqs. 12-13).", runs=[RunSpec(SLUG, "privacy_map", table91)], kind="table",
                   paper_ref="supplementary"),
        FigureSpec(SLUG, "table92", "Supplementary: checks of the theory (Theorems 1-3, Lemmas 1-2, eqs. 38, 43)",
                   "Not in the paper: analytic identities (deterministic) and Monte-Carlo checks of Lemmas 1-2 and "
                   "Theorem 2 (one replicate per seed).", runs=[identities, *theory_mc], kind="table",
                   paper_ref="supplementary"),
        FigureSpec(SLUG, "privacy", "Privacy as run: nominal eps-MI-DP vs the (eps, delta)-DP certified for the uploads",
                   "Per private configuration run: the paper's nominal MI-DP eps (Theorem 1; the package's map for SCFL) "
                   "beside the epsilon dp-accounting certifies for the Gaussian Stage-1 upload with its real per-entry "
                   "sensitivity, and for the per-iteration gradients, which are sent without noise.",
                   runs=[*fig3_runs, fig4], kind="table", paper_ref="supplementary"),
    ]


#: run task -> the function in runs.py that does it
TASKS = {
    "fig1_bound": Task("repro.papers.acfl.runs:fig1_bound"),
    "train_panel": Task("repro.papers.acfl.runs:train_panel", trains=True),  # numpy training: checked for divergence
    "privacy_map": Task("repro.papers.acfl.runs:privacy_map"),
    "identities": Task("repro.papers.acfl.runs:identities"),
    "theory_mc": Task("repro.papers.acfl.runs:theory_mc"),
}
