"""Fixtures: an isolated data cache, no network, and tiny datasets written in the official formats."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import pickle
import struct
import tarfile
from pathlib import Path

import numpy as np
import pytest

from repro.data import download as dl
from repro.data import registry
from repro.data.errors import DownloadError
from repro.data.registry import IDX_FILES

REAL_DOWNLOAD = dl.download_file
# the real offline copies: $REPRO_DATA_MIRROR as given to the test run (tests/conftest.py defaults it to
# ../shared/datasets), read before the per-test fixture points the variable at an empty folder
REAL_MIRROR = Path(os.environ.get("REPRO_DATA_MIRROR", "").split(os.pathsep)[0] or Path(__file__).resolve().parents[3].parent / "shared" / "datasets")


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Every test gets its own cache and mirror folders and no network (downloads fail as offline)."""
    monkeypatch.setenv("REPRO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REPRO_DATA_MIRROR", str(tmp_path / "mirror"))
    for var in ("REPRO_FEMNIST_DIR", "REPRO_FEMNIST_PATH", "REPRO_OFFLINE"):
        monkeypatch.delenv(var, raising=False)

    def offline(url, dest, progress=True):
        raise DownloadError(f"{url}: network unreachable (test: offline)", offline=True)

    monkeypatch.setattr(dl, "download_file", offline)
    monkeypatch.setattr(dl, "probe", lambda url: "offline")
    return tmp_path


def idx_bytes(arr: np.ndarray) -> bytes:
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    return struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape) + arr.tobytes()


def tiny_idx_dataset(folder: Path, n_train=30, n_test=10, seed=0, gz=True) -> dict:
    """Write the four MNIST IDX files (gzip) to ``folder``; return {file: sha256 of content} and arrays."""
    rng = np.random.default_rng(seed)
    arrays = {
        IDX_FILES[0]: rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        IDX_FILES[1]: (np.arange(n_train) % 10).astype(np.uint8),
        IDX_FILES[2]: rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        IDX_FILES[3]: (np.arange(n_test) % 10).astype(np.uint8),
    }
    folder.mkdir(parents=True, exist_ok=True)
    sums = {}
    for name, arr in arrays.items():
        raw = idx_bytes(arr)
        sums[name] = hashlib.sha256(raw).hexdigest()
        if gz:
            (folder / f"{name}.gz").write_bytes(gzip.compress(raw))
        else:
            (folder / name).write_bytes(raw)
    return {"sha256": sums, "arrays": arrays}


@pytest.fixture
def tiny_mnist(isolated, monkeypatch):
    """A tiny 'mnist' in the mirror with the registry's checksums pointed at it."""
    made = tiny_idx_dataset(isolated / "mirror" / "mnist")
    spec = registry.DATASETS["mnist"]
    files = {f: ("sha256", made["sha256"][f]) for f in IDX_FILES}
    monkeypatch.setitem(registry.DATASETS, "mnist", registry.DatasetSpec(**{**spec.__dict__, "files": files, "system_dirs": ()}))
    return made


def cifar_batch(n, seed) -> tuple[bytes, np.ndarray, list]:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
    labels = [int(v) for v in rng.integers(0, 10, n)]
    payload = {b"batch_label": b"tiny", b"labels": labels, b"data": data, b"filenames": [b"x.png"] * n}
    return pickle.dumps(payload, protocol=2), data, labels


def tiny_cifar_archive(path: Path, n=4, evil: bytes | None = None) -> dict:
    """Write a CIFAR-10 python tar.gz with the official member names; return its md5 and arrays."""
    path.parent.mkdir(parents=True, exist_ok=True)
    out = {}
    with tarfile.open(path, "w:gz") as tar:
        names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
        for i, name in enumerate(names):
            raw, data, labels = cifar_batch(n, i)
            if evil is not None and name == "data_batch_1":
                raw = evil
            out[name] = (data, labels)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
        meta = pickle.dumps({b"label_names": [b"airplane"] * 10}, protocol=2)
        info = tarfile.TarInfo("cifar-10-batches-py/batches.meta")
        info.size = len(meta)
        tar.addfile(info, io.BytesIO(meta))
    return {"md5": hashlib.md5(path.read_bytes()).hexdigest(), "batches": out}


def leaf_json(path: Path, users: dict) -> None:
    """Write a LEAF JSON file; ``users`` maps user -> (x [n, 784] floats, y [n])."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"users": list(users), "num_samples": [len(v[1]) for v in users.values()],
           "user_data": {u: {"x": np.asarray(x).tolist(), "y": list(map(int, y))} for u, (x, y) in users.items()}}
    path.write_text(json.dumps(doc))
