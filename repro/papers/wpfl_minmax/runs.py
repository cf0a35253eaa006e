"""Run tasks of wpfl_minmax (``experiments.TASKS``): Table II, the link-budget check, one training group."""

from __future__ import annotations

import numpy as np

from repro.experiment import RunContext, RunSpec, is_pending, unavailable_result
from repro.papers.wpfl_minmax.experiments import CONFIG_DATASET

#: the series whose upload bits Table III reports
TABLE3_SERIES = ("S1", "S2", "S3", "S4", "S6")


def table2(spec: RunSpec, ctx: RunContext) -> dict:
    """Table II: sigma_DP of Theorem 1 for every model and T0, beside the printed values."""
    from repro.privacy.quantized_gaussian import wpfl_delta, wpfl_sigma_dp

    p = spec.params
    rows = []
    for fam in ("mlr", "dnn", "cnn"):
        c, d = float(p["clip"][fam]), float(p["delta_q"][fam])
        for t0 in p["t0_grid"]:
            comp = wpfl_sigma_dp(d, c, t0, float(p["epsilon_q"]), int(p["bits"]), float(p["q"]))
            printed = p["printed"].get(fam, {}).get(str(t0))
            rows.append({"model": fam, "t0": t0, "computed": comp, "printed": printed,
                         "delta_at_printed": wpfl_delta(printed, c, t0, float(p["epsilon_q"]), int(p["bits"]), float(p["q"]))
                         if printed else None})
    eps_check = {str(e): wpfl_sigma_dp(1e-3, 7.0, 20, e, 16, 0.01) for e in (0.1, 1.0, 10.0)}
    return {"rows": rows, "epsilon_independence": eps_check}


def link_budget(spec: RunSpec, ctx: RunContext) -> dict:
    """Eqs. (10)-(14) with Table I: mean SNR and the mean element error rate rho a client at distance d
    sees on one random subchannel and on the best of K, with eq. (13) read per symbol and as printed.
    The mean over Rayleigh fading (gain x ~ Exp(1); the best of K iid gains has density
    K (1 - e^-x)^(K-1) e^-x) is integrated numerically on a log grid of x, so the rare deep fades that
    dominate the mean are weighted exactly (a Monte Carlo mean with few draws misses them)."""
    from repro.wireless.channel import LinkBudget, dbm_to_watt, linear_to_db
    from repro.wireless.qam import qam_ber, word_error_probability

    p = spec.params
    lb = LinkBudget(num_subchannels=p["num_subchannels"], total_bw_hz=p["total_bw_hz"], noise_dbm_per_hz=p["noise_dbm_per_hz"],
                    client_power_dbm=p["client_power_dbm"], bs_power_dbm=p["bs_power_dbm"], pl0_db=p["pl0_db"],
                    pl_exponent=p["pl_exponent"], dl_power_split=p["dl_power_split"])
    d = np.linspace(p["d_min_m"], p["d_max_m"], 19)
    x, w_one, w_best = fading_quadrature(int(p["points"]), int(p["num_subchannels"]))
    out = {"distance_m": d.tolist(), "rows": [], "quadrature": {"points": len(x), "x_min": float(x[0]), "x_max": float(x[-1])}}
    for direction, power in (("uplink", p["client_power_dbm"]), ("downlink", lb.dl_power_dbm)):
        mean_snr = lb.snr(dbm_to_watt(power), lb.mean_gain(d))
        for convention in ("symbol", "bit"):
            rho = word_error_probability(qam_ber(mean_snr[:, None] * x[None, :], p["qam_order"], convention), p["bits"])
            rho0 = word_error_probability(qam_ber(np.zeros(1), p["qam_order"], convention), p["bits"])[0]
            tail = float(-np.expm1(-x[0]))  # P(gain < x_min): counted at the rate of gain 0
            out["rows"].append({"direction": direction, "ber_snr": convention, "mean_snr_db": linear_to_db(mean_snr).tolist(),
                                "rho_random": (rho @ w_one + rho0 * tail).tolist(),
                                "rho_best_of_k": (rho @ w_best + rho0 * tail ** int(p["num_subchannels"])).tolist()})
    return out


def fading_quadrature(points: int, k: int, x_min: float = 1e-14, x_max: float = 60.0):
    """Nodes x (log-spaced) and trapezoid weights for E[f(x)], x ~ Exp(1), and for the best of k iid such
    gains, over [x_min, x_max] (the mass outside is below 1e-14 and e^-60)."""
    u = np.linspace(np.log(x_min), np.log(x_max), points)
    x = np.exp(u)
    trap = np.full(points, u[1] - u[0])
    trap[[0, -1]] /= 2
    w_one = trap * x * np.exp(-x)  # dx = x du
    w_best = w_one * k * (-np.expm1(-x)) ** (k - 1)
    return x, w_one, w_best


def regime(spec: RunSpec, ctx: RunContext) -> dict:
    """How the DP noise and the global model weigh in one round, at the profile's setting and at the
    paper-scale one (tau = 100, a package decision: (20a), (20b) are single steps; all data, b_n = round(q |D_n|)): one FL update (20a) from the initial model at P5's
    eta_F against the noise norm sigma sqrt(|w|) of one upload (Table II sigma at ``t0``), and the pull of the
    PL step (20b) toward the received global model per round, 1 - (1 - eta_P lambda)^tau, at P7's choice."""
    import torch

    from repro.data import DatasetUnavailableError
    from repro.data.errors import unavailable_reason
    from repro.engine.train import local_sgd
    from repro.papers.wpfl_minmax import theory as th
    from repro.papers.wpfl_minmax.environment import PAPER_NUM_PARAMS, build_environment
    from repro.papers.wpfl_minmax.loop import batch_sizes, step_plan_of
    from repro.papers.wpfl_minmax.uplink import mechanism_sigma

    t0 = int(spec.params["t0"])
    rows = []
    for cfg in spec.params["configs"]:
        for setting, over in (("profile", {}), ("paper", dict(spec.params["paper_setting"]))):
            params = {**spec.params["settings"], **over}
            params["sigma_table"] = {m: {int(k): v for k, v in t.items()} for m, t in params["sigma_table"].items()}
            try:
                env = build_environment(cfg, params, spec.seed)
            except DatasetUnavailableError as e:
                return unavailable_result(unavailable_reason(CONFIG_DATASET[cfg], e))
            p, fam = env.params, env.family
            L, mu = th.lipschitz_and_convexity(cfg)
            kb = th.BoundConstants(**p["bound_constants"], M=env.m_bound)
            eta_f = th.eta_fl_optimal(mu, L, kb)
            eps_f, eps_p = float(th.eps_fl(eta_f, mu, L, kb)), th.eps_pl_target(mu, float(p["eps_p_fraction"]))
            sigma, clip, bits = mechanism_sigma(env, "proposed", t0), float(p["clip"][fam]), int(p["bits"])
            m = th.ModelBoundInputs(PAPER_NUM_PARAMS[cfg], clip, sigma, (clip + 3 * sigma) / (2.0**bits - 1), clip / (2.0**bits - 1))
            eta_p, lam, _ = th.solve_p7(np.zeros(1), g0=env.g0, mu=mu, eps_p=eps_p, eps_f=eps_f,
                                        gam2=th.gamma2(0.0, m, kb), gam3=th.gamma3(0.0, m, kb), k=kb)
            tau = int(p["local_steps"])
            start = env.theta0.unsqueeze(0).repeat(env.num_clients, 1)
            upd = float((local_sgd(env.model, start, env.train, step_plan_of(env, 1), lr=eta_f) - start).norm(dim=1).median())
            sizes = env.train.sizes.double()
            b = batch_sizes(env)
            bt = b.double() if isinstance(b, torch.Tensor) else torch.full_like(sizes, float(b))
            noise = sigma * float(np.sqrt(env.theta0.numel()))
            pull = 1 - (1 - float(eta_p[0]) * float(lam[0])) ** tau
            rows.append({"config": cfg, "setting": setting, "tau": tau, "batch_median": float(bt.median()),
                         "train_samples_median": float(sizes.median()), "sigma": sigma, "eta_f": eta_f,
                         "eta_p": float(eta_p[0]), "lambda": float(lam[0]), "update_norm_median": upd, "noise_norm": noise,
                         "noise_to_update": noise / upd, "pl_pull_per_round": pull,
                         "sample_inclusion_per_upload": float((1 - (1 - torch.minimum(bt, sizes) / sizes) ** tau).mean())})
            ctx.log(f"regime {cfg} {setting}: noise/update {noise / upd:.3g}, PL pull {pull:.3g}")
    return {"t0": t0, "rows": rows}


def train_group(spec: RunSpec, ctx: RunContext) -> dict:
    """Every series of one group at every T0 of the configuration, for every seed. The learning rate of
    each PFL baseline is chosen once, by the sweep on the first seed's validation split, and then used for
    every seed and T0; the schedulers are swept too (reported beside) but train at the paper's fixed rate."""
    from repro.data import DatasetUnavailableError
    from repro.data.errors import unavailable_reason
    from repro.papers.wpfl_minmax.environment import build_environment
    from repro.papers.wpfl_minmax.experiments import swept_series
    from repro.papers.wpfl_minmax.training import GROUPS, TUNED_APPLIED, run_series
    from repro.papers.wpfl_minmax.tuning import tune_learning_rate, validation_accuracy

    cfg, group = spec.params["config"], spec.params["group"]
    t0s, seeds = [int(t) for t in spec.params["t0s"]], [int(s) for s in spec.params["seeds"]]
    params = dict(spec.params["settings"])
    params["sigma_table"] = {m: {int(k): v for k, v in t.items()} for m, t in params["sigma_table"].items()}
    t_max, t_bits = max(t0s), int(spec.params["bits_t0"])
    out = {"config": cfg, "group": group, "seeds": seeds, "t0s": t0s, "tuning": {}, "per_seed": {}}
    lrs, untuned = {}, set()
    done, total = 0, len(seeds) * len(spec.params.get("probe_series") or GROUPS[group]) * sum(t0s)
    for k, seed in enumerate(seeds):
        try:
            env = build_environment(cfg, params, seed, device=ctx.device)
        except DatasetUnavailableError as e:
            return unavailable_result(unavailable_reason(CONFIG_DATASET[cfg], e))
        ctx.log(f"{cfg} seed {seed}: G0 = {env.g0:.4g}, M = {env.m_bound:.4g} (Assumption 1, from the initial model)")
        members = spec.params.get("probe_series") or GROUPS[group]  # a cost probe trains one series only
        if k == 0 and not spec.params.get("probe_series"):
            for series in members:
                if series in swept_series(params):  # kept like a training: a resumed group does not sweep again
                    tune = ctx.resumable(f"tune/{seed}/{series}", {"params": spec.params, "seed": seed},
                                         lambda series=series: tune_learning_rate(
                                             env, series, min(t0s), params["tuning_lrs"], log=ctx.log))
                    if is_pending(tune):  # a helper (repro run --helper): another process sweeps it; its
                        untuned.add(series)  # trainings wait for the chosen rate
                        continue
                    out["tuning"][series] = tune
                    if series in TUNED_APPLIED:  # the schedulers keep the paper's fixed rate (C1/C2 are about it)
                        lrs[series] = tune["chosen"]
            if group == "sched" and "S8" in swept_series(params):  # Proposed on the same validation split, for the tuned comparison beside C1/C2
                out["validation_proposed"] = ctx.resumable(
                    f"validation/{seed}/S1", {"params": spec.params, "seed": seed},
                    lambda: {"accuracy": validation_accuracy(env, "S1", min(t0s))}).get("accuracy")
        block = {"g0": env.g0, "m_bound": env.m_bound, "series": {}}
        for series in members:
            block["series"][series] = {}
            for t0 in ([] if series in untuned else t0s):
                curve = t0 == t_max and series in ("S1", *GROUPS["pfl"]) and spec.params["round_curves"]  # Fig. 5
                ev = int(params["fig5_eval_every"]) if curve else None
                # each training draws from streams keyed by (seed, round) afresh, so a finished one is kept and an
                # interrupted group resumes (a paper-scale group runs for hours on a CPU)
                res = ctx.resumable(f"{seed}/{series}/{t0}", {"params": spec.params, "seed": seed, "lr": lrs.get(series)},
                                    lambda series=series, t0=t0, ev=ev: run_series(
                                        env, series, t0, lr=lrs.get(series), eval_every=ev,
                                        keep_decisions=(series == "S1" and t0 == t_max),
                                        bit_stats=(t0 == t_bits and series in TABLE3_SERIES), log=ctx.log))
                if not ev:
                    res.pop("records", None)
                block["series"][series][str(t0)] = res
                done += t0  # work ~ T0 rounds per training
                ctx.progress(done, total, f"{cfg} {group}: T0-rounds trained")
        if group == "proposed" and not spec.params.get("probe_series"):
            block["p7_response"] = p7_response(env, t0s)
        out["per_seed"][str(seed)] = block
    return out


def p7_response(env, t0s) -> dict:
    """Problem P7's solution (eta_P*, lambda*) over the DL element error rate rho_G and the DP noise, with
    the constants this run trains with, and the share of Psi X in Phi at the optimum (diagnostic figure)."""
    from repro.papers.wpfl_minmax import theory as th
    from repro.papers.wpfl_minmax.environment import PAPER_NUM_PARAMS
    from repro.papers.wpfl_minmax.uplink import mechanism_sigma

    p, fam = env.params, env.family
    L, mu = th.lipschitz_and_convexity(env.config)
    kb = th.BoundConstants(**p["bound_constants"], M=env.m_bound)
    eta_f = th.eta_fl_optimal(mu, L, kb)
    eps_f, eps_p = float(th.eps_fl(eta_f, mu, L, kb)), th.eps_pl_target(mu, float(p["eps_p_fraction"]))
    clip, bits = float(p["clip"][fam]), int(p["bits"])
    rho = np.concatenate([[0.0], np.geomspace(1e-9, 1e-1, 33)])
    t0 = max(t0s)
    sigmas = {"none": 0.0, "Table II": mechanism_sigma(env, "proposed", t0), "Gaussian": mechanism_sigma(env, "gaussian", t0)}
    curves = []
    for name, s in sigmas.items():
        m = th.ModelBoundInputs(PAPER_NUM_PARAMS[env.config], clip, s, (clip + 3 * s) / (2.0**bits - 1), clip / (2.0**bits - 1))
        g2, g3 = th.gamma2(0.0, m, kb), th.gamma3(0.0, m, kb)
        eta, lam, _ = th.solve_p7(rho, g0=env.g0, mu=mu, eps_p=eps_p, eps_f=eps_f, gam2=g2, gam3=g3, k=kb)
        a, psi, x = th.phi_terms(eta, lam, rho, g0=env.g0, mu=mu, eps_f=eps_f, gam2=g2, gam3=g3, k=kb)
        curves.append({"noise": name, "sigma": s, "rho_g": rho.tolist(), "eta_p": eta.tolist(), "lambda": lam.tolist(),
                       "noise_share": (psi * x / (a + psi * x)).tolist()})
    # the two limits of P7: X -> 0 (gradient term only) and X -> infinity (argmin of Psi), and the whole
    # response to the noise weight X = Gamma2 rho_G + Gamma3 + D of (34)
    limits = {}
    for name, x in (("gradient_term_only", 1e-12), ("noise_term_only", 1e12)):
        e, l, _ = th.solve_p7(np.zeros(1), g0=env.g0, mu=mu, eps_p=eps_p, eps_f=0.0, gam2=0.0, gam3=x, k=kb)
        limits[name] = {"eta_p": float(e[0]), "lambda": float(l[0])}
    xs = np.geomspace(1e-4, 1e10, 57)
    e, l = _solve_over_x(xs, env.g0, mu, eps_p, kb)
    m = th.ModelBoundInputs(PAPER_NUM_PARAMS[env.config], clip, sigmas["Table II"],
                            (clip + 3 * sigmas["Table II"]) / (2.0**bits - 1), clip / (2.0**bits - 1))
    x_lo = th.phi_terms(0.1, 0.1, 0.0, g0=env.g0, mu=mu, eps_f=eps_f, gam2=th.gamma2(0.0, m, kb), gam3=th.gamma3(0.0, m, kb), k=kb)[2]
    x_hi = th.phi_terms(0.1, 0.1, 1.0, g0=env.g0, mu=mu, eps_f=eps_f, gam2=th.gamma2(0.0, m, kb), gam3=th.gamma3(0.0, m, kb), k=kb)[2]
    response = {"x": xs.tolist(), "eta_p": e.tolist(), "lambda": l.tolist(), "x_operating": [float(x_lo), float(x_hi)]}
    return {"t0": t0, "g0": env.g0, "m_bound": env.m_bound, "mu": mu, "L": L, "eps_p": eps_p, "eps_f": eps_f,
            "eta_f": eta_f, "curves": curves, "limits": limits, "response": response}


def _solve_over_x(xs, g0, mu, eps_p, kb):
    """P7 with the noise weight X of (34) set directly (one value per entry of ``xs``)."""
    from repro.papers.wpfl_minmax import theory as th

    eta, lam = [], []
    for x in xs:
        e, l, _ = th.solve_p7(np.zeros(1), g0=g0, mu=mu, eps_p=eps_p, eps_f=0.0, gam2=0.0, gam3=float(x), k=kb)
        eta.append(float(e[0]))
        lam.append(float(l[0]))
    return np.array(eta), np.array(lam)
