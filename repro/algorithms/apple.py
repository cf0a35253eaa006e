"""APPLE (J. Luo, S. Wu, "Adapt to Adaptation: Learning Personalization for Cross-Silo FL", IJCAI 2022), vectorised.

Client n keeps a core model c_n and directed-relationship weights p_n in R^N (init 1/N). Per round it
downloads every core (others as received through ``upload`` then ``download``; its own core clean)
and, per minibatch ([25] Alg. 1):
  w_n = sum_j p_nj c_j                          (personalised model)
  c_n <- c_n - eta_c p_nn grad_w L(w_n)
  p_nj <- p_nj - eta_p (g_nj + lam(r) mu (p_nj - p0_j)),  g_nj = dL/dp_nj = <grad_w L(w_n), c_j>
          ([25]: p_n is learned by back-propagation through w_n = sum_j p_nj c_j, so the exact
          derivative is the full inner product; ``p_grad="tensor_mean"`` gives TsingZ0/PFLlib's
          rescaled variant, the mean over parameter tensors of the element-mean of grad * c_j,
          which is ~1/P_tensor smaller: p barely moves from 1/N at one step per round, and slowly
          over an epoch of minibatch steps)
  lam(r) = (cos(r pi / L_r) + 1)/2 for round r < L_r = L*T, else 0.
Uploads c_n; personalised model evaluated: sum_j p_nj c_j.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from repro.algorithms.base import FLAlgorithm, FLSetup, _identity_link
from repro.engine.train import batch_grad


@dataclass
class AppleState:
    cores: torch.Tensor  # c_n [N, P] (clean, client side)
    received: torch.Tensor  # latest received upload of every core [N, P]
    p: torch.Tensor  # [N, N]
    info: dict = field(default_factory=dict)


def mix(p: torch.Tensor, downloaded: torch.Tensor) -> torch.Tensor:
    """w_n = sum_j p_nj D_n[j]: ``p`` [K, N], ``downloaded`` [K, N, P] -> [K, P]."""
    return torch.bmm(p.unsqueeze(1), downloaded).squeeze(1)


def inner_products(grad: torch.Tensor, downloaded: torch.Tensor) -> torch.Tensor:
    """g_nj = <grad_n, D_n[j]> = dL(sum_j p_nj D_n[j]) / dp_nj: ``grad`` [K, P], ``downloaded`` [K, N, P] -> [K, N]."""
    return torch.bmm(downloaded, grad.unsqueeze(2)).squeeze(2)


def tensor_mean_products(model, grad: torch.Tensor, downloaded: torch.Tensor) -> torch.Tensor:
    """g_nj = (1/#tensors) sum_k mean_{e in tensor k} grad_n[e] * D_n[j][e] -> [K, N]."""
    out = torch.zeros(downloaded.shape[0], downloaded.shape[1], dtype=grad.dtype, device=grad.device)
    for spec in model.params:
        sl = slice(spec.offset, spec.offset + spec.numel)
        out += torch.bmm(downloaded[:, :, sl], grad[:, sl].unsqueeze(2)).squeeze(2) / spec.numel
    return out / len(model.params)


def shared_mix(p: torch.Tensor, received: torch.Tensor, own: torch.Tensor, S: torch.Tensor) -> torch.Tensor:
    """``mix`` when every receiver sees the same cores ``received`` [N, P] except its own clean row
    ``own`` [K, P] (client ``S[k]``): p @ received + p_nn (own - received_n), without the [K, N, P] stack."""
    pnn = p[torch.arange(len(S), device=p.device), S].unsqueeze(1)
    return p @ received + pnn * (own - received[S])


def shared_products(grad: torch.Tensor, received: torch.Tensor, own: torch.Tensor, S: torch.Tensor,
                    model=None, kind: str = "inner") -> torch.Tensor:
    """``inner_products`` / ``tensor_mean_products`` (``kind``) for the shared view of ``shared_mix``."""
    ar = torch.arange(len(S), device=grad.device)
    if kind == "inner":
        out = grad @ received.T
        out[ar, S] = (grad * own).sum(1)
        return out
    out = torch.zeros(grad.shape[0], received.shape[0], dtype=grad.dtype, device=grad.device)
    for spec in model.params:
        sl = slice(spec.offset, spec.offset + spec.numel)
        blk = grad[:, sl] @ received[:, sl].T
        blk[ar, S] = (grad[:, sl] * own[:, sl]).sum(1)
        out += blk / spec.numel
    return out / len(model.params)


class Apple(FLAlgorithm):
    """Defaults: exact p-gradient (``p_grad="inner"``) with lr_p = 0.001 (the APPLE authors' default for p),
    eta_c = eta * N, mu = 0, L = 1 (dp_ditto README, D20)."""

    name = "apple"

    def __init__(self, setup: FLSetup, lr_p: float = 0.001, mu: float = 0.0, L: float = 1.0, total_rounds: int = 1,
                 core_lr: float | None = None, p_grad: str = "inner"):
        if lr_p < 0 or mu < 0 or L <= 0 or total_rounds < 1:
            raise ValueError(f"APPLE needs lr_p >= 0, mu >= 0, L > 0, total_rounds >= 1; got {lr_p}, {mu}, {L}, {total_rounds}")
        if p_grad not in ("inner", "tensor_mean"):
            raise ValueError(f"unknown p_grad {p_grad!r}; allowed: inner (APPLE paper), tensor_mean (TsingZ0/PFLlib)")
        self.p_grad = p_grad
        self.setup, self.lr_p, self.mu, self.L, self.T = setup, float(lr_p), float(mu), float(L), int(total_rounds)
        self.core_lr = setup.lr * setup.num_clients if core_lr is None else float(core_lr)  # eta_c = eta * N

    def init(self, theta0: torch.Tensor) -> AppleState:
        N = self.setup.num_clients
        rows = theta0.reshape(1, -1).to(self.setup.device).repeat(N, 1)
        p = torch.full((N, N), 1.0 / N, device=self.setup.device)
        return AppleState(rows.clone(), rows.clone(), p)

    def lam_schedule(self, r: int) -> float:
        """lam(r) = (cos(r pi / L_r) + 1)/2 for r < L_r = L*T, else 0."""
        lr_ = self.L * self.T
        return (math.cos(r * math.pi / lr_) + 1) / 2 if r < lr_ else 0.0

    def downloads(self, received: torch.Tensor, cores: torch.Tensor, S: torch.Tensor, t: int) -> torch.Tensor:
        """D ``[K, N, P]``: all received cores through ``download`` to each receiver; own row clean."""
        K, N = len(S), received.shape[0]
        senders_rows = received.unsqueeze(0).expand(K, N, -1).reshape(K * N, -1)
        receivers = S.repeat_interleave(N)
        D = self.setup.send_down(senders_rows, receivers, t).reshape(K, N, -1).clone()
        D[torch.arange(K, device=D.device), S] = cores[S]
        return D

    def sparse_downloads(self, received: torch.Tensor, S: torch.Tensor, t: int):
        """The downloads ``D`` of :meth:`downloads` as ``(R, flips)`` when they are one shared view ``R`` [N, P] except
        a few entries: ``D[k, j, pos] = R[j, pos] + diff`` for each ``(k, j, pos, diff)`` of ``flips`` (tensors, none
        on a receiver's own row; ``None`` when there are none), the own row clean. ``None``: no such structure
        (the generic download), so the [K, N, P] stack is used."""
        return None

    #: the identity-download steps through :meth:`_shared_steps` (False: the generic loop below, the reference)
    fast = True

    def round(self, state: AppleState, t: int, clients=None) -> AppleState:
        s = self.setup
        S = s.clients_or_all(clients)
        # identity download: every receiver sees the same received cores -> no [K, N, P] stack
        shared = s.download is _identity_link
        if shared and self.fast:
            own, p = self._shared_steps(state, S, t)
        elif shared:
            own, p = self._generic_steps(state, S, t, R=state.received, own=state.cores[S].clone())
        else:
            view = self.sparse_downloads(state.received, S, t) if self.fast else None
            if view is not None:  # a shared view plus a few entries that differ per receiver
                own, p = self._shared_steps(state, S, t, R=view[0], flips=view[1])
            else:
                D = self.downloads(state.received, state.cores, S, t)
                own, p = self._generic_steps(state, S, t, D=D, own=D[torch.arange(len(S), device=s.device), S])
        cores = state.cores.clone()
        cores[S] = own
        received = state.received.clone()
        received[S] = s.send_up(own, S, t)
        pall = state.p.clone()
        pall[S] = p
        return AppleState(cores, received, pall, state.info)

    def _minibatches(self, S, t):
        """(active rows, x, y, mask) of each step of round ``t`` in which some client of ``S`` is active."""
        s = self.setup
        plan = s.plan(t)
        for step in range(plan.num_steps):
            act = plan.active[step, S]
            if bool(act.any()):
                x, y = s.train.gather(S, plan.positions[step, S])
                yield act, x, y, plan.mask[step, S]

    def _p_step(self, t, like):
        """p_nj <- p_nj - eta_p (g_nj + lam(r) mu (p_nj - p0_j)) for round ``t`` (p0 = 1/N, shaped as ``like``)."""
        p0 = torch.full_like(like, 1.0 / self.setup.num_clients)
        lam = self.lam_schedule(t)
        return lambda p, gp: p - self.lr_p * (gp + lam * self.mu * (p - p0))

    def _generic_steps(self, state, S, t, own, R=None, D=None):
        """One round of local steps ([25] Alg. 1) on the received cores ``R`` (shared view) or the downloads ``D``
        [K, N, P]; ``own``: the clients' own cores [K, P]."""
        s = self.setup
        shared = R is not None
        own_idx = (torch.arange(len(S), device=s.device), S)
        p = state.p[S].clone()
        p_step = self._p_step(t, p)
        for act, x, y, mask in self._minibatches(S, t):
            w = shared_mix(p, R, own, S) if shared else mix(p, D)
            g, _ = batch_grad(s.model, w, x, y, mask)
            a = act.unsqueeze(1)
            new_core = own - self.core_lr * p[own_idx].unsqueeze(1) * g
            if shared:
                gp = shared_products(g, R, own, S, s.model, self.p_grad)
            else:
                gp = inner_products(g, D) if self.p_grad == "inner" else tensor_mean_products(s.model, g, D)
            new_p = p_step(p, gp)
            own = torch.where(a, new_core, own)
            if not shared:
                D[own_idx] = own
            p = torch.where(a, new_p, p)
        return own, p

    def _shared_steps(self, state, S, t, R=None, flips=None):
        """The generic steps for the shared view (every receiver holds the same received cores R but its own clean
        core), with the same numbers up to float rounding and no [K, P] temporaries beyond the gradient
        (tests/unit/algorithms/test_pfl_steps.py): R^T is laid out once per round for the products
        g_nj = <grad_n, R_j> ([25] Alg. 1's p-gradient), and the own-row correction w_n = p_n R + p_nn (c_n - R_n) keeps
        its difference c_n - R_n up to date in place. ``R``: the shared view (default: the received cores);
        ``flips`` (:meth:`sparse_downloads`): entries that differ per receiver, added to w_n and g_nj sparsely."""
        s = self.setup
        ar = torch.arange(len(S), device=s.device)
        R = state.received if R is None else R
        RT = R.T.contiguous()  # [P, N]: the products read it column-wise
        if flips is not None:
            fk, fj, fpos, fdiff = flips
            fkj = fk * R.shape[0] + fj  # entry (k, j) of the flattened [K, N] p-gradient
            if self.p_grad == "inner":
                fscale = fdiff
            else:  # the tensor-mean weight 1 / (#tensors * numel of the tensor holding each entry)
                per = torch.empty(R.shape[1], dtype=R.dtype, device=R.device)
                for spec in s.model.params:
                    per[spec.offset:spec.offset + spec.numel] = 1.0 / (spec.numel * len(s.model.params))
                fscale = fdiff * per[fpos]
        own = state.cores[S].clone()
        delta = own - R[S]  # c_n - R_n, the only row receiver n sees differently
        p = state.p[S].clone()
        p_step = self._p_step(t, p)
        for act, x, y, mask in self._minibatches(S, t):
            pnn = p[ar, S].unsqueeze(1)
            w = p @ R
            w.addcmul_(delta, pnn)  # w_n = sum_j p_nj c_j with the own core clean
            if flips is not None:  # + sum_j p_nj (D_n[j] - R_j) on the differing entries
                w.index_put_((fk, fpos), p[fk, fj] * fdiff, accumulate=True)
            g, _ = batch_grad(s.model, w, x, y, mask)
            if self.p_grad == "inner":
                gp = g @ RT
                gp[ar, S] = torch.linalg.vecdot(g, own)
            else:  # TsingZ0/PFLlib: the mean over tensors of each tensor's element-mean
                gp = torch.zeros_like(p)
                for spec in s.model.params:
                    sl = slice(spec.offset, spec.offset + spec.numel)
                    blk = g[:, sl] @ RT[sl]
                    blk[ar, S] = torch.linalg.vecdot(g[:, sl], own[:, sl])
                    gp.add_(blk, alpha=1.0 / spec.numel)
                gp.div_(len(s.model.params))
            if flips is not None:  # + <grad_n, D_n[j] - R_j> on the differing entries (never the own row j = n)
                gp.view(-1).index_add_(0, fkj, g[fk, fpos] * fscale)
            a = act.unsqueeze(1)
            new_p = p_step(p, gp)
            if not bool(act.all()):
                g.masked_fill_(~a, 0.0)
            g.mul_(self.core_lr * pnn)  # c_n <- c_n - eta_c p_nn grad_w L, in place
            own.sub_(g)
            delta.sub_(g)
            p = torch.where(a, new_p, p)
        return own, p

    def personalized(self, state: AppleState) -> torch.Tensor:
        """sum_j p_nj c_j with each client's own view (own core clean, others as last received)."""
        S = torch.arange(self.setup.num_clients, device=state.cores.device)
        return shared_mix(state.p, state.received, state.cores, S)
