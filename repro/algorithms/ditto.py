"""Ditto and DP-Ditto (Algorithm 1 of Zhao et al.) on the one algorithm layer (:mod:`repro.algorithms.base`).

Per round every participating client n (DP-Ditto, see repro/papers/dp_ditto/README.md):
  u_n <- omega (received through ``setup.download``), one local epoch of SGD on F_n          (Alg. 1 step 5)
  varpi_n <- varpi_n - eta_L((1 - lam/2) grad F_n(varpi_n) + lam (varpi_n - omega))          (steps 9-10, eq. (34))
  upload u~_n = clip_C(u_n) + z_n through ``setup.upload`` (``dp_upload``: eqs. (5), (8))     (steps 6-7)
  server omega <- mean_n u~_n                                                              (step 13)
All lambda of a set share the FL trajectory; the personalised models of all lambda are stacked
``[|Lambda| * K, P]`` next to the K local models and trained in ONE batched call (same minibatches).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from repro.algorithms.base import FLAlgorithm, FLSetup, dp_upload  # noqa: F401  (dp_upload: DP-Ditto's upload)
from repro.engine.train import local_sgd


@dataclass
class DittoState:
    global_params: torch.Tensor  # omega [P]
    personal: torch.Tensor  # varpi [L, N, P]
    local: torch.Tensor | None = None  # last trained local models u [N, P] (diagnostics)
    info: dict = field(default_factory=dict)


class Ditto(FLAlgorithm):
    """DP-Ditto / Ditto with a set of lambda in [0, 2] sharing one FL trajectory (Algorithm 1 never feeds varpi back)."""

    name = "ditto"

    def __init__(self, setup: FLSetup, lambdas, personal_lr: float | None = None):
        lams = [float(l) for l in lambdas]
        bad = [l for l in lams if not 0.0 <= l <= 2.0]
        if not lams or bad:
            raise ValueError(f"lambdas must be a non-empty list in [0, 2], got {lams}")
        super().__init__(setup)
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
        received = s.send_up(u, S, t)
        new_global = s.aggregate(received, S)
        return DittoState(new_global, personal, u, state.info)

    def personalized(self, state: DittoState) -> torch.Tensor:
        """varpi ``[L, N, P]`` (lambda-major)."""
        return state.personal
