"""FedALA (J. Zhang et al., "FedALA: Adaptive Local Aggregation for PFL", AAAI 2023), vectorised.

Server: w~ = mean of the received uploads. Client n, before local training ([26] Alg. 1, ALA):
  lower tensors <- w~; top ``layer_idx`` tensors <- theta_old + (w~ - theta_old) * W_n, with the
  element-wise weights W_n in [0, 1] (init 1) learned by SGD on the loss over a random contiguous
  ``rand_percent``% slice of the local data, in order, minibatch by minibatch:
      W <- clip(W - eta_W * grad_theta L * (w~ - theta_old), 0, 1)
  skipped in round 0 (local = global); in the first active round the epochs over the slice repeat
  until the std of the last ``num_pre_loss`` epoch losses < ``threshold`` (or the epoch cap), later 1 epoch.
Then the local epochs of plain SGD; upload theta_n. Personalised model: theta_n after local training.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from repro.algorithms.base import FLAlgorithm, FLSetup
from repro.engine.schedule import BatchPlan
from repro.engine.train import batch_grad, batch_grads, local_sgd

#: with every client taking part, ALA's start phase (up to ``start_phase_max_epochs``) happens in round
#: index 1, so a job's first two rounds contain it (cost probes time it as a once-per-job cost)
START_PHASE_WITHIN_ROUNDS = 2


@dataclass
class FedALAState:
    global_params: torch.Tensor  # w~ [P]
    personal: torch.Tensor  # theta_n [N, P]
    weights: torch.Tensor  # W [N, P_top]
    started: torch.Tensor  # [N] bool: start phase done
    info: dict = field(default_factory=dict)


def slice_plan(sizes: torch.Tensor, rand_percent: float, batch_size: int, generator: torch.Generator) -> BatchPlan:
    """Per client a random contiguous slice of int(pct*M_n/100) samples, batched in order (PFLlib ALA)."""
    sizes = sizes.cpu()
    n = len(sizes)
    m = torch.clamp((sizes.double() * rand_percent / 100.0).long(), min=1)
    u = torch.rand(n, generator=generator, dtype=torch.float64)
    start = torch.floor(u * (sizes - m + 1).double()).long()
    steps = int(-(-int(m.max()) // batch_size))
    slot = torch.arange(steps * batch_size).view(steps, 1, batch_size)
    mask = slot < m.view(1, n, 1)
    positions = torch.where(mask, start.view(1, n, 1) + slot, torch.zeros_like(slot))
    return BatchPlan(positions, mask, mask[:, :, 0].clone())


def ala_combine(theta_old_top, global_top, weights):
    """theta_old + (w~ - theta_old) * W (element-wise)."""
    return theta_old_top + (global_top - theta_old_top) * weights


def ala_weight_step(weights, grad_top, diff, eta_w: float):
    """One ALA step: dL/dW = grad_theta L * (w~ - theta_old) (chain rule through ``ala_combine``),
    W <- clip(W - eta_W dL/dW, 0, 1) element-wise ([26] eq. (6))."""
    return torch.clamp(weights - eta_w * grad_top * diff, 0.0, 1.0)


class FedALA(FLAlgorithm):
    name = "fedala"

    def __init__(self, setup: FLSetup, eta_w: float = 1.0, rand_percent: float = 80, layer_idx: int = 2,
                 threshold: float = 0.1, num_pre_loss: int = 10, start_phase_max_epochs: int = 50,
                 slice_batches: int | None = None):
        if eta_w <= 0 or not 0 < rand_percent <= 100 or layer_idx < 1 or start_phase_max_epochs < 1:
            raise ValueError(f"FedALA needs eta_w > 0, rand_percent in (0, 100], layer_idx >= 1, cap >= 1; got "
                             f"{eta_w}, {rand_percent}, {layer_idx}, {start_phase_max_epochs}")
        self.setup, self.eta_w, self.pct, self.thr = setup, float(eta_w), float(rand_percent), float(threshold)
        self.num_pre_loss, self.cap = int(num_pre_loss), int(start_phase_max_epochs)
        if slice_batches is not None and slice_batches < 1:
            raise ValueError(f"slice_batches must be None (whole slice) or >= 1, got {slice_batches}")
        self.slice_batches = slice_batches  # an ALA "epoch" = the first slice_batches batches of the slice
        params = setup.model.params
        if layer_idx > len(params):
            raise ValueError(f"layer_idx {layer_idx} > number of parameter tensors {len(params)}")
        self.top_start = params[-layer_idx].offset  # the top tensors are the last ones of the flat row
        self.top_names = [p.name for p in params[-layer_idx:]]

    #: ALA's steps differentiate only the top tensors (W's gradient needs no other) in one buffer updated in
    #: place; False: the full gradient, of which ALA reads the top (the reference)
    fast = True

    def init(self, theta0: torch.Tensor) -> FedALAState:
        s = self.setup
        theta0 = theta0.reshape(-1).to(s.device)
        N, P = s.num_clients, theta0.numel()
        return FedALAState(theta0.clone(), theta0.unsqueeze(0).repeat(N, 1), torch.ones(N, P - self.top_start, device=s.device),
                           torch.zeros(N, dtype=torch.bool, device=s.device))

    def adaptive_local_aggregation(self, theta_old, received, W, S, t, start_phase):
        """Learn W on the slice and return (initialised models [K, P], W [K, P_top], epochs run)."""
        s, c = self.setup, self.top_start
        K = len(S)
        plan = slice_plan(s.train.sizes[S], self.pct, s.batch_size, s.streams.torch("ala_slice", key=int(t)))
        if self.slice_batches is not None and plan.num_steps > self.slice_batches:
            b = self.slice_batches
            plan = BatchPlan(plan.positions[:b], plan.mask[:b], plan.active[:b])
        base = received.clone()
        diff = received[:, c:] - theta_old[:, c:]
        model_t = base.clone()  # lower tensors w~ (fixed during ALA), top rows rewritten each step
        views = s.model.views(model_t)
        max_epochs = self.cap if start_phase.any() else 1
        losses = [[] for _ in range(K)]
        todo = torch.ones(K, dtype=torch.bool, device=received.device)
        epochs = 0
        for epoch in range(max_epochs):
            epochs += 1
            last = torch.zeros(K, device=received.device)
            for step in range(plan.num_steps):
                act = plan.active[step].to(received.device) & todo
                if not bool(act.any()):
                    continue
                x, y = s.train.gather(S, plan.positions[step].to(received.device))
                model_t[:, c:] = ala_combine(theta_old[:, c:], received[:, c:], W)
                mask = plan.mask[step].to(received.device)
                if self.fast:  # the top tensors' gradient only: no backward through the lower layers
                    grads, loss = batch_grads(s.model, views, x, y, mask, wrt=self.top_names)
                    g_top = torch.cat([grads[n].reshape(K, -1) for n in self.top_names], 1)
                else:
                    g, loss = batch_grad(s.model, model_t, x, y, mask)
                    g_top = g[:, c:]
                W = torch.where(act.unsqueeze(1), ala_weight_step(W, g_top, diff, self.eta_w), W)
                last = torch.where(act, loss, last)
            for k in range(K):
                if bool(todo[k]):
                    losses[k].append(float(last[k]))
            # continue only clients in their start phase whose last losses are not yet stable
            stable = torch.tensor([len(l) > self.num_pre_loss and float(torch.tensor(l[-self.num_pre_loss:]).std(unbiased=False)) < self.thr
                                   for l in losses], device=received.device)
            todo = todo & start_phase & ~stable
            if not bool(todo.any()):
                break
        out = torch.cat([base[:, :c], ala_combine(theta_old[:, c:], received[:, c:], W)], 1)
        return out, W, epochs

    def round(self, state: FedALAState, t: int, clients=None) -> FedALAState:
        s = self.setup
        S = s.clients_or_all(clients)
        received = s.broadcast(state.global_params, S, t)
        theta_old = state.personal[S]
        W = state.weights[S].clone()
        info = dict(state.info)
        if t == 0:  # PFLlib skips ALA while the local model equals the global one
            start = received
            started = state.started[S]
        else:
            start, W, ep = self.adaptive_local_aggregation(theta_old, received, W, S, t, ~state.started[S])
            started = torch.ones_like(state.started[S])
            info["ala_epochs_last"] = ep
        theta = local_sgd(s.model, start, s.train, s.plan(t), lr=s.lr, row_client=S)
        uploaded = s.send_up(theta, S, t)
        new_global = s.aggregate(uploaded, S)
        personal, weights, st = state.personal.clone(), state.weights.clone(), state.started.clone()
        personal[S], weights[S], st[S] = theta, W, started
        return FedALAState(new_global, personal, weights, st, info)

    def personalized(self, state: FedALAState) -> torch.Tensor:
        return state.personal
