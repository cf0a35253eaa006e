"""Regime of a setting (M transmissions, E local epochs, client data scale): the quantities that decide
how the power control (PC) and the noise act, measured at the initial model (fig92; this paper's README,
"regime").

The paper's calibration gives ``alpha_u = |D| sqrt(2 S*/M)`` (eq. 21 solved for a constant alpha_u). Two
of its effects depend on the setting only through alpha_u:

* the PC's shrink factors ``s_i = max(1, alpha_u p_i/(|h_i| sqrt(P_i)))`` (eq. 14 with 11), which bias the
  aggregate ``sum_i p_i u_i/s_i`` away from ``sum_i p_i u_i`` (u_i: client i's clipped update / tau);
* the receiver noise per round, std ``sigma_c/alpha_u`` per coordinate (and the jammer's, eqs. 22-23).

A third, FedProx's proximal term, depends on E (how far local training drifts from the global model).
All norms of weighted sums of the K clipped updates come from their Gram matrix, so many channel draws
cost nothing.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from repro.wireless.jammer import jammer_model_std, required_noise_variance
from repro.wireless.power_control import power_budget_from_snr, server_factor_for_target


def _unit_updates(cfg, model, w, train, streams, mu) -> torch.Tensor:
    """Clipped local updates / tau ``[K, d]`` (float64) from ``w`` after E epochs (FedAvg: mu = 0); the same
    local solver as the runs (training.py)."""
    from repro.algorithms.base import FLSetup
    from repro.algorithms.fedavg import FedAvg
    from repro.privacy.clip import clip_rows

    setup = FLSetup(model, train, streams, lr=cfg["lr"], batch_size=cfg["batch_size"], local_epochs=cfg["local_epochs"])
    learner = FedAvg(setup, mu=mu, momentum=cfg["momentum"], prox_in_momentum=True, upload_kind="update")
    K = len(train.sizes)
    stack = learner.local_update(w.unsqueeze(0).expand(K, -1).contiguous(), setup.clients_or_all(None), 0, anchor=w)
    return clip_rows(stack - w, float(cfg["tau"])).double() / float(cfg["tau"])


def _norms(gram: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """``||sum_i coef[r, i] u_i||`` for every row r of ``coef`` ``[R, K]``."""
    return np.sqrt(np.maximum(np.einsum("rk,kl,rl->r", coef, gram, coef), 0.0))


def measure(cfg: dict, split, streams, log=print) -> dict:
    """Regime quantities of one setting (cfg: rounds, local_epochs, lr, momentum, batch_size, mu, tau, hidden,
    num_classes, snr_db, sigma_c, eps0, delta0, cj_epsilons, cj_delta, kappa, draws)."""
    from repro.engine.data import ClientData
    from repro.models import build_model

    train = ClientData.from_client_arrays(split.train_x, split.train_y)
    sizes = train.sizes.double().numpy()
    D, M = int(sizes.sum()), int(cfg["rounds"])
    p = sizes / D
    model = build_model("mlp", in_features=int(split.train_x[0].shape[1]), hidden=cfg["hidden"],
                        num_classes=cfg["num_classes"])
    d = model.num_params
    P = power_budget_from_snr(cfg["snr_db"], d, cfg["sigma_c"] ** 2)
    alpha_u = server_factor_for_target(cfg["eps0"], cfg["delta0"], M, D, cfg["sigma_c"])
    w = model.init(streams.torch("init"), rows=1)[0]
    u_avg = _unit_updates(cfg, model, w, train, streams, 0.0)
    u_prox = _unit_updates(cfg, model, w, train, streams, float(cfg["mu"]))
    log(f"regime: M = {M}, E = {cfg['local_epochs']}, |D| = {D}: local updates done")
    gram = (u_avg @ u_avg.T).numpy()
    h = np.sqrt(streams.numpy("regime_channel").exponential(1.0, size=(int(cfg["draws"]), len(p))))  # |h|, Rayleigh
    s = np.maximum(1.0, alpha_u * p / (h * math.sqrt(P)))  # eq. (14) with (11)
    full = float(_norms(gram, p[None, :])[0])
    signal = _norms(gram, p / s)
    bias = _norms(gram, p / s - p) / full
    sig_med = float(np.median(signal))
    ch_std = cfg["sigma_c"] / alpha_u
    out = {"rounds": M, "local_epochs": int(cfg["local_epochs"]), "dataset_size": D, "num_params": d,
           "alpha_u": alpha_u, "channel_std": ch_std, "p_shrink": float(np.mean(s > 1)),
           "p_shrink_largest": float(np.mean(s[:, int(np.argmax(p))] > 1)),
           "signal_norm_unbiased": full, "signal_norm_median": sig_med, "pc_bias_rel_mean": float(bias.mean()),
           "noise_to_signal_no_cj": math.sqrt(d) * ch_std / sig_med}
    for e in cfg["cj_epsilons"]:
        req = required_noise_variance(e, cfg["cj_delta"], M, D)
        for kappa in (float(cfg["kappa"]), 1.0):
            std = math.sqrt(ch_std ** 2 + jammer_model_std(req, ch_std ** 2, kappa) ** 2)
            out[f"noise_to_signal_cj_{e:g}_kappa_{kappa:g}"] = math.sqrt(d) * std / sig_med
    diff = (p @ (u_prox - u_avg).numpy())
    agg_avg = p @ u_avg.numpy()
    agg_prox = p @ u_prox.numpy()
    out["prox_effect_rel"] = float(np.linalg.norm(diff) / np.linalg.norm(agg_avg))
    out["prox_cosine"] = float(agg_avg @ agg_prox / (np.linalg.norm(agg_avg) * np.linalg.norm(agg_prox)))
    out["status"] = "ok"
    return out


def noise_to_signal_floor(params: dict, eps: float | None, kappa: float) -> float:
    """Data-free lower bound of the per-round noise-to-signal ratio at the paper's setting: the noise norm
    ``sqrt(d) std`` of the aggregate (receiver noise sigma_c/alpha_u, plus the jammer's at ``kappa`` x its bound (22)-(23)
    for target ``eps``; None: no jammer) against the largest signal any data can give, ``tau`` (every transmitted update
    is clipped to tau and the aggregate weights sum to at most 1; measured in units of tau as in :func:`measure`).
    Depends only on the paper's stated constants: d of the MLP, M, |D| = 16,421, sigma_c, eps0, delta0, the target."""
    from repro.papers.ota_jammer.data import train_sizes

    d = 784 * int(params["hidden"]) + int(params["hidden"]) + int(params["hidden"]) * int(params["num_classes"]) + int(params["num_classes"])
    M, D = int(params["rounds"]), int(sum(train_sizes(params["classes_per_client"], 1.0)))
    ch_std = float(params["sigma_c"]) / server_factor_for_target(params["eps0"], params["delta0"], M, D, params["sigma_c"])
    std = ch_std if eps is None else math.sqrt(
        ch_std ** 2 + jammer_model_std(required_noise_variance(eps, params["cj_delta"], M, D), ch_std ** 2, kappa) ** 2)
    return math.sqrt(d) * std

