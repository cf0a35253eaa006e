"""Batched local SGD and evaluation for many models at once.

Models are rows of a flat stack ``theta`` ``[R, P]`` (see ``repro.models``); row ``r`` trains on the
data of client ``row_client[r]`` (default: row n = client n). Several rows may share a client
(DP-Ditto's global-track model and its personalised models for several lambda use the same batches).

One step for all rows (eq. numbers: the generic proximal objective, FedProx (3) of ota_jammer):

    g_r   = loss_scale_r * grad mean_{b in batch} CE(model_r(x_b), y_b)
    FedProx / Ditto pull:  p_r = mu_r * (w_r - anchor_r)
    momentum m (PyTorch convention, buffer reset every call):  v_r <- m v_r + (g_r [+ p_r])
    w_r <- w_r - lr_r * (v_r [+ p_r])          # p_r inside the momentum iff prox_in_momentum

With ``loss_scale = 1 - lambda/2`` and ``mu = lambda`` this is DP-Ditto's personalised step (eq. 34).
A row with no batch at a step (its client's epoch is over) is not updated. Rows are internally
ordered by their number of steps so that the rows active at a step are a prefix: each step works on
views ``theta[:k]`` and skips idle rows at no cost.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from repro.engine.data import ClientData
from repro.engine.schedule import BatchPlan


def _per_row(value, rows: int, name: str, device, dtype) -> float | torch.Tensor:
    """A float stays a float; a sequence/tensor becomes ``[R, 1]``."""
    if isinstance(value, (int, float)):
        return float(value)
    t = torch.as_tensor(value, dtype=dtype, device=device).reshape(-1)
    if t.numel() == 1:
        return float(t)
    if t.numel() != rows:
        raise ValueError(f"{name} must be a scalar or have one value per row ({rows}), got {t.numel()}")
    return t.unsqueeze(1)


def batch_loss(model, theta: torch.Tensor, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-row mean cross-entropy over the masked batch, and per-row number of correct predictions.

    ``theta`` ``[R, P]``, ``x`` ``[R, B, ...]``, ``y``/``mask`` ``[R, B]`` -> (loss ``[R]``, correct ``[R]``).
    Rows whose mask is empty get loss 0.
    """
    logits = model.forward(theta, x)
    correct = ((logits.argmax(-1) == y) & mask).sum(1)
    return _masked_mean_ce(logits, y, mask), correct


def _masked_mean_ce(logits, y, mask):
    ce = F.cross_entropy(logits.flatten(0, 1), y.reshape(-1), reduction="none").view_as(mask)
    m = mask.to(ce.dtype)
    return (ce * m).sum(1) / m.sum(1).clamp(min=1.0)


def batch_grads(model, params: dict[str, torch.Tensor], x, y, mask, loss_scale=1.0,
                wrt=None) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Gradients ``name -> [R, *shape]`` of ``loss_scale_r * batch_loss_r`` for all rows at once, and the
    losses ``[R]``. ``params`` is ``name -> [R, *shape]`` (e.g. ``model.views(theta)``). ``wrt``: the names to
    differentiate (default all); the others are constants, so no backward runs below the lowest one needed."""
    # one leaf per parameter tensor (differentiating through column slices of a flat stack would
    # zero-fill and scatter a full [R, P] buffer per parameter and step)
    wanted = set(params) if wrt is None else set(wrt)
    if not wanted <= set(params):
        raise ValueError(f"wrt names {sorted(wanted - set(params))} are not parameters; allowed: {sorted(params)}")
    leaves = {k: v.detach().requires_grad_(k in wanted) for k, v in params.items()}
    with torch.enable_grad():
        logits = model.forward_views(leaves, x)
        loss = _masked_mean_ce(logits, y, mask)
        total = (loss * loss_scale.reshape(-1)).sum() if isinstance(loss_scale, torch.Tensor) else loss.sum() * loss_scale
        names = [k for k in leaves if k in wanted]
        grads = torch.autograd.grad(total, [leaves[k] for k in names])
    return dict(zip(names, grads)), loss.detach()


def batch_grad(model, theta: torch.Tensor, x, y, mask, loss_scale=1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Flat gradient ``[R, P]`` of ``loss_scale_r * batch_loss_r`` for every row of ``theta`` ``[R, P]``."""
    grads, loss = batch_grads(model, model.views(theta), x, y, mask, loss_scale)
    return torch.cat([g.reshape(g.shape[0], -1) for g in grads.values()], dim=1), loss


def local_sgd(
    model,
    theta: torch.Tensor,
    data: ClientData,
    plan: BatchPlan,
    *,
    lr,
    momentum: float = 0.0,
    mu=0.0,
    anchor: torch.Tensor | None = None,
    loss_scale=1.0,
    row_client: torch.Tensor | None = None,
    prox_in_momentum: bool = True,
) -> torch.Tensor:
    """Run the steps of ``plan`` for every row of ``theta`` ``[R, P]``; returns the trained stack (a new tensor).

    ``lr``, ``mu``, ``loss_scale``: a float or one value per row. ``anchor``: ``[R, P]`` or ``[P]``
    (required when any ``mu`` is non-zero; it is not modified). ``row_client`` ``[R]``: which client's
    data each row uses (default ``arange(N)``, then R must equal N). ``momentum``: heavy-ball factor
    (PyTorch SGD convention), buffer starts at zero at every call. ``prox_in_momentum``: whether the
    proximal gradient goes through the momentum buffer (True = PyTorch SGD on the loss
    ``F + mu/2 ||w - anchor||^2``; False = added after the momentum, as ota_jammer §7.4).
    """
    rows, device = theta.shape[0], theta.device
    if row_client is None:
        if rows != data.num_clients:
            raise ValueError(f"theta has {rows} rows but data has {data.num_clients} clients; pass row_client")
        row_client = torch.arange(rows, device=device)
    row_client = torch.as_tensor(row_client, dtype=torch.int64, device=device)
    lr_r = _per_row(lr, rows, "lr", device, theta.dtype)
    mu_r = _per_row(mu, rows, "mu", device, theta.dtype)
    scale_r = _per_row(loss_scale, rows, "loss_scale", device, theta.dtype)
    use_prox = not (isinstance(mu_r, float) and mu_r == 0.0)
    if use_prox and anchor is None:
        raise ValueError("mu != 0 needs an anchor (the proximal reference model)")

    # order rows by their number of steps (descending) so the active rows of a step are a prefix
    active = plan.active.to(device)[:, row_client]  # [S, R]
    order = torch.argsort(active.sum(0), descending=True, stable=True)
    active = active[:, order]
    k_per_step = active.sum(1).tolist()
    # the active rows of every step form a prefix (one host sync for all steps, not one per step)
    counts = active.sum(1, keepdim=True)
    prefix = bool((active == (torch.arange(rows, device=device).unsqueeze(0) < counts)).all()) if rows else True
    if not prefix:  # general pattern: work on all rows, freeze idle ones through the mask
        k_per_step = [rows] * plan.num_steps
    rc = row_client[order]
    abs_rows = data.offsets[rc].view(1, -1, 1) + plan.positions.to(device)[:, rc]  # [S, R, B]
    mask = plan.mask.to(device)[:, rc]

    # per-parameter contiguous copies for the hot loop (one copy in, one out per call)
    identity = bool(torch.equal(order, torch.arange(rows, device=device)))
    if identity:  # clone: the caller's theta (often an expanded view of the global model) is never written
        w = {k: v.clone(memory_format=torch.contiguous_format) for k, v in model.views(theta).items()}
    else:
        w = {k: v[order].contiguous() for k, v in model.views(theta).items()}
    sort = lambda v: v if identity or not isinstance(v, torch.Tensor) else v[order]  # noqa: E731
    lr_r, mu_r, scale_r = sort(lr_r), sort(mu_r), sort(scale_r)
    ref = None
    if use_prox:
        a = anchor.to(device)
        a = (a if identity else a[order]) if a.dim() == 2 else a.unsqueeze(0).expand(rows, -1)
        ref = model.views(a)
    buf = {k: torch.zeros_like(v) for k, v in w.items()} if momentum else None

    fused = prefix and bool(getattr(model, "linear_layers", ()))
    for s, k in enumerate(k_per_step):
        if k == 0:
            continue
        m = mask[s, :k]
        xb, yb = data.take(abs_rows[s, :k])
        params = {name: v[:k] for name, v in w.items()}
        if fused:
            fused_sgd_step(model, params, xb, yb, m, _head(lr_r, k), _head(scale_r, k),
                           _head(mu_r, k) if use_prox else None, {n: r[:k] for n, r in ref.items()} if use_prox else None,
                           momentum=momentum, buf={n: b[:k] for n, b in buf.items()} if buf is not None else None,
                           prox_in_momentum=prox_in_momentum)
            continue
        grads, _ = batch_grads(model, params, xb, yb, m, _head(scale_r, k))
        act = None if prefix else active[s, :k]
        for name, wk in params.items():
            _sgd_update(wk, grads[name], _head(lr_r, k), momentum, buf[name][:k] if buf is not None else None,
                        _head(mu_r, k) if use_prox else None, ref[name][:k] if use_prox else None, prox_in_momentum, act)
    flat = torch.cat([v.reshape(rows, -1) for v in w.values()], dim=1)
    if identity:
        return flat
    out = torch.empty_like(flat)
    out[order] = flat
    return out


def fused_sgd_step(model, params, x, y, mask, lr, loss_scale=1.0, mu=None, ref=None, *, momentum: float = 0.0,
                   buf=None, prox_in_momentum: bool = True) -> torch.Tensor:
    """One SGD step for every row, in place (the update of ``local_sgd``'s module docstring).

    The model is a feature extractor (``features_views``, differentiated by autograd) followed by a
    Linear -> ReLU -> ... -> Linear head (``linear_layers``) whose gradients are explicit batched
    matmuls accumulated straight into their destination by one ``baddbmm_`` each: into the weight
    (plain SGD; the output gradient is pre-multiplied by lr) or into the momentum buffer ``buf``
    (``name -> [R, ...]``, required when ``momentum > 0``). No gradient tensor is allocated and no
    autograd graph is built for the head. Same update as ``batch_grads`` + ``_sgd_update`` up to float
    rounding. Returns the per-row batch losses.
    """
    layers = model.linear_layers
    head = {n for pair in layers for n in pair}
    feat_names = [n for n in params if n not in head]
    plain = momentum == 0.0
    if feat_names:
        leaves = {n: params[n].detach().requires_grad_(True) for n in feat_names}
        with torch.enable_grad():
            a0 = model.features_views({**params, **leaves}, x)
        acts = [a0.detach()]
    else:
        acts = [model.features_views(params, x)]
    with torch.no_grad():
        for i, (wn, bn) in enumerate(layers):
            z = torch.baddbmm(params[bn].unsqueeze(1), acts[-1], params[wn].transpose(1, 2))
            acts.append(torch.relu(z) if i < len(layers) - 1 else z)
        logits = acts.pop()
        mf = mask.to(logits.dtype)
        count = mf.sum(1).clamp(min=1.0)
        logp = torch.log_softmax(logits, dim=-1)
        loss = (-logp.gather(2, y.unsqueeze(2)).squeeze(2) * mf).sum(1) / count
        # d(sum_r scale_r * mean-CE_r)/dlogits; for plain SGD pre-multiplied by lr_r (updates become subtractions)
        coef = (mf / count.unsqueeze(1)) * (loss_scale.reshape(-1, 1) if isinstance(loss_scale, torch.Tensor) else loss_scale)
        if plain:
            coef = coef * (lr.reshape(-1, 1) if isinstance(lr, torch.Tensor) else lr)
        dz = logp.exp_()
        dz.scatter_add_(2, y.unsqueeze(2), torch.full_like(y, -1.0, dtype=dz.dtype).unsqueeze(2))
        dz.mul_(coef.unsqueeze(2))
        for i in reversed(range(len(layers))):
            wn, bn = layers[i]
            wt, bt = params[wn], params[bn]
            da = torch.bmm(dz, wt) if (i > 0 or feat_names) else None  # uses the weights before their update
            if plain:
                if mu is not None:
                    _prox_pull(wt, ref[wn], lr, mu)
                    _prox_pull(bt, ref[bn], lr, mu)
                wt.baddbmm_(dz.transpose(1, 2), acts[i], alpha=-1.0)
                bt.sub_(dz.sum(1))
            else:
                _momentum_layer_step(wt, bt, buf[wn], buf[bn], dz, acts[i], ref[wn] if mu is not None else None,
                                     ref[bn] if mu is not None else None, mu, lr, momentum, prox_in_momentum)
            if i > 0:
                dz = da.mul_(acts[i] > 0)
            else:
                dz = da
    if feat_names:  # dz is now (lr *) d(loss)/d(features): autograd gives the feature gradients
        grads = torch.autograd.grad(a0, list(leaves.values()), dz)
        with torch.no_grad():
            for n, g in zip(feat_names, grads):
                if plain:
                    if mu is not None:
                        _prox_pull(params[n], ref[n], lr, mu)
                    params[n].sub_(g)
                else:
                    _sgd_update(params[n], g, lr, momentum, buf[n], mu, ref[n] if mu is not None else None,
                                prox_in_momentum, None)
    return loss


def _momentum_layer_step(wt, bt, vw, vb, dz, act, rw, rb, mu, lr, momentum, prox_in_momentum):
    """Heavy-ball step of one Linear layer in place, from its output gradient ``dz`` and input ``act``:
    ``v <- m v + g`` with the weight gradient accumulated by the GEMM itself (``beta = m``), then
    :func:`_momentum_apply`. No ``[k, ...]`` temporary (:func:`momentum_layer_step_reference` is the form it
    replaced: about 2 passes and 1 allocation more per parameter)."""
    vw.baddbmm_(dz.transpose(1, 2), act, beta=momentum)
    vb.mul_(momentum).add_(dz.sum(1))
    _momentum_apply(wt, vw, rw, mu, lr, prox_in_momentum)
    _momentum_apply(bt, vb, rb, mu, lr, prox_in_momentum)


def _momentum_apply(w, v, ref, mu, lr, prox_in_momentum):
    """The rest of a heavy-ball step in place, ``v`` already holding ``m v + g``: ``v += mu (w - ref)`` then
    ``w -= lr v`` (proximal term inside the momentum), or ``w -= lr (v + mu (w - ref))`` as a pull towards
    ``ref`` followed by ``w -= lr v`` (after it). ``ref`` is None without a proximal term."""
    if ref is not None:
        if prox_in_momentum:
            m = _rowwise(mu, w)
            if isinstance(m, float):
                v.add_(w, alpha=m).sub_(ref, alpha=m)
            else:
                v.addcmul_(w, m).addcmul_(ref, m, value=-1.0)
        else:
            _prox_pull(w, ref, lr, mu)  # uses w before the momentum step, as the update it replaces
    if isinstance(lr, torch.Tensor):
        w.addcmul_(v, _rowwise(lr, w), value=-1.0)
    else:
        w.sub_(v, alpha=lr)


def momentum_layer_step_reference(wt, bt, vw, vb, dz, act, rw, rb, mu, lr, momentum, prox_in_momentum):
    """The out-of-place form of :func:`_momentum_layer_step` (a ``mu (w - ref)`` temporary per parameter, the
    momentum decay as its own pass): what the tests and the benchmark compare the fused step with."""
    pw = (wt - rw).mul_(_rowwise(mu, wt)) if rw is not None else None
    pb = (bt - rb).mul_(_rowwise(mu, bt)) if rb is not None else None
    vw.mul_(momentum).baddbmm_(dz.transpose(1, 2), act)
    vb.mul_(momentum).add_(dz.sum(1))
    for w, v, prox in ((wt, vw, pw), (bt, vb, pb)):
        if prox is not None and prox_in_momentum:
            v.add_(prox)
        step = v if (prox is None or prox_in_momentum) else v + prox
        if isinstance(lr, torch.Tensor):
            w.sub_(step * _rowwise(lr, w))
        else:
            w.sub_(step, alpha=lr)


def _prox_pull(p, ref, lr, mu):
    """``p <- p - lr mu (p - ref)`` in place (lr, mu floats or per-row ``[k]``): one fused ``lerp_`` towards
    ``ref`` with weight ``lr mu``, with no ``[k, ...]`` temporary (the former ``p - ref`` allocation was about
    half of a Ditto step's time). Rows with weight 0 are left unchanged."""
    c = lr * mu
    if isinstance(c, torch.Tensor):
        p.lerp_(ref, c.to(p.dtype).reshape(-1, *([1] * (p.dim() - 1))))
    elif c != 0.0:
        p.lerp_(ref, float(c))


def prox_pull_reference(p, ref, lr, mu):
    """The out-of-place form of :func:`_prox_pull` (allocates ``p - ref``): the reference that the tests and
    the benchmark compare the fused pull with."""
    c = lr * mu
    p.sub_((p - ref).mul_(_rowwise(c, p) if isinstance(c, torch.Tensor) else c))


def _rowwise(v, like: torch.Tensor):
    """A float, or a per-row ``[k, 1]`` tensor reshaped to broadcast against ``like`` ``[k, ...]``."""
    return v if isinstance(v, float) else v.reshape(-1, *([1] * (like.dim() - 1)))


def _sgd_update(w, g, lr, momentum, buf, mu, ref, prox_in_momentum, active):
    """In-place SGD step on one parameter tensor ``w`` ``[k, ...]`` (see module docstring)."""
    prox = None
    if mu is not None:
        prox = (w - ref).mul_(_rowwise(mu, w)) if not isinstance(mu, float) else (w - ref).mul_(mu)
        if prox_in_momentum:
            g = g.add_(prox)
    if buf is not None:
        if active is None:
            step = buf.mul_(momentum).add_(g)
        else:  # idle rows keep their momentum buffer
            step = torch.where(_rowwise(active, w), buf * momentum + g, buf)
            buf.copy_(step)
    else:
        step = g
    if prox is not None and not prox_in_momentum:
        step = step + prox
    if active is not None:
        step = step * _rowwise(active, w).to(step.dtype)
    if isinstance(lr, float):
        w.sub_(step, alpha=lr)
    else:
        w.sub_(step * _rowwise(lr, w))


def _head(v, k):
    return v[:k] if isinstance(v, torch.Tensor) else v


@dataclass
class EvalResult:
    """Per-row mean cross-entropy, accuracy and sample count."""

    loss: torch.Tensor  # [R]
    accuracy: torch.Tensor  # [R]
    count: torch.Tensor  # [R]

    def weighted_mean(self, what: str = "accuracy") -> float:
        """Sample-weighted mean over rows (TsingZ0/PFLlib convention)."""
        v = getattr(self, what).double()
        c = self.count.double()
        return float((v * c).sum() / c.sum())


@torch.no_grad()
def evaluate(model, theta: torch.Tensor, data: ClientData, row_client: torch.Tensor | None = None, chunk: int | None = None) -> EvalResult:
    """Loss and accuracy of row ``r`` of ``theta`` on all samples of client ``row_client[r]``.

    ``theta`` may be ``[P]`` or ``[1, P]``: one model (e.g. the global one) evaluated on every client
    (then the samples of all clients go through the model together). ``chunk``: samples per client per
    forward pass (default: about 8M values of the largest layer per pass, at least 8 samples per client).
    """
    device = data.device
    if row_client is None:
        row_client = torch.arange(data.num_clients, device=device)
    row_client = torch.as_tensor(row_client, dtype=torch.int64, device=device)
    rows = len(row_client)
    feat = max(1, data.x[0].numel(), model.activations_per_sample())
    if theta.dim() == 1 or theta.shape[0] == 1:
        return _evaluate_one_model(model, theta.reshape(1, -1), data, row_client, max(256, 8_000_000 // feat))
    if theta.shape[0] != rows:
        raise ValueError(f"theta has {theta.shape[0]} rows but {rows} clients are evaluated")
    sizes = data.sizes[row_client]
    if chunk is None:
        # the pass's largest activation (feat x rows x chunk values) sized to stay near the last-level cache:
        # the paper CNN with 20 rows runs 21 samples per client per pass, 1.4x faster per sample than 64
        # (a larger floor here overrode the budget for conv nets); 8 keeps tiny passes from paying overheads
        chunk = max(8, 8_000_000 // (feat * rows))
    mmax = int(sizes.max())
    # equal sizes, clients in storage order: strided views instead of gathers
    uniform = bool((sizes == mmax).all()) and torch.equal(row_client, torch.arange(data.num_clients, device=device)) \
        and data.x.shape[0] == rows * mmax and bool((data.offsets == torch.arange(rows, device=device) * mmax).all())
    loss_sum = torch.zeros(rows, dtype=torch.float64, device=device)
    correct = torch.zeros(rows, dtype=torch.int64, device=device)
    for start in range(0, mmax, chunk):
        stop = min(start + chunk, mmax)
        pos = torch.arange(start, stop, device=device).unsqueeze(0).expand(rows, -1)
        mask = pos < sizes.unsqueeze(1)
        if uniform:
            x = data.x.view(rows, mmax, *data.x.shape[1:])[:, start:stop]
            y = data.y.view(rows, mmax)[:, start:stop]
        else:
            x, y = data.gather(row_client, torch.where(mask, pos, 0))
        loss, corr = batch_loss(model, theta, x, y, mask)
        loss_sum += loss.double() * mask.sum(1)
        correct += corr
    count = sizes.double()
    return EvalResult((loss_sum / count).float(), (correct.double() / count).float(), sizes)


def _evaluate_one_model(model, theta, data, row_client, chunk) -> EvalResult:
    """One model on every sample of the listed clients, per-client sums by segment reduction."""
    device = data.device
    owner = torch.repeat_interleave(torch.arange(data.num_clients, device=device), data.sizes)
    n = data.x.shape[0]
    loss_sum = torch.zeros(data.num_clients, dtype=torch.float64, device=device)
    correct = torch.zeros(data.num_clients, dtype=torch.float64, device=device)
    for start in range(0, n, chunk):
        x, y = data.x[start : start + chunk].unsqueeze(0), data.y[start : start + chunk]
        logits = model.forward(theta, x)[0]
        ce = F.cross_entropy(logits, y, reduction="none").double()
        o = owner[start : start + chunk]
        loss_sum.index_add_(0, o, ce)
        correct.index_add_(0, o, (logits.argmax(-1) == y).double())
    sizes = data.sizes[row_client]
    count = sizes.double()
    return EvalResult((loss_sum[row_client] / count).float(), (correct[row_client] / count).float(), sizes)
