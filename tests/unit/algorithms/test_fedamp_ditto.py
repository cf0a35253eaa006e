"""FedAMP's attentive message passing (Huang et al. 2021) and DP-Ditto's personalised step (Zhao et al.,
Algorithm 1, eq. (34)) on small synthetic clients."""

import math

import pytest
import torch

from repro.algorithms.base import FLSetup, dp_upload
from repro.algorithms.ditto import Ditto
from repro.algorithms.fedamp import FedAMP, attention_scale, attention_weights, squared_distances
from repro.engine.data import ClientData
from repro.engine.rng import RngStreams
from repro.models import build_model


def _clusters(n_per=4, groups=3, dim=50, spread=0.05, seed=0):
    g = torch.Generator().manual_seed(seed)
    centres = 3.0 * torch.randn(groups, dim, generator=g)
    rows = [centres[k] + spread * torch.randn(dim, generator=g) for k in range(groups) for _ in range(n_per)]
    return torch.stack(rows), torch.arange(groups).repeat_interleave(n_per)


def test_squared_distances_match_cdist():
    u, _ = _clusters()
    torch.testing.assert_close(squared_distances(u), torch.cdist(u.double(), u.double()).pow(2), atol=1e-9, rtol=1e-9)


def test_similar_clients_weigh_each_other():
    u, group = _clusters()
    xi, over = attention_weights(u, alpha_k=0.1, sigma=0.3, scale="median")
    same = (group[:, None] == group[None, :]) & ~torch.eye(len(group), dtype=torch.bool)
    other = group[:, None] != group[None, :]
    assert over == 0
    torch.testing.assert_close(xi.sum(1), torch.ones(len(group), dtype=torch.float64))
    assert bool((xi >= 0).all())
    # every same-group peer outweighs every other-group peer, and the self-weight is below 1
    assert float(xi[same].min()) > 10 * float(xi[other].max())
    assert float(xi.diag().max()) < 1.0


def test_common_noise_offset_does_not_erase_the_attention_under_median_scale():
    u, group = _clusters()
    noisy = u + 0.3 * torch.randn(u.shape, generator=torch.Generator().manual_seed(1))  # adds ~2 d s^2 to every distance
    xi_abs, _ = attention_weights(noisy, alpha_k=1e3, sigma=0.1, scale="absolute")  # the library constants
    xi_med, _ = attention_weights(noisy, alpha_k=0.1, sigma=0.3, scale="median")
    same = (group[:, None] == group[None, :]) & ~torch.eye(len(group), dtype=torch.bool)
    assert float(xi_abs.diag().min()) == pytest.approx(1.0)  # every peer's weight vanishes
    assert float(xi_med.diag().mean()) < 0.9 and float(xi_med[same].mean()) > float(xi_med[~same & ~torch.eye(12, dtype=torch.bool)].mean())


def test_median_scale_is_invariant_to_the_units_of_the_models():
    u, _ = _clusters()
    a, _ = attention_weights(u, alpha_k=0.1, sigma=0.5, scale="median")
    b, _ = attention_weights(7.0 * u, alpha_k=0.1, sigma=0.5, scale="median")
    torch.testing.assert_close(a, b)
    d2 = squared_distances(u)
    assert attention_scale(d2, 0.5, "median") == pytest.approx(0.5 * float(d2[~torch.eye(12, dtype=torch.bool)].median()))


def _setup(n=6, per=8, upload=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    xs = [torch.randn(per, 5, generator=g) + (i % 2) * 3 for i in range(n)]
    ys = [torch.full((per,), i % 2, dtype=torch.int64) for i in range(n)]
    train = ClientData.from_client_arrays(xs, ys)
    model = build_model("mlr", in_features=5, num_classes=2)
    streams = RngStreams(seed)
    kw = {"upload": upload} if upload is not None else {}
    return FLSetup(model=model, train=train, streams=streams, lr=0.1, batch_size=4, **kw), model, streams


def test_fedamp_cloud_model_uses_the_clients_own_clean_model():
    setup, model, streams = _setup(upload=lambda m, link: m + 50.0)  # a grossly noisy link
    amp = FedAMP(setup, alpha_k=0.1, sigma=0.3, scale="median")
    state = amp.init(model.init(streams.torch("init"))[0])
    state = amp.round(state, 0)
    S = torch.arange(setup.num_clients)
    cloud = amp.cloud_models(state, S, 1)
    xi = state.xi.to(state.received.dtype)
    off = xi - torch.diag(xi.diag())
    expected = off @ state.received + xi.diag().unsqueeze(1) * state.personal
    torch.testing.assert_close(cloud, expected)
    assert float(state.info["mean_self_weight"]) < 1.0



def test_fedamp_own_uploaded_takes_the_servers_cloud_model_with_the_own_noisy_upload():
    """own="uploaded" (the guide's reading): u_i = sum_j xi_ij w~_j from the uploads alone, so a client whose
    attention keeps xi_ii = 1 restarts from its own noisy upload, not from its clean model."""
    setup, model, streams = _setup(upload=lambda m, link: m + 50.0)
    amp = FedAMP(setup, alpha_k=0.1, sigma=0.3, scale="median", own="uploaded")
    state = amp.round(amp.init(model.init(streams.torch("init"))[0]), 0)
    S = torch.arange(setup.num_clients)
    xi = state.xi.to(state.received.dtype)
    torch.testing.assert_close(amp.cloud_models(state, S, 1), xi @ state.received)
    alone = FedAMP(setup, alpha_k=1e-12, sigma=1e-6, scale="absolute", own="uploaded")  # every peer weight 0
    state = alone.round(alone.init(model.init(streams.torch("init"))[0]), 0)
    torch.testing.assert_close(alone.cloud_models(state, S, 1), state.received)
    assert float((state.received - state.personal).abs().min()) > 40.0  # the noisy upload, not the clean model
    with pytest.raises(ValueError, match="own-model term"):
        FedAMP(setup, own="server")

def test_ditto_personal_step_is_eq34():
    setup, model, streams = _setup(n=2, per=4)
    lam = 0.4
    ditto = Ditto(setup, [lam])
    theta0 = model.init(streams.torch("init"))[0]
    state = ditto.init(theta0)
    new = ditto.round(state, 0)
    # one epoch of 4 samples at batch 4 = one step: varpi <- varpi - eta ((1 - lam/2) grad F_n(varpi) + lam (varpi - omega))
    plan = setup.plan(0)
    for n in range(2):
        x, y = setup.train.gather(torch.tensor([n]), plan.positions[0, [n]])
        w = theta0.clone().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(model.forward(w.unsqueeze(0), x)[0], y[0])
        (g,) = torch.autograd.grad(loss, w)
        want = theta0 - setup.lr * ((1 - lam / 2) * g + lam * (theta0 - theta0))
        torch.testing.assert_close(new.personal[0, n], want, atol=1e-6, rtol=1e-5)


def test_ditto_lambda0_models_ignore_the_dp_noise():
    def run(sigma):
        setup, model, streams = _setup()
        setup.upload = dp_upload(20.0 if sigma else None, sigma)
        ditto = Ditto(setup, [0.0, 0.5])
        state = ditto.init(model.init(streams.torch("init"))[0])
        for t in range(3):
            state = ditto.round(state, t)
        return state.personal

    quiet, loud = run(0.0), run(5.0)
    torch.testing.assert_close(quiet[0], loud[0], atol=0, rtol=0)  # lambda = 0: local training only (eq. (11))
    assert float((quiet[1] - loud[1]).abs().max()) > 1e-3  # lambda > 0 feels the noise through omega


@pytest.mark.slow
def test_dp_fedamp_on_mnist_weighs_same_label_clients_and_keeps_self_weight_below_one():
    from repro.data import DatasetUnavailableError
    from repro.experiment import RunContext, load_params
    from repro.papers.dp_ditto import runs
    from repro.papers.dp_ditto.experiments import Plan, common_params

    params = load_params("dp_ditto", "quick")
    tuned = Plan(params).hyper("fedamp", "dnn_mnist")
    n_same = 3  # pathological-2 partition: 4 clients per label pair
    for hp, max_self in (({**tuned, "sigma": 0.3}, 0.95), (tuned, 0.999)):  # a wider attention scale, the tuned one
        p = common_params(params, "dnn_mnist")
        p.update(epsilon=10.0, clip=20.0, T=3, algorithm="fedamp", hp=hp)
        try:
            res = runs.run_training("baseline", p, RngStreams(0), RunContext("quick", "test", log=lambda m: None))
        except DatasetUnavailableError:
            pytest.skip("MNIST not available")
        if res.get("status") != "ok":
            pytest.skip(res["reason"])
        info = res["info"]
        assert info["mean_self_weight"] < max_self, (hp, info)
        assert info["same_group_weight"] / n_same > 5 * info["other_group_weight"] / (19 - n_same), (hp, info)
        assert math.isfinite(res["series"]["personalized"]["accuracy"][-1])


def test_stacked_lambda_sweep_equals_its_runs_one_by_one():
    """A figure's lambda grid trains in one stack (one [u; varpi_1..varpi_L] tensor, one batched GEMM per layer);
    it must equal the same runs made one lambda at a time: same data order and same DP noise (the noise is
    drawn once per round for the population, so every lambda sees the same omega)."""
    lams = [0.0, 0.1, 0.5, 1.0]

    def run(grid):
        setup, model, streams = _setup(n=4, per=12)
        setup.upload = dp_upload(5.0, 0.05)
        ditto = Ditto(setup, grid)
        state = ditto.init(model.init(streams.torch("init"))[0])
        for t in range(3):
            state = ditto.round(state, t)
        return state

    stacked = run(lams)
    for i, lam in enumerate(lams):
        alone = run([lam])
        torch.testing.assert_close(stacked.personal[i], alone.personal[0], atol=1e-6, rtol=1e-5)
        torch.testing.assert_close(stacked.global_params, alone.global_params, atol=1e-6, rtol=1e-5)


def test_fedamp_own_start_trains_the_own_model_anchored_at_the_cloud_model():
    """start="own" (PFLlib's deployment): local SGD from w_i with the proximal anchor u_i; the paper's
    default restarts from u_i. Both share the attention and the message."""
    from repro.engine.train import local_sgd

    setup, model, streams = _setup()
    own, cloud = FedAMP(setup, start="own"), FedAMP(setup)
    state = own.round(own.init(model.init(streams.torch("init"))[0]), 0)  # personal models now differ from u_i
    S = setup.clients_or_all(None)
    u = own.cloud_models(state, S, 1)
    want = local_sgd(setup.model, state.personal, setup.train, setup.plan(1), lr=setup.lr, mu=own.prox, anchor=u,
                     row_client=S)
    got = own.round(state, 1).personal
    torch.testing.assert_close(got, want)
    assert float((cloud.round(state, 1).personal - got).abs().max()) > 1e-6
    with pytest.raises(ValueError, match="start"):
        FedAMP(setup, start="nowhere")
