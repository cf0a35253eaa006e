"""The PFL baselines of Figs. 5-7 (pFedMe, APPLE, FedAMP, FedALA) over this paper's wireless stack,
with the same training opportunities as the proposed WPFL (README, decisions).

The algorithms are the shared ones of ``repro.algorithms``; this module only deploys them:

* every round, every client receives the server's model(s) over its own DL link (Q_G over +-C, its
  bit errors; APPLE: all N core models) and trains tau steps of batch b -- the same mini-batches as
  every other series;
* only the clients that Stage 1 (KM on the same channel draws, C7 cap) schedules upload, through
  clip(C) -> + N(0, sigma_DP^2) (Table II) -> Q_L over +-(C + 3 sigma) -> bit errors of their subchannel;
  the server aggregates only those uploads; for the methods that keep one upload per client (FedAMP,
  APPLE) an unscheduled client's last received upload stays in place;
* the learning rate comes from the tuning sweep (:mod:`repro.papers.wpfl_minmax.tuning`).

A corrupted word decodes to another quantization level inside the quantizer range ((17), (19)): the
receiver cannot detect it and uses it as it is. A method whose personalised models stop being finite
is reported as such (``nonfinite_clients``), never silently.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from repro.algorithms.base import FLSetup
from repro.papers.wpfl_minmax import codec
from repro.papers.wpfl_minmax.loop import (
    ClientLog, RoundInfo, Series, accuracy_now, batch_sizes, final_metrics, rounds, step_plan_of)
from repro.papers.wpfl_minmax.uplink import downlink, mechanism_sigma, quantize_global, transmit_uplink
from repro.privacy.clip import clip_rows
from repro.wireless.qam import bit_error_pattern, flip_bits


@dataclass
class WirelessPFLSetup(FLSetup):
    """``FLSetup`` whose round plan is the shared step plan and whose server averages only the
    uploads that were scheduled (16); ``radio`` holds the current round's channel and schedule."""

    env: object = None
    radio: "RoundLink" = None

    def plan(self, t):
        return step_plan_of(self.env, t).to(self.env.train.device)

    def aggregate(self, received, senders):
        m = self.radio.scheduled.to(senders.device)[senders]
        return received[m].mean(0)

    def broadcast(self, model, receivers, t):
        """(18)-(19): Q_G of the one global model, then each receiver's bit errors."""
        lk = self.radio
        copies, _ = downlink(quantize_global(model, lk.clip, lk.bits), lk.clip, lk.bits, lk.dl_ber[receivers.cpu().numpy()],
                             lk.streams.numpy("bitflip_dl", key=t))
        return copies


class RoundLink:
    """The channel and schedule of the current round, as the transforms read them."""

    def __init__(self, env, sigma: float, streams):
        p = env.params
        self.n, self.clip, self.bits, self.sigma = env.num_clients, float(p["clip"][env.family]), int(p["bits"]), sigma
        self.streams = streams
        self.scheduled = torch.zeros(self.n, dtype=torch.bool)
        self.ul_ber = np.zeros(self.n)
        self.dl_ber = np.zeros(self.n)
        self.stale = None  # server's last received upload per client [N, P] (FedAMP, APPLE)

    def begin(self, r: RoundInfo, stale=None):
        self.scheduled = torch.zeros(self.n, dtype=torch.bool)
        self.scheduled[torch.as_tensor(r.clients, dtype=torch.int64)] = True
        self.ul_ber = np.zeros(self.n)
        self.ul_ber[r.clients] = r.ul_ber
        self.dl_ber = r.dl.ber
        self.stale = stale

    def upload(self, models, link):
        """What the server holds from each sender (``link.clients``) after round ``link.round``: the scheduled
        rows through the UL chain, the others their previous upload (or their model, which the server ignores)."""
        senders, t = link.clients, link.round
        sched = self.scheduled.to(senders.device)[senders]
        out = (self.stale[senders] if self.stale is not None else models).clone()
        rows = sched.nonzero().flatten()
        if len(rows):
            who = senders[rows].cpu().numpy()
            out[rows] = transmit_uplink(clip_rows(models[rows], self.clip), "proposed", self.sigma, self.clip, self.bits,
                                        self.ul_ber[who], self.streams.torch("dp_noise", key=t),
                                        self.streams.numpy("bitflip_ul", key=t)).to(out.dtype)
        return out

    def download(self, models, link):
        """(18)-(19) for one model per receiver (``link.clients``) ``[R, P]``: Q_G, the receiver's bit errors."""
        receivers, t = link.clients, link.round
        codes = codec.encode(models, self.clip, self.bits)
        codes, _ = flip_bits(codes, self.dl_ber[receivers.cpu().numpy()], self.bits, self.streams.numpy("bitflip_dl", key=t))
        return codec.decode(codes, self.clip, self.bits, models.dtype)


def _apple(setup, link: RoundLink, total_rounds: int):
    from repro.algorithms.apple import Apple

    class WirelessApple(Apple):
        """APPLE with the N-core downlink computed once per round: Q_G of the received cores is the same
        for every receiver, so only the rows hit by a DL bit error are decoded again."""

        def sparse_downloads(self, received, S, t):
            """The same draws as :meth:`downloads`: Q_G of the received cores shared by every receiver, and the
            entries a DL bit error changed on each receiver's copy of another client's core."""
            K, N = len(S), received.shape[0]
            base = codec.decode(codec.encode(received, link.clip, link.bits), link.clip, link.bits, received.dtype)
            ber = link.dl_ber[S.cpu().numpy()].repeat(N)
            r, pos, mask, _ = bit_error_pattern(K * N, base.shape[1], ber, link.bits, link.streams.numpy("bitflip_dl", key=t))
            rows, p = torch.from_numpy(r).to(base.device), torch.from_numpy(pos).to(base.device)
            k, j = rows // N, rows % N
            keep = j != S[k]  # the own core arrives clean
            k, j, p, m = k[keep], j[keep], p[keep], torch.from_numpy(mask).to(base.device)[keep]
            if not len(k):
                return base, None
            codes = codec.encode(base[j, p].unsqueeze(0), link.clip, link.bits)[0].to(torch.int64) ^ m
            diff = codec.decode(codes.unsqueeze(0), link.clip, link.bits, base.dtype)[0] - base[j, p]
            return base, (k, j, p, diff)

        def downloads(self, received, cores, S, t):
            K, N = len(S), received.shape[0]
            base = codec.decode(codec.encode(received, link.clip, link.bits), link.clip, link.bits, received.dtype)
            D = base.unsqueeze(0).expand(K, N, -1).clone()
            ber = link.dl_ber[S.cpu().numpy()].repeat(N)  # receiver of row k*N + j is S[k]
            r, pos, mask, _ = bit_error_pattern(K * N, base.shape[1], ber, link.bits, link.streams.numpy("bitflip_dl", key=t))
            if len(r):
                rows, p = torch.from_numpy(r).to(base.device), torch.from_numpy(pos).to(base.device)
                codes = codec.encode(base[rows % N, p].unsqueeze(0), link.clip, link.bits)[0].to(torch.int64) ^ torch.from_numpy(mask).to(base.device)
                D.view(K * N, -1)[rows, p] = codec.decode(codes.unsqueeze(0), link.clip, link.bits, D.dtype)[0]
            D[torch.arange(K, device=D.device), S] = cores[S]  # own core clean
            return D

    return WirelessApple(setup, total_rounds=total_rounds)


def build_algorithm(env, spec: Series, setup: WirelessPFLSetup, link: RoundLink, t0: int):
    from repro.algorithms.fedala import FedALA
    from repro.algorithms.fedamp import FedAMP
    from repro.algorithms.pfedme import PFedMe

    p = env.params
    if spec.algorithm == "pfedme":
        return PFedMe(setup)
    if spec.algorithm == "apple":
        return _apple(setup, link, int(p["round_cap_factor"]) * t0)
    if spec.algorithm == "fedamp":
        return FedAMP(setup)
    if spec.algorithm == "fedamp_anchor":  # PFLlib's deployment (README, FedAMP): own model, cloud model as anchor
        return FedAMP(setup, start="own")
    if spec.algorithm == "fedala":
        return FedALA(setup, start_phase_max_epochs=10, slice_batches=p["fedala_slice_batches"])
    raise ValueError(f"unknown PFL algorithm {spec.algorithm!r}; allowed: pfedme, apple, fedamp, fedamp_anchor, fedala")


def run_pfl(env, spec: Series, t0: int, *, lr: float | None, eval_every: int | None) -> dict:
    from repro.engine.rng import RngStreams

    p, n = env.params, env.num_clients
    streams = RngStreams(env.seed)
    sigma = mechanism_sigma(env, spec.mechanism, t0)
    lr = float(p["default_lr"]) if lr is None else float(lr)
    link = RoundLink(env, sigma, streams)
    b = batch_sizes(env)
    setup = WirelessPFLSetup(model=env.model, train=env.train, streams=streams, lr=lr,
                             batch_size=int(b) if isinstance(b, int) else max(1, int(b.median())),
                             upload=link.upload, download=link.download, env=env, radio=link)
    algo = build_algorithm(env, spec, setup, link, t0)
    state = algo.init(env.theta0)
    log = ClientLog(n)
    records, t_last = [], 0
    for r in rounds(env, spec.policy, t0):
        link.begin(r, stale=getattr(state, "received", None))
        state = algo.round(state, r.t)  # every client trains; only the scheduled ones reach the server
        log.add(r, np.full(n, lr), np.full(n, np.nan), np.zeros(n), False)
        rec = {"t": r.t, "scheduled": len(r.clients), "rho_ul_mean": float(np.mean(r.ul_rho)) if len(r.clients) else 0.0}
        if eval_every and r.t % eval_every == 0:
            rec["accuracy"] = accuracy_now(env, algo.personalized(state))
        records.append(rec)
        t_last = r.t
    out = {"rounds": t_last, "sigma": sigma, "lr": lr, **final_metrics(env, algo.personalized(state)),
           "clients": log.summary(env.distances), "records": records}
    if isinstance(getattr(state, "info", None), dict):
        out["algorithm_info"] = {k: v for k, v in state.info.items() if isinstance(v, (int, float))}
    return out
