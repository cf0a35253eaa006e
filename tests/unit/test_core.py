"""The shared contract: RNG streams, run ids, profiles, claims, atomic results."""

import json
import math

import numpy as np
import pytest

from repro import experiment as ex
from repro.engine.rng import RngStreams
from repro.results import TIDY_COLUMNS, read_json, tidy_frame, write_json


def test_rng_streams_are_reproducible_and_independent():
    a, b = RngStreams(3), RngStreams(3)
    assert a.numpy("partition").integers(1 << 30) == b.numpy("partition").integers(1 << 30)
    assert a.numpy("partition").integers(1 << 30) != a.numpy("dp_noise").integers(1 << 30)
    assert RngStreams(3).numpy("init").random() != RngStreams(4).numpy("init").random()
    assert a.spawn(1).numpy("init").random() != a.spawn(2).numpy("init").random()
    import torch

    x = torch.randn(5, generator=a.torch("channel"))
    y = torch.randn(5, generator=b.torch("channel"))
    assert torch.equal(x, y)


@pytest.mark.parametrize("bad", [-1, 1.5, "3"])
def test_rng_rejects_bad_seed(bad):
    with pytest.raises(ValueError, match="seed"):
        RngStreams(bad)


def test_run_id_depends_on_every_field():
    base = ex.RunSpec("dp_ditto", "train", {"lam": 0.5}, seed=0)
    assert base.run_id == ex.RunSpec("dp_ditto", "train", {"lam": 0.5}, seed=0).run_id
    assert base.run_id != ex.RunSpec("dp_ditto", "train", {"lam": 0.6}, seed=0).run_id
    assert base.run_id != ex.RunSpec("dp_ditto", "train", {"lam": 0.5}, seed=1).run_id
    assert base.run_id.startswith("train-")


def test_unknown_names_give_errors_with_choices():
    with pytest.raises(ex.ConfigError, match="allowed: .*dp_ditto"):
        ex.load_params("nope", "quick")
    with pytest.raises(ex.ConfigError, match="profile 'fast'"):
        ex.load_params("age_dp", "fast")


def test_atomic_json_roundtrip(tmp_path):
    p = tmp_path / "a" / "b.json"
    write_json(p, {"x": np.float64(1.5), "y": np.arange(3), "z": float("nan")})
    back = read_json(p)
    assert {k: back[k] for k in "xy"} == {"x": 1.5, "y": [0, 1, 2]} and math.isnan(back["z"])  # NaN stays NaN
    assert [f.name for f in p.parent.iterdir()] == ["b.json"]


def test_tidy_frame_rejects_unknown_columns():
    df = tidy_frame([{"figure": "fig1", "series": "a", "x": 1, "metric": "m", "value": 2.0}])
    assert list(df.columns) == TIDY_COLUMNS
    with pytest.raises(ValueError, match="unknown columns"):
        tidy_frame([{"figure": "fig1", "colour": "red"}])
