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
from repro.engine.train import batch_grad, fused_sgd_step


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
    #: local steps through the engine's fused step (False: the generic autograd loop, the reference)
    fused = True

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
        if self.fused and getattr(s.model, "linear_layers", ()):
            theta, w = self._local_fused(theta, w, S, pos, mask, active)
        else:
            for step in range(plan.num_steps):
                act = active[step]
                if not bool(act.any()):
                    continue
                x, y = s.train.gather(S, pos[step])
                m = mask[step]
                new_theta = moreau_inner_solve(lambda th: batch_grad(s.model, th, x, y, m)[0], theta, w, self.lam,
                                               self.eta_p, self.K)
                new_w = outer_update(w, new_theta, s.lr, self.lam)
                a = act.unsqueeze(1)
                theta, w = torch.where(a, new_theta, theta), torch.where(a, new_w, w)
        received = s.send_up(w, S, t)
        mean = s.aggregate(received, S)
        new_global = server_update(state.global_params, mean, self.beta)
        personal = state.personal.clone()
        personal[S] = theta
        return PFedMeState(new_global, personal, state.info)

    def _local_fused(self, theta, w, S, pos, mask, active):
        """The same local steps as the generic loop of :meth:`round`, through the engine's fused in-place SGD
        step: per parameter contiguous stacks, the inner step ``theta <- theta - eta_p (grad f + lam (theta - w))``
        as a proximal pull towards ``w`` plus the explicit batched gradient (no autograd graph, no ``[R, P]``
        temporaries), and the outer update ``w <- w - eta lam (w - theta)`` as one ``lerp_``. Equal to the generic
        loop up to float rounding (tests/unit/algorithms/test_pfedme_fused.py)."""
        s = self.setup
        model, rows = s.model, theta.shape[0]
        th = {k: v.clone(memory_format=torch.contiguous_format) for k, v in model.views(theta).items()}
        wv = {k: v.clone(memory_format=torch.contiguous_format) for k, v in model.views(w).items()}
        pull = float(s.lr) * self.lam
        for step in range(pos.shape[0]):
            act = active[step]
            n_active = int(act.sum())
            if n_active == 0:
                continue
            x, y = s.train.gather(S, pos[step])
            m = mask[step]
            if n_active == rows:  # every row steps: update in place
                for _ in range(self.K):
                    fused_sgd_step(model, th, x, y, m, self.eta_p, 1.0, self.lam, wv)
                for k in wv:
                    wv[k].lerp_(th[k], pull)
                continue
            new_th = {k: v.clone() for k, v in th.items()}
            for _ in range(self.K):
                fused_sgd_step(model, new_th, x, y, m, self.eta_p, 1.0, self.lam, wv)
            for k in wv:
                a = act.view(-1, *([1] * (wv[k].dim() - 1)))
                new_w = torch.lerp(wv[k], new_th[k], pull)
                th[k] = torch.where(a, new_th[k], th[k])
                wv[k] = torch.where(a, new_w, wv[k])
        flat = lambda d: torch.cat([v.reshape(rows, -1) for v in d.values()], dim=1)  # noqa: E731
        return flat(th), flat(wv)

    def personalized(self, state: PFedMeState) -> torch.Tensor:
        return state.personal
