"""What each acfl RunSpec task computes (called by ``experiments.execute``); results are JSON-able."""

from __future__ import annotations

import time

import numpy as np

from repro.engine.rng import RngStreams
from repro.papers.acfl import coding, privacy_mi, scfl, simulate, stragglers, theory
from repro.papers.acfl.problem import linear_regression_federated
from repro.papers.acfl.simulate import StackedProblem

METHOD_LABELS = {"ACFL": "ACFL", "NA": "NA", "SCFL": "SCFL (reconstructed)", "ALPHA0": "alpha=0 (reference)"}


def series_name(method: str, noise: str, level: float | None) -> str:
    """Series label of the tidy CSV, e.g. ``ACFL sigma2=0.01``, ``SCFL eps=10``, ``ALPHA0``."""
    return method if level is None else f"{method} {noise}={level:g}"


def fig1_constants(params: dict) -> theory.BoundConstants:
    return theory.BoundConstants(N=params["fig1_N"], d=params["fig1_d"], o=params["fig1_o"], p=params["fig1_p"],
                                 beta=params["fig1_beta"], C=params["fig1_C"])


def fig1_curves(params: dict, eps) -> dict:
    """Bound (33) at the eps values: sigma^2 from eq. (17) inverse, fixed alphas and adaptive alpha* (eqs. 36, 38)."""
    k = fig1_constants(params)
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


def _configs(params: dict) -> list[dict]:
    d, o = params["dim_in"], params["dim_out"]
    out = []
    for method in params["methods"]:
        if method == "ALPHA0":  # noise never enters with alpha = 0
            out.append(dict(method=method, series=series_name(method, "", None), sigma2=0.0, epsilon=None, alpha=0.0))
            continue
        for level in params["levels"]:
            if params["noise"] == "sigma2":
                sigma2, eps = level, privacy_mi.acfl_mi_dp_epsilon(level, level, d, o)
            elif method == "SCFL":
                eps = level
                sigma2 = scfl.scfl_sigma2_for_epsilon_fallback(eps, params["scfl_code_rows"], params["scfl_privacy_map"])
            else:
                eps, sigma2 = level, privacy_mi.acfl_sigma2_for_epsilon(level, d, o)
            alpha = {"ACFL": float("nan"), "NA": params["na_alpha"], "SCFL": params["na_alpha"]}[method]
            out.append(dict(method=method, series=series_name(method, params["noise"], level), sigma2=float(sigma2),
                            epsilon=float(eps), alpha=float(alpha)))
    return out


def _coded_pairs(problem, seed: int, configs: list[dict], params: dict, noiseless: bool):
    """(HX (R, d, d), HY (R, d, o)) of every configuration for one seed (eqs. 2-4 or the SCFL stand-in)."""
    N, d, o = params["num_devices"], params["dim_in"], params["dim_out"]
    streams = RngStreams(seed)
    A_dev, b_dev = problem.A_dev, problem.b_dev
    sig = np.array([0.0 if (noiseless or c["method"] == "ALPHA0") else c["sigma2"] for c in configs])
    z1, z2 = coding.draw_stage1_normals(streams.numpy("dp_noise"), N, d, o)
    HX, HY = coding.global_coded_dataset_for_levels(A_dev, b_dev, z1, z2, sig, sig)
    scfl_idx = [i for i, c in enumerate(configs) if c["method"] == "SCFL"]
    if scfl_idx:
        c_rows = params["scfl_code_rows"]
        proj, zx, zy = scfl.draw_scfl_code(streams.numpy("scfl_code"), N, problem.X.shape[1], d, o, c_rows)
        sx, sy = scfl.scfl_coded_pair(problem.X, problem.Y, proj, zx, zy, [configs[i]["sigma2"] for i in scfl_idx],
                                      debias=params["scfl_debias"])
        HX[scfl_idx], HY[scfl_idx] = sx, sy
    return HX, HY


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
    HX = np.stack([hx for hx, _ in pairs])
    HY = np.stack([hy for _, hy in pairs])
    uniforms = np.stack([stragglers.straggler_uniforms(RngStreams(s).numpy("straggler"), T, N) for s in seeds])
    R = len(configs)
    sig = np.array([c["sigma2"] if (c["method"] in ("ACFL", "NA") or not fresh) else 0.0 for c in configs])
    trace = simulate.train(stacked, HX, HY, np.full(R, params["p"]), [c["alpha"] for c in configs], sig, sig,
                           uniforms, params["eta0"], T,
                           fresh_noise_rng=RngStreams(seeds[0]).numpy("fresh_noise") if fresh else None)
    # fixed point of every fixed alpha > 0 with fixed noise (the NA / SCFL bias floor, guide section 2.7)
    A, B, W_star = stacked.A[:, None], stacked.B[:, None], stacked.W_star[:, None]
    alpha = np.array([c["alpha"] for c in configs])
    a = np.where(np.isnan(alpha), 0.0, alpha)[None, :, None, None]
    W_fp = np.linalg.solve(a * HX + (1 - a) * A, a * HY + (1 - a) * B)
    err = W_fp - W_star
    floor = 0.5 * np.einsum("srik,srik->sr", err, A @ err)
    floor[:, ~(alpha > 0)] = np.nan
    ctx.log(f"{params['figure']}({params['panel']}): {R} configurations x {len(seeds)} seeds x T={T} "
            f"in {time.perf_counter() - t0:.2f}s")
    return {"seeds": seeds, "p": params["p"], "record_at": trace.record_at, "configs": configs,
            "loss": trace.loss, "dist2": trace.dist2, "alpha": trace.alpha, "alpha_first": trace.alpha_first,
            "alpha_tail_mean": trace.alpha_tail_mean, "floor_loss": floor}


def privacy_map(spec, ctx) -> dict:
    """table91: eps <-> sigma^2 of ACFL (eq. 17) and of the SCFL fallback map, and Remark 1 overhead."""
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


def theory_checks(spec, ctx) -> dict:
    params = spec.params
    from repro.papers.acfl import checks

    return {"rows": checks.all_checks(params, ctx)}
