"""Training of one series at one T0: the round loop every series shares, and the paper's WPFL (Alg. 1 + 2).

Every series runs the same rounds (common random numbers: distances, fading, mini-batches, DP noise
and bit flips come from streams keyed by (seed, round), so series are paired):

    UL and DL fading of round t -> Stage 1 (KM on the true rho (33) / Round-Robin / Random), C7 cap
    -> DL: every client receives the global model over its own link                       (18), (19)
    -> every client trains tau steps of batch b (its PL model; the method's local models)
    -> the scheduled clients upload over their subchannels: clip, DP, Q_L, bit errors   (2), (22), (15)
    -> aggregation (16) and global quantization (19)

WPFL (S1-S10): the scheduled clients run (20a) from their received global model; every client runs
(20b) anchored at it; Stage 2 (P5 closed form, P7 per client) sets the next round's rates for the
series that adapt (S1-S7); S8-S10 keep fixed coefficients (their learning rate from the tuning sweep).
The PFL baselines (S11-S14) are in :mod:`repro.papers.wpfl_minmax.pfl_baselines`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from repro.papers.wpfl_minmax import theory as th
from repro.papers.wpfl_minmax.environment import PAPER_NUM_PARAMS, Environment
from repro.papers.wpfl_minmax.uplink import (
    BitStats, downlink, mechanism_sigma, quantize_global, transmit_uplink)
from repro.privacy.clip import clip_rows  # (2): u / max(1, ||u|| / C) per row
from repro.wireless.channel import min_rate
from repro.wireless.scheduling import RoundRobin, assignment_cost, min_error_assignment, random_schedule


@dataclass(frozen=True)
class Series:
    label: str
    mechanism: str  # uplink DP mechanism (uplink.MECHANISMS)
    policy: str  # Stage 1: km | rr | random
    coefficients: str  # p7 (Stage 2 adapts eta_F, eta_P, lambda) | fixed (one learning rate, lambda fixed)
    error_free: bool = False
    algorithm: str = "wpfl"  # wpfl | pfedme | apple | fedamp | fedala


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
}
GROUPS = {"proposed": ["S1"], "mech": ["S2", "S3", "S4", "S5", "S6"], "sched": ["S7", "S8", "S9", "S10"],
          "pfl": ["S11", "S12", "S13", "S14"]}
#: series whose learning rate the tuning sweep chooses (the others follow their own rule: P5 / P7)
TUNED = ("S8", "S9", "S10", "S11", "S12", "S13", "S14")


# ---- the rounds every series shares --------------------------------------------------------------

@dataclass
class RoundInfo:
    t: int
    ul: object  # LinkState [N, K]
    dl: object  # LinkState [N]
    clients: np.ndarray
    subs: np.ndarray

    @property
    def ul_ber(self) -> np.ndarray:
        return self.ul.ber[self.clients, self.subs]

    @property
    def ul_rho(self) -> np.ndarray:
        return self.ul.word_error[self.clients, self.subs]


@dataclass
class ClientLog:
    """Per-client sums over the rounds: what each client's links looked like and what Stage 2 chose."""

    n: int
    ul_rho_sum: np.ndarray = None
    ul_count: np.ndarray = None
    dl_rho_sum: np.ndarray = None
    dl_errors: np.ndarray = None
    eta_p_sum: np.ndarray = None
    lam_sum: np.ndarray = None
    rounds: int = 0
    decisions: list = field(default_factory=list)

    def __post_init__(self):
        z = lambda: np.zeros(self.n)  # noqa: E731
        self.ul_rho_sum, self.ul_count, self.dl_rho_sum, self.dl_errors = z(), z(), z(), z()
        self.eta_p_sum, self.lam_sum = z(), z()

    def add(self, r: RoundInfo, eta_p, lam, dl_err, keep_decisions: bool):
        self.ul_rho_sum[r.clients] += r.ul_rho
        self.ul_count[r.clients] += 1
        self.dl_rho_sum += r.dl.word_error
        self.dl_errors += dl_err
        self.eta_p_sum += eta_p
        self.lam_sum += lam
        self.rounds += 1
        if keep_decisions:
            self.decisions.append({"t": r.t, "eta_p": _r(eta_p), "lambda": _r(lam), "rho_g": _r(r.dl.word_error),
                                   "scheduled": [int(c) for c in r.clients], "rho_l": _r(r.ul_rho)})

    def summary(self, distances) -> dict:
        k = max(self.rounds, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ul = np.where(self.ul_count > 0, self.ul_rho_sum / np.maximum(self.ul_count, 1), np.nan)
        out = {"distance_m": _r(distances), "uploads": self.ul_count.astype(int).tolist(), "ul_rho_mean": _r(ul),
               "dl_rho_mean": _r(self.dl_rho_sum / k), "dl_erroneous_elements_mean": _r(self.dl_errors / k),
               "eta_p_mean": _r(self.eta_p_sum / k), "lambda_mean": _r(self.lam_sum / k)}
        if self.decisions:
            out["decisions"] = self.decisions
        return out


def _r(a, digits: int = 6):
    return [None if not np.isfinite(v) else float(f"{v:.{digits}g}") for v in np.asarray(a, dtype=float).ravel()]


class Stage1:
    """Client selection and subchannel assignment of one policy, with the C7 cap (Sec. VI-B)."""

    def __init__(self, env: Environment, policy: str):
        p = env.params
        self.policy, self.env = policy, env
        self.r_min = min_rate(PAPER_NUM_PARAMS[env.config], int(p["bits"]), float(p["max_delay_s"][env.family]))
        self.rr = RoundRobin(env.num_clients, int(p["num_subchannels"]))
        from repro.engine.rng import RngStreams
        self.rng = RngStreams(env.seed).numpy("scheduling")

    def __call__(self, ul, eligible: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.policy == "km":  # P3 (33): min sum rho on the true channel (also for the error-free series)
            cost = assignment_cost(ul.word_error, ul.snr, ul.rate, self.r_min, self.env.params["rate_constraint"])
            return min_error_assignment(cost, eligible)
        if self.policy == "rr":
            return self.rr(eligible)
        if self.policy == "random":
            return random_schedule(eligible, int(self.env.params["num_subchannels"]), self.rng)
        raise ValueError(f"unknown scheduling policy {self.policy!r}; allowed: km, rr, random")


def rounds(env: Environment, policy: str, t0: int):
    """Yield the rounds of one series: channel draws, schedule; stops when every client has made T0
    uploads (C7) or at ``round_cap_factor * T0`` rounds."""
    from repro.engine.rng import RngStreams

    streams = RngStreams(env.seed)
    chan = env.channel()
    stage1 = Stage1(env, policy)
    uploads = np.zeros(env.num_clients, np.int64)
    cap = int(env.params["round_cap_factor"]) * t0
    t = 1
    while (uploads < t0).any() and t <= cap:
        ul = chan.uplink(streams.torch("channel_ul", key=t))
        dl = chan.downlink(streams.torch("channel_dl", key=t))
        clients, subs = stage1(ul, uploads < t0)
        yield RoundInfo(t, ul, dl, clients, subs)
        uploads[clients] += 1
        t += 1


def next_downlink(env: Environment, t: int):
    """The DL link state of round ``t`` (the same draw :func:`rounds` makes), for Stage 2's rho_G^{t+1}."""
    from repro.engine.rng import RngStreams

    return env.channel().downlink(RngStreams(env.seed).torch("channel_dl", key=t))


def batch_sizes(env: Environment):
    b = env.params["batch_size"]
    if b == "auto":  # b_n = max(1, round(q |D_n|)) (README, decisions)
        return torch.clamp(torch.round(env.params["sampling_rate_q"] * env.train.sizes.double()), min=1).to(torch.int64)
    return int(b[env.family])


def step_plan_of(env: Environment, t: int):
    """Round t's mini-batches (tau steps of batch b for every client); the same for every series."""
    from repro.engine.rng import RngStreams
    from repro.engine.schedule import step_plan

    return step_plan(env.train.sizes.cpu(), batch_sizes(env), int(env.params["local_steps"]),
                     RngStreams(env.seed).torch("data_order", key=int(t)))


def final_metrics(env: Environment, personal: torch.Tensor) -> dict:
    """Sec. VII-3 metrics of the personalised models of all N clients: sample-weighted test accuracy,
    max test loss, Jain's index of the training losses. A client whose model is not finite (a diverged
    method) is counted in ``nonfinite_clients`` and scored as failed: accuracy 0, loss +inf, Jain undefined."""
    from repro.engine.train import evaluate

    n = env.num_clients
    bad = ~torch.isfinite(personal).all(1)
    ev_test, ev_train = evaluate(env.model, personal, env.test), evaluate(env.model, personal, env.train)
    acc, loss = ev_test.accuracy.double().clone(), ev_test.loss.double().clone()
    acc[bad], loss[bad] = 0.0, float("inf")
    count = ev_test.count.double()
    x = ev_train.loss.double()
    jain = float(x.sum() ** 2 / (n * (x**2).sum())) if not bool(bad.any()) else float("nan")
    tr_acc = ev_train.accuracy.double().clone()
    tr_acc[bad] = 0.0
    return {"accuracy": float((acc * count).sum() / count.sum()), "accuracy_unweighted": float(acc.mean()),
            "max_test_loss": float(loss.max()), "jain": jain,
            "train_accuracy": float((tr_acc * ev_train.count.double()).sum() / ev_train.count.double().sum()),
            "test_accuracy_per_client": _r(acc), "nonfinite_clients": int(bad.sum())}


def accuracy_now(env: Environment, personal: torch.Tensor) -> float:
    from repro.engine.train import evaluate

    return evaluate(env.model, personal, env.test).weighted_mean("accuracy")


# ---- dispatch ------------------------------------------------------------------------------------

def run_series(env: Environment, series: str, t0: int, *, lr: float | None = None, eval_every: int | None = None,
               keep_decisions: bool = False, bit_stats: bool = False, log=print) -> dict:
    """Train one series at one T0. ``lr``: the learning rate of a tuned series (default: ``default_lr``)."""
    spec = SERIES[series]
    t_start = time.process_time()
    if spec.algorithm == "wpfl":
        out = run_wpfl(env, spec, t0, lr=lr, eval_every=eval_every, keep_decisions=keep_decisions, bit_stats=bit_stats)
    else:
        from repro.papers.wpfl_minmax.pfl_baselines import run_pfl

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
        sel = torch.as_tensor(clients, dtype=torch.int64)
        # one batched call: rows 0..k-1 = (20a) of the scheduled clients from their received global model;
        # rows k.. = (20b) of every client, anchored at its received global model
        lam_t = torch.as_tensor(lam, dtype=pl.dtype)
        both = local_sgd(env.model, torch.cat([recv[sel], pl]), env.train, step_plan_of(env, t),
                         lr=torch.cat([torch.full((k,), eta_f, dtype=pl.dtype), torch.as_tensor(eta_p, dtype=pl.dtype)]),
                         mu=torch.cat([torch.zeros(k, dtype=pl.dtype), lam_t]), anchor=torch.cat([recv[sel], recv]),
                         loss_scale=torch.cat([torch.ones(k, dtype=pl.dtype), 1 - lam_t / 2]),
                         row_client=torch.cat([sel, torch.arange(n)]))
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
           "clients": log.summary(env.distances), "records": records}
    if stats is not None:
        out["bits"] = stats.summary()
    return out
