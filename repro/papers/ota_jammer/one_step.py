"""One gradient step per round with per-sample clipping: the local rule under which the paper's
privacy accounting holds (the package's own addition; see this paper's README, "certified runs").

Appendix A of the paper bounds one sample's effect on client i's transmitted update by
``tau/|D_i|``: the update is treated as an average over the client's samples of per-sample terms of
norm at most ``tau`` (one gradient step, add-one neighbours with the fixed ``1/|D_i|`` normalisation).
That holds for::

    Delta_i = -(tau / C) (1/|D_i|) sum_{xi in D_i} clip_C(grad F(w; xi)),   clip_C(g) = g min(1, C/||g||)

(learning rate ``eta = tau/C``): adding one sample moves ``Delta_i`` by at most ``eta C/|D_i| = tau/|D_i|``
and ``||Delta_i|| <= tau``, so the aggregate (16) moves by at most ``p_i/(s_i |D_i|) = 1/(s_i |D|)``,
exactly the sensitivity behind eqs. (20)/(21). E local epochs of minibatch SGD do not have that
property (one sample can move a clipped update anywhere in the tau-ball).

The per-sample gradient norms of a Linear -> ReLU -> ... -> Linear model are computed without
materialising per-sample gradients: for a linear layer with input ``a_j`` and output gradient
``delta_j``, the weight gradient of sample j is the outer product ``delta_j a_j^T`` (norm
``||delta_j|| ||a_j||``) and the bias gradient is ``delta_j``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["clipped_mean_gradients", "one_step_updates"]


def _layers(model, theta: torch.Tensor):
    names = getattr(model, "linear_layers", ())
    if not names:
        raise ValueError(f"{model!r}: per-sample clipping needs a Linear -> ReLU -> ... -> Linear model (mlr, dnn, mlp)")
    flat = [n for pair in names for n in pair]
    if [p.name for p in model.params] != flat:
        raise ValueError(f"{model!r}: parameters {[p.name for p in model.params]} are not exactly the linear head {flat}")
    v = model.views(theta.unsqueeze(0))
    return [(v[w][0], v[b][0]) for w, b in names]


def clipped_mean_gradients(model, theta: torch.Tensor, x: torch.Tensor, y: torch.Tensor, sizes: torch.Tensor,
                           clip: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Per client, ``(1/|D_i|) sum_j clip_C(grad CE(theta; x_j, y_j))`` for one model ``theta`` ``[P]``.

    ``x`` ``[n, features]`` and ``y`` ``[n]`` hold the clients' samples back to back (``sizes`` ``[N]``).
    Returns (gradients ``[N, P]`` in the model's flat layout, per-sample gradient norms ``[n]``).
    """
    if not clip > 0:
        raise ValueError(f"per-sample clip must be > 0, got {clip!r}")
    layers = _layers(model, theta)
    acts, pre = [x.reshape(x.shape[0], -1)], []
    with torch.no_grad():
        for k, (w, b) in enumerate(layers):  # forward, keeping each layer's input and pre-activation
            z = torch.addmm(b, acts[-1], w.t())
            pre.append(z)
            if k < len(layers) - 1:
                acts.append(torch.relu(z))
        delta = torch.softmax(pre[-1], dim=1)
        delta[torch.arange(len(y)), y] -= 1.0  # d CE / d logits, per sample
        deltas = [delta]
        for k in range(len(layers) - 1, 0, -1):  # backward through ReLU
            deltas.insert(0, (deltas[0] @ layers[k][0]) * (pre[k - 1] > 0))
        sq = sum(d.square().sum(1) * (a.square().sum(1) + 1.0) for d, a in zip(deltas, acts))
        norms = sq.sqrt()
        owner = torch.repeat_interleave(torch.arange(len(sizes)), sizes.cpu()).to(x.device)
        weight = torch.clamp(clip / torch.clamp(norms, min=1e-30), max=1.0) / sizes.to(x.dtype)[owner]
        parts = []
        for d, a in zip(deltas, acts):
            wd = d * weight.unsqueeze(1)
            # per-client sums of outer products delta_j a_j^T (weights) and of delta_j (biases): one
            # matmul per client block; each block is large, so the short loop costs nothing measurable
            gw = torch.stack([blk_d.t() @ blk_a for blk_d, blk_a in zip(wd.split(sizes.tolist()), a.split(sizes.tolist()))])
            gb = torch.zeros(len(sizes), wd.shape[1], dtype=wd.dtype, device=wd.device).index_add_(0, owner, wd)
            parts += [gw.reshape(len(sizes), -1), gb]
    return torch.cat(parts, dim=1), norms


def one_step_updates(model, theta: torch.Tensor, x, y, sizes, clip: float, tau: float) -> tuple[torch.Tensor, float]:
    """Client updates ``Delta_i = -(tau/C) * clipped mean gradient`` ``[N, P]`` (norm <= tau), and the
    fraction of samples whose gradient was clipped."""
    g, norms = clipped_mean_gradients(model, theta, x, y, sizes, clip)
    return -(tau / clip) * g, float((norms > clip).float().mean())


def reference_per_sample_gradients(model, theta: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Per-sample gradients ``[n, P]`` by autograd, one sample at a time (slow; for tests)."""
    out = []
    for j in range(x.shape[0]):
        t = theta.detach().clone().requires_grad_(True)
        logits = model.forward(t.unsqueeze(0), x[j : j + 1].unsqueeze(0))[0]
        F.cross_entropy(logits, y[j : j + 1]).backward()
        out.append(t.grad.detach().clone())
    return torch.stack(out)
