"""FedAMP (Y. Huang et al., "Personalized Cross-Silo FL on Non-IID Data", AAAI 2021, [24] in DP-Ditto), vectorised.

[24] minimises sum_i F_i(w_i) + lam sum_{i<j} A(||w_i - w_j||^2) with an attention-inducing function A
(increasing, concave, A(0) = 0); its example, used here, is A(x) = 1 - exp(-x / sigma), so
A'(x) = exp(-x / sigma) / sigma. One round (alternating incremental-proximal steps of [24]):

  server, from the received (possibly DP-perturbed) uploads w~_j only:
      xi_ij = alpha_K A'(||w~_i - w~_j||^2)   (j != i),      xi_ii = 1 - sum_{j != i} xi_ij
      message to client i: m_i = sum_{j != i} xi_ij w~_j and xi_ii
  client i: cloud model u_i = m_i + xi_ii w_i (its own model enters un-noised: it never left the client;
      ``own="uploaded"``: u_i = sum_j xi_ij w~_j as the server computes it, the own noisy upload included),
      then w_i = argmin F_i(w) + lam/(2 alpha_K) ||w - u_i||^2, approximated by the local epochs of SGD
      started at u_i; uploads w_i. Personalised model: w_i.

Scale of the attention. A' decays on the scale sigma of the *squared distances* between models, which
depend on the model size, the training stage and the DP noise (a noisy upload adds about 2 d sigma_u^2
to every squared distance). A fixed sigma far below the distances makes every xi_ij vanish (the client
then only restarts from its own model); far above, all peers weigh the same. ``scale="median"`` sets the
scale each round from what the server received: sigma_t = sigma * median_{i != j} ||w~_i - w~_j||^2 and
alpha_K,t = alpha_K * sigma_t, so xi_ij = alpha_K exp(-||w~_i - w~_j||^2 / sigma_t): ``alpha_K`` is then
the weight of an identical peer and ``sigma`` is relative. ``scale="absolute"`` is [24] with fixed
constants. The client's proximal coefficient lam/alpha_K is the separate hyper-parameter ``prox``
(in [24] both come from (lam, alpha_K); here the message-passing step changes with the scale).

[24] needs xi_ii >= 0: a row whose off-diagonal sum exceeds 1 is rescaled to sum 1 (xi_ii = 0) and the
event is counted. Non-participating clients keep their w_i; the server uses every client's latest upload.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from repro.algorithms.base import FLAlgorithm, FLSetup
from repro.engine.train import local_sgd

SCALES = ("median", "absolute")
STARTS = ("cloud", "own")  # local SGD from the cloud model u_i (FedAMP's paper) or from the own model w_i (PFLlib)
OWN_MODELS = ("local", "uploaded")  # the own model's term xi_ii w in u_i: the client's clean w_i, or its noisy upload


def squared_distances(uploads: torch.Tensor) -> torch.Tensor:
    """||w_i - w_j||^2 for every pair of rows of ``uploads`` [N, P] (float64, exact zeros on the diagonal)."""
    u = uploads.double()
    sq = (u * u).sum(1)
    d2 = (sq.unsqueeze(1) + sq.unsqueeze(0) - 2.0 * (u @ u.T)).clamp(min=0.0)
    d2.fill_diagonal_(0.0)
    return d2


def attention_scale(d2: torch.Tensor, sigma: float, scale: str) -> float:
    """sigma_t of A(x) = 1 - exp(-x/sigma_t): ``sigma`` itself, or ``sigma`` times the median off-diagonal
    squared distance (``scale="median"``)."""
    if scale == "absolute":
        return float(sigma)
    n = d2.shape[0]
    off = d2[~torch.eye(n, dtype=torch.bool, device=d2.device)]
    med = float(off.median()) if off.numel() else 0.0
    return float(sigma) * med if med > 0 else float(sigma)


def attention_weights(uploads: torch.Tensor, alpha_k: float, sigma: float, scale: str = "absolute") -> tuple[torch.Tensor, int]:
    """Message-passing weights xi ``[N, N]`` of [24] (rows sum to 1, non-negative) and the number of rows
    whose off-diagonal sum exceeded 1 (rescaled).

    ``scale="absolute"``: xi_ij = alpha_K exp(-d_ij^2 / sigma) / sigma (j != i), d_ij^2 the squared
    Euclidean distance of the uploads. ``scale="median"``: sigma_t = sigma * median d^2 and
    xi_ij = alpha_K exp(-d_ij^2 / sigma_t).
    """
    if scale not in SCALES:
        raise ValueError(f"unknown attention scale {scale!r}; allowed: {', '.join(SCALES)}")
    d2 = squared_distances(uploads)
    s = attention_scale(d2, sigma, scale)
    coef = alpha_k if scale == "median" else alpha_k / s
    xi = coef * torch.exp(-d2 / s)
    xi.fill_diagonal_(0.0)
    off = xi.sum(1, keepdim=True)
    over = off > 1.0
    xi = torch.where(over, xi / off.clamp(min=1e-300), xi)
    xi = xi + torch.diag((1.0 - xi.sum(1)).clamp(min=0.0))
    return xi, int(over.sum())


@dataclass
class FedAMPState:
    personal: torch.Tensor  # w_i [N, P] (client side, un-noised)
    received: torch.Tensor  # latest upload of every client, as the server received it [N, P]
    xi: torch.Tensor  # message-passing weights of the last aggregation [N, N]
    info: dict = field(default_factory=dict)


class FedAMP(FLAlgorithm):
    """Defaults: A(x) = 1 - exp(-x/sigma_t), sigma_t = 0.3 x the median squared distance of the uploads,
    alpha_K = 0.1 (weight of an identical peer), prox = lam/alpha_K = 1e-3."""

    name = "fedamp"

    def __init__(self, setup: FLSetup, alpha_k: float = 0.1, sigma: float = 0.3, scale: str = "median", prox: float = 1e-3,
                 start: str = "cloud", own: str = "local"):
        """``start``: where each round's local SGD starts: ``"cloud"`` (from u_i, the incremental-proximal step
        of FedAMP's paper) or ``"own"`` (from the client's own model w_i, u_i only the proximal anchor, as
        PFLlib deploys it). ``own``: the own-model term of u_i, ``"local"`` (the client's clean w_i) or
        ``"uploaded"`` (its upload as the server received it, DP noise included: u_i = sum_j xi_ij w~_j computed at
        the server from the uploads alone)."""
        if not alpha_k > 0 or not sigma > 0 or prox < 0:
            raise ValueError(f"FedAMP needs alpha_k > 0, sigma > 0, prox >= 0; got {alpha_k}, {sigma}, {prox}")
        if scale not in SCALES:
            raise ValueError(f"unknown attention scale {scale!r}; allowed: {', '.join(SCALES)}")
        if start not in STARTS:
            raise ValueError(f"unknown local start {start!r}; allowed: {', '.join(STARTS)}")
        if own not in OWN_MODELS:
            raise ValueError(f"unknown own-model term {own!r}; allowed: {', '.join(OWN_MODELS)}")
        self.setup, self.alpha_k, self.sigma, self.scale, self.prox = setup, float(alpha_k), float(sigma), scale, float(prox)
        self.start, self.own = start, own

    def init(self, theta0: torch.Tensor) -> FedAMPState:
        n = self.setup.num_clients
        rows = theta0.reshape(1, -1).to(self.setup.device).repeat(n, 1)
        eye = torch.eye(n, dtype=torch.float64, device=self.setup.device)
        return FedAMPState(rows.clone(), rows.clone(), eye, {"rescaled_rows": 0, "rounds": 0, "self_weight_sum": 0.0,
                                                              "xi_sum": torch.zeros(n, n, dtype=torch.float64)})

    def cloud_models(self, state: FedAMPState, S: torch.Tensor, t: int) -> torch.Tensor:
        """u_i = sum_{j != i} xi_ij w~_j (the server's message, through ``download``) + xi_ii w_i (own, clean); with
        ``own="uploaded"`` the whole sum_j xi_ij w~_j is the server's message."""
        xi = state.xi[S].to(state.received.dtype)
        if self.own == "uploaded":
            return self.setup.send_down(xi @ state.received, S, t)
        self_w = xi[torch.arange(len(S), device=xi.device), S].clone()
        others = xi.clone()
        others[torch.arange(len(S), device=xi.device), S] = 0.0
        message = self.setup.send_down(others @ state.received, S, t)
        return message + self_w.unsqueeze(1) * state.personal[S]

    def round(self, state: FedAMPState, t: int, clients=None) -> FedAMPState:
        s = self.setup
        S = s.clients_or_all(clients)
        cloud = self.cloud_models(state, S, t)
        start = cloud if self.start == "cloud" else state.personal[S]
        w = local_sgd(s.model, start, s.train, s.plan(t), lr=s.lr, mu=self.prox, anchor=cloud, row_client=S)
        received = state.received.clone()
        received[S] = s.send_up(w, S, t).to(received.dtype)
        xi, over = attention_weights(received, self.alpha_k, self.sigma, self.scale)
        personal = state.personal.clone()
        personal[S] = w
        info = dict(state.info)
        info["rescaled_rows"] = info.get("rescaled_rows", 0) + over
        info["rounds"] = info.get("rounds", 0) + 1
        info["self_weight_sum"] = info.get("self_weight_sum", 0.0) + float(xi.diag().mean())
        info["xi_sum"] = info["xi_sum"] + xi.cpu()
        info["mean_self_weight"] = info["self_weight_sum"] / info["rounds"]
        return FedAMPState(personal, received, xi, info)

    def mean_attention(self, state: FedAMPState) -> torch.Tensor:
        """xi averaged over the aggregations so far ``[N, N]`` (identity before the first)."""
        r = state.info.get("rounds", 0)
        return state.info["xi_sum"] / r if r else torch.eye(self.setup.num_clients, dtype=torch.float64)

    def personalized(self, state: FedAMPState) -> torch.Tensor:
        return state.personal
