"""Ditto and DP-Ditto (Algorithm 1 of Zhao et al.), plus the pieces every PFL method here shares.

Shared pieces (used by pFedMe, APPLE, FedAMP, FedALA too):

* ``PFLSetup``: model, stacked client data, batch size, epochs, learning rate, RNG streams, and the
  two *transforms* a deployment inserts: ``upload(models [K, P], senders [K], t) -> [K, P]`` (what
  the server receives from client ``senders[k]`` in round t) and ``download(models [K, P],
  receivers [K], t) -> [K, P]`` (what client ``receivers[k]`` receives). Defaults are identity;
  DP-Ditto's upload is ``DPUpload`` (eq. (5) clip + Gaussian noise of eq. (8)); wpfl_minmax chains
  quantization and bit errors after it.
* Every ``round(state, t, clients)`` takes the participating clients (default all): only they train
  and communicate, the others keep their state.

DP-Ditto (Zhao et al., Algorithm 1 with one local epoch per round): per round every participating client n
  u_n <- omega (received), one local epoch of SGD on F_n                        (Alg. 1 step 5)
  varpi_n <- varpi_n - eta_L((1 - lam/2) grad F_n(varpi_n) + lam (varpi_n - omega))   (steps 9-10, eq. (34))
  upload u~_n = clip_C(u_n) + z_n                                             (steps 6-7, eq. (5), (8))
  server omega <- mean_n u~_n                                                 (step 13)
All lambda of a set share the FL trajectory; the personalised models of all lambda are stacked
``[|Lambda| * K, P]`` next to the K local models and trained in ONE batched call (same minibatches).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch

from repro.engine.data import ClientData
from repro.engine.rng import RngStreams
from repro.engine.schedule import BatchPlan, epoch_plan
from repro.engine.train import local_sgd

Transform = Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor]


def identity_transform(models: torch.Tensor, clients: torch.Tensor, t: int) -> torch.Tensor:
    """The ideal link: what is sent is received."""
    return models


def clip_rows(models: torch.Tensor, clip: float) -> torch.Tensor:
    """Eq. (5): u <- u / max(1, ||u||_2 / C) for every row (the whole flattened model)."""
    if not clip > 0:
        raise ValueError(f"clip C must be > 0, got {clip!r}")
    norms = models.norm(dim=1, keepdim=True)
    return models / torch.clamp(norms / clip, min=1.0)


class DPUpload:
    """DP-Ditto's upload (and the baselines'): clip to C, add N(0, sigma_u[n]^2 I) (eqs. (5), (8)).

    ``sigma_u`` is a float or one value per client ``[N]``. The noise of round t is drawn for all N
    clients at once as standard normal from ``streams.torch("dp_noise", key=t)`` and scaled, so runs
    differing only in eps or T share noise directions (common random numbers) and a client's noise
    does not depend on who else participates. ``sigma_u = 0`` and ``clip = None`` give the identity
    (non-private Ditto: no clipping, no noise; D4).
    """

    def __init__(self, clip: float | None, sigma_u, num_clients: int, streams: RngStreams):
        self.clip = clip
        self.sigma = torch.as_tensor(sigma_u, dtype=torch.float32).reshape(-1)
        if self.sigma.numel() == 1:
            self.sigma = self.sigma.expand(num_clients).clone()
        if self.sigma.numel() != num_clients:
            raise ValueError(f"sigma_u needs 1 or {num_clients} values, got {self.sigma.numel()}")
        if bool((self.sigma < 0).any()):
            raise ValueError(f"sigma_u must be >= 0, got {self.sigma.tolist()}")
        self.num_clients = num_clients
        self.streams = streams

    @property
    def private(self) -> bool:
        return bool((self.sigma > 0).any())

    def noise(self, t: int, dim: int, device) -> torch.Tensor:
        """Standard normal ``[N, dim]`` of round t (CPU generator, moved to ``device``)."""
        g = self.streams.torch("dp_noise", key=int(t))
        return torch.randn(self.num_clients, dim, generator=g).to(device)

    def __call__(self, models: torch.Tensor, senders: torch.Tensor, t: int) -> torch.Tensor:
        out = clip_rows(models, self.clip) if self.clip is not None else models
        if not self.private:
            return out
        xi = self.noise(t, models.shape[1], models.device)[senders.to(models.device)]
        return out + self.sigma.to(models.device)[senders.cpu()].unsqueeze(1).to(models.device) * xi


def chain(*transforms: Transform) -> Transform:
    """Compose transforms left to right (like optax.chain): chain(dp, quantize, channel)."""

    def run(models, clients, t):
        for f in transforms:
            models = f(models, clients, t)
        return models

    return run


@dataclass
class PFLSetup:
    """What every PFL algorithm here needs besides its own hyper-parameters."""

    model: object  # repro.models.StackedModel
    train: ClientData
    streams: RngStreams
    lr: float
    batch_size: int = 10
    local_epochs: int = 1
    upload: Transform = identity_transform
    download: Transform = identity_transform
    weights: torch.Tensor | None = None  # aggregation weights [N] (None: simple mean, Alg. 1 step 13)

    @property
    def num_clients(self) -> int:
        return self.train.num_clients

    @property
    def device(self):
        return self.train.device

    def plan(self, t: int) -> BatchPlan:
        """Round t's minibatches for all clients: depends only on (seed, t) (D3, D23)."""
        return epoch_plan(self.train.sizes.cpu(), self.batch_size, self.local_epochs,
                          self.streams.torch("data_order", key=int(t)), device=self.device)

    def clients_or_all(self, clients) -> torch.Tensor:
        if clients is None:
            return torch.arange(self.num_clients, device=self.device)
        c = torch.as_tensor(clients, dtype=torch.int64, device=self.device).reshape(-1)
        if len(c) == 0 or int(c.min()) < 0 or int(c.max()) >= self.num_clients:
            raise ValueError(f"clients must be non-empty ids in [0, {self.num_clients}), got {c.tolist()}")
        return c

    def aggregate(self, received: torch.Tensor, senders: torch.Tensor) -> torch.Tensor:
        """Server mean of the received uploads (|D_n|-weighted if ``weights`` is set)."""
        if self.weights is None:
            return received.mean(0)
        w = self.weights.to(received.device)[senders]
        return (w.unsqueeze(1) * received).sum(0) / w.sum()

    def broadcast(self, model: torch.Tensor, receivers: torch.Tensor, t: int) -> torch.Tensor:
        """One model ``[P]`` sent to every receiver through ``download`` -> ``[K, P]``."""
        return self.download(model.unsqueeze(0).expand(len(receivers), -1).contiguous(), receivers, t)


@dataclass
class DittoState:
    global_params: torch.Tensor  # omega [P]
    personal: torch.Tensor  # varpi [L, N, P]
    local: torch.Tensor | None = None  # last trained local models u [N, P] (diagnostics)
    info: dict = field(default_factory=dict)


class Ditto:
    """DP-Ditto / Ditto with a set of lambda in [0, 2] sharing one FL trajectory (Algorithm 1 never feeds varpi back)."""

    name = "ditto"

    def __init__(self, setup: PFLSetup, lambdas, personal_lr: float | None = None):
        lams = [float(l) for l in lambdas]
        bad = [l for l in lams if not 0.0 <= l <= 2.0]
        if not lams or bad:
            raise ValueError(f"lambdas must be a non-empty list in [0, 2], got {lams}")
        self.setup = setup
        self.lambdas = lams
        self.personal_lr = setup.lr if personal_lr is None else float(personal_lr)

    def init(self, theta0: torch.Tensor) -> DittoState:
        """omega^0 = theta0; every varpi_n^0 = omega^0 (identical init for all clients)."""
        theta0 = theta0.reshape(-1).to(self.setup.device)
        L, N = len(self.lambdas), self.setup.num_clients
        return DittoState(theta0.clone(), theta0.view(1, 1, -1).expand(L, N, -1).clone())

    def round(self, state: DittoState, t: int, clients=None) -> DittoState:
        s = self.setup
        S = s.clients_or_all(clients)
        K, L = len(S), len(self.lambdas)
        omega = s.broadcast(state.global_params, S, t)  # [K, P], what each client received
        lam = torch.tensor(self.lambdas, device=s.device).repeat_interleave(K)  # [L*K] row order (l, k)
        rows = torch.cat([omega, state.personal[:, S].reshape(L * K, -1)])
        mu = torch.cat([torch.zeros(K, device=s.device), lam])
        scale = torch.cat([torch.ones(K, device=s.device), 1.0 - lam / 2.0])
        # the lambda-term only where lambda > 0 (guard: a non-finite omega never reaches lambda = 0 rows)
        anchor_p = torch.where((lam > 0).unsqueeze(1), omega.repeat(L, 1), torch.zeros_like(omega.repeat(L, 1)))
        anchor = torch.cat([torch.zeros_like(omega), anchor_p])
        lr = torch.cat([torch.full((K,), s.lr, device=s.device), torch.full((L * K,), self.personal_lr, device=s.device)])
        row_client = S.repeat(L + 1)
        out = local_sgd(s.model, rows, s.train, s.plan(t), lr=lr, mu=mu, anchor=anchor, loss_scale=scale,
                        row_client=row_client)
        u = out[:K]
        personal = state.personal.clone()
        personal[:, S] = out[K:].view(L, K, -1)
        received = s.upload(u, S, t)
        new_global = s.aggregate(received, S)
        return DittoState(new_global, personal, u, state.info)

    def personalized(self, state: DittoState) -> torch.Tensor:
        """varpi ``[L, N, P]`` (lambda-major)."""
        return state.personal
