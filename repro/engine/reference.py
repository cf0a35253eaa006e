"""Plain sequential reference: one client after another, ``torch.nn.Module`` + ``torch.optim.SGD``.

Used by the correctness tests and the benchmarks only (it loops over clients on purpose). Given the
same ``BatchPlan`` it performs exactly the updates of ``repro.engine.train.local_sgd`` with
``prox_in_momentum=True`` (the proximal term is part of the loss, as in FedProx).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from repro.engine.data import ClientData
from repro.engine.schedule import BatchPlan


def sequential_local_sgd(model, theta: torch.Tensor, data: ClientData, plan: BatchPlan, *, lr: float, momentum: float = 0.0, mu: float = 0.0, anchor: torch.Tensor | None = None) -> torch.Tensor:
    """Train client n's row of ``theta`` ``[N, P]`` on its batches of ``plan``; returns ``[N, P]``."""
    module = model.to_module().to(theta.device)
    out = []
    for n in range(data.num_clients):
        model.load_flat(module, theta[n])
        ref = None
        if mu:
            a = anchor[n] if anchor.dim() == 2 else anchor
            ref = [a[p.offset : p.offset + p.numel].view(p.shape) for p in model.params]
        opt = torch.optim.SGD(module.parameters(), lr=lr, momentum=momentum)
        off = int(data.offsets[n])
        for s in range(plan.num_steps):
            if not bool(plan.active[s, n]):
                continue
            pos = plan.positions[s, n][plan.mask[s, n]]
            x, y = data.x[off + pos], data.y[off + pos]
            opt.zero_grad()
            loss = F.cross_entropy(module(x), y)
            if mu:
                loss = loss + 0.5 * mu * sum(((p - r) ** 2).sum() for p, r in zip(module.parameters(), ref))
            loss.backward()
            opt.step()
        out.append(model.flatten_module(module))
    return torch.stack(out)


@torch.no_grad()
def sequential_evaluate(model, theta: torch.Tensor, data: ClientData) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-client (loss, accuracy) of row n on client n's data, one client at a time."""
    module = model.to_module().to(theta.device)
    losses, accs = [], []
    for n in range(data.num_clients):
        model.load_flat(module, theta[n] if theta.dim() == 2 else theta)
        off, m = int(data.offsets[n]), int(data.sizes[n])
        logits = module(data.x[off : off + m])
        y = data.y[off : off + m]
        losses.append(F.cross_entropy(logits, y))
        accs.append((logits.argmax(1) == y).float().mean())
    return torch.stack(losses), torch.stack(accs)
