"""Fixtures: an isolated data cache, no network, and tiny datasets written in the official formats."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from repro.data import download as dl
from repro.data import registry
from repro.data.errors import DownloadError
from repro.data.fixtures import cifar10_archive as tiny_cifar_archive  # noqa: F401  (the tests import these from here)
from repro.data.fixtures import cifar_batch, idx_bytes, leaf_json, tiny_idx_dataset  # noqa: F401
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


@pytest.fixture
def tiny_mnist(isolated, monkeypatch):
    """A tiny 'mnist' in the mirror with the registry's checksums pointed at it."""
    made = tiny_idx_dataset(isolated / "mirror" / "mnist")
    spec = registry.DATASETS["mnist"]
    files = {f: ("sha256", made["sha256"][f]) for f in IDX_FILES}
    monkeypatch.setitem(registry.DATASETS, "mnist", registry.DatasetSpec(**{**spec.__dict__, "files": files, "system_dirs": ()}))
    return made


