"""What the series of one (model-dataset configuration, seed) share: data, model, init, distances,
Assumption 1's constants measured on the initial model, and the wireless link.

Data (README, decisions): official train + test merged, Dirichlet(0.1) label skew over N = 20
clients with a minimum of 40 samples, a seeded 75 / 25 % train / test split per client, then an
optional seeded subsample of every client (``data_fraction``, floors 20 train / 8 test). The tuning
sweep holds out ``validation_fraction`` of every client's training samples
(:meth:`Environment.validation_split`); the test sets are never used to choose anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import torch

from repro.papers.wpfl_minmax import theory as th
from repro.wireless.channel import LinkBudget, uniform_distances
from repro.wireless.ofdma import OfdmaChannel

#: |w| of the paper's models (r_min of (10) and the bound constants use it)
PAPER_NUM_PARAMS = {"mlr_mnist": 7850, "dnn_mnist": 79510, "cnn_fmnist": 582026, "cnn_cifar10": 878538}
DATASET = {"mlr_mnist": "mnist", "dnn_mnist": "mnist", "cnn_fmnist": "fashion_mnist", "cnn_cifar10": "cifar10"}


def model_family(config: str) -> str:
    return config.split("_")[0]


@dataclass
class Environment:
    """Data, model and constants of one (configuration, seed); shared by every series of a run."""

    config: str
    params: dict
    model: object
    train: object
    test: object
    theta0: torch.Tensor
    distances: np.ndarray
    g0: float  # Assumption 1: max_n ||grad F_n(w0)|| (full local gradient at the initial model)
    m_bound: float  # Assumption 1: ||u_n* - w*|| <= M, from the gradient heterogeneity at w0 / mu
    seed: int
    train_idx: list = field(default_factory=list, repr=False)
    x_all: object = field(default=None, repr=False)
    y_all: object = field(default=None, repr=False)
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def family(self) -> str:
        return model_family(self.config)

    @property
    def num_clients(self) -> int:
        return int(self.params["num_clients"])

    def link_budget(self) -> LinkBudget:
        p = self.params
        return LinkBudget(num_subchannels=int(p["num_subchannels"]), total_bw_hz=float(p["total_bw_hz"]),
                          noise_dbm_per_hz=float(p["noise_dbm_per_hz"]), client_power_dbm=float(p["client_power_dbm"]),
                          bs_power_dbm=float(p["bs_power_dbm"]), pl0_db=float(p["pl0_db"]),
                          pl_exponent=float(p["pl_exponent"]), dl_power_split=bool(p["dl_power_split"]))

    def channel(self) -> OfdmaChannel:
        """The OFDMA channel (10)-(14) with eq. (13) read per ``ber_snr`` (README: 'symbol')."""
        return OfdmaChannel(self.link_budget(), self.distances, bits=int(self.params["bits"]),
                            qam_order=int(self.params["qam_order"]), snr_per=str(self.params["ber_snr"]))

    def validation_split(self) -> "Environment":
        """A copy that trains on (1 - f) of every client's training samples and is evaluated on the other f
        (``validation_fraction``; seeded by ``partition_seed``); used only by the tuning sweep."""
        if "validation" in self.cache:
            return self.cache["validation"]
        from repro.engine.data import ClientData

        f = float(self.params["validation_fraction"])
        rng = np.random.default_rng([int(self.params["partition_seed"]), 7])
        fit, val = [], []
        for idx in self.train_idx:
            perm = rng.permutation(idx)
            k = min(len(idx) - 1, max(1, int(round(f * len(idx)))))
            val.append(perm[:k])
            fit.append(perm[k:])
        dev = self.train.device
        env = replace(self, train=ClientData.from_indices(self.x_all, self.y_all, fit, device=dev),
                      test=ClientData.from_indices(self.x_all, self.y_all, val, device=dev), cache={})
        self.cache["validation"] = env
        return env


def build_environment(config: str, params: dict, seed: int, device: str = "cpu") -> Environment:
    """Partition, model, seeded init, client distances, G0 and M. Raises DatasetUnavailableError."""
    from repro.data import load_dataset
    from repro.data.partition import DirichletPartitioner, train_test_split_per_client
    from repro.engine.data import ClientData
    from repro.engine.rng import RngStreams
    from repro.models import build_model

    ds = load_dataset(DATASET[config])
    x = np.concatenate([ds.train_x, ds.test_x])
    y = np.concatenate([ds.train_y, ds.test_y])
    n = int(params["num_clients"])
    parts = DirichletPartitioner(n, float(params["dirichlet_alpha"]), seed=int(params["partition_seed"]), min_size=40).split(y)
    train_idx, test_idx = train_test_split_per_client(parts, float(params["test_fraction"]), seed=int(params["partition_seed"]))
    frac = float(params["data_fraction"])
    if frac < 1.0:
        rng = np.random.default_rng(int(params["partition_seed"]) + 1)
        train_idx = [rng.permutation(t)[: max(20, int(round(frac * len(t))))] for t in train_idx]
        test_idx = [rng.permutation(t)[: max(8, int(round(frac * len(t))))] for t in test_idx]
    train = ClientData.from_indices(x, y, train_idx, device=device)
    test = ClientData.from_indices(x, y, test_idx, device=device)
    fam = model_family(config)
    if fam == "cnn":  # the paper's CNN (Sec. VII): 32 / 64 filters, FC 1024 (1600) -> 512 -> 10
        shape = dict(in_channels=3, image_size=32) if config == "cnn_cifar10" else dict(in_channels=1, image_size=28)
        model = build_model("cnn", **shape)
    else:
        model = build_model(fam)
    streams = RngStreams(seed)
    theta0 = model.init(streams.torch("init"), rows=1, device=device)[0]
    distances = uniform_distances(n, streams.numpy("distances"), params["d_min_m"], params["d_max_m"])
    _, mu = th.lipschitz_and_convexity(config)
    g0, m_bound = th.constants_from_gradients(full_local_gradients(model, theta0, train).cpu().numpy(), mu)
    return Environment(config, params, model, train, test, theta0, distances, g0, m_bound, seed,
                       train_idx=train_idx, x_all=x, y_all=y)


def full_local_gradients(model, theta: torch.Tensor, data) -> torch.Tensor:
    """``grad F_n(theta)`` on each client's whole training set, ``[N, P]`` float64."""
    from repro.engine.train import batch_grad

    n = data.num_clients
    sizes = data.sizes
    total = None
    chunk = 256
    for start in range(0, data.max_size, chunk):
        pos = torch.arange(start, min(start + chunk, data.max_size), device=sizes.device).unsqueeze(0).expand(n, -1)
        mask = pos < sizes.unsqueeze(1)
        xb, yb = data.gather(torch.arange(n, device=sizes.device), torch.where(mask, pos, 0))
        cnt = mask.sum(1).clamp(min=1).double()  # chunk mean -> sum over the chunk's samples
        g, _ = batch_grad(model, theta.unsqueeze(0).expand(n, -1).contiguous(), xb, yb, mask)
        g = g.double() * cnt.unsqueeze(1) * (mask.sum(1) > 0).unsqueeze(1)
        total = g if total is None else total + g
    return total / sizes.double().unsqueeze(1)
