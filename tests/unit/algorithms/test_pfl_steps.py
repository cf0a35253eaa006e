"""The defining step of each PFL baseline, checked exactly on tiny tensors:
pFedMe's inner Moreau-envelope solve, outer update and server mixing (Dinh et al. 2020),
APPLE's directed-relationship mixing and its gradient (Luo & Wu 2022), FedAMP's attention weights
(Huang et al. 2021), FedALA's element-wise adaptive aggregation (Zhang et al. 2023)."""

import math
from types import SimpleNamespace

import pytest
import torch

from repro.engine.rng import RngStreams
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from repro.algorithms.apple import Apple, inner_products, mix, tensor_mean_products
from repro.algorithms.fedala import ala_combine, ala_weight_step
from repro.algorithms.fedamp import attention_weights
from repro.algorithms.pfedme import moreau_inner_solve, outer_update, server_update



@pytest.fixture(autouse=True)
def _float64():
    """Exact comparisons in double precision; restores the default afterwards."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(old)


# ---------------------------------------------------------------------------------------- pFedMe
def test_moreau_inner_solve_reaches_the_quadratic_minimiser():
    # f(theta) = 1/2 (theta - a)^T diag(h) (theta - a): the minimiser of f + lam/2 ||theta - w||^2 is
    # (h a + lam w) / (h + lam) element-wise.
    h = torch.tensor([[1.0, 4.0, 0.5]])
    a = torch.tensor([[2.0, -1.0, 3.0]])
    w = torch.tensor([[0.0, 1.0, -2.0]])
    lam, lr = 15.0, 0.05  # lr (lam + max h) = 0.95 < 2: contraction
    theta = moreau_inner_solve(lambda th: h * (th - a), w.clone(), w, lam, lr, steps=400)
    expected = (h * a + lam * w) / (h + lam)
    torch.testing.assert_close(theta, expected, rtol=0, atol=1e-12)


def test_moreau_inner_solve_single_step_is_exact():
    theta0 = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
    w = torch.tensor([[0.0, 1.0], [1.0, 1.0]])
    g = torch.tensor([[0.3, -0.2], [1.0, 0.0]])
    out = moreau_inner_solve(lambda th: g, theta0, w, lam=2.0, personal_lr=0.1, steps=1)
    torch.testing.assert_close(out, theta0 - 0.1 * (g + 2.0 * (theta0 - w)))


def test_moreau_inner_solve_diverges_when_step_too_large():
    # the reason the paper's eta_p = 0.09 fails on [-1, 1]-scaled MNIST: eta_p (lam + L_f) > 2
    h = torch.tensor([[10.0]])
    theta = moreau_inner_solve(lambda th: h * th, torch.ones(1, 1), torch.zeros(1, 1), lam=15.0, personal_lr=0.09, steps=50)
    assert float(theta.abs()) > 1e3


def test_outer_update_is_moreau_envelope_gradient_step():
    # for f(theta) = 1/2 ||theta - a||^2 the envelope is F(w) = lam/(2(1+lam)) ||w - a||^2, grad = lam/(1+lam)(w - a)
    a, w, lam, lr = torch.tensor([[1.0, -2.0]]), torch.tensor([[3.0, 0.5]]), 4.0, 0.1
    theta_hat = (a + lam * w) / (1 + lam)
    torch.testing.assert_close(outer_update(w, theta_hat, lr, lam), w - lr * lam / (1 + lam) * (w - a))


def test_server_update_beta_mixing():
    prev, mean = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 0.0])
    torch.testing.assert_close(server_update(prev, mean, 1.0), mean)
    torch.testing.assert_close(server_update(prev, mean, 0.5), torch.tensor([2.0, 1.0]))
    torch.testing.assert_close(server_update(prev, mean, 2.0), torch.tensor([5.0, -2.0]))


# ----------------------------------------------------------------------------------------- APPLE
def test_apple_mix_is_directed_relationship_weighted_sum():
    p = torch.tensor([[0.5, 0.25, 0.25], [0.0, 1.0, 0.0]])  # 2 receivers, 3 cores
    D = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]],
                      [[9.0, 9.0], [3.0, -1.0], [7.0, 7.0]]])
    torch.testing.assert_close(mix(p, D), torch.tensor([[1.0, 0.75], [3.0, -1.0]]))


def test_apple_p_gradient_is_autograd_derivative():
    # L(w) = sum(sin(w) * b) with w = sum_j p_j c_j: dL/dp_j = <grad_w L, c_j>
    torch.manual_seed(0)
    c = torch.randn(1, 4, 6)
    b = torch.randn(6)
    p = torch.full((1, 4), 0.25, requires_grad=True)
    w = mix(p, c)
    (torch.sin(w) * b).sum().backward()
    grad_w = (torch.cos(mix(p.detach(), c)) * b)
    torch.testing.assert_close(inner_products(grad_w, c), p.grad)


def test_apple_tensor_mean_variant_normalises_per_tensor():
    model = SimpleNamespace(params=[SimpleNamespace(offset=0, numel=2), SimpleNamespace(offset=2, numel=1)])
    g = torch.tensor([[1.0, 2.0, 3.0]])
    D = torch.tensor([[[1.0, 1.0, 1.0], [0.0, 2.0, -1.0]]])
    # core 0: ((1 + 2)/2 + 3/1)/2 = 2.25; core 1: ((0 + 4)/2 + (-3)/1)/2 = -0.5
    torch.testing.assert_close(tensor_mean_products(model, g, D), torch.tensor([[2.25, -0.5]]))


def test_apple_downloads_keep_own_core_clean_and_schedule():
    from repro.algorithms.base import FLSetup

    def noisy_download(models, link):
        return models + 100.0

    setup = FLSetup(model=None, train=SimpleNamespace(num_clients=3, device="cpu"), streams=RngStreams(0), lr=0.01,
                    download=noisy_download)
    apple = Apple(setup, lr_p=0.01, mu=0.5, L=0.5, total_rounds=4)
    received = torch.tensor([[1.0], [2.0], [3.0]])
    cores = torch.tensor([[-1.0], [-2.0], [-3.0]])
    D = apple.downloads(received, cores, torch.tensor([0, 2]), t=0)
    torch.testing.assert_close(D[:, :, 0], torch.tensor([[-1.0, 102.0, 103.0], [101.0, 102.0, -3.0]]))
    # lam(r) = (cos(r pi / L_r) + 1)/2 for r < L_r = L * T = 2, then 0
    assert apple.lam_schedule(0) == 1.0
    assert apple.lam_schedule(1) == pytest.approx(0.5)
    assert apple.lam_schedule(2) == 0.0
    assert apple.core_lr == pytest.approx(0.03)  # eta_c = eta * N


# ---------------------------------------------------------------------------------------- FedAMP
def test_fedamp_attention_weights_exact():
    w = torch.tensor([[0.0, 0.0], [0.1, 0.0], [0.0, 0.3]])
    alpha_k, sigma = 0.05, 0.1
    xi, over = attention_weights(w, alpha_k, sigma)
    d2 = torch.tensor([[0.0, 0.01, 0.09], [0.01, 0.0, 0.10], [0.09, 0.10, 0.0]])
    off = alpha_k * torch.exp(-d2 / sigma) / sigma
    off.fill_diagonal_(0.0)
    expected = off + torch.diag(1.0 - off.sum(1))
    torch.testing.assert_close(xi, expected)
    assert over == 0
    # closer clients get more weight; the self-weight completes each row to 1
    assert xi[0, 1] > xi[0, 2]
    torch.testing.assert_close(xi.sum(1), torch.ones(3))


def test_fedamp_attention_rescales_rows_whose_off_diagonal_exceeds_one():
    w = torch.tensor([[0.0], [0.0], [5.0]])  # clients 0, 1 identical: alpha_K/sigma = 1e4 >> 1
    xi, over = attention_weights(w, alpha_k=1e3, sigma=0.1)
    assert over == 2
    assert float(xi[0, 0]) == 0.0 and float(xi[1, 1]) == 0.0
    torch.testing.assert_close(xi[0], torch.tensor([1.0, 0.0, 0.0]).roll(1), atol=1e-12, rtol=0)
    assert float(xi[2, 2]) == pytest.approx(1.0)  # far client: exp(-250) ~ 0, keeps itself


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(2, 5), st.integers(1, 4), st.floats(1e-2, 1e3), st.floats(1e-2, 10.0), st.integers(0, 10_000))
def test_fedamp_attention_rows_are_distributions(n, d, alpha_k, sigma, seed):
    g = torch.Generator().manual_seed(seed)
    xi, _ = attention_weights(torch.randn(n, d, generator=g), alpha_k, sigma)
    assert bool((xi >= 0).all())
    torch.testing.assert_close(xi.sum(1), torch.ones(n))


# ---------------------------------------------------------------------------------------- FedALA
def test_fedala_combine_is_elementwise_interpolation():
    old, glob = torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[5.0, 2.0, -1.0]])
    W = torch.tensor([[0.0, 0.5, 1.0]])
    torch.testing.assert_close(ala_combine(old, glob, W), torch.tensor([[1.0, 2.0, -1.0]]))


def test_fedala_weight_step_is_chain_rule_and_clipped():
    torch.manual_seed(1)
    old, glob = torch.randn(1, 5), torch.randn(1, 5)
    W = torch.full((1, 5), 0.5, requires_grad=True)
    b = torch.randn(5)
    loss = (torch.tanh(ala_combine(old, glob, W)) * b).sum()
    loss.backward()
    theta = ala_combine(old, glob, W.detach())
    grad_theta = (1 - torch.tanh(theta) ** 2) * b
    out = ala_weight_step(W.detach(), grad_theta, glob - old, eta_w=0.1)
    torch.testing.assert_close(out, torch.clamp(W.detach() - 0.1 * W.grad, 0, 1))
    big = ala_weight_step(W.detach(), grad_theta, glob - old, eta_w=1e6)
    assert bool(((big == 0) | (big == 1) | (grad_theta * (glob - old) == 0)).all())


@pytest.mark.parametrize("kind", ["inner", "tensor_mean"])
def test_apple_shared_view_equals_materialised_downloads(kind):
    from repro.algorithms.apple import shared_mix, shared_products

    torch.manual_seed(3)
    N, P = 4, 5
    model = SimpleNamespace(params=[SimpleNamespace(offset=0, numel=3), SimpleNamespace(offset=3, numel=2)])
    R, cores = torch.randn(N, P), torch.randn(N, P)
    S = torch.tensor([2, 0, 3])
    D = R.unsqueeze(0).repeat(len(S), 1, 1)
    D[torch.arange(len(S)), S] = cores[S]
    p, g = torch.rand(len(S), N), torch.randn(len(S), P)
    torch.testing.assert_close(shared_mix(p, R, cores[S], S), mix(p, D))
    full = inner_products(g, D) if kind == "inner" else tensor_mean_products(model, g, D)
    torch.testing.assert_close(shared_products(g, R, cores[S], S, model, kind), full)


@pytest.mark.parametrize("kind", ["inner", "tensor_mean"])
@pytest.mark.parametrize("clients", [None, [3, 0, 4]])
def test_apple_fast_shared_steps_equal_the_generic_loop(kind, clients):
    """The in-place shared-view round (R^T once per round, c_n - R_n kept in place) gives the generic loop's cores
    and p, with clients of unequal sizes (rows inactive in the last steps) and with part of the clients."""
    from repro.algorithms import FLSetup
    from repro.engine import ClientData
    from repro.models import build_model

    torch.set_default_dtype(torch.float32)  # the engine's dtype (the data are float32); the fixture restores it
    g = torch.Generator().manual_seed(0)
    sizes = [30, 17, 25, 9, 30]
    data = ClientData.from_client_arrays([torch.randn(n, 28, 28, generator=g) for n in sizes],
                                         [torch.randint(0, 10, (n,), generator=g) for n in sizes])
    model = build_model("dnn")
    setup = FLSetup(model, data, RngStreams(0), lr=0.05, batch_size=10)
    algo = Apple(setup, lr_p=0.01, mu=0.1, L=1.0, total_rounds=3, p_grad=kind)
    state = algo.init(model.init(torch.Generator().manual_seed(1))[0])
    state.received = state.received + 0.01 * torch.randn(state.received.shape, generator=g)  # noisy uploads
    out = {}
    for fast in (True, False):
        algo.fast = fast
        st = state
        for t in range(2):
            st = algo.round(st, t, clients=None if clients is None else torch.tensor(clients))
        out[fast] = st
    torch.testing.assert_close(out[True].cores, out[False].cores, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(out[True].p, out[False].p, rtol=1e-5, atol=1e-6)
    assert not torch.equal(out[True].p, state.p)  # p moved
