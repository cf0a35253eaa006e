"""The PFL baselines of Figs. 5-7 (pFedMe, APPLE, FedAMP, FedALA; guide §6.3) over the wireless stack.

The algorithms are the shared ones of ``repro.algorithms`` (dp_ditto's implementations); only the
deployment differs: every upload goes clip(C) -> + N(0, sigma_DP^2) (Table II) -> Q_L over
+-(C + 3 sigma) -> UL bit flips on the client's KM-assigned subchannel, every download Q_G over +-C
-> DL bit flips of the receiver; Stage 1 = KM with the C7 cap; learning rate 0.01; tau steps of
batch b per round as S1 (D17). Only the scheduled clients train and communicate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from repro.papers.wpfl_minmax import codec
from repro.papers.wpfl_minmax.training import PAPER_NUM_PARAMS, SERIES, _batch_sizes, mechanism_sigma
from repro.wireless.channel import LinkBudget, min_rate
from repro.wireless.ofdma import OfdmaChannel
from repro.wireless.qam import flip_bits
from repro.wireless.scheduling import assignment_cost, min_error_assignment


@dataclass
class _RoundLink:
    """The channel state the transforms of the current round read."""

    ul_ber_of_client: np.ndarray  # [N] UL BER on the client's assigned subchannel (0 if unscheduled)
    dl_ber: np.ndarray  # [N]
    t: int = 0


def run_pfl_series(env, series: str, t0: int, eval_every: int | None = None, log=print) -> dict:
    from repro.algorithms.apple import Apple
    from repro.algorithms.ditto import DPUpload, PFLSetup, chain
    from repro.algorithms.fedala import FedALA
    from repro.algorithms.fedamp import FedAMP
    from repro.algorithms.pfedme import PFedMe
    from repro.engine.rng import RngStreams
    from repro.engine.schedule import step_plan
    from repro.engine.train import evaluate

    label = SERIES[series][0]
    p, fam = env.params, env.family
    n, k_sub, bits = int(p["num_clients"]), int(p["num_subchannels"]), int(p["bits"])
    clip = float(p["clip"][fam])
    sigma = mechanism_sigma(env, "proposed", t0)
    streams = RngStreams(env.seed)
    budget = LinkBudget(num_subchannels=k_sub, total_bw_hz=float(p["total_bw_hz"]), noise_dbm_per_hz=float(p["noise_dbm_per_hz"]),
                        client_power_dbm=float(p["client_power_dbm"]), bs_power_dbm=float(p["bs_power_dbm"]),
                        pl0_db=float(p["pl0_db"]), pl_exponent=float(p["pl_exponent"]), dl_power_split=bool(p["dl_power_split"]))
    channel = OfdmaChannel(budget, env.distances, bits=bits, qam_order=int(p["qam_order"]))
    r_min = min_rate(PAPER_NUM_PARAMS[env.config], bits, float(p["max_delay_s"][fam]))
    link = _RoundLink(np.zeros(n), np.zeros(n))
    steps, bsz = int(p["local_steps"]), _batch_sizes(env)
    sizes = env.train.sizes.cpu()

    def uplink_channel(models, senders, t):  # Q_L over +-(C + 3 sigma), UL bit flips (15)
        amp = clip + 3 * sigma
        codes = codec.encode(models, amp, bits)
        codes, _ = flip_bits(codes, link.ul_ber_of_client[senders.cpu().numpy()], bits, streams.numpy("bitflip_ul", key=t))
        return codec.decode(codes, amp, bits, models.dtype)

    def downlink(models, receivers, t):  # Q_G over +-C, DL bit flips of each receiver (18)
        codes = codec.encode(models, clip, bits)
        codes, _ = flip_bits(codes, link.dl_ber[receivers.cpu().numpy()], bits, streams.numpy("bitflip_dl", key=t))
        return codec.decode(codes, clip, bits, models.dtype)

    class _WirelessApple(Apple):
        """APPLE with the N-core downlink computed once per round: Q_G of the N received cores is the
        same for every receiver, so only the rows hit by a DL bit error are decoded again (the same
        values and random draws as sending the [K*N, P] stack through ``downlink``)."""

        def downloads(self, received, cores, S, t):
            K, N = len(S), received.shape[0]
            codes = codec.encode(received, clip, bits)
            base = codec.decode(codes, clip, bits, received.dtype)
            stack = codes.unsqueeze(0).expand(K, N, -1).reshape(K * N, -1)
            ber = link.dl_ber[S.cpu().numpy()].repeat(N)  # receiver of row k*N + j is S[k]
            flipped, n_err = flip_bits(stack, ber, bits, streams.numpy("bitflip_dl", key=t))
            D = base.unsqueeze(0).expand(K, N, -1).clone()
            hit = torch.as_tensor(np.flatnonzero(n_err), dtype=torch.int64)
            if len(hit):
                D.view(K * N, -1)[hit] = codec.decode(flipped[hit], clip, bits, received.dtype)
            D[torch.arange(K, device=D.device), S] = cores[S]  # own core clean
            return D

    class _StepSetup(PFLSetup):
        def plan(self, t):  # tau steps of batch b per round, as S1 (D2)
            return step_plan(sizes, bsz, steps, streams.torch("data_order", key=int(t)))

    setup = _StepSetup(model=env.model, train=env.train, streams=streams, lr=float(p["default_lr"]),
                       upload=chain(DPUpload(clip, sigma, n, streams), uplink_channel), download=downlink)
    cap = int(p["round_cap_factor"]) * t0
    algo = {"S11": lambda: PFedMe(setup), "S12": lambda: _WirelessApple(setup, total_rounds=cap),
            "S13": lambda: FedAMP(setup), "S14": lambda: FedALA(setup, start_phase_max_epochs=10,
                                                                       slice_batches=p["fedala_slice_batches"])}[series]()
    state = algo.init(env.theta0)
    uploads = np.zeros(n, np.int64)
    records, t = [], 1
    t_start = time.perf_counter()
    while (uploads < t0).any() and t <= cap:
        rs = streams.spawn(t)
        ul = channel.uplink(rs.torch("channel_ul"))
        dl = channel.downlink(rs.torch("channel_dl_now"))
        cost = assignment_cost(ul.word_error, ul.snr, ul.rate, r_min, p["rate_constraint"])
        clients, subs = min_error_assignment(cost, uploads < t0)
        link.ul_ber_of_client = np.zeros(n)
        link.ul_ber_of_client[clients] = ul.ber[clients, subs]
        link.dl_ber = dl.ber
        if len(clients):
            state = algo.round(state, t, clients=torch.as_tensor(np.sort(clients)))
        uploads[clients] += 1
        rec = {"t": t, "scheduled": len(clients)}
        if eval_every and t % eval_every == 0:
            rec["accuracy"] = evaluate(env.model, algo.personalized(state), env.test).weighted_mean("accuracy")
        records.append(rec)
        t += 1
    pers = algo.personalized(state)
    ev_test, ev_train = evaluate(env.model, pers, env.test), evaluate(env.model, pers, env.train)
    x = ev_train.loss.double()
    jain = float(x.sum() ** 2 / (n * (x**2).sum()))
    out = {"series": series, "label": label, "t0": t0, "rounds": t - 1, "accuracy": ev_test.weighted_mean("accuracy"),
           "accuracy_unweighted": float(ev_test.accuracy.double().mean()), "max_test_loss": float(ev_test.loss.max()),
           "jain": jain, "train_accuracy": ev_train.weighted_mean("accuracy"), "sigma": sigma,
           "uploads_min": int(uploads.min()), "uploads_max": int(uploads.max()), "records": records,
           "seconds": time.perf_counter() - t_start}
    log(f"{env.config} {series} T0={t0}: acc={out['accuracy']:.4f} maxloss={out['max_test_loss']:.3f} jain={jain:.3f} "
        f"rounds={t - 1} ({out['seconds']:.1f}s)")
    return out
