"""One FedAvg round (20 clients, batch 10, 1 local epoch, then evaluation of the new global model on
every client's train and test data): vectorised engine vs the sequential reference (one nn.Module +
torch.optim.SGD per client, same batches), in the same test.

MLR and DNN use the issue's 2,625 training samples per client (875 test). The CNN (582,026 parameters)
uses 250 training / 84 test samples per client so the whole bench suite stays within a few minutes on
2 cores; its per-sample cost is the same, so the speedup and GFLOP/s carry over.
``benchmark.extra_info``: sequential_s_per_round, speedup, gflops: reported, not asserted (a benchmark, not a timed
test). One round each is noisy on a shared 2-core machine; ``repro bench engine`` (best of 5 after a warm-up) gives the
stable ratio (2026-12-02, this 2-core CPU: MLR 7.9x, DNN 3.1x; docs/costs.md).
"""

import time

import pytest
import torch

from repro.engine.bench import make_round_setup, round_flops, sequential_round, vectorized_round

CASES = {"mlr": (2625, 875), "dnn": (2625, 875), "cnn": (250, 84)}


@pytest.mark.parametrize("name", list(CASES))
def test_fedavg_round_vectorized_vs_sequential(benchmark, name):
    samples, test_samples = CASES[name]
    # warm both code paths up on a tiny problem (library initialisation, first allocations)
    tiny = make_round_setup(name, 2, 20, 10, seed=1)
    vectorized_round(*tiny), sequential_round(*tiny)
    model, train, test, w0, streams = make_round_setup(name, 20, samples, test_samples, seed=0)
    times = []

    def timed():
        t = time.perf_counter()
        out = vectorized_round(model, train, test, w0, streams)
        times.append(time.perf_counter() - t)
        return out

    wv, acc_v = benchmark.pedantic(timed, rounds=1, iterations=1)
    t0 = time.perf_counter()
    ws, acc_s = sequential_round(model, train, test, w0, streams)
    seq_s = time.perf_counter() - t0
    vec_s = min(times)
    benchmark.extra_info.update({
        "model": name, "clients": 20, "samples_per_client": samples, "vectorized_s_per_round": vec_s,
        "sequential_s_per_round": seq_s, "speedup": seq_s / vec_s,
        "gflops": round_flops(model, train, test) / vec_s / 1e9, "threads": torch.get_num_threads(),
    })
    assert torch.allclose(wv, ws, atol=1e-5, rtol=0)
    # float summation order differs (grouped vs per-client kernels): a near-tie may flip one prediction
    assert float((acc_v - acc_s).abs().max()) <= 1.0 / test_samples + 1e-6
