"""Evaluation of 20 stacked paper CNNs (582,026 parameters each), every model on its own client's data, as
DP-Ditto's ``personal_metrics`` does for each lambda: the engine's default chunk vs the former default
(64 samples per client per forward pass) and vs the sequential reference (one ``nn.Module`` per client),
timed in the same test.

The default sizes a pass's largest activation (conv1's 32x24x24 values per sample, x 20 models) to about
8M values, 21 samples per client: 1.2-1.6x faster per sample than 64 on a 32 MiB L3 (measured on the paper
profile's FMNIST split, 1 thread). Data are random, FMNIST-shaped, 210 samples per client (10 passes).
``benchmark.extra_info``: default_s, chunk64_s, sequential_s, chunk64_over_default (target > 1),
sequential_over_default, us_per_sample.
"""

import pytest
import torch

from repro.engine.bench import best_time, make_round_setup
from repro.engine.reference import sequential_evaluate
from repro.engine.train import evaluate

CLIENTS, SAMPLES = 20, 210


def test_cnn_personal_evaluation_chunk(benchmark):
    model, data, _, w0, _ = make_round_setup("cnn", CLIENTS, SAMPLES, 1, seed=0)
    g = torch.Generator().manual_seed(1)
    theta = w0.unsqueeze(0) + 0.02 * torch.randn(CLIENTS, model.num_params, generator=g)  # 20 distinct models
    res = benchmark.pedantic(lambda: evaluate(model, theta, data), rounds=3, iterations=1, warmup_rounds=1)
    default_s = benchmark.stats.stats.min
    chunk64_s = best_time(lambda: evaluate(model, theta, data, chunk=64), repeats=3)
    old = evaluate(model, theta, data, chunk=64)
    sequential_s = best_time(lambda: sequential_evaluate(model, theta, data), repeats=1)
    loss_s, acc_s = sequential_evaluate(model, theta, data)
    benchmark.extra_info.update({
        "model": "cnn", "clients": CLIENTS, "samples_per_client": SAMPLES, "default_s": default_s,
        "chunk64_s": chunk64_s, "sequential_s": sequential_s, "chunk64_over_default": chunk64_s / default_s,
        "sequential_over_default": sequential_s / default_s,
        "us_per_sample": default_s / (CLIENTS * SAMPLES) * 1e6, "threads": torch.get_num_threads(),
    })
    # chunking changes only the float summation order
    assert torch.allclose(res.loss, old.loss, rtol=1e-5, atol=1e-6)
    assert torch.allclose(res.loss, loss_s, rtol=1e-5, atol=1e-5)
    assert float((res.accuracy - old.accuracy).abs().max()) <= 1.0 / SAMPLES + 1e-6
    assert float((res.accuracy - acc_s).abs().max()) <= 1.0 / SAMPLES + 1e-6
