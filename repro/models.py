"""The papers' models, written for *stacked* parameters: one flat row per model, many rows at once.

A model here is a parameter layout (names, shapes, PyTorch ``named_parameters`` order) plus a
forward pass that takes a flat parameter stack ``theta`` of shape ``[R, P]`` (R models, P
parameters each) and inputs ``x`` of shape ``[R, B, ...]`` (a batch per model) and returns logits
``[R, B, classes]``. Linear layers are batched matmuls (``baddbmm``); convolutions are grouped
convolutions with one group per model. Row ``r`` of the output depends only on row ``r`` of
``theta`` and of ``x``, so autograd of a sum of per-row losses gives every model's own gradient.

``to_module()`` builds the equivalent ``torch.nn.Module`` (same parameter order), used by the
sequential reference and by anyone who wants a plain model; ``flatten_module``/``load_flat`` move
between the two.

Parameter counts (asserted in tests): MLR 784->10: 7,850; DNN 784-100-10: 79,510; MLP 784-196-10:
155,830; CNN (5x5 *valid* convolutions 32 and 64 filters, 2x2 max-pool after each, FC 512, FC 10):
582,026 on 28x28x1 (flatten 64*4*4 = 1,024) and 878,538 on 32x32x3 (flatten 64*5*5 = 1,600).
Padding 'same' (2) would give 1,663,370 (28x28x1) and 2,156,490 (32x32x3), so the papers' counts fix valid
convolutions.

Example
-------
>>> import torch
>>> m = build_model("dnn")
>>> theta = m.init(torch.Generator().manual_seed(0), rows=3)   # [3, 79510], identical rows
>>> m.forward(theta, torch.zeros(3, 5, 784)).shape
torch.Size([3, 5, 10])
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class ParamSpec:
    """One parameter tensor of a model: its name, shape, offset in the flat row, and init bound."""

    name: str
    shape: tuple[int, ...]
    offset: int
    init_bound: float  # PyTorch default init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weights and biases

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


class StackedModel(abc.ABC):
    """Abstract base: a parameter layout and a forward pass on flat parameter stacks ``[R, P]``.

    Subclasses (MLR, DNN, MLP, CNN) give the layout, ``flops_per_sample`` and ``to_module``."""

    name = "model"
    num_classes = 10

    def __init__(self, layout: list[tuple[str, tuple[int, ...], int]]):
        specs, offset = [], 0
        for pname, shape, fan_in in layout:
            specs.append(ParamSpec(pname, tuple(shape), offset, 1.0 / math.sqrt(fan_in)))
            offset += math.prod(shape)
        self.params: tuple[ParamSpec, ...] = tuple(specs)
        self.num_params = offset

    # ---- layout -------------------------------------------------------------------------------
    def views(self, theta: torch.Tensor) -> dict[str, torch.Tensor]:
        """Per-parameter views ``name -> [R, *shape]`` into ``theta`` ``[R, P]`` (no copy)."""
        if theta.dim() != 2 or theta.shape[1] != self.num_params:
            raise ValueError(f"{self.name}: theta must be [R, {self.num_params}], got {tuple(theta.shape)}")
        r = theta.shape[0]
        return {p.name: theta[:, p.offset : p.offset + p.numel].view(r, *p.shape) for p in self.params}

    def init(self, generator: torch.Generator, rows: int = 1, device="cpu", dtype=torch.float32) -> torch.Tensor:
        """PyTorch's default initialisation (U(+-1/sqrt(fan_in)) for weights and biases), drawn once
        from ``generator`` (CPU) and repeated in ``rows`` identical rows ``[rows, P]``."""
        parts = []
        for p in self.params:
            u = torch.rand(p.numel, generator=generator, dtype=torch.float64)
            parts.append(((2 * u - 1) * p.init_bound).to(dtype))
        flat = torch.cat(parts)
        return flat.to(device).unsqueeze(0).repeat(rows, 1)

    # ---- forward ------------------------------------------------------------------------------
    def forward(self, theta: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """Logits ``[R, B, classes]`` of ``x`` ``[R, B, ...]`` under the R models in ``theta`` ``[R, P]``."""
        return self.forward_views(self.views(theta), x)

    def forward_views(self, v: dict[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
        """Same as ``forward`` with the parameters given as ``name -> [R, *shape]`` tensors."""
        h = self.features_views(v, x)
        for i, (wn, bn) in enumerate(self.linear_layers):
            h = _linear(h, v[wn], v[bn])
            if i < len(self.linear_layers) - 1:
                h = torch.relu(h)
        return h

    #: (weight, bias) names of the Linear -> ReLU -> ... -> Linear head that follows ``features_views``;
    #: the engine's fused SGD step (explicit batched gradients accumulated in place) uses it
    linear_layers: tuple[tuple[str, str], ...] = ()

    def features_views(self, v: dict[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
        """Input of the linear head, ``[R, B, F]`` (default: the flattened input)."""
        return x.reshape(x.shape[0], x.shape[1], -1)

    @abc.abstractmethod
    def flops_per_sample(self) -> int:
        """Multiply-adds x2 of one forward pass on one sample (backward ~ 2x this)."""

    def activations_per_sample(self) -> int:
        """Largest number of values one sample occupies in a layer (sizes evaluation chunks)."""
        return max(p.shape[-1] for p in self.params if len(p.shape) == 2)

    # ---- nn.Module twin -----------------------------------------------------------------------
    @abc.abstractmethod
    def to_module(self) -> nn.Module:
        """The equivalent ``torch.nn.Module``, parameters in the same order as ``self.params``."""

    def load_flat(self, module: nn.Module, flat: torch.Tensor) -> nn.Module:
        """Copy a flat row ``[P]`` into ``module``'s parameters (same order as ``self.params``)."""
        with torch.no_grad():
            for p, (name, tensor) in zip(self.params, module.named_parameters()):
                tensor.copy_(flat[p.offset : p.offset + p.numel].view(p.shape))
        return module

    @staticmethod
    def flatten_module(module: nn.Module) -> torch.Tensor:
        return torch.cat([t.detach().reshape(-1) for t in module.parameters()])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(params={self.num_params})"


class _BatchedLinear(torch.autograd.Function):
    """y = x W^T + b per row, with explicit batched gradients in the parameters' own layout
    (autograd's default returns dW transposed, which makes every later update strided and slow)."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return torch.baddbmm(b.unsqueeze(1), x, w.transpose(1, 2))

    @staticmethod
    def backward(ctx, gout):
        x, w = ctx.saved_tensors
        gx = torch.bmm(gout, w) if ctx.needs_input_grad[0] else None
        gw = torch.bmm(gout.transpose(1, 2), x) if ctx.needs_input_grad[1] else None
        gb = gout.sum(1) if ctx.needs_input_grad[2] else None
        return gx, gw, gb


def _linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # x [R,B,in], w [R,out,in], b [R,out] -> [R,B,out]
    return _BatchedLinear.apply(x, w, b)


class MLR(StackedModel):
    """Multinomial logistic regression: Linear(in_features -> classes); softmax is in the loss."""

    name = "mlr"
    #: (weight, bias) names of a Linear -> ReLU -> ... -> Linear stack: the engine's fused SGD step
    #: (explicit batched gradients applied in place) applies to such models
    linear_layers = (("fc.weight", "fc.bias"),)

    def __init__(self, in_features: int = 784, num_classes: int = 10):
        self.in_features, self.num_classes = in_features, num_classes
        super().__init__([("fc.weight", (num_classes, in_features), in_features), ("fc.bias", (num_classes,), in_features)])

    def flops_per_sample(self):
        return 2 * self.in_features * self.num_classes

    def to_module(self):
        return _MLRModule(self)


class _MLRModule(nn.Module):
    def __init__(self, m: MLR):
        super().__init__()
        self.fc = nn.Linear(m.in_features, m.num_classes)

    def forward(self, x):
        return self.fc(x.flatten(1))


class DNN(StackedModel):
    """Two-layer perceptron Linear(in -> hidden) -> ReLU -> Linear(hidden -> classes).

    ``DNN()`` is the papers' DNN 784-100-10; ``MLP()`` (hidden 196) is ota_jammer's 784-196-10.
    """

    name = "dnn"
    linear_layers = (("fc1.weight", "fc1.bias"), ("fc2.weight", "fc2.bias"))

    def __init__(self, in_features: int = 784, hidden: int = 100, num_classes: int = 10):
        self.in_features, self.hidden, self.num_classes = in_features, hidden, num_classes
        super().__init__(
            [
                ("fc1.weight", (hidden, in_features), in_features),
                ("fc1.bias", (hidden,), in_features),
                ("fc2.weight", (num_classes, hidden), hidden),
                ("fc2.bias", (num_classes,), hidden),
            ]
        )

    def flops_per_sample(self):
        return 2 * (self.in_features * self.hidden + self.hidden * self.num_classes)

    def to_module(self):
        return _DNNModule(self)


class _DNNModule(nn.Module):
    def __init__(self, m: DNN):
        super().__init__()
        self.fc1 = nn.Linear(m.in_features, m.hidden)
        self.fc2 = nn.Linear(m.hidden, m.num_classes)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


class MLP(DNN):
    """ota_jammer's MLP 784-196-10 (d = 155,830)."""

    name = "mlp"

    def __init__(self, in_features: int = 784, hidden: int = 196, num_classes: int = 10):
        super().__init__(in_features, hidden, num_classes)


class CNN(StackedModel):
    """TsingZ0/PFLlib's FedAvgCNN: Conv(c->conv1, 5x5 valid) -> ReLU -> MaxPool2 -> Conv(conv1->conv2,
    5x5 valid) -> ReLU -> MaxPool2 -> flatten -> Linear(->hidden) -> ReLU -> Linear(hidden->classes).

    ``CNN(1, 28)`` = 582,026 parameters, ``CNN(3, 32)`` = 878,538; the quick profiles' reduced CNN is
    ``CNN(conv1=8, conv2=16, hidden=64)`` (20,522 on 28x28x1, 30,138 on 32x32x3).
    Inputs ``[R, B, H, W]`` (one channel) or ``[R, B, C, H, W]``.
    """

    name = "cnn"
    linear_layers = (("fc1.weight", "fc1.bias"), ("fc2.weight", "fc2.bias"))

    def __init__(self, in_channels: int = 1, image_size: int = 28, conv1: int = 32, conv2: int = 64, hidden: int = 512, num_classes: int = 10):
        k = 5
        s1 = (image_size - k + 1) // 2
        s2 = (s1 - k + 1) // 2
        if s2 < 1:
            raise ValueError(f"image_size {image_size} too small for two 5x5 valid conv + pool layers (need >= 16)")
        self.in_channels, self.image_size, self.conv1, self.conv2 = in_channels, image_size, conv1, conv2
        self.hidden, self.num_classes, self.s1, self.s2 = hidden, num_classes, s1, s2
        self.flat = conv2 * s2 * s2
        super().__init__(
            [
                ("conv1.weight", (conv1, in_channels, k, k), in_channels * k * k),
                ("conv1.bias", (conv1,), in_channels * k * k),
                ("conv2.weight", (conv2, conv1, k, k), conv1 * k * k),
                ("conv2.bias", (conv2,), conv1 * k * k),
                ("fc1.weight", (hidden, self.flat), self.flat),
                ("fc1.bias", (hidden,), self.flat),
                ("fc2.weight", (num_classes, hidden), hidden),
                ("fc2.bias", (num_classes,), hidden),
            ]
        )

    def features_views(self, v, x):
        r, b = x.shape[0], x.shape[1]
        x = x.reshape(r, b, self.in_channels, self.image_size, self.image_size)
        # one group per model: [B, R*C, H, W] with model r's channels contiguous; channels-last layout
        # (NHWC): oneDNN's grouped convolution and max-pooling are several times faster in it on CPU
        cl = torch.channels_last
        h = x.transpose(0, 1).reshape(b, r * self.in_channels, self.image_size, self.image_size).contiguous(memory_format=cl)
        w1 = v["conv1.weight"].reshape(r * self.conv1, self.in_channels, 5, 5).contiguous(memory_format=cl)
        h = F.conv2d(h, w1, v["conv1.bias"].reshape(-1), groups=r)
        h = torch.relu(F.max_pool2d(h, 2))  # = max_pool(relu(.)), on 4x fewer values
        w2 = v["conv2.weight"].reshape(r * self.conv2, self.conv1, 5, 5).contiguous(memory_format=cl)
        h = F.conv2d(h, w2, v["conv2.bias"].reshape(-1), groups=r)
        h = torch.relu(F.max_pool2d(h, 2))
        h = h.contiguous()  # back to NCHW for PyTorch's (C, H, W) flatten order
        return h.reshape(b, r, self.flat).transpose(0, 1)  # [R, B, flat], PyTorch's (C, H, W) flatten order

    def activations_per_sample(self):
        return max(self.conv1 * (self.image_size - 4) ** 2, self.in_channels * self.image_size**2)

    def flops_per_sample(self):
        c1 = (self.image_size - 4) ** 2 * self.conv1 * self.in_channels * 25  # conv1 output positions x MACs
        c2 = (self.s1 - 4) ** 2 * self.conv2 * self.conv1 * 25
        fc = self.flat * self.hidden + self.hidden * self.num_classes
        return 2 * (c1 + c2 + fc)

    def to_module(self):
        return _CNNModule(self)


class _CNNModule(nn.Module):
    def __init__(self, m: CNN):
        super().__init__()
        self.m = m
        self.conv1 = nn.Conv2d(m.in_channels, m.conv1, 5)
        self.conv2 = nn.Conv2d(m.conv1, m.conv2, 5)
        self.fc1 = nn.Linear(m.flat, m.hidden)
        self.fc2 = nn.Linear(m.hidden, m.num_classes)

    def forward(self, x):
        x = x.reshape(x.shape[0], self.m.in_channels, self.m.image_size, self.m.image_size)
        h = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        h = F.max_pool2d(torch.relu(self.conv2(h)), 2)
        return self.fc2(torch.relu(self.fc1(h.flatten(1))))


MODELS = {"mlr": MLR, "dnn": DNN, "mlp": MLP, "cnn": CNN}


def build_model(name: str, **kwargs) -> StackedModel:
    """``build_model("cnn", in_channels=3, image_size=32)``; names: mlr, dnn, mlp, cnn."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; allowed: {', '.join(MODELS)}")
    return MODELS[name](**kwargs)
