"""pFedMe (T. Dinh, N. Tran, J. Nguyen, "Personalized FL with Moreau Envelopes", NeurIPS 2020), vectorised.

Per round, every participating client n ([22] Alg. 1; DP insertion as in dp_ditto's README, D20):
  w_n <- w~ (received global), theta_n <- w~
  per minibatch:  K inner steps  theta <- theta - eta_p (grad f(theta; batch) + lam (theta - w_n))
                  (approximate solve of the Moreau envelope's inner problem, [22] eq. (7))
                  w_n <- w_n - eta * lam (w_n - theta)          (outer update, [22] Alg. 1)
  upload w_n (through ``setup.upload``); server w~ <- (1 - beta) w~_prev + beta * mean_n(w~_n).
Personalised model evaluated: theta_n.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch

from repro.algorithms.base import FLAlgorithm, FLSetup
from repro.engine.train import batch_grad


@dataclass
class PFedMeState:
    global_params: torch.Tensor  # [P]
    personal: torch.Tensor  # theta [N, P]
    info: dict = field(default_factory=dict)


def moreau_inner_solve(grad_fn: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor, w: torch.Tensor,
                       lam: float, personal_lr: float, steps: int) -> torch.Tensor:
    """K gradient steps on h(theta) = f(theta) + lam/2 ||theta - w||^2 for every row ([22] eq. (7): the
    inner problem of the Moreau envelope, solved approximately): theta <- theta - eta_p (grad f(theta) + lam (theta - w)).
    ``grad_fn(theta [R, P]) -> [R, P]`` is grad f (the minibatch loss gradient). Converges to the minimiser
    of h when eta_p (lam + L_f) < 2 (L_f: smoothness of f)."""
    for _ in range(int(steps)):
        theta = theta - personal_lr * (grad_fn(theta) + lam * (theta - w))
    return theta


def outer_update(w: torch.Tensor, theta: torch.Tensor, lr: float, lam: float) -> torch.Tensor:
    """[22] Alg. 1 local update w <- w - eta lam (w - theta^): a gradient step on the Moreau envelope
    F_n(w) = min_theta f(theta) + lam/2 ||theta - w||^2, whose gradient is lam (w - theta^(w))."""
    return w - lr * lam * (w - theta)


def server_update(previous: torch.Tensor, mean_upload: torch.Tensor, beta: float) -> torch.Tensor:
    """[22] Alg. 1 server step w <- (1 - beta) w_prev + beta * mean_n w_n (beta = 1: plain mean)."""
    return (1 - beta) * previous + beta * mean_upload


class PFedMe(FLAlgorithm):
    """Defaults: lam = 15, K = 5, beta = 1 ([22] / TsingZ0/PFLlib examples) and personal_lr = 0.03: the
    library's 0.09 gives eta_p (lam + L_f) > 2 on inputs scaled to [-1, 1], so the inner solve diverges."""

    name = "pfedme"

    def __init__(self, setup: FLSetup, lam: float = 15.0, inner_steps: int = 5, personal_lr: float = 0.03, beta: float = 1.0):
        if lam <= 0 or inner_steps < 1 or personal_lr <= 0 or not 0 < beta <= 2:
            raise ValueError(f"pFedMe needs lam > 0, inner_steps >= 1, personal_lr > 0, beta in (0, 2]; got "
                             f"{lam}, {inner_steps}, {personal_lr}, {beta}")
        self.setup, self.lam, self.K, self.eta_p, self.beta = setup, float(lam), int(inner_steps), float(personal_lr), float(beta)

    def init(self, theta0: torch.Tensor) -> PFedMeState:
        theta0 = theta0.reshape(-1).to(self.setup.device)
        return PFedMeState(theta0.clone(), theta0.unsqueeze(0).repeat(self.setup.num_clients, 1))

    def round(self, state: PFedMeState, t: int, clients=None) -> PFedMeState:
        s = self.setup
        S = s.clients_or_all(clients)
        w = s.broadcast(state.global_params, S, t)  # [K, P]
        theta = w.clone()
        plan = s.plan(t)
        pos, mask, active = plan.positions[:, S], plan.mask[:, S], plan.active[:, S]
        for step in range(plan.num_steps):
            act = active[step]
            if not bool(act.any()):
                continue
            x, y = s.train.gather(S, pos[step])
            m = mask[step]
            new_theta = moreau_inner_solve(lambda th: batch_grad(s.model, th, x, y, m)[0], theta, w, self.lam, self.eta_p, self.K)
            new_w = outer_update(w, new_theta, s.lr, self.lam)
            a = act.unsqueeze(1)
            theta, w = torch.where(a, new_theta, theta), torch.where(a, new_w, w)
        received = s.send_up(w, S, t)
        mean = s.aggregate(received, S)
        new_global = server_update(state.global_params, mean, self.beta)
        personal = state.personal.clone()
        personal[S] = theta
        return PFedMeState(new_global, personal, state.info)

    def personalized(self, state: PFedMeState) -> torch.Tensor:
        return state.personal
