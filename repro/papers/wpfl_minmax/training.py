"""Wireless Ditto-style PFL with quantized, DP-perturbed, bit-errored uploads (wpfl_minmax Alg. 1 + 2).

One call of :func:`run_series` trains one series (mechanism x scheduling policy) at one T0 on
stacked client tensors (engine ``local_sgd``/``evaluate``), following the guide's pseudo-code §2.7:

    UL fading -> Stage 1 schedule (KM / RR / random) -> DL broadcast of Q_G(global) with bit errors
    -> FL: tau SGD steps from the received global model (scheduled clients), clip(C)      (20a), (2)
    -> mechanism: + N(0, sigma^2), Q_L over +-(C + 3 sigma), UL bit flips                (22), (15)
    -> PL: tau steps of (20b) for every client, anchored at its received global model
    -> aggregate (16), global quantization (19); Stage 2 (P7) for the next PL step.

Common random numbers: distances, fading, mini-batches, DP noise and bit flips are drawn from
streams keyed by (seed, round), so series are paired.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from repro.papers.wpfl_minmax import codec, theory as th
from repro.wireless.channel import LinkBudget, min_rate, uniform_distances
from repro.wireless.ofdma import OfdmaChannel
from repro.wireless.qam import flip_bits, word_error_probability
from repro.wireless.scheduling import RoundRobin, assignment_cost, min_error_assignment, random_schedule

#: series id -> (label, mechanism, policy, adjust coefficients, error-free)
SERIES = {
    "S1": ("Proposed", "proposed", "km", True, False),
    "S2": ("Gaussian", "gaussian", "km", True, False),
    "S3": ("MA", "ma", "km", True, False),
    "S4": ("Dithering", "dither", "km", True, False),
    "S5": ("Perfect Gaussian", "perfect", "km", True, False),
    "S6": ("WPFL without DP", "nodp", "km", True, False),
    "S7": ("Proposed (error-free)", "proposed", "km", True, True),
    "S8": ("Round-Robin", "proposed", "rr", False, False),
    "S9": ("Random", "proposed", "random", False, False),
    "S10": ("Non-Adjustment", "proposed", "km", False, False),
    "S11": ("pFedMe", "proposed", "km", False, False),
    "S12": ("APPLE", "proposed", "km", False, False),
    "S13": ("FedAMP", "proposed", "km", False, False),
    "S14": ("FedALA", "proposed", "km", False, False),
}
GROUPS = {"mech": ["S1", "S2", "S3", "S4", "S5", "S6"], "sched": ["S7", "S8", "S9", "S10"],
          "pfl": ["S11", "S12", "S13", "S14"]}
PAPER_NUM_PARAMS = {"mlr_mnist": 7850, "dnn_mnist": 79510, "cnn_fmnist": 582026, "cnn_cifar10": 878538}
DATASET = {"mlr_mnist": "mnist", "dnn_mnist": "mnist", "cnn_fmnist": "fashion_mnist", "cnn_cifar10": "cifar10"}


def model_family(config: str) -> str:
    return config.split("_")[0]


@dataclass
class Environment:
    """Everything shared by the series of one (config, seed): data, model, init, channel distances."""

    config: str
    params: dict
    model: object
    train: object
    test: object
    theta0: torch.Tensor
    distances: np.ndarray
    g0: float
    seed: int
    sigma_cache: dict = field(default_factory=dict)

    @property
    def family(self) -> str:
        return model_family(self.config)


def build_environment(config: str, params: dict, seed: int, device: str = "cpu") -> Environment:
    """Data partition (guide §7), model and init, client distances. Raises DatasetUnavailableError."""
    from repro.data import load_dataset
    from repro.data.partition import DirichletPartitioner, train_test_split_per_client
    from repro.engine.data import ClientData
    from repro.engine.rng import RngStreams
    from repro.models import build_model

    ds = load_dataset(DATASET[config])
    x = np.concatenate([ds.train_x, ds.test_x])
    y = np.concatenate([ds.train_y, ds.test_y])
    n = int(params["num_clients"])
    parts = DirichletPartitioner(n, float(params["dirichlet_alpha"]), seed=int(params["partition_seed"]), min_size=40).split(y)
    train_idx, test_idx = train_test_split_per_client(parts, float(params["test_fraction"]), seed=int(params["partition_seed"]))
    frac = float(params["data_fraction"])
    if frac < 1.0:
        rng = np.random.default_rng(int(params["partition_seed"]) + 1)
        train_idx = [rng.permutation(t)[: max(20, int(round(frac * len(t))))] for t in train_idx]
        test_idx = [rng.permutation(t)[: max(8, int(round(frac * len(t))))] for t in test_idx]
    train = ClientData.from_indices(x, y, train_idx, device=device)
    test = ClientData.from_indices(x, y, test_idx, device=device)
    fam = model_family(config)
    if fam == "cnn":
        shape = dict(in_channels=3, image_size=32) if config == "cnn_cifar10" else dict(in_channels=1, image_size=28)
        if params["reduced_cnn"]:
            shape.update(conv1=8, conv2=16, hidden=64)
        model = build_model("cnn", **shape)
    else:
        model = build_model(fam)
    streams = RngStreams(seed)
    theta0 = model.init(streams.torch("init"), rows=1, device=device)[0]
    distances = uniform_distances(n, streams.numpy("distances"), params["d_min_m"], params["d_max_m"])
    g0 = initial_gradient_bound(model, theta0, train)
    return Environment(config, params, model, train, test, theta0, distances, g0, seed)


def initial_gradient_bound(model, theta0: torch.Tensor, data) -> float:
    """``G0 = max_n ||grad F_n(w0)||`` on each client's full local training set (D10)."""
    from repro.engine.train import batch_grad

    n = data.num_clients
    sizes = data.sizes
    total = None
    chunk = 256
    for start in range(0, data.max_size, chunk):
        pos = torch.arange(start, min(start + chunk, data.max_size)).unsqueeze(0).expand(n, -1)
        mask = pos < sizes.unsqueeze(1)
        x, y = data.gather(torch.arange(n), torch.where(mask, pos, 0))
        # mean loss over the chunk's valid samples, re-weighted to a sum over samples
        cnt = mask.sum(1).clamp(min=1).double()
        g, _ = batch_grad(model, theta0.unsqueeze(0).expand(n, -1).contiguous(), x, y, mask)
        g = g.double() * cnt.unsqueeze(1) * (mask.sum(1) > 0).unsqueeze(1)
        total = g if total is None else total + g
    return float((total / sizes.double().unsqueeze(1)).norm(dim=1).max())


# ---- mechanisms ---------------------------------------------------------------------------------

def mechanism_sigma(env: Environment, mechanism: str, t0: int) -> float:
    """Noise std of each mechanism (guide §6.2); Table II for the proposed one (D12)."""
    p, fam = env.params, env.family
    key = (mechanism, t0)
    if key in env.sigma_cache:
        return env.sigma_cache[key]
    clip, delta, eps = float(p["clip"][fam]), float(p["delta_q"][fam]), float(p["epsilon_q"])
    sens = 2 * clip / int(p["b_ref"][DATASET[env.config]])
    table = {int(k): float(v) for k, v in p["sigma_table"][fam].items()}
    if mechanism in ("proposed",) or (mechanism == "perfect" and p["perfect_gaussian_sigma"] == "table"):
        if t0 not in table:
            raise ValueError(f"sigma_table[{fam}] has no T0 = {t0}; has {sorted(table)}")
        s = table[t0]
    elif mechanism == "nodp":
        s = 0.0
    elif mechanism in ("gaussian", "perfect"):
        from repro.privacy.mechanisms_wpfl import gaussian_sigma_basic_composition
        s = gaussian_sigma_basic_composition(eps, delta, t0, sens)
    elif mechanism in ("ma", "dither"):
        from repro.privacy.mechanisms_wpfl import ma_noise_multiplier
        z = ma_noise_multiplier(eps, delta, t0, float(p["sampling_rate_q"]), conversion=p["ma_conversion"])
        s = z * sens
        if mechanism == "dither" and p["dither_bits_target"] is not None:
            # mean step so that mean raw bits ~ target: E[Delta] = 3.19 sigma_D, R ~ 1 + log2(C/Delta + 1)
            s = clip / (2.0 ** (float(p["dither_bits_target"]) - 1) - 1) / 3.19
    else:
        raise ValueError(f"unknown mechanism {mechanism!r}")
    env.sigma_cache[key] = s
    return s


def _clip_rows(u: torch.Tensor, c: float) -> torch.Tensor:
    """(2): ``u / max(1, ||u|| / C)`` per row."""
    return u / torch.clamp(u.norm(dim=1, keepdim=True) / c, min=1.0)


@dataclass
class BitStats:
    bq_sum: float = 0.0
    bo_sum: float = 0.0
    raw_sum: float = 0.0
    uploads: int = 0

    def add(self, bq: torch.Tensor, bo: torch.Tensor, raw: torch.Tensor | None = None):
        self.bq_sum += float(bq.double().mean(1).sum())
        self.bo_sum += float(bo.sum())
        if raw is not None:
            self.raw_sum += float(raw.double().mean(1).sum())
        self.uploads += bq.shape[0]

    def summary(self) -> dict:
        k = max(self.uploads, 1)
        return {"bq": self.bq_sum / k, "bo": self.bo_sum / k, "raw": self.raw_sum / k if self.raw_sum else None,
                "uploads": self.uploads}


def transmit_uplink(u: torch.Tensor, mechanism: str, sigma: float, clip: float, bits: int, ber: np.ndarray,
                    noise_gen: torch.Generator, flip_rng: np.random.Generator, error_free: bool, stats: BitStats | None,
                    dither_rng: np.random.Generator) -> torch.Tensor:
    """The received local models ``[k, P]`` of clipped uploads ``u`` (guide §2.2 steps 2-4, §6.2)."""
    ber = np.zeros_like(ber) if error_free else ber
    if mechanism == "dither":
        from repro.privacy.mechanisms_wpfl import dither_raw_bits, dithered_quantize, dithered_reconstruct
        k, step, dith = dithered_quantize(u, sigma, dither_rng)
        raw = dither_raw_bits(clip, step)
        if stats is not None:
            bq = 1 + codec.bit_length(k.abs())
            stats.add(bq, codec.overhead_bits(bq), raw)
        if ber.any():  # one flipped bit of the R_i-bit sign-magnitude word per erroneous element
            rho = torch.from_numpy(word_error_probability(ber[:, None], 1)).double()  # e
            p_el = 1 - (1 - rho) ** raw
            g = torch.Generator().manual_seed(int(flip_rng.integers(2**62)))
            err = torch.rand(k.shape, generator=g, dtype=torch.float64) < p_el
            if err.any():
                which = torch.floor(torch.rand(k.shape, generator=g, dtype=torch.float64) * raw).to(torch.int64)
                sign_flip = err & (which == raw.to(torch.int64) - 1)
                mag_flip = err & ~sign_flip
                k = torch.where(sign_flip, -k, k)
                k = torch.where(mag_flip, torch.sign(k) * (k.abs() ^ (1 << which.clamp(max=62))), k)
        return dithered_reconstruct(k, step, dith).to(u.dtype)
    if sigma > 0:
        z = torch.randn(u.shape, generator=noise_gen, dtype=u.dtype)
        x = u + sigma * z
    else:
        x = u
    if mechanism == "perfect":
        return x
    amp = clip + 3 * sigma  # (6): A_L = C + 3 sigma (A = C without DP)
    codes = codec.encode(x, amp, bits)
    if stats is not None:
        bq = codec.effective_bits(codes, bits)
        stats.add(bq, codec.overhead_bits(bq))
    if ber.any():
        codes, _ = flip_bits(codes, ber, bits, flip_rng)
    return codec.decode(codes, amp, bits, u.dtype)


# ---- one series ---------------------------------------------------------------------------------

def _batch_sizes(env: Environment) -> object:
    b = env.params["batch_size"]
    if b == "auto":  # D2: b_n = max(1, round(q |D_n|))
        return torch.clamp(torch.round(env.params["sampling_rate_q"] * env.train.sizes.double()), min=1).to(torch.int64)
    return int(b[env.family])


def run_series(env: Environment, series: str, t0: int, eval_every: int | None = None, log=print) -> dict:
    """Train one series at one T0; returns final metrics, per-round records and bit statistics."""
    from repro.engine.rng import RngStreams
    from repro.engine.schedule import step_plan
    from repro.engine.train import evaluate, local_sgd

    label, mechanism, policy, adjust, error_free = SERIES[series]
    p, fam = env.params, env.family
    n, k_sub, bits = int(p["num_clients"]), int(p["num_subchannels"]), int(p["bits"])
    clip = float(p["clip"][fam])
    sigma = mechanism_sigma(env, mechanism, t0)
    L, mu = th.lipschitz_and_convexity(env.config)
    kb = th.BoundConstants(**p["bound_constants"])
    budget = LinkBudget(num_subchannels=k_sub, total_bw_hz=float(p["total_bw_hz"]), noise_dbm_per_hz=float(p["noise_dbm_per_hz"]),
                        client_power_dbm=float(p["client_power_dbm"]), bs_power_dbm=float(p["bs_power_dbm"]),
                        pl0_db=float(p["pl0_db"]), pl_exponent=float(p["pl_exponent"]), dl_power_split=bool(p["dl_power_split"]))
    channel = OfdmaChannel(budget, env.distances, bits=bits, qam_order=int(p["qam_order"]), error_free=error_free)
    r_min = min_rate(PAPER_NUM_PARAMS[env.config], bits, float(p["max_delay_s"][fam]))
    streams = RngStreams(env.seed)
    sched_rng = streams.numpy("scheduling")
    rr = RoundRobin(n, k_sub)
    lr0, lam0 = float(p["default_lr"]), float(p["default_lambda"])
    eta_f = th.eta_fl_optimal(mu, L, kb) if adjust else lr0
    eps_f = float(th.eps_fl(eta_f, mu, L, kb))
    eps_p = th.eps_pl_target(mu, float(p["eps_p_fraction"]))
    no_quant = mechanism in ("perfect", "dither")
    e_local = 0.0 if no_quant else (clip + 3 * sigma) / (2.0**bits - 1)
    bound_in = th.ModelBoundInputs(PAPER_NUM_PARAMS[env.config], clip, sigma, e_local, 0.0 if no_quant else clip / (2.0**bits - 1))
    eta_p = np.full(n, lr0)
    lam = np.full(n, lam0)
    steps = int(p["local_steps"])
    bsz = _batch_sizes(env)
    sizes = env.train.sizes.cpu()
    stats = BitStats() if t0 == int(p["t0_default"]) else None

    def q_global(w):  # (19): Q_G over +-C (identity for perfect Gaussian)
        return w if mechanism == "perfect" else codec.decode(codec.encode(w.unsqueeze(0), clip, bits), clip, bits, w.dtype)[0]

    omega_g = q_global(env.theta0.clone())
    pl = env.theta0.unsqueeze(0).repeat(n, 1)
    uploads = np.zeros(n, np.int64)
    dl = channel.downlink(streams.spawn(1).torch("channel_dl"))
    records = []
    t = 1
    cap = int(p["round_cap_factor"]) * t0
    t_start = time.perf_counter()
    while (uploads < t0).any() and t <= cap:
        rs = streams.spawn(t)
        ul = channel.uplink(rs.torch("channel_ul"))
        eligible = uploads < t0
        if policy == "km":
            cost = assignment_cost(ul.word_error, ul.snr, ul.rate, r_min, p["rate_constraint"])
            clients, subs = min_error_assignment(cost, eligible)
        elif policy == "rr":
            clients, subs = rr(eligible)
        else:
            clients, subs = random_schedule(eligible, k_sub, sched_rng)
        # downlink broadcast (18): every client decodes its own bit-errored copy of Q_G(global)
        if mechanism == "perfect" or error_free:
            recv = omega_g.unsqueeze(0).expand(n, -1).contiguous()
        else:
            codes = codec.encode(omega_g.unsqueeze(0), clip, bits).expand(n, -1).contiguous()
            codes, n_err = flip_bits(codes, dl.ber, bits, rs.numpy("bitflip_dl"))
            recv = omega_g.unsqueeze(0).repeat(n, 1)  # omega_g is already on the Q_G grid
            hit = torch.as_tensor(np.flatnonzero(n_err), dtype=torch.int64)
            if len(hit):
                recv[hit] = codec.decode(codes[hit], clip, bits, omega_g.dtype)
        sel = torch.as_tensor(clients, dtype=torch.int64)
        k = len(clients)
        # one batched call: rows 0..k-1 = FL updates (20a) of the scheduled clients from their received
        # global model; rows k.. = PL updates (20b) of every client (D4), anchored at the received model
        plan = step_plan(sizes, bsz, steps, rs.torch("data_order"))
        lam_t = torch.as_tensor(lam, dtype=pl.dtype)
        fl_lr = torch.full((k,), eta_f, dtype=pl.dtype)
        both = local_sgd(env.model, torch.cat([recv[sel], pl]), env.train, plan,
                         lr=torch.cat([fl_lr, torch.as_tensor(eta_p, dtype=pl.dtype)]),
                         mu=torch.cat([torch.zeros(k, dtype=pl.dtype), lam_t]), anchor=torch.cat([recv[sel], recv]),
                         loss_scale=torch.cat([torch.ones(k, dtype=pl.dtype), 1 - lam_t / 2]),
                         row_client=torch.cat([sel, torch.arange(n)]))
        pl = both[k:]
        if k:
            u = _clip_rows(both[:k], clip)  # (2)
            received = transmit_uplink(u, mechanism, sigma, clip, bits, ul.ber[clients, subs], rs.torch("dp_noise"),
                                       rs.numpy("bitflip_ul"), error_free, stats, rs.numpy("dither"))
            omega_l = received.mean(0)  # (16)
            omega_g = q_global(omega_l)  # (19)
        uploads[clients] += 1
        dl = channel.downlink(streams.spawn(t + 1).torch("channel_dl"))
        rho_ul = ul.word_error[clients, subs]
        if adjust:  # Stage 2 (P7) for the next PL step (D11)
            theta_l = 0.0 if error_free else th.theta_l_min(rho_ul, bound_in, bits)
            rho_g = np.zeros(n) if error_free else dl.word_error
            eta_p, lam, _ = th.solve_p7(rho_g, g0=env.g0, mu=mu, eps_p=eps_p, eps_f=eps_f,
                                        gam2=th.gamma2(theta_l, bound_in, kb), gam3=th.gamma3(theta_l, bound_in, kb), k=kb)
        rec = {"t": t, "scheduled": len(clients), "rho_ul_mean": float(np.mean(rho_ul)) if len(clients) else 0.0,
               "eta_p_mean": float(np.mean(eta_p)), "lambda_mean": float(np.mean(lam))}
        if eval_every and (t % eval_every == 0):
            ev = evaluate(env.model, pl, env.test)
            rec["accuracy"] = ev.weighted_mean("accuracy")
        records.append(rec)
        t += 1
    ev_test = evaluate(env.model, pl, env.test)
    ev_train = evaluate(env.model, pl, env.train)
    x = ev_train.loss.double()
    jain = float(x.sum() ** 2 / (n * (x**2).sum()))
    out = {
        "series": series, "label": label, "t0": t0, "rounds": t - 1,
        "accuracy": ev_test.weighted_mean("accuracy"),
        "accuracy_unweighted": float(ev_test.accuracy.double().mean()),
        "max_test_loss": float(ev_test.loss.max()),
        "jain": jain, "train_accuracy": ev_train.weighted_mean("accuracy"),
        "sigma": sigma, "eta_f": eta_f, "uploads_min": int(uploads.min()), "uploads_max": int(uploads.max()),
        "records": records, "seconds": time.perf_counter() - t_start,
    }
    if stats is not None:
        out["bits"] = stats.summary()
    log(f"{env.config} {series} T0={t0}: acc={out['accuracy']:.4f} maxloss={out['max_test_loss']:.3f} "
        f"jain={jain:.3f} rounds={t - 1} ({out['seconds']:.1f}s)")
    return out
