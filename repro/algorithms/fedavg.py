"""FedAvg (McMahan et al. 2017) and FedProx (Li et al. 2020) on the vectorised engine.

Every participating client starts from the global model w (received through ``setup.download``), runs
local SGD (``setup.local_epochs`` passes of minibatch SGD, or ``setup.steps`` fixed steps) on F_n
(FedAvg) or on F_n + (mu/2)||w_n - w||^2 (FedProx, eq. (3) of ota_jammer), uploads its model (or its
update) through ``setup.upload``, and the server takes the (weighted) mean of what it receives; an
update is added to the old global model times ``server_lr``.

>>> import torch
>>> from repro.models import build_model
>>> from repro.engine import ClientData, RngStreams
>>> from repro.algorithms import FedProx, FLSetup
>>> data = ClientData.from_client_arrays([torch.randn(30, 784)] * 4, [torch.arange(30) % 10] * 4)
>>> setup = FLSetup(build_model("mlr"), data, RngStreams(0), lr=0.05, batch_size=10, weights=data.sizes)
>>> algo = FedProx(setup, mu=0.1)
>>> state = algo.init(setup.model.init(setup.streams.torch("init")))
>>> state = algo.round(state, 0, clients=[0, 2])      # clients 1 and 3 sit this round out
>>> state.global_params.shape
torch.Size([7850])
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from repro.algorithms.base import FLAlgorithm, FLSetup
from repro.engine.train import local_sgd


@dataclass
class FedAvgState:
    global_params: torch.Tensor  # w [P]


class FedAvg(FLAlgorithm):
    """FedAvg; with ``mu > 0`` it is FedProx (class ``FedProx`` below just requires ``mu > 0``).

    ``momentum``: heavy-ball factor of the local SGD (PyTorch convention, buffer reset every round);
    ``prox_in_momentum``: whether the proximal gradient goes through the momentum buffer (see
    ``repro.engine.train.local_sgd``); ``upload_kind``: ``"model"`` or ``"update"`` (w_n - w);
    ``server_lr``: the server's step on the mean update (1 = plain FedAvg).
    """

    name = "fedavg"

    def __init__(self, setup: FLSetup, *, mu: float = 0.0, momentum: float = 0.0, prox_in_momentum: bool = True,
                 upload_kind: str = "model", server_lr: float = 1.0):
        super().__init__(setup)
        if upload_kind not in ("model", "update"):
            raise ValueError(f"upload_kind must be 'model' or 'update', got {upload_kind!r}")
        if mu < 0:
            raise ValueError(f"mu must be >= 0, got {mu}")
        if not server_lr > 0:
            raise ValueError(f"server_lr must be > 0, got {server_lr}")
        self.mu, self.momentum, self.prox_in_momentum = float(mu), float(momentum), prox_in_momentum
        self.upload_kind, self.server_lr = upload_kind, float(server_lr)

    def init(self, theta0: torch.Tensor) -> FedAvgState:
        return FedAvgState(theta0.reshape(-1).to(self.setup.device).clone())

    def local_update(self, starts: torch.Tensor, clients: torch.Tensor, t: int, anchor: torch.Tensor | None = None) -> torch.Tensor:
        """Client models ``[K, P]`` after round t's local training from ``starts`` ``[K, P]``; the proximal
        term (mu > 0) pulls towards ``anchor`` (``[P]`` or ``[K, P]``, default the starts)."""
        s = self.setup
        return local_sgd(s.model, starts, s.train, s.plan(t), lr=s.lr, momentum=self.momentum, mu=self.mu,
                         anchor=(starts if anchor is None else anchor) if self.mu else None, row_client=clients,
                         prox_in_momentum=self.prox_in_momentum)

    def round(self, state: FedAvgState, t: int, clients=None) -> FedAvgState:
        s = self.setup
        S = s.clients_or_all(clients)
        starts = s.broadcast(state.global_params, S, t)
        local = self.local_update(starts, S, t, anchor=state.global_params)
        payload = local - starts if self.upload_kind == "update" else local
        mean = s.aggregate(s.send_up(payload, S, t), S)
        if self.upload_kind == "update":
            return FedAvgState(state.global_params + self.server_lr * mean)
        if self.server_lr == 1.0:
            return FedAvgState(mean)
        return FedAvgState(state.global_params + self.server_lr * (mean - state.global_params))

    def personalized(self, state: FedAvgState) -> torch.Tensor:
        return state.global_params.unsqueeze(0).expand(self.setup.num_clients, -1)


class FedProx(FedAvg):
    """FedProx: FedAvg with the proximal term (mu/2)||w_n - w||^2 in every client's local objective."""

    name = "fedprox"

    def __init__(self, setup: FLSetup, *, mu: float, **kwargs):
        if not mu > 0:
            raise ValueError(f"FedProx needs mu > 0, got {mu}")
        super().__init__(setup, mu=mu, **kwargs)
