"""FedAvg (McMahan et al. 2017) and FedProx (Li et al. 2020) on the vectorised engine.

Every client starts from the global model w̄, runs local SGD (``epochs`` passes of minibatch SGD, or
``steps`` fixed minibatch steps) on F_n (FedAvg) or on F_n + (mu/2)||w - w̄||² (FedProx, eq. (3) of
ota_jammer), uploads its model (or its update) through the upload chain, and the server takes the
weighted mean (sample-weighted by default, eq. (2)/(7)).

Example
-------
>>> import torch
>>> from repro.models import build_model
>>> from repro.engine import ClientData, RngStreams, RoundRng
>>> from repro.algorithms import FedAvg
>>> data = ClientData.from_client_arrays([torch.randn(30, 784)] * 4, [torch.arange(30) % 10] * 4)
>>> model, streams = build_model("mlr"), RngStreams(0)
>>> algo = FedAvg(model, lr=0.05, batch_size=10, epochs=1)
>>> state = algo.init_state(model.init(streams.torch("init")), data)
>>> for t in range(2):
...     state = algo.round(state, data, RoundRng(streams, t))
>>> state.global_params.shape
torch.Size([7850])
"""

from __future__ import annotations

import torch

from repro.algorithms.base import FLAlgorithm, FLState
from repro.engine.data import ClientData
from repro.engine.schedule import epoch_plan, step_plan
from repro.engine.train import local_sgd
from repro.privacy.chain import Transform


def round_plan(data: ClientData, rng, *, batch_size, epochs=None, steps=None):
    """The round's minibatch plan from ``rng.generator("data_order")`` (CPU), on the data's device."""
    if (epochs is None) == (steps is None):
        raise ValueError(f"give exactly one of epochs ({epochs}) and steps ({steps})")
    gen = _cpu_generator(rng, "data_order")
    sizes = data.sizes.cpu()
    if epochs is not None:
        return epoch_plan(sizes, batch_size, epochs, gen, device=data.device)
    return step_plan(sizes, batch_size, steps, gen, device=data.device)


def _cpu_generator(rng, purpose):
    if hasattr(rng, "streams"):  # RoundRng: plans are drawn on the CPU whatever the device
        return rng.streams.torch(purpose, device="cpu", key=rng.round_index)
    return rng.generator(purpose) if hasattr(rng, "generator") else rng


class FedAvg(FLAlgorithm):
    """FedAvg; with ``mu > 0`` it is FedProx (class ``FedProx`` below just sets ``mu``).

    ``lr`` learning rate; ``batch_size``; ``epochs`` (default 1) or ``steps``; ``momentum`` (PyTorch
    convention, reset every round); ``mu`` proximal coefficient; ``prox_in_momentum`` see
    ``local_sgd``; ``upload`` transform chain on the stacked uploads; ``upload_kind`` "model" or
    "update"; ``weighting`` "samples" or "uniform".
    """

    def __init__(self, model, *, lr: float, batch_size: int, epochs: int | None = None, steps: int | None = None,
                 momentum: float = 0.0, mu: float = 0.0, prox_in_momentum: bool = True,
                 upload: Transform | None = None, upload_kind: str = "model", weighting: str = "samples"):
        super().__init__(model, upload)
        if epochs is None and steps is None:
            epochs = 1
        if upload_kind not in ("model", "update"):
            raise ValueError(f"upload_kind must be 'model' or 'update', got {upload_kind!r}")
        if mu < 0:
            raise ValueError(f"mu must be >= 0, got {mu}")
        self.lr, self.batch_size, self.epochs, self.steps = lr, batch_size, epochs, steps
        self.momentum, self.mu, self.prox_in_momentum = momentum, mu, prox_in_momentum
        self.upload_kind, self.weighting = upload_kind, weighting

    def local_update(self, starts: torch.Tensor, state: FLState, data: ClientData, rng) -> torch.Tensor:
        plan = round_plan(data, rng, batch_size=self.batch_size, epochs=self.epochs, steps=self.steps)
        if state.participants is not None:  # only scheduled clients train
            plan.active &= state.participants.to(plan.active.device).unsqueeze(0)
            plan.mask &= plan.active.unsqueeze(2)
        return local_sgd(self.model, starts, data, plan, lr=self.lr, momentum=self.momentum, mu=self.mu,
                         anchor=state.global_params if self.mu else None, prox_in_momentum=self.prox_in_momentum)


class FedProx(FedAvg):
    """FedProx: FedAvg with the proximal term (mu/2)||w - w̄||² in every client's local objective."""

    def __init__(self, model, *, mu: float, **kwargs):
        if not mu > 0:
            raise ValueError(f"FedProx needs mu > 0, got {mu}")
        super().__init__(model, mu=mu, **kwargs)
