"""Non-private sanity run of every PFL algorithm: MNIST, 2 classes per client, 20 clients, DNN,
mean personalised test accuracy >= 0.90 after 20 rounds (quick-profile data: 100 train / 50 test per client)."""

import math

import pytest

from repro.experiment import RunContext, RunSpec
from repro.experiment import load_params

ALGOS = ["ditto", "pfedme", "apple", "fedamp", "fedala"]


def _spec(algo: str) -> RunSpec:
    from repro.papers.dp_ditto.experiments import _common

    params = load_params("dp_ditto", "quick")
    p = _common(params, "dnn_mnist")
    p.update(epsilon=math.inf, clip=20.0, T=20)
    if algo == "ditto":
        p.update(lambdas=[0.1], per_round=False)
        return RunSpec("dp_ditto", "ditto", p, 0)
    hp = dict(params[algo])
    if algo == "pfedme":
        hp["personal_lr"] = hp["personal_lr"]["dnn_mnist"]
    p.update(algorithm=algo, hp=hp)
    return RunSpec("dp_ditto", "baseline", p, 0)


@pytest.mark.slow
@pytest.mark.parametrize("algo", ALGOS)
def test_non_private_sanity(algo):
    from repro.data import DatasetUnavailableError
    from repro.papers.dp_ditto.runs import run_training

    spec = _spec(algo)
    try:
        res = run_training(spec, RunContext("quick", spec.run_id, log=lambda m: None))
    except DatasetUnavailableError:
        pytest.skip("MNIST not available")
    if res.get("status") == "unavailable":
        pytest.skip(res["reason"])
    series = next(iter(res["series"].values()))
    assert series["accuracy"][-1] >= 0.90, (algo, series["accuracy"][-1])
