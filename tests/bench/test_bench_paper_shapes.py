"""The papers' training shapes, fast path against the implementation it replaced, measured in the same run:

* a DP-Ditto step with a lambda grid stacked as rows (x9 lambdas x 20 clients, DNN 784-100-10 and MLR; batch 10):
  the proximal pull as one fused ``lerp_`` vs the out-of-place ``p - lr mu (p - ref)``;
* a CNN Ditto step (20 clients, the papers' CNN on 28x28 inputs): same two pulls;
* pFedMe's inner solve (K = 5 steps on 20 clients, DNN): the engine's fused in-place step vs the generic autograd
  loop on the flat stack;
* an APPLE round (20 clients, DNN, both p-gradients): the in-place shared-view steps vs the generic loop.

``benchmark.extra_info``: ``reference_s``, ``fast_s`` (minimum over repeats) and ``speedup``. Each case also checks
that both paths give the same numbers (float tolerance).
"""

import time

import pytest
import torch

from repro.algorithms import FLSetup
from repro.algorithms.apple import Apple
from repro.algorithms.pfedme import PFedMe
from repro.engine import ClientData, RngStreams
from repro.engine import train as T
from repro.engine.schedule import step_plan
from repro.models import build_model


def _data(clients, per, seed=0):
    g = torch.Generator().manual_seed(seed)
    return ClientData.from_client_arrays([torch.randn(per, 28, 28, generator=g) for _ in range(clients)],
                                         [torch.randint(0, 10, (per,), generator=g) for _ in range(clients)])


def _best(fn, repeats=3):
    fn()
    out, times = None, []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def _record(benchmark, fast_fn, ref_s, fast_s, **info):
    benchmark.pedantic(fast_fn, rounds=1, iterations=1)
    benchmark.extra_info.update({"reference_s": ref_s, "fast_s": fast_s, "speedup": ref_s / fast_s, **info})


def _fused_vs_reference(benchmark, monkeypatch, run, part, reference, steps, shape):
    """Time ``run`` with the engine's fused ``part`` and with ``reference`` patched in its place (same run), check
    that both give the same numbers, and record the per-step times and their ratio."""
    fast_s, fast = _best(run)
    with monkeypatch.context() as m:
        m.setattr(T, part, reference)
        ref_s, ref = _best(run)
    torch.testing.assert_close(fast, ref, rtol=1e-5, atol=1e-6)
    _record(benchmark, run, ref_s / steps, fast_s / steps, shape=shape, unit="s per step")


@pytest.mark.parametrize("model_name,lambdas,steps", [("dnn", 9, 10), ("mlr", 9, 10), ("cnn", 1, 2)])
def test_ditto_step_fused_pull_vs_out_of_place(benchmark, monkeypatch, model_name, lambdas, steps):
    clients = 20
    model, data = build_model(model_name), _data(clients, 40)
    rows = clients * lambdas
    g = torch.Generator().manual_seed(1)
    theta = model.init(g, rows=rows)
    anchor = theta[:1] + 0.01 * torch.randn(1, theta.shape[1], generator=g)
    mu = torch.linspace(0.0, 2.0, lambdas).repeat_interleave(clients) if lambdas > 1 else 0.5
    rc = torch.arange(rows) % clients
    plan = step_plan(data.sizes, 10, steps, torch.Generator().manual_seed(2))
    run = lambda: T.local_sgd(model, theta, data, plan, lr=0.005, mu=mu, anchor=anchor[0], row_client=rc)  # noqa: E731
    _fused_vs_reference(benchmark, monkeypatch, run, "_prox_pull", T.prox_pull_reference, steps,
                        f"{model_name} x{lambdas} lambdas x{clients} clients, batch 10")


def test_pfedme_inner_solve_fused_vs_generic(benchmark):
    def setup():
        model = build_model("dnn")
        streams = RngStreams(0)
        s = FLSetup(model, _data(20, 40), streams, lr=0.005, batch_size=10)
        algo = PFedMe(s, lam=15.0, inner_steps=5, personal_lr=0.01)
        return algo, algo.init(model.init(streams.torch("init"))[0])

    algo, state = setup()
    fast_s, fast = _best(lambda: algo.round(state, 0))
    algo.fused = False
    ref_s, ref = _best(lambda: algo.round(state, 0))
    algo.fused = True
    torch.testing.assert_close(fast.personal, ref.personal, rtol=1e-4, atol=1e-6)
    _record(benchmark, lambda: algo.round(state, 0), ref_s, fast_s, shape="pFedMe K=5, DNN, 20 clients x 40 samples, batch 10",
            unit="s per round (4 minibatches)")


@pytest.mark.parametrize("p_grad", ["inner", "tensor_mean"])
def test_apple_round_shared_steps_vs_generic(benchmark, p_grad):
    model = build_model("dnn")
    streams = RngStreams(0)
    s = FLSetup(model, _data(20, 40), streams, lr=0.005, batch_size=10)
    algo = Apple(s, p_grad=p_grad, total_rounds=5)
    state = algo.init(model.init(streams.torch("init"))[0])
    fast_s, fast = _best(lambda: algo.round(state, 0))
    algo.fast = False
    ref_s, ref = _best(lambda: algo.round(state, 0))
    algo.fast = True
    torch.testing.assert_close(fast.cores, ref.cores, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(fast.p, ref.p, rtol=1e-5, atol=1e-6)
    _record(benchmark, lambda: algo.round(state, 0), ref_s, fast_s,
            shape=f"APPLE ({p_grad} p-gradient), DNN, 20 clients x 40 samples, batch 10", unit="s per round (4 minibatches)")


@pytest.mark.parametrize("mu", [0.0, 0.01])
def test_heavy_ball_step_fused_vs_out_of_place(benchmark, monkeypatch, mu):
    """ota_jammer's local training: the MLP 784-196-10 with momentum 0.5 (FedAvg; FedProx with mu > 0, the
    proximal term inside the momentum), 50 clients, batch 32: v <- m v + g inside the GEMM and the proximal
    term added in place vs the former out-of-place update."""
    clients, steps = 50, 5
    model = build_model("mlp", in_features=784, hidden=196)
    g = torch.Generator().manual_seed(0)
    data = ClientData.from_client_arrays([torch.randn(64, 784, generator=g) for _ in range(clients)],
                                         [torch.randint(0, 10, (64,), generator=g) for _ in range(clients)])
    theta = model.init(g, rows=clients)
    anchor = theta[0] + 0.01 * torch.randn(theta.shape[1], generator=g)
    plan = step_plan(data.sizes, 32, steps, torch.Generator().manual_seed(2))
    run = lambda: T.local_sgd(model, theta, data, plan, lr=0.05, momentum=0.5, mu=mu, anchor=anchor)  # noqa: E731
    _fused_vs_reference(benchmark, monkeypatch, run, "_momentum_layer_step", T.momentum_layer_step_reference, steps,
                        f"MLP 784-196-10, momentum 0.5, mu {mu}, {clients} clients, batch 32")
