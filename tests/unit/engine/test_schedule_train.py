"""Batch plans, per-row local SGD options, partial participation, data layout, RNG keys."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

from repro.algorithms import FedAvg, FLSetup
from repro.engine import ClientData, RngStreams, epoch_plan, local_sgd, step_plan, evaluate
from repro.engine.reference import sequential_local_sgd
from repro.engine.stack import pairwise_sq_distances
from repro.models import build_model


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6), st.integers(1, 9), st.integers(1, 3))
def test_epoch_plan_visits_every_sample_once_per_epoch(sizes, b, epochs):
    plan = epoch_plan(sizes, b, epochs, torch.Generator().manual_seed(sum(sizes)))
    for n, m in enumerate(sizes):
        seen = plan.positions[:, n][plan.mask[:, n]]
        assert sorted(seen.tolist()) == sorted(list(range(m)) * epochs)
        assert int(plan.active[:, n].sum()) == epochs * -(-m // b)
    assert bool((plan.mask.any(2) == plan.active).all())


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6), st.integers(1, 9), st.integers(1, 3))
def test_epoch_plan_drop_leaves_out_only_the_incomplete_last_batch(sizes, b, epochs):
    """last_batch="drop" (PFLlib's drop_last): every batch is full, floor(M/B) of them per pass, distinct samples in a
    pass; a client smaller than one batch keeps one batch of its whole set; the same permutations as "partial"."""
    g = lambda: torch.Generator().manual_seed(sum(sizes))  # noqa: E731
    plan, full = epoch_plan(sizes, b, epochs, g(), last_batch="drop"), epoch_plan(sizes, b, epochs, g())
    for n, m in enumerate(sizes):
        used = m // b * b if m >= b else m
        assert int(plan.active[:, n].sum()) == epochs * -(-used // b)
        sizes_n = plan.mask[:, n].sum(1)[plan.active[:, n]]
        assert set(sizes_n.tolist()) == {min(b, m)}  # no partial batch (a one-sample batch only where M = 1)
        per_pass = plan.positions[:, n][plan.mask[:, n]].view(epochs, used)
        assert all(len(set(row.tolist())) == used for row in per_pass)
        # each pass is the first floor(M/B)*B samples of the permutation "partial" draws
        kept = full.positions[:, n][full.mask[:, n]].view(epochs, m)[:, :used]
        assert torch.equal(per_pass, kept)
    with pytest.raises(ValueError, match="last_batch.*'partial', 'drop'.*'even'"):
        epoch_plan(sizes, b, 1, g(), last_batch="even")


def test_step_plan_per_client_batch_without_replacement():
    plan = step_plan([5, 50, 20], [3, 8, 100], 4, torch.Generator().manual_seed(0))
    assert plan.mask.sum(2)[0].tolist() == [3, 8, 20]
    for s in range(4):
        for n in range(3):
            pos = plan.positions[s, n][plan.mask[s, n]].tolist()
            assert len(set(pos)) == len(pos) and max(pos) < [5, 50, 20][n]


def test_rng_keys_give_independent_reproducible_streams():
    s = RngStreams(9)
    a = torch.rand(3, generator=s.torch("data_order", key=1))
    assert torch.equal(a, torch.rand(3, generator=RngStreams(9).torch("data_order", key=1)))
    assert not torch.equal(a, torch.rand(3, generator=s.torch("data_order", key=2)))
    assert not torch.equal(a, torch.rand(3, generator=s.torch("data_order")))
    with pytest.raises(ValueError, match="non-negative"):
        s.torch("x", key=-1)


def _data(sizes, seed=0):
    g = torch.Generator().manual_seed(seed)
    return ClientData.from_client_arrays([torch.randn(m, 784, generator=g) for m in sizes],
                                         [torch.randint(0, 10, (m,), generator=g) for m in sizes])


def test_two_models_per_client_with_per_row_lr_scale_and_prox():
    """DP-Ditto layout: rows [u_0..u_{N-1}, varpi_0..varpi_{N-1}] share batches; varpi follows eq. (34)."""
    model, data = build_model("mlr"), _data([9, 14, 6])
    n = data.num_clients
    omega = model.init(torch.Generator().manual_seed(0))[0]
    varpi0 = omega + 0.01 * torch.randn(n, model.num_params, generator=torch.Generator().manual_seed(1))
    lam, eta_g, eta_l = 0.5, 0.1, 0.05
    rows = torch.cat([omega.expand(n, -1), varpi0])
    plan = epoch_plan(data.sizes, 4, 1, torch.Generator().manual_seed(2))
    out = local_sgd(model, rows, data, plan, lr=[eta_g] * n + [eta_l] * n, loss_scale=[1.0] * n + [1 - lam / 2] * n,
                    mu=[0.0] * n + [lam] * n, anchor=omega, row_client=torch.arange(n).repeat(2))
    u_ref = sequential_local_sgd(model, omega.expand(n, -1), data, plan, lr=eta_g)
    assert torch.allclose(out[:n], u_ref, atol=1e-6)
    # varpi: SGD on (1 - lam/2) F + (lam/2)||w - omega||^2 == lr' = eta_l (1 - lam/2), mu' = lam/(1 - lam/2)
    v_ref = sequential_local_sgd(model, varpi0, data, plan, lr=eta_l * (1 - lam / 2), mu=lam / (1 - lam / 2), anchor=omega)
    assert torch.allclose(out[n:], v_ref, atol=1e-6)


def test_prox_after_momentum_differs_from_prox_in_momentum():
    model, data = build_model("mlr"), _data([12, 12])
    w0 = model.init(torch.Generator().manual_seed(0), rows=2)
    plan = epoch_plan(data.sizes, 4, 2, torch.Generator().manual_seed(1))
    kw = dict(lr=0.1, momentum=0.5, mu=0.5, anchor=w0[0] + 1.0)
    a = local_sgd(model, w0, data, plan, prox_in_momentum=True, **kw)
    b = local_sgd(model, w0, data, plan, prox_in_momentum=False, **kw)
    assert torch.allclose(a, sequential_local_sgd(model, w0, data, plan, lr=0.1, momentum=0.5, mu=0.5, anchor=w0[0] + 1.0), atol=1e-6)
    assert not torch.allclose(a, b, atol=1e-4)


def test_non_participants_keep_their_model_and_are_not_averaged():
    model, data = build_model("mlr"), _data([10, 10, 10])
    streams = RngStreams(0)
    algo = FedAvg(FLSetup(model, data, streams, lr=0.1, batch_size=5))  # uniform mean (weights None)
    w0 = model.init(streams.torch("init"))[0]
    everyone = algo.local_update(w0.expand(3, -1).contiguous(), torch.arange(3), 0)
    new = algo.round(algo.init(w0), 0, clients=[0, 2]).global_params
    # clients 0 and 2 train exactly as they would with everyone present (same minibatches); 1 is not averaged
    assert torch.allclose(new, (everyone[0] + everyone[2]) / 2)
    assert not torch.allclose(new, everyone.mean(0))


def test_update_upload_equals_model_upload_without_noise():
    model, data = build_model("mlr"), _data([7, 11])
    streams = RngStreams(2)
    w0 = model.init(streams.torch("init"))[0]
    res = []
    for kind in ("model", "update"):
        algo = FedAvg(FLSetup(model, data, streams, lr=0.1, batch_size=4, weights=data.sizes), upload_kind=kind)
        res.append(algo.round(algo.init(w0), 0).global_params)
    assert torch.allclose(res[0], res[1], atol=1e-6)


def test_client_data_from_indices_normalises_images():
    x = np.arange(4 * 2 * 2, dtype=np.uint8).reshape(4, 2, 2) * 15
    y = np.array([0, 1, 2, 3])
    d = ClientData.from_indices(x, y, [np.array([3, 1]), np.array([0])])
    assert d.sizes.tolist() == [2, 1] and d.offsets.tolist() == [0, 2]
    assert torch.allclose(d.x[0], (torch.tensor(x[3]).float() / 255 - 0.5) / 0.5)
    assert d.y.tolist() == [3, 1, 0]
    xp, yp, mask = d.padded()
    assert xp.shape == (2, 2, 2, 2) and mask.tolist() == [[True, True], [True, False]]
    with pytest.raises(ValueError, match="clients \\[1\\] have none"):
        ClientData.from_indices(x, y, [np.array([0]), np.array([], dtype=np.int64)])


def test_evaluate_single_model_on_all_clients_and_pairwise_distances():
    model, data = build_model("mlr"), _data([5, 8])
    w = model.init(torch.Generator().manual_seed(0))[0]
    r1 = evaluate(model, w, data)
    r2 = evaluate(model, w.expand(2, -1), data)
    assert torch.allclose(r1.loss, r2.loss) and r1.loss.shape == (2,)
    x = torch.randn(4, 50, dtype=torch.float64)
    d = pairwise_sq_distances(x)
    assert torch.allclose(d, torch.cdist(x, x) ** 2, atol=1e-9) and bool((d.diagonal() == 0).all())


@pytest.mark.parametrize("name,kw", [("dnn", {}), ("cnn", {"conv1": 4, "conv2": 8, "hidden": 16})])
def test_fused_sgd_path_matches_reference_with_prox_and_per_row_lr(name, kw):
    """momentum = 0 takes the fused path (explicit head gradients accumulated in place)."""
    model = build_model(name, **kw)
    data = _data([9, 13, 6], seed=4)
    if name == "cnn":
        data = ClientData(data.x.view(-1, 28, 28), data.y, data.offsets, data.sizes)
    w0 = model.init(torch.Generator().manual_seed(0), rows=3)
    anchor = w0[0] + 0.05
    plan = epoch_plan(data.sizes, 4, 2, torch.Generator().manual_seed(1))
    lrs = [0.05, 0.02, 0.1]
    out = local_sgd(model, w0, data, plan, lr=lrs, mu=[0.0, 0.3, 0.1], anchor=anchor)
    for n in range(3):
        sub = data.subset([n])
        sub_plan = type(plan)(plan.positions[:, n : n + 1], plan.mask[:, n : n + 1], plan.active[:, n : n + 1])
        ref = sequential_local_sgd(model, w0[n : n + 1], sub, sub_plan, lr=lrs[n], mu=[0.0, 0.3, 0.1][n], anchor=anchor)
        assert torch.allclose(out[n], ref[0], atol=2e-6)


@pytest.mark.parametrize("name,kw", [("mlr", {}), ("dnn", {}), ("cnn", {"conv1": 4, "conv2": 8, "hidden": 16})])
@pytest.mark.parametrize("momentum,prox_in_momentum", [(0.0, True), (0.5, True), (0.5, False)])
def test_fused_step_equals_autograd_step(name, kw, momentum, prox_in_momentum):
    from repro.engine.train import _sgd_update, batch_grads, fused_sgd_step
    model = build_model(name, **kw)
    g = torch.Generator().manual_seed(0)
    theta = model.init(g, rows=3) + 0.01 * torch.randn(3, model.num_params, generator=g)
    ref_theta = theta + 0.1
    x = torch.randn(3, 5, 28, 28, generator=g)
    y = torch.randint(0, 10, (3, 5), generator=g)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 0, 0, 0], [1, 1, 1, 1, 0]], dtype=torch.bool)
    lr, mu, scale = torch.tensor([[0.1], [0.05], [0.2]]), torch.tensor([[0.0], [0.3], [1.0]]), torch.tensor([1.0, 0.75, 0.5])
    a = {k: v.clone() for k, v in model.views(theta).items()}
    b = {k: v.clone() for k, v in model.views(theta).items()}
    ref = model.views(ref_theta)
    buf_a = {k: 0.1 * torch.ones_like(v) for k, v in a.items()} if momentum else None
    buf_b = {k: 0.1 * torch.ones_like(v) for k, v in b.items()} if momentum else None
    fused_sgd_step(model, a, x, y, mask, lr, scale, mu, ref, momentum=momentum, buf=buf_a, prox_in_momentum=prox_in_momentum)
    grads, _ = batch_grads(model, b, x, y, mask, scale)
    for k in b:
        _sgd_update(b[k], grads[k], lr, momentum, buf_b[k] if momentum else None, mu, ref[k], prox_in_momentum, None)
    for k in a:
        assert torch.allclose(a[k], b[k], atol=1e-6), k
        if momentum:
            assert torch.allclose(buf_a[k], buf_b[k], atol=1e-6), k


@pytest.mark.parametrize("per_row", [False, True])
@pytest.mark.parametrize("prox_in_momentum", [True, False])
@pytest.mark.parametrize("with_prox", [True, False])
def test_fused_heavy_ball_layer_step_equals_out_of_place_form(per_row, prox_in_momentum, with_prox):
    """The heavy-ball step of one Linear layer (momentum folded into the GEMM, proximal term in place) equals the
    out-of-place form it replaced, for float and per-row lr / mu, with the proximal term inside or after the momentum."""
    from repro.engine.train import _momentum_layer_step, momentum_layer_step_reference
    g = torch.Generator().manual_seed(3)
    k, b, fin, fout = 4, 6, 7, 5
    w, bias = torch.randn(k, fout, fin, generator=g), torch.randn(k, fout, generator=g)
    vw, vb = torch.randn(k, fout, fin, generator=g), torch.randn(k, fout, generator=g)
    rw, rb = torch.randn(k, fout, fin, generator=g), torch.randn(k, fout, generator=g)
    dz, act = torch.randn(k, b, fout, generator=g), torch.randn(k, b, fin, generator=g)
    lr = torch.tensor([0.1, 0.05, 0.2, 0.01]) if per_row else 0.1
    mu = (torch.tensor([0.0, 0.3, 1.0, 2.0]) if per_row else 0.3) if with_prox else None
    ref_w, ref_b = (rw, rb) if with_prox else (None, None)
    fast = [t.clone() for t in (w, bias, vw, vb)]
    slow = [t.clone() for t in (w, bias, vw, vb)]
    _momentum_layer_step(*fast, dz, act, ref_w, ref_b, mu, lr, 0.5, prox_in_momentum)
    momentum_layer_step_reference(*slow, dz, act, ref_w, ref_b, mu, lr, 0.5, prox_in_momentum)
    for a, c in zip(fast, slow):
        torch.testing.assert_close(a, c, rtol=1e-6, atol=1e-6)
    assert not torch.equal(fast[0], w)  # the step moved the weights
