"""The GPU path as far as a CPU can prove it: no host synchronisation inside the training loop (a sync per
step would serialise a GPU), and the same numbers on CUDA as on the CPU where a GPU exists."""

import contextlib

import pytest
import torch

from repro.engine.data import ClientData
from repro.engine.rng import RngStreams
from repro.engine.schedule import epoch_plan
from repro.engine.train import evaluate, local_sgd
from repro.models import build_model

SYNCS = ("item", "tolist", "__bool__", "__int__", "__float__", "cpu", "numpy")


@contextlib.contextmanager
def count_host_syncs():
    """Count calls of the Tensor methods that copy a value to the host (on CUDA they block the stream)."""
    counts = {"n": 0}
    saved = {name: getattr(torch.Tensor, name) for name in SYNCS}

    def wrap(fn):
        def counted(self, *a, **k):
            counts["n"] += 1
            return fn(self, *a, **k)
        return counted

    for name, fn in saved.items():
        setattr(torch.Tensor, name, wrap(fn))
    try:
        yield counts
    finally:
        for name, fn in saved.items():
            setattr(torch.Tensor, name, fn)


def _setup(model_name, device="cpu", clients=4, samples=40):
    g = torch.Generator().manual_seed(0)
    shape = (samples, 28, 28) if model_name == "cnn" else (samples, 784)
    data = ClientData.from_client_arrays([torch.randn(*shape, generator=g) for _ in range(clients)],
                                         [torch.randint(0, 10, (samples,), generator=g) for _ in range(clients)]).to(device)
    model = build_model(model_name, **({"conv1": 4, "conv2": 8, "hidden": 16} if model_name == "cnn" else {}))
    theta = model.init(RngStreams(0).torch("init"), rows=clients).to(device)
    return model, data, theta


@pytest.mark.parametrize("model_name", ["dnn", "cnn"])
def test_no_host_sync_per_sgd_step(model_name):
    model, data, theta = _setup(model_name)
    counts = []
    for epochs in (1, 4):  # 4x the steps
        plan = epoch_plan(data.sizes, batch_size=10, epochs=epochs, generator=torch.Generator().manual_seed(1))
        with count_host_syncs() as c:
            local_sgd(model, theta, data, plan, lr=0.05, mu=0.1, anchor=theta[0])
        counts.append(c["n"])
    assert counts[1] == counts[0], f"host syncs grow with the number of steps: {counts}"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here (the test runs where one is)")
@pytest.mark.parametrize("model_name", ["mlr", "dnn", "cnn"])
def test_cuda_matches_cpu(model_name):
    out = {}
    for device in ("cpu", "cuda"):
        model, data, theta = _setup(model_name, device)
        plan = epoch_plan(data.sizes.cpu(), batch_size=10, epochs=2, generator=torch.Generator().manual_seed(1), device=device)
        trained = local_sgd(model, theta, data, plan, lr=0.05)
        out[device] = (trained.cpu(), evaluate(model, trained, data).accuracy.cpu())
    assert torch.allclose(out["cpu"][0], out["cuda"][0], rtol=1e-4, atol=1e-5)
    assert torch.allclose(out["cpu"][1], out["cuda"][1], atol=0.05)
