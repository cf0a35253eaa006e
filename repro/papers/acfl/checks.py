"""Analytic identities and Monte-Carlo checks of the theory (table92).

Every check returns a row ``{"claim", "check", "value", "note"}`` (``claim`` names the paper's result it
checks); ``claims.py`` judges the values. :func:`identity_rows` is deterministic (random parameter draws
from a fixed stream); :func:`monte_carlo_rows` and :func:`theorem2_rows` are one seed's replicate.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar

from repro.engine.rng import RngStreams
from repro.papers.acfl import coding, policy, privacy_mi, simulate, stragglers, theory
from repro.papers.acfl.problem import linear_regression_federated


def _row(claim: str, check: str, value, note: str = "") -> dict:
    return {"claim": claim, "check": check, "value": float(value), "note": note}


def privacy_rows() -> list[dict]:
    """C1 round trip sigma^2 -> eps -> sigma^2; C2 monotonicity and limit (Remark 2, eq. 23)."""
    rows = []
    grid = np.logspace(-4, 4, 100)
    err = 0.0
    for d, o in ((10, 10), (100, 10)):
        back = privacy_mi.acfl_sigma2_for_epsilon(privacy_mi.acfl_mi_dp_epsilon(grid, grid, d, o), d, o)
        err = max(err, float(np.max(np.abs(back / grid - 1))))
    rows.append(_row("eq. (17)", "roundtrip_max_rel_err", err, "sigma^2 -> eps -> sigma^2 on 1e-4..1e4, (d,o) = (10,10), (100,10)"))
    e1 = privacy_mi.acfl_mi_dp_epsilon(grid, 1.0, 10, 10)
    e2 = privacy_mi.acfl_mi_dp_epsilon(1.0, grid, 10, 10)
    rows.append(_row("Remark 2", "eps_min_decrease_in_sigma1", np.min(-np.diff(e1)), "min eps(k) - eps(k+1), 100-point log grid, sigma2^2 = 1"))
    rows.append(_row("Remark 2", "eps_min_decrease_in_sigma2", np.min(-np.diff(e2)), "same in sigma2^2, sigma1^2 = 1"))
    rows.append(_row("Remark 2", "eps_at_sigma2_1e8", privacy_mi.acfl_mi_dp_epsilon(1e8, 1e8, 10, 10), "d = o = 10"))
    return rows


def _random_constants(rng: np.random.Generator, n: int):
    for _ in range(n):
        yield (theory.BoundConstants(N=int(rng.integers(1, 200)), d=int(rng.integers(1, 200)), o=int(rng.integers(1, 200)),
                                     p=float(rng.uniform(0.01, 0.95)), beta=float(10 ** rng.uniform(-1, 2)),
                                     C=float(10 ** rng.uniform(-1, 1))),
               float(10 ** rng.uniform(-4, 4)), float(10 ** rng.uniform(-4, 4)))


def bound_rows(params: dict, seed: int) -> list[dict]:
    """C6-C9 (Theorem 3, eqs. 36, 38, 41, 43) on the Fig. 1 constants and on random draws; C11 grid check."""
    k1 = theory.fig1_constants(params)
    draws = list(_random_constants(RngStreams(seed).numpy("theory_draws"), int(params["identity_draws"])))
    sig_grid = np.logspace(-4, 4, 60)
    cases = [(k1, s, s) for s in sig_grid] + draws
    err_min, err_u, err_43, a_max = 0.0, 0.0, 0.0, 0.0
    for k, s1, s2 in cases:
        a = theory.alpha_star(s1, s2, k)
        res = minimize_scalar(lambda x: theory.bound_u(s1, s2, x, k), bounds=(0.0, 1.0), method="bounded",
                              options={"xatol": 1e-10})
        err_min = max(err_min, abs(res.x - a))
        err_u = max(err_u, abs(theory.u_tilde(s1, s2, k) / theory.bound_u(s1, s2, a, k) - 1))
        a43 = policy.adaptive_weight(k.beta**2, k.C**2, k.p, k.d, k.o, s1, s2)  # eq. (43), beta_hat = beta, C_hat = C
        err_43 = max(err_43, abs(a43 / a - 1))
        a_max = max(a_max, a)
    rows = [
        _row("Theorem 3", "alpha_star_fig1_sigma2_1", theory.alpha_star(1.0, 1.0, k1), "Fig. 1 constants: 1/(1 + 99 sigma^2) = 0.01"),
        _row("Theorem 3", "alpha_star_closed_form_max_rel_err",
             np.max(np.abs(theory.alpha_star(sig_grid, sig_grid, k1) * (1 + 99 * sig_grid) - 1)), "alpha* = 1/(1+99 sigma^2) at Fig. 1 constants"),
        _row("Theorem 3", "alpha_star_vs_bounded_minimiser_max_abs_err", err_min, f"{len(cases)} cases (Fig. 1 grid + random draws)"),
        _row("Theorem 3", "alpha_star_max", a_max, "over the same cases, all sigma^2 > 0 (must be < 1)"),
        _row("eq. (38)", "u_tilde_vs_u_at_alpha_star_max_rel_err", err_u, "eq. (38) vs eq. (34) at alpha*"),
        _row("eq. (43)", "eq43_vs_eq36_max_rel_err", err_43, "beta_hat = beta, C_hat = C"),
    ]
    # C8: u~ strictly increasing in sigma^2 (Remark 4)
    ut = theory.u_tilde(sig_grid, sig_grid, k1)
    # random draws: u~ = u(alpha=0) - (pN beta^2/(1-p)) alpha* (eq. 38), and u(alpha=0) does not depend on
    # sigma^2, so u~ increases strictly iff the gain (pN beta^2/(1-p)) alpha* decreases strictly; the gain
    # is evaluated without the cancellation that hides increments of u~ below one ulp at large sigma^2.
    dec_rand = np.inf
    for k, s1, s2 in draws[:50]:
        gain = k.p * k.N * k.beta**2 / (1 - k.p) * theory.alpha_star(sig_grid * s1 / s2, sig_grid, k)
        dec_rand = min(dec_rand, float(np.min(-np.diff(gain) / gain[:-1])))
    rows.append(_row("Remark 4", "u_tilde_min_increment_fig1", np.min(np.diff(ut)), "60-point log grid 1e-4..1e4"))
    rows.append(_row("Remark 4", "u_tilde_gain_min_rel_decrease_random", dec_rand,
                     "50 random constant draws; u~ = u(0) - gain, gain strictly decreasing <=> u~ strictly increasing"))
    # C9: alpha_check in [0, 1] for random and extreme estimates
    rng = RngStreams(seed).numpy("theory_draws_43")
    b2 = np.concatenate([10 ** rng.uniform(-8, 8, 5000), [0.0, np.inf, np.nan]])
    c2 = np.concatenate([10 ** rng.uniform(-8, 8, 5000), [0.0, 0.0, 1.0]])
    pp = np.concatenate([rng.uniform(0, 0.99, 5000), [0.5, 0.5, 0.5]])
    s = np.concatenate([10 ** rng.uniform(-8, 8, 5000), [0.0, 1.0, 1.0]])
    with np.errstate(invalid="ignore"):
        a43 = policy.adaptive_weight(b2, c2, pp, 10, 10, s, s)
    rows.append(_row("eq. (43)", "practical_alpha_min", np.min(a43), "eq. (43) on 5003 draws incl. beta_hat=0, inf, none received"))
    rows.append(_row("eq. (43)", "practical_alpha_max", np.max(a43), ""))
    # C11: adaptive bound below every fixed alpha on the Fig. 1 eps grid
    lo, hi = params["fig1_eps_range"]
    eps = np.logspace(np.log10(lo), np.log10(hi), int(params["fig1_points"]))
    s2g = privacy_mi.acfl_sigma2_for_epsilon(eps, k1.d, k1.o)
    alphas = np.linspace(0, 1, 101)
    lam, T = params["fig1_lambda"], params["fig1_T"]
    B_fix = theory.convergence_bound(theory.bound_u(s2g[None, :], s2g[None, :], alphas[:, None], k1), lam, T)
    B_ad = theory.convergence_bound(theory.u_tilde(s2g, s2g, k1), lam, T)
    a_st = theory.alpha_star(s2g, s2g, k1)
    gap = B_fix - B_ad[None, :]
    far = np.abs(alphas[:, None] - a_st[None, :]) > 1e-6
    rows.append(_row("Fig. 1(a)", "min_gap_fixed_minus_adaptive", np.min(gap), "alpha in linspace(0,1,101) x eps grid"))
    rows.append(_row("Fig. 1(a)", "ties_away_from_alpha_star", np.sum((gap <= 1e-12) & far), "grid points with B(alpha) <= B* + 1e-12 but alpha != alpha*"))
    for a in params["fig1_alphas"]:
        s_touch = theory.touch_sigma2(a, k1)
        rows.append(_row("Fig. 1(a)", f"touch_eps_alpha_{a:g}", privacy_mi.acfl_mi_dp_epsilon(s_touch, s_touch, k1.d, k1.o),
                         "eps where alpha*(sigma^2) = alpha"))
    return rows


def monte_carlo_rows(params: dict, seed: int) -> list[dict]:
    """C3 (Lemma 1) and C4 (Lemma 2, eq. 27) by Monte Carlo at W = W0 with fresh noise and stragglers."""
    N, m, d, o = (params[k] for k in ("num_devices", "samples_per_device", "dim_in", "dim_out"))
    p, s2, K = params["mc_straggler_prob"], params["mc_sigma2"], int(params["mc_draws"])
    prob = linear_regression_federated(RngStreams(seed), N, m, d, o)
    W = prob.W0
    G_dev = prob.A_dev @ W - prob.b_dev  # eq. (7), (N, d, o)
    G_true = G_dev.sum(0)  # eq. (24)
    dev_sq = (G_dev**2).sum((1, 2))
    rng = RngStreams(seed).numpy("theory_mc")
    I = stragglers.straggler_mask(rng.random((K, N)), p).astype(float)
    # the summed Stage-1 noise: sum of N i.i.d. N(0, s2) entries is N(0, N s2) (eq. 4)
    nX = np.sqrt(N * s2) * rng.standard_normal((K, d, d))
    nY = np.sqrt(N * s2) * rng.standard_normal((K, d, o))
    g_coded = G_true[None] + nX @ W - nY  # eq. (8) with fresh noise
    g_dev = (I @ G_dev.reshape(N, d * o)).reshape(K, d, o)
    alpha_adapt = float(policy.adaptive_weight(dev_sq.mean(), (W**2).sum(), p, d, o, s2, s2))
    rows = []
    for name, a in (("alpha", params["mc_alpha"]), ("acfl_alpha_at_W0", alpha_adapt)):
        g_all = a * g_coded + (1 - a) / (1 - p) * g_dev  # eq. (9)
        bias = g_all.mean(0) - G_true
        rel = np.linalg.norm(bias) / np.linalg.norm(G_true)
        along = float(np.sum(bias * G_true) / np.sum(G_true**2))
        rows.append(_row("Lemma 1", f"unbiasedness_rel_err_{name}", rel, f"||mean - G_true|| / ||G_true||, alpha = {a:.4g}, K = {K}"))
        rows.append(_row("Lemma 1", f"relative_bias_along_G_true_{name}", along,
                         f"<mean - G_true, G_true> / ||G_true||^2 (signed; 0 if unbiased), alpha = {a:.4g}, K = {K}"))
        rows.append(_row("Lemma 1", f"mc_mean_along_G_true_{name}", float(np.sum(g_all.mean(0) * G_true) / np.sum(G_true**2)),
                         f"<mean of G_all, G_true> / ||G_true||^2 (1 if unbiased), alpha = {a:.4g}, K = {K}"))
        if name != "alpha":
            continue
        mc = float(np.mean((g_all**2).sum((1, 2))))
        mc_centred = float(np.mean(((g_all - G_true) ** 2).sum((1, 2))))
        exact = theory.exact_second_moment((G_true**2).sum(), dev_sq.sum(), (W**2).sum(), a, p, N, d, o, s2, s2)
        bound = theory.lemma2_second_moment_bound(a, p, N, dev_sq.max(), d, o, s2, s2, (W**2).sum())
        exact_centred = exact - (G_true**2).sum()
        rows += [
            _row("Lemma 2", "mc_second_moment", mc, f"alpha = {a}, p = {p}, sigma^2 = {s2}, K = {K}"),
            _row("Lemma 2", "lemma2_bound", bound, "eq. (27) with beta^2 = max_i ||G_i||^2, C^2 = ||W||^2"),
            _row("Lemma 2", "mc_over_bound", mc / bound, "must be <= 1"),
            _row("Lemma 2", "mc_rel_err_vs_exact", abs(mc / exact - 1), "exact conditional second moment (README)"),
            _row("Lemma 2", "mc_centred_rel_err_vs_exact", abs(mc_centred / exact_centred - 1), "E||G_all - G_true||^2 only"),
        ]
    return rows


#: Theorem-2 noise modes: ``fresh`` redraws the Stage-1 noise every iteration (what the proof assumes,
#: Lemma 1 conditional on W_t); ``alg1`` draws it once before training, as Algorithm 1 and Figs. 3-4 do
THM2_NOISE_MODES = ("fresh", "alg1")


def theorem2_rows(params: dict, seed: int) -> list[dict]:
    """Theorem 2 (eq. 33) on the simulated problem, eta_t = 1/(lambda t), for alpha = 0.5 and ACFL, with the
    Stage-1 noise redrawn every iteration (``fresh``) and drawn once as in Algorithm 1 (``alg1``)."""
    N, m, d, o, T = (params[k] for k in ("num_devices", "samples_per_device", "dim_in", "dim_out", "iterations"))
    p, s2, reps = params["mc_straggler_prob"], params["mc_sigma2"], int(params["thm2_repetitions"])
    prob = linear_regression_federated(RngStreams(seed), N, m, d, o)
    one = simulate.StackedProblem.from_problems([prob])
    stacked = simulate.StackedProblem(np.repeat(one.A_dev, reps, 0), np.repeat(one.b_dev, reps, 0), np.repeat(one.W0, reps, 0))
    lam = float(np.linalg.eigvalsh(one.A[0]).min())
    base = RngStreams(seed)
    uniforms = np.stack([stragglers.straggler_uniforms(base.spawn(r).numpy("straggler"), T, N) for r in range(reps)])
    rows = []
    for mode in THM2_NOISE_MODES:
        if mode == "fresh":
            HX, HY, fresh = one.A[:, None], one.B[:, None], base.numpy("thm2_fresh_noise")
        else:  # eq. (4): the summed noise of N uploads, N(0, N sigma^2) per entry, one draw per repetition
            z1, z2 = coding.draw_stage1_normals(base.numpy("thm2_alg1_noise"), reps, d, o)
            HX = (one.A + np.sqrt(N * s2) * z1)[:, None]
            HY = (one.B + np.sqrt(N * s2) * z2)[:, None]
            fresh = None
        trace = simulate.train(stacked, HX, HY, np.full(2, p), [0.5, np.nan], [s2, s2], [s2, s2], uniforms, 1.0 / lam, T,
                               record_at=[0, T], fresh_noise_rng=fresh)
        for r, name in enumerate(("alpha_0.5", "acfl")):
            k = theory.BoundConstants(N=N, d=d, o=o, p=p, beta=float(np.sqrt(trace.beta2_max[:, r].max())),
                                      C=float(np.sqrt(trace.w2_max[:, r].max())))
            u_sup = max(theory.bound_u(s2, s2, float(trace.alpha_min[:, r].min()), k),
                        theory.bound_u(s2, s2, float(trace.alpha_max[:, r].max()), k))  # u convex in alpha
            bound = theory.convergence_bound(u_sup, lam, T)
            mean = float(trace.dist2[:, r, -1].mean())
            what = "noise redrawn every iteration" if mode == "fresh" else "noise drawn once (Algorithm 1)"
            rows += [_row("Theorem 2", f"thm2_mean_dist2_{name}_{mode}", mean,
                          f"mean over {reps} repetitions of ||W_T - W*||^2, T = {T}, {what}"),
                     _row("Theorem 2", f"thm2_bound_{name}_{mode}", bound,
                          "4 sup_t u(alpha_t) / (lambda^2 T), running-max beta^2, C^2"),
                     _row("Theorem 2", f"thm2_margin_{name}_{mode}", bound / mean, "bound / mean (must be >= 1)")]
    return rows


def mi_dp_rows(params: dict) -> list[dict]:
    """Theorem 1 itself: the worst-case mutual information of the Stage-1 upload (Definition 1) against eq. (17),
    at the noise variances of Figs. 3 and 4 (ACFL, sigma1^2 = sigma2^2)."""
    d, o = params["dim_in"], params["dim_out"]
    levels = sorted({float(s) for s in params["fig3_sigma2"]}
                    | {float(privacy_mi.acfl_sigma2_for_epsilon(e, d, o)) for e in params["fig4_epsilons"]})
    rows = []
    for s2 in levels:
        lo, hi = privacy_mi.worst_case_entry_information(s2, d, o)
        tag = f"sigma2={s2:.6g}"
        rows += [_row("Theorem 1", f"sigma2_{tag}", s2, "sigma1^2 = sigma2^2 of a Fig. 3 level or a Fig. 4 eps (ACFL)"),
                 _row("Theorem 1", f"eps17_{tag}", privacy_mi.acfl_mi_dp_epsilon(s2, s2, d, o), "eq. (17), nats"),
                 _row("Theorem 1", f"mi_upper_{tag}", hi, "upper bound on sup I(X_jk; upload | rest) (Gaussian, README)"),
                 _row("Theorem 1", f"mi_lower_{tag}", lo, "achieved I(X_jk; upload | rest) (Blahut-Arimoto input law)")]
    return rows


#: seed of the random parameter draws of the identity checks (they must hold for any draw)
IDENTITY_DRAW_SEED = 0


def identity_rows(params: dict) -> list[dict]:
    return privacy_rows() + bound_rows(params, IDENTITY_DRAW_SEED) + mi_dp_rows(params)
