"""The fast paths of the paper shapes equal the implementations they replaced, to float tolerance:
the fused proximal pull (``lerp_``, no temporary) against its out-of-place reference, and pFedMe's inner
solve through the engine's fused step against the generic autograd loop (DNN, MLR, CNN; uneven client
sizes, so some rows are idle in the last steps); the step plan's partial sort against the full permutation;
FedALA's top-only ALA gradient against the full one."""

import pytest
import torch

from repro.algorithms import FLSetup
from repro.algorithms.pfedme import PFedMe
from repro.engine import ClientData, RngStreams
from repro.engine import train as T
from repro.engine.schedule import step_plan
from repro.models import build_model


def _client_data(sizes, shape=(28, 28), seed=0):
    g = torch.Generator().manual_seed(seed)
    return ClientData.from_client_arrays([torch.randn(m, *shape, generator=g) for m in sizes],
                                         [torch.randint(0, 10, (m,), generator=g) for m in sizes])


def _rounds(model_name, seed, rounds, make, switch, on, shape=(28, 28)):
    """The state after ``rounds`` rounds of the algorithm ``make(setup)`` on three uneven clients, with its fast path
    (attribute ``switch``) on or off."""
    model = build_model(model_name)
    streams = RngStreams(seed)
    algo = make(FLSetup(model, _client_data([14, 9, 20], shape=shape), streams, lr=0.05, batch_size=4))
    setattr(algo, switch, on)
    state = algo.init(model.init(streams.torch("init"))[0])
    for t in range(rounds):
        state = algo.round(state, t)
    return state


@pytest.mark.parametrize("per_row", [False, True])
def test_fused_prox_pull_equals_the_out_of_place_pull(monkeypatch, per_row):
    model = build_model("dnn")
    data = _client_data([23, 17, 30, 12])
    rows = 8
    rc = torch.arange(rows) % 4
    g = torch.Generator().manual_seed(3)
    theta = model.init(g, rows=rows)
    anchor = theta + 0.05 * torch.randn(theta.shape, generator=g)
    mu = torch.tensor([0.0, 0.1, 0.5, 1.0]).repeat_interleave(2) if per_row else 0.3
    plan = step_plan(data.sizes, 5, 7, torch.Generator().manual_seed(1))
    fast = T.local_sgd(model, theta, data, plan, lr=0.05, mu=mu, anchor=anchor, row_client=rc)
    monkeypatch.setattr(T, "_prox_pull", T.prox_pull_reference)
    slow = T.local_sgd(model, theta, data, plan, lr=0.05, mu=mu, anchor=anchor, row_client=rc)
    assert not torch.equal(fast, theta)
    torch.testing.assert_close(fast, slow, rtol=1e-5, atol=1e-6)
    if per_row:  # a row with mu = 0 is not pulled at all
        plain = T.local_sgd(model, theta[:2], data, plan, lr=0.05, row_client=rc[:2])
        torch.testing.assert_close(fast[:2], plain, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("model_name,shape", [("dnn", (28, 28)), ("mlr", (28, 28)), ("cnn", (28, 28))])
def test_pfedme_fused_inner_solve_equals_the_generic_loop(model_name, shape):
    def run(fused: bool):
        return _rounds(model_name, 5, 2, lambda setup: PFedMe(setup, lam=15.0, inner_steps=3, personal_lr=0.02),
                       "fused", fused, shape=shape)

    fast, slow = run(True), run(False)
    torch.testing.assert_close(fast.personal, slow.personal, rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(fast.global_params, slow.global_params, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("sizes, batch", [([3000, 2500, 40, 7], 30), ([50, 50], [5, 50]), ([9, 1, 4], 12)])
def test_step_plan_partial_sort_equals_the_full_permutation(monkeypatch, sizes, batch):
    """The step plan reads the first b_n positions of each permutation through ``topk``: the same plan, position for
    position, as cutting the full ``argsort`` permutation (clients smaller than the batch included)."""
    from repro.engine import schedule

    fast = [step_plan(sizes, batch, 6, torch.Generator().manual_seed(s)) for s in range(5)]
    monkeypatch.setattr(schedule, "_permutation_heads", lambda sz, k, g: schedule._permutations(sz, g)[:, :k])
    full = [step_plan(sizes, batch, 6, torch.Generator().manual_seed(s)) for s in range(5)]
    for a, b in zip(fast, full):
        assert torch.equal(a.positions, b.positions) and torch.equal(a.mask, b.mask) and torch.equal(a.active, b.active)


@pytest.mark.parametrize("model_name", ["dnn", "mlr", "cnn"])
def test_fedala_top_only_ala_equals_the_full_gradient(model_name):
    """ALA learns W from the top tensors' gradient alone; differentiating only them (no backward below) gives the
    same W and models as the full gradient, through the start phase (round 1) and a later round."""
    from repro.algorithms.fedala import FedALA

    def run(fast: bool):
        return _rounds(model_name, 7, 3, lambda setup: FedALA(setup, eta_w=1.0, start_phase_max_epochs=3), "fast", fast)

    fast, slow = run(True), run(False)
    assert not torch.all(slow.weights == 1.0), "W never moved: the test would not exercise ALA"
    torch.testing.assert_close(fast.weights, slow.weights, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(fast.personal, slow.personal, rtol=1e-5, atol=1e-6)
