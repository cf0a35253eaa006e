"""Non-private sanity run of every PFL algorithm: MNIST, 2 classes per client, 20 clients, DNN,
mean personalised test accuracy >= 0.90 after 20 rounds (quick-profile data: 100 train / 50 test per client)."""

import math

import pytest

from repro.engine.rng import RngStreams
from repro.experiment import RunContext, load_params

ALGOS = ["ditto", "pfedme", "apple", "fedamp", "fedala"]


def _params(algo: str) -> dict:
    from repro.papers.dp_ditto.experiments import Plan, common_params

    params = load_params("dp_ditto", "quick")
    p = common_params(params, "dnn_mnist")
    p.update(epsilon=math.inf, clip=20.0, T=20)
    if algo == "ditto":
        p.update(lambdas=[0.1], per_round=False)
    else:
        p.update(algorithm=algo, hp=Plan(params).hyper(algo, "dnn_mnist"))
    return p


@pytest.mark.slow
@pytest.mark.parametrize("algo", ALGOS)
def test_non_private_sanity(algo):
    from repro.data import DatasetUnavailableError
    from repro.papers.dp_ditto.runs import run_training

    try:
        res = run_training("ditto" if algo == "ditto" else "baseline", _params(algo), RngStreams(0),
                           RunContext("quick", "sanity", log=lambda m: None))
    except DatasetUnavailableError:
        pytest.skip("MNIST not available")
    if res.get("status") == "unavailable":
        pytest.skip(res["reason"])
    series = next(iter(res["series"].values()))
    assert series["accuracy"][-1] >= 0.90, (algo, series["accuracy"][-1])
