"""The one algorithm interface: every FL method here is an :class:`FLAlgorithm` on an :class:`FLSetup`.

An ``FLSetup`` holds what every method needs besides its own hyper-parameters: the stacked model
(``repro.models``), the clients' data (``repro.engine.data.ClientData``), the run's random streams, the
learning rate, batch size and local epochs, the aggregation weights, and the two *links* a deployment
inserts: ``upload`` (client -> server) and ``download`` (server -> client), each a transform
``(x [K, P], link) -> x'`` of :mod:`repro.privacy.chain` (clip, noise, quantise, bit errors, ... composed
with ``chain``; default identity). ``setup.link(clients, t)`` gives the :class:`~repro.privacy.chain.Link`
of round t for those clients.

An ``FLAlgorithm`` implements three methods, all on tensors stacked over clients (no Python loop over
clients):

* ``init(theta0) -> state``: the common initial model;
* ``round(state, t, clients=None) -> state``: one communication round in which ``clients`` (default all)
  train and communicate; the others keep their state;
* ``personalized(state) -> [N, P]`` (or ``[L, N, P]`` for a lambda grid): the models evaluated per client
  (for a global method, the global model for every client).

>>> import torch
>>> from repro.models import build_model
>>> from repro.engine import ClientData, RngStreams
>>> from repro.algorithms import FedAvg, FLSetup
>>> from repro.privacy import chain, clip_l2, gaussian_noise
>>> data = ClientData.from_client_arrays([torch.randn(30, 784)] * 4, [torch.arange(30) % 10] * 4)
>>> setup = FLSetup(build_model("mlr"), data, RngStreams(0), lr=0.05, batch_size=10,
...                 upload=chain(clip_l2(5.0), gaussian_noise(0.01)))
>>> algo = FedAvg(setup)
>>> state = algo.init(setup.model.init(setup.streams.torch("init")))
>>> for t in range(2):
...     state = algo.round(state, t)
>>> algo.personalized(state).shape
torch.Size([4, 7850])
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

import torch

from repro.engine.data import ClientData
from repro.engine.rng import RngStreams, RoundRng
from repro.engine.schedule import BatchPlan, epoch_plan, step_plan
from repro.privacy.chain import Link, Transform, chain, identity


def _identity_link(x, link=None):
    return x


@dataclass
class FLSetup:
    """What every FL algorithm needs besides its own hyper-parameters (see the module docstring).

    ``weights`` ``[N]``: aggregation weights (None: the plain mean of the received uploads, DP-Ditto's
    Alg. 1 step 13; ``data.sizes``: the |D_n|-weighted mean of FedAvg). ``steps``: a fixed number of
    minibatch steps per round instead of ``local_epochs`` passes. ``last_batch``: what a pass does with the
    |D_n| mod B samples left at its end (``repro.engine.schedule.epoch_plan``: "partial", a last smaller batch,
    or "drop", PFLlib's ``drop_last``).
    """

    model: Any  # repro.models.StackedModel
    train: ClientData
    streams: RngStreams
    lr: float
    batch_size: int = 10
    local_epochs: int = 1
    upload: Transform = _identity_link
    download: Transform = _identity_link
    weights: torch.Tensor | None = None
    steps: int | None = None
    last_batch: str = "partial"

    @property
    def num_clients(self) -> int:
        return self.train.num_clients

    @property
    def device(self):
        return self.train.device

    def link(self, clients: torch.Tensor, t: int) -> Link:
        """The link of round t for ``clients``: its streams (drawn on the CPU, so numbers do not depend on
        the device) start afresh at each call, keyed by (seed, purpose, t)."""
        return Link(clients=clients, round=int(t), rng=RoundRng(self.streams, int(t)), population=self.num_clients)

    def plan(self, t: int) -> BatchPlan:
        """Round t's minibatches for all clients: depends only on (seed, t)."""
        g = self.streams.torch("data_order", key=int(t))
        sizes = self.train.sizes.cpu()
        if self.steps is not None:
            return step_plan(sizes, self.batch_size, self.steps, g, device=self.device)
        return epoch_plan(sizes, self.batch_size, self.local_epochs, g, device=self.device, last_batch=self.last_batch)

    def clients_or_all(self, clients) -> torch.Tensor:
        if clients is None:
            return torch.arange(self.num_clients, device=self.device)
        c = torch.as_tensor(clients, dtype=torch.int64, device=self.device).reshape(-1)
        if len(c) == 0 or int(c.min()) < 0 or int(c.max()) >= self.num_clients:
            raise ValueError(f"clients must be non-empty ids in [0, {self.num_clients}), got {c.tolist()}")
        return c

    def send_up(self, models: torch.Tensor, senders: torch.Tensor, t: int) -> torch.Tensor:
        """What the server receives from ``senders`` ``[K]`` in round t (``upload``)."""
        return self.upload(models, self.link(senders, t))

    def broadcast(self, model: torch.Tensor, receivers: torch.Tensor, t: int) -> torch.Tensor:
        """One model ``[P]`` sent to every receiver through ``download`` -> ``[K, P]``."""
        return self.download(model.unsqueeze(0).expand(len(receivers), -1).contiguous(), self.link(receivers, t))

    def send_down(self, models: torch.Tensor, receivers: torch.Tensor, t: int) -> torch.Tensor:
        """Per-receiver models ``[K, P]`` through ``download``."""
        return self.download(models, self.link(receivers, t))

    def aggregate(self, received: torch.Tensor, senders: torch.Tensor) -> torch.Tensor:
        """Server mean of the received uploads (weighted by ``weights`` when set)."""
        if self.weights is None:
            return received.mean(0)
        w = self.weights.to(received.device)[senders].to(received.dtype)
        return (w.unsqueeze(1) * received).sum(0) / w.sum()


class FLAlgorithm(abc.ABC):
    """One FL method on an :class:`FLSetup`: ``init``, ``round`` and ``personalized`` (module docstring)."""

    name = "algorithm"

    def __init__(self, setup: FLSetup):
        self.setup = setup

    @abc.abstractmethod
    def init(self, theta0: torch.Tensor):
        """The state before round 0 from the common initial model ``theta0`` ``[P]``."""

    @abc.abstractmethod
    def round(self, state, t: int, clients=None):
        """One round in which ``clients`` (ids, default all) train and communicate."""

    @abc.abstractmethod
    def personalized(self, state) -> torch.Tensor:
        """The model each client is evaluated with: ``[N, P]`` (or ``[L, N, P]``)."""


def dp_upload(clip: float | None, sigma, purpose: str = "dp_noise") -> Transform:
    """The clipped Gaussian upload of DP-Ditto (eqs. (5), (8)) and of the DP-perturbed baselines:
    clip every model to L2 norm ``clip``, then add N(0, sigma_n^2 I) drawn for the whole population
    (``sigma`` a float or one value per client). ``clip=None`` and ``sigma=0`` give the identity
    (non-private Ditto)."""
    from repro.privacy.clip import clip_l2
    from repro.privacy.noise import gaussian_noise

    sig = torch.as_tensor(sigma, dtype=torch.float32).reshape(-1)
    if bool((sig < 0).any()):
        raise ValueError(f"sigma must be >= 0, got {sig.tolist()}")
    parts = [clip_l2(float(clip))] if clip is not None else []
    if bool((sig > 0).any()):
        parts.append(gaussian_noise(sig if sig.numel() > 1 else float(sig), purpose, population=True))
    return chain(*parts) if parts else identity()


def aggregation_weights(data: ClientData, weighting: str, participants: torch.Tensor | None = None) -> torch.Tensor:
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
