"""The hooks every FL algorithm plugs into: one round = broadcast, local update, upload, aggregate,
personalise. All tensors are stacked over clients (``[N, P]``, flat parameters, see
``repro.models``); no hook loops over clients.

``FLAlgorithm.round(state, data, rng)`` runs, in order:

1. ``starts = broadcast(state, rng)``                 ``[N, P]``: the model each client starts from
   (default: the global model for every client; a wireless downlink can perturb it here).
2. ``local = local_update(starts, state, data, rng)``  ``[N, P]``: local training (batched SGD).
3. ``sent = upload(local, starts, state, rng)``        ``[N, P]``: what reaches the server, after the
   upload transform chain (clip, noise, quantise, channel; ``repro.privacy.chain``). Uploads a
   model or an update ``local - starts`` (``self.upload_kind``).
4. ``state = aggregate(sent, starts, state, data, rng)``: the server's new global model
   (default: weighted mean over participating clients; an update is added to the old global).
5. ``state = personalize(state, local, starts, data, rng)``: client-side models that are never
   uploaded (Ditto's personalised models, ...); default: nothing.

``state.participants`` (``[N]`` bool or None = all) restricts steps 2-4 to scheduled clients: the
others keep their state and are not averaged. ``rng`` is a ``repro.engine.rng.RoundRng``.

A new algorithm subclasses ``FLAlgorithm`` and overrides the hooks it needs (e.g. Upcycled-FL's
server-only even rounds override ``round`` to call ``aggregate`` without ``local_update``).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field

import torch

from repro.engine.data import ClientData
from repro.privacy.chain import Transform, identity


@dataclass
class FLState:
    """What persists between rounds.

    ``global_params`` ``[P]``; ``client_params`` ``[N, P]`` or None (per-client models that persist,
    e.g. personalised ones); ``participants`` ``[N]`` bool or None (all); ``round`` the index of the
    next round; ``extras`` algorithm-specific tensors (momentum of the server, APPLE's weights, ...).
    """

    global_params: torch.Tensor
    client_params: torch.Tensor | None = None
    participants: torch.Tensor | None = None
    round: int = 0
    extras: dict = field(default_factory=dict)


def aggregation_weights(data: ClientData, weighting: str, participants: torch.Tensor | None) -> torch.Tensor:
    """``[N]`` weights summing to 1 over participating clients: ``"samples"`` (|D_n|-weighted, eq. (2)
    of most papers) or ``"uniform"`` (1/|N_t|); non-participants get 0."""
    if weighting == "samples":
        w = data.sizes.to(torch.float64)
    elif weighting == "uniform":
        w = torch.ones(data.num_clients, dtype=torch.float64, device=data.device)
    else:
        raise ValueError(f"unknown weighting {weighting!r}; allowed: samples, uniform")
    if participants is not None:
        w = w * participants.to(w.device, torch.float64)
    total = w.sum()
    if not total > 0:
        raise ValueError("no participating client: cannot aggregate")
    return w / total


class FLAlgorithm(abc.ABC):
    """Template for one FL round on stacked clients (see module docstring for the hooks);
    subclasses must give ``local_update``, the other hooks have FedAvg defaults."""

    upload_kind = "model"  # or "update"
    weighting = "samples"

    def __init__(self, model, upload: Transform | None = None):
        self.model = model
        self.upload_transform = upload or identity()

    # ---- setup ------------------------------------------------------------------------------------
    def init_state(self, init_params: torch.Tensor, data: ClientData) -> FLState:
        """``init_params`` ``[P]`` (or ``[1, P]``): the common initial model ω⁰."""
        return FLState(global_params=init_params.reshape(-1).clone())

    # ---- hooks ------------------------------------------------------------------------------------
    def broadcast(self, state: FLState, data: ClientData, rng) -> torch.Tensor:
        return state.global_params.unsqueeze(0).expand(data.num_clients, -1)

    @abc.abstractmethod
    def local_update(self, starts: torch.Tensor, state: FLState, data: ClientData, rng) -> torch.Tensor:
        """Client models ``[N, P]`` after local training from ``starts`` ``[N, P]``."""

    def upload(self, local: torch.Tensor, starts: torch.Tensor, state: FLState, rng) -> torch.Tensor:
        payload = local - starts if self.upload_kind == "update" else local
        return self.upload_transform(payload, rng)

    def aggregate(self, sent: torch.Tensor, starts: torch.Tensor, state: FLState, data: ClientData, rng) -> FLState:
        w = aggregation_weights(data, self.weighting, state.participants).to(sent.dtype)
        mean = w @ sent
        state.global_params = state.global_params + mean if self.upload_kind == "update" else mean
        return state

    def personalize(self, state: FLState, local: torch.Tensor, starts: torch.Tensor, data: ClientData, rng) -> FLState:
        return state

    # ---- one round ----------------------------------------------------------------------------------
    def round(self, state: FLState, data: ClientData, rng) -> FLState:
        starts = self.broadcast(state, data, rng)
        local = self.local_update(starts, state, data, rng)
        sent = self.upload(local, starts, state, rng)
        state = self.aggregate(sent, starts, state, data, rng)
        state = self.personalize(state, local, starts, data, rng)
        state.round += 1
        return state
