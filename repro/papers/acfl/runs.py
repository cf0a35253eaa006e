"""What each acfl run task computes (``experiments.TASKS``); results are JSON-able dicts.

``fig1_bound``     Fig. 1: the bound (33) vs eps (eq. 17) for fixed and adaptive weights (eqs. 36, 38).
``train_panel``    one panel of Fig. 3 or Fig. 4: every (method x noise level) configuration and every
                   seed in one batched kernel call (each seed draws from its own ``RngStreams(seed)``).
``privacy_map``    table91: eps <-> sigma^2 maps and the Remark 1 overhead.
``identities``     table92 (deterministic part): Remark 2, Theorem 3, eqs. (38), (43), Fig. 1 grid.
``theory_mc``      table92 (one seed): Monte-Carlo checks of Lemma 1, Lemma 2 and Theorem 2.
"""

from __future__ import annotations

import math
import time

import numpy as np

from repro.engine.rng import RngStreams
from repro.papers.acfl import coding, privacy_mi, scfl, simulate, stragglers, theory
from repro.papers.acfl.problem import linear_regression_federated
from repro.papers.acfl.simulate import StackedProblem

METHOD_LABELS = {"ACFL": "ACFL", "NA": "NA (alpha = 0.5)", "SCFL": "SCFL (reconstructed)",
                 "SCFL_ALT": "SCFL, package alternative coded dataset", "ALPHA0": "alpha = 0 (no coded data)"}


def series_name(method: str, noise: str, level: float | None, aggregation: str | None = None) -> str:
    """Series label of the tidy CSV, e.g. ``ACFL sigma2=0.01``, ``SCFL epsilon=10``, ``SCFL-composite
    epsilon=10`` (the alternative SCFL coded dataset), ``ALPHA0``."""
    prefix = f"SCFL-{aggregation}" if method == "SCFL_ALT" else method
    return prefix if level is None else f"{prefix} {noise}={level:g}"


def acfl_entry_sensitivity(d: int, o: int) -> float:
    """L2 sensitivity of one device's Stage-1 upload (eqs. 2-3) to one data entry in [-1, 1] (A1; the
    neighbour notion of Definition 1). Changing X_{j,1} from a to b moves 2(d-1) off-diagonal entries of
    X^T X and o entries of X^T Y by (b - a) times an entry in [-1, 1], and the diagonal one by b^2 - a^2:
    the squared change (b - a)^2 [2(d-1) + o + (b + a)^2] is largest at a = -b = 1, giving
    2 sqrt(2(d-1) + o) (attained by a row of +-1 entries)."""
    return 2.0 * math.sqrt(2.0 * (d - 1) + o)


# ---------------------------------------------------------------------------------------------- Fig. 1


def fig1_curves(params: dict, eps) -> dict:
    """Bound (33) at the eps values: sigma^2 from eq. (17) inverse, fixed alphas and adaptive alpha* (eqs. 36, 38)."""
    k = theory.fig1_constants(params)
    eps = np.asarray(eps, float)
    s2 = privacy_mi.acfl_sigma2_for_epsilon(eps, k.d, k.o)
    lam, T = params["fig1_lambda"], params["fig1_T"]
    out = {"epsilon": eps, "sigma2": s2, "alpha_star": theory.alpha_star(s2, s2, k),
           "adaptive": theory.convergence_bound(theory.u_tilde(s2, s2, k), lam, T)}
    for a in params["fig1_alphas"]:
        out[f"alpha={a:g}"] = theory.convergence_bound(theory.bound_u(s2, s2, a, k), lam, T)
    return out


def fig1_bound(spec, ctx) -> dict:
    params = spec.params
    lo, hi = params["fig1_eps_range"]
    grid = np.logspace(np.log10(lo), np.log10(hi), int(params["fig1_points"]))
    return {"grid": fig1_curves(params, grid), "reference": fig1_curves(params, params["fig1_reference_eps"]),
            "alphas": list(params["fig1_alphas"])}


# ---------------------------------------------------------------------------------------------- Figs. 3-4


def _configs(params: dict) -> list[dict]:
    d, o = params["dim_in"], params["dim_out"]
    out = []
    for method in params["methods"]:
        if method == "ALPHA0":  # alpha = 0: the coded data are never used, so nothing is uploaded in Stage 1
            out.append(dict(method=method, series=series_name(method, "", None), sigma2=0.0, epsilon=None, alpha=0.0))
            continue
        for level in params["levels"]:
            if params["noise"] == "sigma2":
                sigma2, eps = level, privacy_mi.acfl_mi_dp_epsilon(level, level, d, o)
            elif method in ("SCFL", "SCFL_ALT"):
                eps = level
                sigma2 = scfl.scfl_sigma2_for_epsilon_fallback(eps, params["scfl_code_rows"], params["scfl_privacy_map"])
            else:
                eps, sigma2 = level, privacy_mi.acfl_sigma2_for_epsilon(level, d, o)
            alpha = float("nan") if method == "ACFL" else params["na_alpha"]
            aggregation = {"SCFL": params.get("scfl_aggregation"), "SCFL_ALT": params.get("scfl_alternative_aggregation")}
            out.append(dict(method=method, series=series_name(method, params["noise"], level, aggregation.get(method)),
                            sigma2=float(sigma2), epsilon=float(eps), alpha=float(alpha),
                            aggregation=aggregation.get(method)))
    return out


def _coded_pairs(problem, seed: int, configs: list[dict], params: dict, noiseless: bool):
    """(HX (R, d, d), HY (R, d, o)) of every configuration for one seed (eqs. 2-4, or the SCFL
    reconstruction), and the entry sensitivity of that seed's SCFL projections (None without SCFL)."""
    N, d, o = params["num_devices"], params["dim_in"], params["dim_out"]
    streams = RngStreams(seed)
    sig = np.array([0.0 if (noiseless or c["method"] == "ALPHA0") else c["sigma2"] for c in configs])
    z1, z2 = coding.draw_stage1_normals(streams.numpy("dp_noise"), N, d, o)
    HX, HY = coding.global_coded_dataset_for_levels(problem.A_dev, problem.b_dev, z1, z2, sig, sig)
    scfl_idx = [i for i, c in enumerate(configs) if c["method"] in ("SCFL", "SCFL_ALT")]
    sensitivity = None
    if scfl_idx:
        c_rows = params["scfl_code_rows"]
        # one draw of projections and noise per seed: the paper's and the alternative coded dataset are built
        # from the same uploads
        proj, zx, zy = scfl.draw_scfl_code(streams.numpy("scfl_code"), N, problem.X.shape[1], d, o, c_rows)
        for aggregation in sorted({configs[i]["aggregation"] for i in scfl_idx}):
            idx = [i for i in scfl_idx if configs[i]["aggregation"] == aggregation]
            sx, sy = scfl.scfl_coded_pair(problem.X, problem.Y, proj, zx, zy, [0.0 if noiseless else configs[i]["sigma2"]
                                                                               for i in idx],
                                          debias=params["scfl_debias"], aggregation=aggregation)
            HX[idx], HY[idx] = sx, sy
        sensitivity = scfl.entry_sensitivity(proj)
    return HX, HY, sensitivity


def train_panel(spec, ctx) -> dict:
    """One panel of Fig. 3 / Fig. 4: all configurations x all seeds in one kernel call."""
    params = spec.params
    t0 = time.perf_counter()
    seeds = [int(s) for s in params["seeds"]]
    N, m, d, o, T = (params[k] for k in ("num_devices", "samples_per_device", "dim_in", "dim_out", "iterations"))
    problems = [linear_regression_federated(RngStreams(s), N, m, d, o) for s in seeds]
    stacked = StackedProblem.from_problems(problems)
    configs = _configs(params)
    fresh = bool(params["fresh_noise"])
    pairs = [_coded_pairs(pr, s, configs, params, noiseless=fresh) for pr, s in zip(problems, seeds)]
    HX = np.stack([hx for hx, _, _ in pairs])
    HY = np.stack([hy for _, hy, _ in pairs])
    uniforms = np.stack([stragglers.straggler_uniforms(RngStreams(s).numpy("straggler"), T, N) for s in seeds])
    R = len(configs)
    # sigma^2 enters the kernel only through eq. (43) (ACFL) and the fresh-noise ablation (ACFL, NA)
    sig = np.array([c["sigma2"] if (c["method"] in ("ACFL", "NA") or not fresh) else 0.0 for c in configs])
    trace = simulate.train(stacked, HX, HY, np.full(R, params["p"]), [c["alpha"] for c in configs], sig, sig,
                           uniforms, params["eta0"], T,
                           fresh_noise_rng=RngStreams(seeds[0]).numpy("fresh_noise") if fresh else None)
    # fixed point of every fixed alpha > 0 with fixed noise (the NA / SCFL bias floor)
    A, B, W_star = stacked.A[:, None], stacked.B[:, None], stacked.W_star[:, None]
    alpha = np.array([c["alpha"] for c in configs])
    a = np.where(np.isnan(alpha), 0.0, alpha)[None, :, None, None]
    W_fp = np.linalg.solve(a * HX + (1 - a) * A, a * HY + (1 - a) * B)
    err = W_fp - W_star
    floor = 0.5 * np.einsum("srik,srik->sr", err, A @ err)
    floor[:, ~(alpha > 0)] = np.nan
    ctx.log(f"{params['figure']}({params['panel']}): {R} configurations x {len(seeds)} seeds x T={T} "
            f"in {time.perf_counter() - t0:.2f}s")
    scfl_sens = [s for _, _, s in pairs if s is not None]
    return {"seeds": seeds, "p": params["p"], "record_at": trace.record_at, "configs": configs,
            "loss": trace.loss, "dist2": trace.dist2, "alpha": trace.alpha, "beta2_hat": trace.beta2_hat,
            "C2_hat": trace.C2_hat, "alpha_first": trace.alpha_first, "alpha_tail_mean": trace.alpha_tail_mean,
            "floor_loss": floor,
            "stage1_sensitivity": {"ACFL": acfl_entry_sensitivity(d, o), "NA": acfl_entry_sensitivity(d, o),
                                   **({"SCFL": max(scfl_sens), "SCFL_ALT": max(scfl_sens)} if scfl_sens else {})}}


# ---------------------------------------------------------------------------------------------- tables


def privacy_map(spec, ctx) -> dict:
    """table91: eps <-> sigma^2 of ACFL (eq. 17) and of the SCFL reconstruction's map, and Remark 1 overhead."""
    params = spec.params
    d, o, N, T, phi = (params[k] for k in ("dim_in", "dim_out", "num_devices", "iterations", "bits_per_real"))
    eps_grid = sorted({1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0} | {float(e) for e in params["fig4_epsilons"]})
    sig_grid = sorted({0.01, 0.1, 1.0, 10.0, 1e8} | {float(s) for s in params["fig3_sigma2"]})
    c, variant = params["scfl_code_rows"], params["scfl_privacy_map"]
    return {
        "eps_grid": eps_grid,
        "sigma2_acfl": privacy_mi.acfl_sigma2_for_epsilon(np.array(eps_grid), d, o),
        "sigma2_scfl": scfl.scfl_sigma2_for_epsilon_fallback(np.array(eps_grid), c, variant),
        "sigma2_grid": sig_grid,
        "eps_acfl": privacy_mi.acfl_mi_dp_epsilon(np.array(sig_grid), np.array(sig_grid), d, o),
        "eps_fig1_sigma2_1": privacy_mi.acfl_mi_dp_epsilon(1.0, 1.0, params["fig1_d"], params["fig1_o"]),
        "dims": {"d": d, "o": o, "N": N, "T": T, "phi": phi, "c": c, "fig1_d": params["fig1_d"], "fig1_o": params["fig1_o"]},
        "psi1": theory.stage1_upload_bits(phi, d, o, N),
        "psi2": theory.training_upload_bits(phi, d, o, N, T),
        "psi2_expected": theory.expected_training_upload_bits(phi, d, o, N, T, params["fig4_straggler_prob"]),
    }


def identities(spec, ctx) -> dict:
    from repro.papers.acfl import checks

    return {"rows": checks.identity_rows(spec.params)}


def theory_mc(spec, ctx) -> dict:
    from repro.papers.acfl import checks

    rows = checks.monte_carlo_rows(spec.params, spec.seed) + checks.theorem2_rows(spec.params, spec.seed)
    ctx.log(f"theory_mc: seed {spec.seed}, {spec.params['mc_draws']} Monte-Carlo draws, "
            f"{spec.params['thm2_repetitions']} Theorem-2 repetitions")
    return {"seed": spec.seed, "rows": rows}
