"""FedAMP (Y. Huang et al., "Personalized Cross-Silo FL on Non-IID Data", AAAI 2021), vectorised.

Server, from the received (possibly DP-perturbed) uploads w~_j only ([24] eqs. (5)-(6)):
  xi_ij = alpha_K * exp(-||w~_i - w~_j||^2 / sigma) / sigma  (j != i),  xi_ii = 1 - sum_{j != i} xi_ij
  (if sum_{j != i} xi_ij > 1 the off-diagonal weights are rescaled to sum 1, xi_ii = 0, and the event is
  counted: [24] needs xi_ii >= 0; guide D29),   cloud model u_i = sum_j xi_ij w~_j.
Client i starts from u_i (received through ``download``) and minimises
  F_i(w) + lam/(2 alpha_K) ||w - u_i||^2 for the local epochs; uploads w_i. Personalised model: w_i.
Non-participating clients keep their w_i; the server uses the latest upload of every client.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from repro.algorithms.ditto import PFLSetup
from repro.engine.train import local_sgd


def attention_weights(uploads: torch.Tensor, alpha_k: float, sigma: float) -> tuple[torch.Tensor, int]:
    """Message-passing weights xi ``[N, N]`` (rows sum to 1, non-negative) and the number of rows
    whose off-diagonal sum exceeded 1 (rescaled). Squared Euclidean distance as in [24]."""
    d2 = torch.cdist(uploads.double(), uploads.double()).pow(2)
    xi = alpha_k * torch.exp(-d2 / sigma) / sigma
    xi.fill_diagonal_(0.0)
    off = xi.sum(1, keepdim=True)
    over = off > 1.0
    xi = torch.where(over, xi / off.clamp(min=1e-300), xi)
    xi = xi + torch.diag((1.0 - xi.sum(1)).clamp(min=0.0))
    return xi, int(over.sum())


@dataclass
class FedAMPState:
    cloud: torch.Tensor  # u_i [N, P] (what the server will send)
    personal: torch.Tensor  # w_i [N, P]
    received: torch.Tensor  # latest upload of every client [N, P]
    info: dict = field(default_factory=lambda: {"rescaled_rows": 0})


class FedAMP:
    name = "fedamp"

    def __init__(self, setup: PFLSetup, alpha_k: float = 1e3, lam: float = 1.0, sigma: float = 0.1):
        if alpha_k <= 0 or lam < 0 or sigma <= 0:
            raise ValueError(f"FedAMP needs alpha_k > 0, lam >= 0, sigma > 0; got {alpha_k}, {lam}, {sigma}")
        self.setup, self.alpha_k, self.lam, self.sigma = setup, float(alpha_k), float(lam), float(sigma)

    def init(self, theta0: torch.Tensor) -> FedAMPState:
        rows = theta0.reshape(1, -1).to(self.setup.device).repeat(self.setup.num_clients, 1)
        return FedAMPState(rows.clone(), rows.clone(), rows.clone())

    def round(self, state: FedAMPState, t: int, clients=None) -> FedAMPState:
        s = self.setup
        S = s.clients_or_all(clients)
        start = s.download(state.cloud[S], S, t)
        mu = self.lam / self.alpha_k  # gradient of lam/(2 alpha_K) ||w - u||^2
        w = local_sgd(s.model, start, s.train, s.plan(t), lr=s.lr, mu=mu, anchor=start, row_client=S)
        received = state.received.clone()
        received[S] = s.upload(w, S, t).to(received.dtype)
        xi, over = attention_weights(received, self.alpha_k, self.sigma)
        cloud = (xi.to(received.dtype) @ received)
        personal = state.personal.clone()
        personal[S] = w
        info = dict(state.info)
        info["rescaled_rows"] = info.get("rescaled_rows", 0) + over
        info["mean_self_weight"] = float(xi.diag().mean())
        return FedAMPState(cloud, personal, received, info)

    def personalized(self, state: FedAMPState) -> torch.Tensor:
        return state.personal
