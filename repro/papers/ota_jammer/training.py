"""One OTA-FL training run: Upcycled-FL, FedProx or FedAvg with the proposed power control, the
baseline [13], or the non-private reference, on the vectorised engine.

Clients are the rows of one parameter stack; local training for all 50 clients is one engine call
per round. Local rules (``local_rule``):

* ``epochs`` (the paper's): E epochs of minibatch SGD with momentum (eqs. 4-6), then the update is
  clipped to norm tau (Assumption 1 realised by clipping);
* ``one_step`` (the package's addition): one full-batch gradient step with per-sample clipping
  (:mod:`repro.papers.ota_jammer.one_step`), the rule for which the paper's accountant holds.

The uplink is simulated in the model domain (:func:`repro.wireless.ota.ota_aggregate`; eq. (16) with
the effective noise of Appendix A). Common random numbers across methods within a trial: the same
init, channel draws ``|h_i^m|``, base noise vectors and minibatch order (separate streams of the seed).
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch

from repro.algorithms.base import FLSetup
from repro.algorithms.fedavg import FedAvg
from repro.algorithms.upcycled import even_step, even_step_coefficients
from repro.engine.data import ClientData
from repro.engine.train import batch_loss
from repro.papers.ota_jammer import theory
from repro.papers.ota_jammer.one_step import one_step_updates
from repro.privacy.ota_accounting import (liu_simeone_epsilon, ma_epsilon_for_noise, ma_epsilon_numeric,
                                          ma_epsilon_per_client, ma_rate)
from repro.privacy.clip import clip_rows, row_norms
from repro.wireless.fading import rayleigh_power_gains
from repro.wireless.jammer import jammer_min_amplitude, jammer_model_std, jammer_power
from repro.wireless.ota import ota_aggregate
from repro.wireless.power_control import (adaptive_common_gains, baseline_gain_budget, client_amplitudes,
                                          common_gain_cap, power_budget_from_snr, power_feasibility_factors,
                                          transmit_energy_ratio)

ALGORITHMS = ("upcycled", "fedprox", "fedavg")
MODES = ("proposed", "baseline13", "nonprivate")
LOCAL_RULES = ("epochs", "one_step")


def _noise_schedule(cfg, mode, cal, gains, p, P, D):
    """Model-domain noise std per transmission ``[M]`` and [13]'s common gains (None otherwise)."""
    M = gains.shape[0]
    if mode == "baseline13":
        b = cfg["baseline"]
        budget = baseline_gain_budget(b["epsilon"], b["delta"], D, cfg["sigma_c"] ** 2, b["accountant"])
        beta = adaptive_common_gains(common_gain_cap(p, gains, P), budget, b["gamma"])
        return cfg["sigma_c"] / np.sqrt(beta), beta
    if mode == "proposed":
        return np.full(M, cal.total_std), None
    return np.zeros(M), None


def run_training(cfg: dict, split, streams, log=print) -> dict:
    """Train per ``cfg`` (a RunSpec's params) on ``split``; returns per-round curves and privacy/power logs.

    ``cfg`` keys: algorithm (upcycled|fedprox|fedavg), mode (proposed|baseline13|nonprivate),
    local_rule (epochs|one_step), model (mlp|mlr), rounds M, local_epochs, batch_size, lr, momentum,
    mu, lambda_schedule, tau, one_step_clip, snr_db, sigma_c, eps0/delta0 (calibration target),
    cj_epsilon/cj_delta/kappa (jammer; None = none), baseline (dict: accountant, gamma, epsilon, delta),
    server_step (FedProx / FedAvg / [13]: a number or ``"even_step"``, see ``theory.server_step_schedule``;
    Upcycled-FL's step is its even iteration, eq. 9), eval_odd (log Upcycled's odd iterates),
    eval_train_loss (log the training loss every round).
    """
    from repro.models import build_model

    algo, mode, rule = cfg["algorithm"], cfg["mode"], cfg.get("local_rule", "epochs")
    if algo not in ALGORITHMS or mode not in MODES or rule not in LOCAL_RULES:
        raise ValueError(f"algorithm {algo!r} / mode {mode!r} / local_rule {rule!r} not in {ALGORITHMS} / {MODES} / {LOCAL_RULES}")
    M, K = int(cfg["rounds"]), len(split.train_y)
    train = ClientData.from_client_arrays(split.train_x, split.train_y)
    test = ClientData.from_client_arrays([split.test_x], [split.test_y])
    sizes = train.sizes.clone()
    D = int(sizes.sum())
    p = (sizes.double() / D).numpy()
    p32 = torch.from_numpy(p).float()
    feats = int(split.train_x[0].shape[1])
    model = build_model(cfg["model"], in_features=feats, **({"hidden": cfg["hidden"]} if cfg["model"] == "mlp" else {}),
                        num_classes=cfg["num_classes"])
    d = model.num_params
    P = power_budget_from_snr(cfg["snr_db"], d, cfg["sigma_c"] ** 2)
    tau, mu = float(cfg["tau"]), (float(cfg["mu"]) if algo != "fedavg" else 0.0)

    # --- calibration (alpha_u from (eps0, delta0), eqs. 21-23) and channels ---------------------------
    cal = theory.calibrate(M, D, cfg["eps0"], cfg["delta0"], cfg.get("cj_epsilon"), cfg.get("cj_delta", 1e-5),
                           cfg.get("kappa", 7.0), cfg["sigma_c"])
    gains = rayleigh_power_gains((M, K), streams.torch("channel")).numpy()  # |h_i^m|^2 ~ Exp(1), [M, K]
    h_abs = np.sqrt(gains)
    h_cj = np.sqrt(rayleigh_power_gains((M,), streams.torch("jammer_channel")).numpy())
    noise_std, beta = _noise_schedule(cfg, mode, cal, gains, p, P, D)
    at_cap = None if beta is None else float(np.mean(beta >= common_gain_cap(p, gains, P) * (1 - 1e-12)))
    coefs = (even_step_coefficients(mu, theory.lambda_schedule(M, cfg["lambda_schedule"]))
             if algo == "upcycled" else np.zeros(M))
    if algo == "upcycled" and cfg.get("server_step", 1.0) != 1.0:
        raise ValueError("Upcycled-FL's server step is its even iteration (eq. 9); server_step must be 1")
    steps = theory.server_step_schedule(cfg.get("server_step", 1.0), M, float(cfg["mu"]), cfg["lambda_schedule"])

    # local solvers (eqs. 4-6): the engine's FedAvg / FedProx local update. The proximal gradient enters the
    # momentum buffer (v <- m v + g + mu (w - w_global)), as in the authors' FedProxOptimizer (d_p is the buffer)
    learner = None
    if rule == "epochs":
        setup = FLSetup(model, train, streams, lr=cfg["lr"], batch_size=cfg["batch_size"], local_epochs=cfg["local_epochs"],
                        last_batch=cfg.get("last_batch", "partial"))
        learner = FedAvg(setup, mu=mu, momentum=cfg["momentum"], prox_in_momentum=True, upload_kind="update")
        everyone = setup.clients_or_all(None)
    w = model.init(streams.torch("init"), rows=1)[0]
    noise_gen = streams.torch("dp_noise")
    eval_loss = bool(cfg.get("eval_train_loss", True))
    acc, loss, odd_acc, odd_loss = [], [], [], []
    s_log, ratio_max, clipped, sample_clipped = np.ones((M, K)), 0.0, 0.0, 0.0
    power_mean = []  # mean over clients of ||x_i||^2 / P_i per round (the clients' transmissions)
    signal_norm, bias_rel, noise_norm = [], [], []  # regime per round: ||sum p u/s||, PC bias, ||noise||
    a0, l0 = _evaluate(model, w, train, test, eval_loss)
    t0 = time.perf_counter()
    for m in range(M):
        if rule == "epochs":
            stack = learner.local_update(w.unsqueeze(0).expand(K, -1).contiguous(), everyone, m, anchor=w)
            raw = stack - w
        else:  # one step from w for every client (FedProx's proximal gradient is 0 at w)
            raw, frac = one_step_updates(model, w, train.x, train.y, sizes, cfg["one_step_clip"], tau)
            sample_clipped += frac / M
        norms, upd = row_norms(raw), clip_rows(raw, tau)  # Assumption 1 by clipping
        clipped += float((norms > tau * (1 + 1e-6)).float().mean()) / M
        base_noise = torch.randn(d, generator=noise_gen)  # one standard-normal vector per transmission
        if mode == "proposed":
            s = power_feasibility_factors(cal.alpha_u, p, h_abs[m], P)  # eq. (14) with (11)
            amp = client_amplitudes(cal.alpha_u, p, h_abs[m], tau, s)
        elif mode == "baseline13":
            s = np.ones(K)
            amp = math.sqrt(beta[m]) * p / (h_abs[m] * tau)  # common gain, channel inversion
        else:
            s, amp = np.ones(K), None
        if amp is not None:
            ratios = transmit_energy_ratio(amp, upd.norm(dim=1).double().numpy(), P)
            ratio_max = max(ratio_max, float(ratios.max()))
            power_mean.append(float(ratios.mean()))
        s_log[m] = s
        s32 = torch.from_numpy(s).float()
        signal = ota_aggregate(upd, p32, tau, s32)  # noiseless aggregate, with the PC's s_i
        unbiased = ota_aggregate(upd, p32, tau, torch.ones(K))  # the same with every s_i = 1
        signal_norm.append(float(signal.norm()))
        bias_rel.append(float((signal - unbiased).norm() / unbiased.norm().clamp(min=1e-30)))
        noise_norm.append(float(noise_std[m]) * float(base_noise.norm()))
        agg = signal + float(noise_std[m]) * base_noise if noise_std[m] > 0 else signal  # eqs. (16)/(19)
        w_odd = w + agg
        if algo == "upcycled":
            if cfg.get("eval_odd", False):
                a, l_ = _evaluate(model, w_odd, train, test, eval_loss)
                odd_acc.append(a), odd_loss.append(l_)
            w = even_step(w_odd, w, float(coefs[m]))  # eq. (9), no data, no privacy cost
        else:
            w = w + float(steps[m]) * agg  # server step (1 = FedAvg/FedProx as printed)
        a, l_ = _evaluate(model, w, train, test, eval_loss)
        acc.append(a), loss.append(l_)
        if (m + 1) % max(1, M // 4) == 0 or m == M - 1:
            lost = f", train loss {l_:.4f}" if eval_loss else ""  # the loss is evaluated only where a figure plots it
            log(f"round {m + 1}/{M}: test acc {a:.4f}{lost} ({time.perf_counter() - t0:.1f}s)")

    out = {"status": "ok", "algorithm": algo, "mode": mode, "local_rule": rule, "rounds": list(range(1, M + 1)),
           "test_acc": acc, "train_loss": loss if eval_loss else [], "init_test_acc": a0,
           # not evaluated is None ("missing"), never NaN: a non-finite loss means a diverged training (repro.divergence)
           "init_train_loss": l0,
           "odd_test_acc": odd_acc, "odd_train_loss": odd_loss, "dataset": split.note, "dataset_real": split.real,
           "dataset_size": D, "num_clients": K, "num_params": d, "power_budget": P, "p_max": float(p.max()),
           "max_power_ratio": ratio_max, "min_s": float(s_log.min()), "frac_s_above_1": float((s_log > 1).mean()),
           "frac_clipped": clipped, "num_transmissions": M,
           "num_iterations": 2 * M if algo == "upcycled" else M, "noise_std_mean": float(np.mean(noise_std)),
           "server_step_mean": float(np.mean(1.0 + coefs if algo == "upcycled" else steps)),
           "signal_norm_median": float(np.median(signal_norm)), "pc_bias_rel_mean": float(np.mean(bias_rel)),
           "noise_to_signal_median": float(np.median(np.asarray(noise_norm) / np.maximum(signal_norm, 1e-30)))}
    if power_mean:
        out["tx_power_ratio_mean"] = float(np.mean(power_mean))
    if rule == "one_step":
        out["frac_samples_clipped"] = sample_clipped
    if mode != "nonprivate":
        out.update(_privacy_log(cfg, mode, cal, noise_std, beta, s_log, p, D))
    if at_cap is not None:
        out["frac_rounds_at_power_cap"] = at_cap  # [13] transmits at beta_max: gamma has no effect there
    if mode == "proposed" and cfg.get("cj_epsilon") is not None:
        amp_cj = cfg.get("kappa", 7.0) * jammer_min_amplitude(cal.alpha_u, h_cj, cal.required_var, cfg["sigma_c"])
        out["jammer_power_over_P_median"] = float(np.median(jammer_power(amp_cj, d)) / P)
        out["jammer_std_bound"] = jammer_model_std(cal.required_var, cal.channel_std ** 2, 1.0)  # eq. (22), kappa = 1
    return out


def _privacy_log(cfg, mode, cal, noise_std, beta, s_log, p, D) -> dict:
    """The paper's accounting of what was run (eqs. 20/21) and the Gaussian-DP mu^2 under two
    sensitivities (for the certificates of the ``privacy`` table):

    * ``mu2_one_step``: one gradient step per round, the paper's ``1/(s_i |D|)`` (Appendix A);
    * ``mu2_update``: the clipped update of E local epochs, ``2 p_i/s_i`` (one sample can move a
      clipped update anywhere in the tau-ball; transmitted as ``p_i Delta_i/(tau s_i)``).

    Each is the worst client's ``sum_m (sensitivity_i^m / sigma_m)^2``.
    """
    delta = cal.delta if mode == "proposed" else cfg["baseline"]["delta"]
    rate = ma_rate(noise_std, D)  # M releases (Lemma 1 for Upcycled)
    inv_s = 1.0 / s_log  # [M, K]
    per_client = (inv_s ** 2 / noise_std[:, None] ** 2).sum(0)  # sum_m 1/(s_i^m sigma_m)^2, [K]
    out = {"delta": delta, "epsilon": ma_epsilon_for_noise(noise_std, D, delta),
           "epsilon_numeric": ma_epsilon_numeric(rate, delta), "ma_rate": rate,
           "epsilon_delta_0.01": ma_epsilon_for_noise(noise_std, D, 0.01),
           "epsilon_per_client_max": float(ma_epsilon_per_client(noise_std, D, delta, s_log).max()),
           "mu2_one_step": float(per_client.max() / D ** 2),
           "mu2_update": float((4.0 * p ** 2 * per_client).max()),
           "noise_std_eff": float(math.sqrt(len(noise_std) / np.sum(1.0 / noise_std ** 2)))}
    if mode == "proposed":
        out.update({"alpha_u": cal.alpha_u, "channel_std": cal.channel_std, "jammer_std": cal.jammer_std,
                    "jammer_active": cal.jammer_active, "required_var": cal.required_var})
        if cfg.get("cj_epsilon") is not None:
            M = len(noise_std)
            bound = theory.calibrate(M, D, cfg["eps0"], cfg["delta0"], cfg["cj_epsilon"], cfg["cj_delta"], 1.0, cfg["sigma_c"])
            out.update({"epsilon_kappa1": bound.epsilon,
                        "epsilon_variance_reading": theory.achieved_epsilon_kappa(
                            cfg["cj_epsilon"], cfg["cj_delta"], cfg.get("kappa", 7.0), True, M, D, cfg["eps0"], cfg["delta0"])})
    else:
        b = cfg["baseline"]
        out.update({"beta_sum": float(beta.sum()), "accountant": b["accountant"],
                    # [13]'s own accountant (replace-one sensitivity 2/|D|) on the same noise
                    "epsilon_ls": liu_simeone_epsilon(float(np.sum(4.0 * beta / (D ** 2 * cfg["sigma_c"] ** 2))), delta)})
    return out


@torch.no_grad()
def _evaluate(model, w, train: ClientData, test: ClientData, with_train_loss: bool = True) -> tuple[float, float | None]:
    """(pooled test accuracy, training loss sum_i p_i F_i(w)) of one global model (None when the loss is skipped: not
    evaluated is missing, never NaN, which repro.divergence reads as a diverged training).

    With p_i = |D_i|/|D|, sum_i p_i F_i is the mean cross-entropy over all training samples, so both
    metrics are one batched forward pass of the single global model.
    """
    out = []
    for data in (test, train) if with_train_loss else (test,):
        ones = torch.ones(1, data.x.shape[0], dtype=torch.bool)
        loss, correct = batch_loss(model, w.unsqueeze(0), data.x.unsqueeze(0), data.y.unsqueeze(0), ones)
        out.append((float(correct[0]) / data.x.shape[0], float(loss[0])))
    return out[0][0], (out[1][1] if with_train_loss else None)
