"""The vectorised engine equals a plain sequential reference (torch.optim.SGD, one client after another)."""

import pytest
import torch

from repro.algorithms import FedAvg, FedProx, FLSetup, aggregation_weights
from repro.engine import ClientData, RngStreams, evaluate
from repro.engine.reference import sequential_evaluate, sequential_local_sgd
from repro.models import build_model


def _data(sizes, features=784, seed=0):
    g = torch.Generator().manual_seed(seed)
    xs = [torch.randn(m, features, generator=g) for m in sizes]
    ys = [torch.randint(0, 10, (m,), generator=g) for m in sizes]
    return ClientData.from_client_arrays(xs, ys)


def _sequential_fedavg(algo, model, theta0, data, streams, rounds):
    w = theta0.clone()
    for t in range(rounds):
        plan = algo.setup.plan(t)
        starts = w.unsqueeze(0).repeat(data.num_clients, 1)
        local = sequential_local_sgd(model, starts, data, plan, lr=algo.setup.lr, momentum=algo.momentum, mu=algo.mu, anchor=w)
        weights = aggregation_weights(data, "samples", None).float()
        w = sum(weights[n] * local[n] for n in range(data.num_clients))
    return w


@pytest.mark.parametrize("name", ["mlr", "dnn"])
@pytest.mark.parametrize("mu", [0.0, 0.1])
@pytest.mark.parametrize("momentum", [0.0, 0.5])
def test_fedavg_fedprox_match_sequential_reference_over_3_rounds(name, mu, momentum):
    model = build_model(name)
    data = _data([23, 40, 31, 17])  # uneven sizes, partial last batches
    streams = RngStreams(11)
    theta0 = model.init(streams.torch("init"))[0]
    setup = FLSetup(model, data, streams, lr=0.05, batch_size=8, local_epochs=2, weights=data.sizes)
    algo = FedProx(setup, mu=mu, momentum=momentum) if mu else FedAvg(setup, momentum=momentum)
    state = algo.init(theta0)
    for t in range(3):
        state = algo.round(state, t)
    ref = _sequential_fedavg(algo, model, theta0, data, streams, 3)
    assert torch.allclose(state.global_params, ref, atol=1e-5, rtol=0)
    assert not torch.equal(state.global_params, theta0)


def test_cnn_round_matches_sequential_reference():
    model = build_model("cnn", conv1=4, conv2=8, hidden=16)
    data = _data([12, 7, 9], features=784, seed=3)
    data = ClientData(data.x.view(-1, 28, 28), data.y, data.offsets, data.sizes)
    streams = RngStreams(5)
    theta0 = model.init(streams.torch("init"))[0]
    algo = FedAvg(FLSetup(model, data, streams, lr=0.02, batch_size=5, weights=data.sizes))
    state = algo.round(algo.init(theta0), 0)
    ref = _sequential_fedavg(algo, model, theta0, data, streams, 1)
    assert torch.allclose(state.global_params, ref, atol=1e-5, rtol=0)


def test_evaluate_matches_sequential_reference():
    model = build_model("dnn")
    data = _data([13, 29, 5])
    theta = model.init(torch.Generator().manual_seed(0), rows=3) + 0.05 * torch.randn(3, model.num_params, generator=torch.Generator().manual_seed(1))
    res = evaluate(model, theta, data, chunk=7)
    loss, acc = sequential_evaluate(model, theta, data)
    assert torch.allclose(res.loss, loss, atol=1e-5)
    assert torch.allclose(res.accuracy, acc, atol=1e-6)
    assert res.count.tolist() == [13, 29, 5]
