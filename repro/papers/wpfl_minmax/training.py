"""Training of one series at one T0: dispatch, and the paper's WPFL (Alg. 1 + 2) over the shared round loop (:mod:`repro.papers.wpfl_minmax.loop`).

Every series runs the same rounds (common random numbers: distances, fading, mini-batches, DP noise
and bit flips come from streams keyed by (seed, round), so series are paired):

    UL and DL fading of round t -> Stage 1 (KM on the true rho (33) / Round-Robin / Random), C7 cap
    -> DL: every client receives the global model over its own link                       (18), (19)
    -> every client trains tau steps of batch b (its PL model; the method's local models)
    -> the scheduled clients upload over their subchannels: clip, DP, Q_L, bit errors   (2), (22), (15)
    -> aggregation (16) and global quantization (19)

WPFL (S1-S10): the scheduled clients run (20a) from their received global model; every client runs
(20b) anchored at it; Stage 2 (P5 closed form, P7 per client) sets the next round's rates for the
series that adapt (S1-S7); S8-S10 keep fixed coefficients (the paper's default learning rate).
The PFL baselines (S11-S14) are in :mod:`repro.papers.wpfl_minmax.pfl_baselines`.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from repro.papers.wpfl_minmax import theory as th
from repro.papers.wpfl_minmax.environment import PAPER_NUM_PARAMS, Environment
from repro.papers.wpfl_minmax.loop import (  # noqa: F401  (re-exported: the round loop's public names)
    ClientLog, RoundInfo, Series, Stage1, accuracy_now, batch_sizes, final_metrics, next_downlink, rounds, step_plan_of)
from repro.papers.wpfl_minmax.pfl_baselines import run_pfl
from repro.papers.wpfl_minmax.uplink import (
    BitStats, downlink, mechanism_sigma, quantize_global, transmit_uplink)
from repro.privacy.clip import clip_rows  # (2): u / max(1, ||u|| / C) per row


SERIES = {
    "S1": Series("Proposed", "proposed", "km", "p7"),
    "S2": Series("Gaussian", "gaussian", "km", "p7"),
    "S3": Series("MA", "ma", "km", "p7"),
    "S4": Series("Dithering", "dither", "km", "p7"),
    "S5": Series("Perfect Gaussian", "perfect", "km", "p7"),
    "S6": Series("WPFL without DP", "nodp", "km", "p7"),
    "S7": Series("Proposed (error-free)", "proposed", "km", "p7", error_free=True),
    "S8": Series("Round-Robin", "proposed", "rr", "fixed"),
    "S9": Series("Random", "proposed", "random", "fixed"),
    "S10": Series("Non-Adjustment", "proposed", "km", "fixed"),
    "S11": Series("pFedMe", "proposed", "km", "fixed", algorithm="pfedme"),
    "S12": Series("APPLE", "proposed", "km", "fixed", algorithm="apple"),
    "S13": Series("FedAMP", "proposed", "km", "fixed", algorithm="fedamp"),
    "S14": Series("FedALA", "proposed", "km", "fixed", algorithm="fedala"),
    "S15": Series("FedAMP (anchor only)", "proposed", "km", "fixed", algorithm="fedamp_anchor"),
}
GROUPS = {"proposed": ["S1"], "mech": ["S2", "S3", "S4", "S5", "S6"], "sched": ["S7", "S8", "S9", "S10"],
          "pfl": ["S11", "S12", "S13", "S14", "S15"]}
#: series the learning-rate sweep scores (the others follow their own rule: P5 / P7)
TUNED = ("S8", "S9", "S10", "S11", "S12", "S13", "S14", "S15")
#: series that train at the swept rate; the schedulers S8-S10 train at the paper's fixed default_lr (Sec. VII)
TUNED_APPLIED = ("S11", "S12", "S13", "S14", "S15")


# ---- dispatch ------------------------------------------------------------------------------------

def run_series(env: Environment, series: str, t0: int, *, lr: float | None = None, eval_every: int | None = None,
               keep_decisions: bool = False, bit_stats: bool = False, log=print) -> dict:
    """Train one series at one T0. ``lr``: the learning rate of a tuned series (default: ``default_lr``)."""
    spec = SERIES[series]
    t_start = time.process_time()
    if spec.algorithm == "wpfl":
        out = run_wpfl(env, spec, t0, lr=lr, eval_every=eval_every, keep_decisions=keep_decisions, bit_stats=bit_stats)
    else:
        out = run_pfl(env, spec, t0, lr=lr, eval_every=eval_every)
    out.update(series=series, label=spec.label, t0=t0, cpu_s=time.process_time() - t_start)
    log(f"{env.config} {series} ({spec.label}) T0={t0}: acc={out['accuracy']:.4f} maxloss={out['max_test_loss']:.3f} "
        f"jain={out['jain']:.3f} rounds={out['rounds']} lr={out.get('lr')} ({out['cpu_s']:.1f} s CPU)")
    return out


# ---- WPFL (Alg. 1 + 2) ---------------------------------------------------------------------------

def run_wpfl(env: Environment, spec: Series, t0: int, *, lr: float | None, eval_every: int | None,
             keep_decisions: bool, bit_stats: bool) -> dict:
    from repro.engine.rng import RngStreams
    from repro.engine.train import local_sgd

    p, fam, n = env.params, env.family, env.num_clients
    bits, clip = int(p["bits"]), float(p["clip"][fam])
    sigma = mechanism_sigma(env, spec.mechanism, t0)
    L, mu = th.lipschitz_and_convexity(env.config)
    kb = th.BoundConstants(**p["bound_constants"], M=env.m_bound)
    adapt = spec.coefficients == "p7"
    lr_fixed = float(p["default_lr"]) if lr is None else float(lr)
    eta_f = th.eta_fl_optimal(mu, L, kb) if adapt else lr_fixed  # P5 closed form
    eps_f = float(th.eps_fl(eta_f, mu, L, kb))
    eps_p = th.eps_pl_target(mu, float(p["eps_p_fraction"]))
    no_quant = spec.mechanism in ("perfect", "dither")
    e_local = 0.0 if no_quant else (clip + 3 * sigma) / (2.0**bits - 1)
    bound_in = th.ModelBoundInputs(PAPER_NUM_PARAMS[env.config], clip, sigma, e_local, 0.0 if no_quant else clip / (2.0**bits - 1))
    # first PL step: the defaults (Sec. VII); adapting series then take P7's output of the previous round
    eta_p = np.full(n, float(p["default_lr"]) if adapt else lr_fixed)
    lam = np.full(n, float(p["default_lambda"]))
    streams = RngStreams(env.seed)
    stats = BitStats() if bit_stats else None
    quantized = spec.mechanism != "perfect"
    omega_g = quantize_global(env.theta0.clone(), clip, bits) if quantized else env.theta0.clone()
    pl = env.theta0.unsqueeze(0).repeat(n, 1)
    log = ClientLog(n)
    records, t_last = [], 0
    for r in rounds(env, spec.policy, t0):
        t, clients, k = r.t, r.clients, len(r.clients)
        faulty = quantized and not spec.error_free
        dl_ber = r.dl.ber if faulty else np.zeros(n)
        recv, dl_err = downlink(omega_g, clip, bits, dl_ber, streams.numpy("bitflip_dl", key=t), quantize=quantized)
        dev = pl.device
        sel = torch.as_tensor(clients, dtype=torch.int64, device=dev)
        # one batched call: rows 0..k-1 = (20a) of the scheduled clients from their received global model;
        # rows k.. = (20b) of every client, anchored at its received global model
        lam_t = torch.as_tensor(lam, dtype=pl.dtype, device=dev)
        both = local_sgd(env.model, torch.cat([recv[sel], pl]), env.train, step_plan_of(env, t),
                         lr=torch.cat([torch.full((k,), eta_f, dtype=pl.dtype, device=dev),
                                       torch.as_tensor(eta_p, dtype=pl.dtype, device=dev)]),
                         mu=torch.cat([torch.zeros(k, dtype=pl.dtype, device=dev), lam_t]), anchor=torch.cat([recv[sel], recv]),
                         loss_scale=torch.cat([torch.ones(k, dtype=pl.dtype, device=dev), 1 - lam_t / 2]),
                         row_client=torch.cat([sel, torch.arange(n, device=dev)]))
        pl = both[k:]
        log.add(r, eta_p, lam, dl_err, keep_decisions)
        if k:
            ul_ber = r.ul_ber if faulty else np.zeros(k)
            received = transmit_uplink(clip_rows(both[:k], clip), spec.mechanism, sigma, clip, bits, ul_ber,
                                       streams.torch("dp_noise", key=t), streams.numpy("bitflip_ul", key=t), stats)
            omega_l = received.mean(0)  # (16)
            omega_g = quantize_global(omega_l, clip, bits) if quantized else omega_l  # (19)
        if adapt:  # Stage 2 for the next round's PL step: Theta_L,min^t and rho_G^{t+1}
            theta_l = 0.0 if spec.error_free else th.theta_l_min(r.ul_rho, bound_in, bits)
            rho_g = np.zeros(n) if spec.error_free else next_downlink(env, t + 1).word_error
            eta_p, lam, _ = th.solve_p7(rho_g, g0=env.g0, mu=mu, eps_p=eps_p, eps_f=eps_f,
                                        gam2=th.gamma2(theta_l, bound_in, kb), gam3=th.gamma3(theta_l, bound_in, kb), k=kb)
        rec = {"t": t, "scheduled": k, "rho_ul_mean": float(np.mean(r.ul_rho)) if k else 0.0}
        if eval_every and t % eval_every == 0:
            rec["accuracy"] = accuracy_now(env, pl)
        records.append(rec)
        t_last = t
    out = {"rounds": t_last, "sigma": sigma, "eta_f": eta_f, "lr": None if adapt else lr_fixed, **final_metrics(env, pl),
           "global_accuracy": accuracy_now(env, omega_g.unsqueeze(0).expand(n, -1)),  # the FL model every client reads
           "clients": log.summary(env.distances), "records": records}
    if stats is not None:
        out["bits"] = stats.summary()
    return out
