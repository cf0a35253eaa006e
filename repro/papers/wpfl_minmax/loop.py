"""The round loop every series of wpfl_minmax shares (WPFL and the PFL baselines): channel draws and
Stage 1 per round, the shared mini-batch plan, per-client logs and the Sec. VII-3 metrics.

Every series runs the same rounds (common random numbers: distances, fading, mini-batches, DP noise
and bit flips come from streams keyed by (seed, round), so series are paired). Both
:mod:`repro.papers.wpfl_minmax.training` (WPFL) and :mod:`repro.papers.wpfl_minmax.pfl_baselines`
import from here; neither imports the other's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from repro.papers.wpfl_minmax.environment import PAPER_NUM_PARAMS, Environment
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
    a = a.detach().cpu() if isinstance(a, torch.Tensor) else a
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
    if env.params.get("probe_max_rounds"):  # a cost probe (repro.costs) times only the first rounds
        cap = min(cap, int(env.params["probe_max_rounds"]))
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
