"""Real MNIST / Fashion-MNIST from the mirror; federated datasets and the ``repro data`` command."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from repro.data import load_dataset, registry
from repro.data.federated import federated_dataset

from .conftest import REAL_MIRROR, tiny_idx_dataset


@pytest.mark.parametrize("name, folder", [("mnist", "mnist"), ("fashion_mnist", "fashion-mnist")])
def test_real_dataset_from_mirror(name, folder, monkeypatch):
    if not (REAL_MIRROR / folder).is_dir():
        pytest.skip(f"offline mirror {REAL_MIRROR / folder} absent (set REPRO_DATA_MIRROR to a copy)")
    monkeypatch.setenv("REPRO_DATA_MIRROR", str(REAL_MIRROR))
    ds = load_dataset(name)
    assert ds.train_x.shape == (60000, 28, 28) and ds.test_x.shape == (10000, 28, 28)
    assert ds.train_y.shape == (60000,) and ds.test_y.shape == (10000,)
    assert ds.train_x.dtype == np.uint8 and ds.train_y.dtype == np.int64
    assert sorted(np.unique(ds.train_y).tolist()) == list(range(10))
    assert ds.source.verified and ds.source.where == "mirror"
    expected = {f: f"sha256:{h}" for f, (_, h) in registry.DATASETS[name].files.items()}
    assert ds.source.checksums == expected
    if name == "mnist":  # well-known facts of MNIST
        assert np.bincount(ds.train_y).tolist()[:2] == [5923, 6742]


@pytest.fixture
def tiny(isolated, monkeypatch):
    made = tiny_idx_dataset(isolated / "mirror" / "mnist", n_train=200, n_test=50)
    spec = registry.DATASETS["mnist"]
    files = {f: ("sha256", h) for f, h in made["sha256"].items()}
    monkeypatch.setitem(registry.DATASETS, "mnist", registry.DatasetSpec(**{**spec.__dict__, "files": files, "system_dirs": ()}))
    return made


def test_federated_saved_once_and_reloaded(tiny, isolated):
    spec = {"scheme": "pathological", "num_clients": 10, "classes_per_client": 2}
    fd = federated_dataset("mnist", spec, seed=1)
    manifest = json.loads((fd.path / "manifest.json").read_text())
    assert fd.path.parent == isolated / "data" / "processed"
    assert manifest["parameters"] == spec and manifest["seed"] == 1 and manifest["generator"].startswith("repro.data.federated")
    assert manifest["source"]["checksums"] and len(manifest["train_label_counts"]) == 10
    assert sum(manifest["train_sizes"]) + sum(manifest["test_sizes"]) == 250
    mtime = os.stat(fd.path / "partition.npz").st_mtime_ns
    again = federated_dataset("mnist", spec, seed=1)
    assert os.stat(fd.path / "partition.npz").st_mtime_ns == mtime  # reloaded, not rewritten
    assert all(np.array_equal(a, b) for a, b in zip(fd.train_indices, again.train_indices))
    x, y = again.client_train(0)
    assert x.shape[1:] == (28, 28) and set(np.unique(y)) <= {0, 1}
    np.testing.assert_array_equal(np.bincount(y, minlength=10), again.label_counts()[0])
    assert federated_dataset("mnist", spec, seed=2).key != fd.key


def test_federated_label_skew_official_splits_and_class_subset(tiny):
    spec = {"scheme": "label_skew", "train_sizes": [10, 12, 8], "test_sizes": [2, 3, 2], "classes_per_client": 2, "classes": [3, 4, 5, 6]}
    fd = federated_dataset("mnist", spec, seed=0)
    assert fd.manifest["index_space"] == "official" and fd.num_classes == 4
    assert [len(i) for i in fd.train_indices] == [10, 12, 8] and [len(i) for i in fd.test_indices] == [2, 3, 2]
    _, y = fd.client_train(1)
    assert set(y.tolist()) == {1, 2}  # client 1 holds relabelled classes (1, 2) = original 4, 5
    reloaded = federated_dataset("mnist", spec, seed=0)
    np.testing.assert_array_equal(reloaded.client_test(2)[1], fd.client_test(2)[1])


def test_federated_spec_validation(tiny):
    with pytest.raises(ValueError, match="unknown partition scheme 'shards'"):
        federated_dataset("mnist", {"scheme": "shards"}, seed=0)
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['alpah'\]"):
        federated_dataset("mnist", {"scheme": "dirichlet", "num_clients": 2, "alpha": 1, "alpah": 1}, seed=0)


def test_cli_fetch_status_json_and_partition_plot(tiny, isolated, capsys):
    from repro.cli import main

    out = isolated / "status" / "cifar10.json"
    assert main(["data", "fetch", "cifar10", "--allow-missing", "--status-json", str(out)]) == 0
    st = json.loads(out.read_text())
    assert st == {"dataset": "cifar10", "available": False, "content_id": None, "path": None, "verified": False,
                  "reason": "download failed: offline", "where": None}
    assert (out.parent / ".cifar10.json.places").is_file()  # the fingerprint of the places searched
    assert main(["data", "fetch", "cifar10"]) == 1
    assert main(["data", "fetch", "mnist", "--status-json", str(isolated / "m.json")]) == 0
    assert json.loads((isolated / "m.json").read_text())["verified"] is True
    capsys.readouterr()
    assert main(["data", "status"]) == 0
    table = capsys.readouterr().out
    assert "not available (download failed: offline)" in table and "How to provide it" in table
    assert any(line.startswith("mnist") and " yes " in line for line in table.splitlines())
    png = isolated / "heat.png"
    assert main(["data", "partition", "mnist", "--scheme", "dirichlet", "--clients", "4", "--alpha", "0.5", "--min-size", "5", "--seed", "0", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["data", "partition", "mnist", "--scheme", "pathological", "--clients", "3", "--seed", "0"]) == 2
