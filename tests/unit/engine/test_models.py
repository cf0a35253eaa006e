"""Parameter counts, nn.Module twins and per-row independence of the stacked models."""

import pytest
import torch

from repro.models import CNN, build_model


@pytest.mark.parametrize(
    "name,kwargs,count",
    [
        ("mlr", {}, 7_850),
        ("dnn", {}, 79_510),
        ("mlp", {}, 155_830),
        ("cnn", {}, 582_026),
        ("cnn", {"in_channels": 3, "image_size": 32}, 878_538),
        ("cnn", {"conv1": 8, "conv2": 16, "hidden": 64}, 20_522),
        ("cnn", {"in_channels": 3, "image_size": 32, "conv1": 8, "conv2": 16, "hidden": 64}, 30_138),
        ("mlr", {"in_features": 60}, 610),
    ],
)
def test_parameter_counts_match_papers_and_module_twin(name, kwargs, count):
    m = build_model(name, **kwargs)
    assert m.num_params == count
    mod = m.to_module()
    assert sum(p.numel() for p in mod.parameters()) == count
    assert [n for n, _ in mod.named_parameters()] == [p.name for p in m.params]


@pytest.mark.parametrize("model", [build_model("mlr"), build_model("dnn"), CNN(conv1=4, conv2=8, hidden=16), CNN(3, 32, 4, 8, 16)])
def test_stacked_forward_equals_module_per_row(model):
    g = torch.Generator().manual_seed(0)
    theta = model.init(g, rows=3) + 0.05 * torch.randn(3, model.num_params, generator=g)
    shape = (3, 4, model.in_channels, model.image_size, model.image_size) if isinstance(model, CNN) else (3, 4, 784)
    x = torch.randn(*shape, generator=g)
    out = model.forward(theta, x)
    mod = model.to_module()
    for r in range(3):
        assert torch.allclose(out[r], model.load_flat(mod, theta[r])(x[r]), atol=1e-5)
    assert torch.equal(model.flatten_module(model.load_flat(mod, theta[1])), theta[1])


def test_init_is_pytorch_default_range_and_seeded():
    m = build_model("dnn")
    a = m.init(torch.Generator().manual_seed(4), rows=2)
    b = m.init(torch.Generator().manual_seed(4))
    assert torch.equal(a[0], a[1]) and torch.equal(a[0], b[0])
    v = m.views(a)
    assert float(v["fc1.weight"].abs().max()) <= 1 / 784**0.5
    assert float(v["fc2.bias"].abs().max()) <= 1 / 100**0.5
    assert float(v["fc2.bias"].abs().max()) > 0.5 / 100**0.5  # spans the range


def test_bad_model_arguments():
    with pytest.raises(ValueError, match="unknown model 'resnet'; allowed: mlr, dnn, mlp, cnn"):
        build_model("resnet")
    with pytest.raises(ValueError, match="theta must be"):
        build_model("mlr").views(torch.zeros(2, 5))


def test_same_padding_would_not_give_the_papers_counts():
    """The papers' 582,026 / 878,538 need 5x5 *valid* convolutions (padding 2 gives other counts)."""
    from torch import nn

    for c, s, valid in ((1, 28, 582_026), (3, 32, 878_538)):
        same = nn.Sequential(nn.Conv2d(c, 32, 5, padding=2), nn.Conv2d(32, 64, 5, padding=2),
                             nn.Linear(64 * (s // 4) ** 2, 512), nn.Linear(512, 10))
        assert sum(p.numel() for p in same.parameters()) != valid
        assert build_model("cnn", in_channels=c, image_size=s).num_params == valid


def test_base_classes_refuse_subclasses_missing_a_required_hook():
    from repro.algorithms import FLAlgorithm
    from repro.models import StackedModel

    class NoForwardCost(StackedModel):
        def to_module(self):
            return torch.nn.Linear(1, 1)

    class NoRound(FLAlgorithm):
        def init(self, theta0):
            return theta0

        def personalized(self, state):
            return state

    with pytest.raises(TypeError, match="flops_per_sample"):
        NoForwardCost([("w", (1, 1), 1)])
    with pytest.raises(TypeError, match="round"):
        NoRound(None)
