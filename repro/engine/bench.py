"""Benchmarks of the engine and the privacy kernels (``repro bench engine|kernels``).

``repro bench engine --model {mlr,dnn,cnn} --clients 20 --json`` times one FedAvg round (every client
one local epoch of minibatch SGD, batch 10, on 2,625 samples; then the new global model evaluated on
every client's train and test data) with the vectorised engine and with the sequential reference
(one ``nn.Module`` + ``torch.optim.SGD`` per client, same batches), in the same process, and prints
``{"model", "clients", "vectorized_s_per_round", "sequential_s_per_round", "speedup", "gflops", ...}``;
``gflops`` is the vectorised round's arithmetic rate (training = 3x forward FLOPs per sample).

``repro bench kernels --json`` times clip+Gaussian noise and each quantiser on a ``[20, 1_000_000]``
stack against a per-client Python loop and against a plain tensor copy (``clone``) of the same size.

Data are random (shaped like Fashion-MNIST), so the benchmark needs no dataset. Times are the minimum
over ``--repeats`` runs; torch uses ``--threads`` threads (default 1).
"""

from __future__ import annotations

import time
from typing import Callable

import torch

IMAGE_MODELS = ("cnn",)


def best_time(fn: Callable[[], object], repeats: int = 3, warmup: int = 1) -> float:
    """Minimum wall time of ``fn()`` over ``repeats`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


# ---- engine ------------------------------------------------------------------------------------------
def make_round_setup(model_name: str, clients: int = 20, samples: int = 2625, test_samples: int = 875, seed: int = 0):
    """Random FMNIST-shaped data (train and test ``ClientData``), the model and the initial global model."""
    from repro.engine.data import ClientData
    from repro.engine.rng import RngStreams
    from repro.models import build_model

    model = build_model(model_name)
    g = torch.Generator().manual_seed(seed)
    shape = (28, 28)

    def data(m):
        sizes = torch.full((clients,), m, dtype=torch.int64)
        x = torch.randn(clients * m, *shape, generator=g)
        y = torch.randint(0, 10, (clients * m,), generator=g)
        return ClientData(x, y, torch.cumsum(sizes, 0) - sizes, sizes)

    train, test = data(samples), data(test_samples)
    streams = RngStreams(seed)
    w0 = model.init(streams.torch("init"))[0]
    return model, train, test, w0, streams


def _round_plan(train, streams):
    """Round 0's minibatches (one epoch, batch 10), drawn as every algorithm draws them."""
    from repro.engine.schedule import epoch_plan

    return lambda batch_size: epoch_plan(train.sizes.cpu(), batch_size, 1, streams.torch("data_order", key=0))


def _sample_weighted_mean(train, local):
    w = train.sizes.to(local.dtype)
    return (w / w.sum()) @ local


def vectorized_round(model, train, test, w0, streams, lr=0.005, batch_size=10):
    """One FedAvg round on the engine (every client's local epoch in one batched call, |D_n|-weighted mean)
    plus per-client evaluation; returns (global params, test accuracy [N]). Engine-level only: the FedAvg
    of ``repro.algorithms`` is this round with links and schedules around it."""
    from repro.engine.train import evaluate, local_sgd

    plan = _round_plan(train, streams)(batch_size)
    local = local_sgd(model, w0.unsqueeze(0).expand(train.num_clients, -1), train, plan, lr=lr)
    w = _sample_weighted_mean(train, local)
    evaluate(model, w, train)
    res = evaluate(model, w, test)
    return w, res.accuracy


def sequential_round(model, train, test, w0, streams, lr=0.005, batch_size=10):
    """The same round with the sequential reference (per-client modules and optimisers)."""
    from repro.engine.reference import sequential_evaluate, sequential_local_sgd

    plan = _round_plan(train, streams)(batch_size)
    local = sequential_local_sgd(model, w0.unsqueeze(0).expand(train.num_clients, -1), train, plan, lr=lr)
    w = _sample_weighted_mean(train, local)
    sequential_evaluate(model, w, train)
    _, acc = sequential_evaluate(model, w, test)
    return w, acc


def round_flops(model, train, test) -> float:
    """FLOPs of one round: 3x forward per training sample (forward + backward), 1x per evaluated sample."""
    f = model.flops_per_sample()
    n_train, n_test = int(train.sizes.sum()), int(test.sizes.sum())
    return 3.0 * f * n_train + f * (n_train + n_test)


def bench_engine(model_name: str, clients: int = 20, samples: int = 2625, test_samples: int = 875,
                 repeats: int = 5, seed: int = 0) -> dict:
    model, train, test, w0, streams = make_round_setup(model_name, clients, samples, test_samples, seed)
    wv, _ = vectorized_round(model, train, test, w0, streams)
    ws, _ = sequential_round(model, train, test, w0, streams)
    max_diff = float((wv - ws).abs().max())
    # a warm-up call each, then the best of ``repeats`` (one repeat moved the DNN speedup between 2.4x and 3.5x)
    tv = best_time(lambda: vectorized_round(model, train, test, w0, streams), repeats, warmup=1)
    ts = best_time(lambda: sequential_round(model, train, test, w0, streams), repeats, warmup=1)
    return {
        "model": model_name, "clients": clients, "samples_per_client": samples, "test_samples_per_client": test_samples,
        "vectorized_s_per_round": tv, "sequential_s_per_round": ts, "speedup": ts / tv,
        "gflops": round_flops(model, train, test) / tv / 1e9, "max_abs_diff_vs_sequential": max_diff,
        "threads": torch.get_num_threads(),
    }


# ---- kernels -----------------------------------------------------------------------------------------
def kernel_cases(x: torch.Tensor, seed: int = 0) -> dict[str, tuple[Callable, Callable]]:
    """name -> (vectorised kernel, per-client loop reference), both ``() -> tensor``."""
    from repro.privacy import clip_rows, add_gaussian, quantize_uniform, quantize_stochastic, subtractive_dither
    from repro.privacy.clip import clip_and_gaussian

    n = x.shape[0]
    sigma = torch.linspace(0.1, 1.0, n)
    c, a, bits, step = 20.0, 3.0, 8, 0.05
    gen = lambda: torch.Generator().manual_seed(seed)  # noqa: E731

    def loop(fn):
        def run():
            g = gen()
            return torch.stack([fn(x[i : i + 1], i, g)[0] for i in range(n)])
        return run

    return {
        "clip_gaussian": (lambda: clip_and_gaussian(x, c, sigma, gen()),
                          loop(lambda r, i, g: add_gaussian(clip_rows(r, c), float(sigma[i]), g))),
        "quantize_uniform": (lambda: quantize_uniform(x, a, bits), loop(lambda r, i, g: _naive_uniform(r, a, bits))),
        "quantize_stochastic": (lambda: quantize_stochastic(x, a, bits, gen()), loop(lambda r, i, g: _naive_stochastic(r, a, bits, g))),
        "subtractive_dither": (lambda: subtractive_dither(x, step, gen(), with_indices=False)[1], loop(lambda r, i, g: _naive_dither(r, step, g))),
    }


def _naive_uniform(r, a, bits):
    d = 2 * a / (2**bits - 1)
    return torch.clamp(torch.round((r + a) / d), 0, 2**bits - 1) * d - a


def _naive_stochastic(r, a, bits, g):
    d = 2 * a / (2**bits - 1)
    t = (torch.clamp(r, -a, a) + a) / d
    return torch.clamp(torch.floor(t + torch.rand(r.shape, generator=g)), 0, 2**bits - 1) * d - a


def _naive_dither(r, step, g):
    u = (torch.rand(r.shape, generator=g) - 0.5) * step
    return torch.round((r + u) / step) * step - u


def bench_kernels(clients: int = 20, params: int = 1_000_000, repeats: int = 3, seed: int = 0) -> list[dict]:
    x = torch.randn(clients, params, generator=torch.Generator().manual_seed(seed))
    copy_s = best_time(lambda: x.clone(), repeats)
    g = torch.Generator().manual_seed(seed)
    rng_floor = {"normal": best_time(lambda: torch.empty_like(x).normal_(generator=g), repeats),
                 "uniform": best_time(lambda: torch.empty_like(x).uniform_(generator=g), repeats)}
    needs = {"clip_gaussian": "normal", "quantize_stochastic": "uniform", "subtractive_dither": "uniform"}
    out = []
    for name, (vec, ref) in kernel_cases(x, seed).items():
        tv, tl = best_time(vec, repeats), best_time(ref, repeats)
        row = {"kernel": name, "shape": [clients, params], "vectorized_s": tv, "loop_s": tl, "copy_s": copy_s,
               "loop_over_vectorized": tl / tv, "vectorized_over_copy": tv / copy_s}
        if name in needs:  # drawing the random numbers alone (torch's CPU generator) is a floor too
            row["rng_fill_s"] = rng_floor[needs[name]]
            row["vectorized_over_rng_fill"] = tv / rng_floor[needs[name]]
        out.append(row)
    return out


# ---- roofline ----------------------------------------------------------------------------------------
#: the papers' stacked Linear shapes: rows R (clients x stacked models), batch B, layer widths; what the
#: paper-scale parts of docs/costs.md spend their time on
PAPER_SHAPES = {
    "dp_ditto DNN, DP-Ditto x9 lambdas (200 rows, batch 10)": (200, 10, (784, 100, 10)),
    "dp_ditto / wpfl_minmax DNN, one model per client (20 rows, batch 10)": (20, 10, (784, 100, 10)),
    "ota_jammer MLP (50 rows, batch 32)": (50, 32, (784, 196, 10)),
}


def roofline(rows: int, batch: int, widths: tuple[int, ...], repeats: int = 3) -> dict:
    """The fastest a plain SGD step of a stack of ``rows`` MLPs (``widths``, batch ``batch``) can run on this
    machine with this library, from its parts measured alone: each layer's forward product and in-place weight
    gradient (``baddbmm_``, as the engine's fused step), and the memory passes over the ``[rows, P]`` stack
    (one in-place 3-stream pass, e.g. the proximal pull, measured as ``lerp_``). Returns the measured rates and
    two ceilings in GFLOP/s: the products alone, and the products plus ``k`` passes for k = 1 (a plain step
    needs none beyond the products) and 3 (a pull and a heavy-ball step)."""
    pairs = list(zip(widths[:-1], widths[1:]))
    P = sum(i * o + o for i, o in pairs)
    flops = 0.0
    t_products = 0.0
    layers = []
    for li, (i, o) in enumerate(pairs):
        x, w, dz = torch.randn(rows, batch, i), torch.randn(rows, o, i), torch.randn(rows, batch, o)
        t_fwd = best_time(lambda: torch.bmm(x, w.transpose(1, 2)), repeats)
        t_wgrad = best_time(lambda: w.baddbmm_(dz.transpose(1, 2), x, alpha=-1e-6), repeats)
        t_dgrad = best_time(lambda: torch.bmm(dz, w), repeats) if li > 0 else 0.0  # no input gradient of layer 1
        f = 2.0 * rows * batch * i * o
        flops += f * (3 if li > 0 else 2)
        t_products += t_fwd + t_wgrad + t_dgrad
        layers.append({"layer": f"{i}x{o}", "forward_gflops": f / t_fwd / 1e9, "weight_grad_gflops": f / t_wgrad / 1e9})
    p, r = torch.randn(rows, P), torch.randn(rows, P)
    t_pass = best_time(lambda: p.lerp_(r, 1e-6), repeats)
    out = {"rows": rows, "batch": batch, "widths": list(widths), "params": P, "step_gflop": flops / 1e9,
           "stack_mb": rows * P * 4 / 1e6, "bandwidth_gb_s": 3 * rows * P * 4 / t_pass / 1e9, "layers": layers,
           "products_s": t_products, "pass_s": t_pass, "ceiling_products_gflops": flops / t_products / 1e9}
    for k in (1, 3):
        out[f"ceiling_{k}_passes_gflops"] = flops / (t_products + k * t_pass) / 1e9
    return out
