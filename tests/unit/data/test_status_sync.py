"""The workflow's dataset status files follow the data: a fix (or a loss) rewrites the record, so the
runs that take it as input rerun; a change of places that keeps the outcome (the cache filled from
the mirror) leaves the record untouched, so nothing reruns."""

from __future__ import annotations

import json
import os

from repro.data import load_dataset
from repro.data.status import dataset_status, local_status, sync_status_file, write_status_file

from .conftest import tiny_idx_dataset


def record(path):
    return json.loads(path.read_text())


def test_unavailable_then_fixed_mirror_rewrites_the_record(tiny_mnist, isolated):
    mirror = isolated / "mirror" / "mnist"
    saved = {f.name: f.read_bytes() for f in mirror.iterdir()}
    for f in mirror.iterdir():
        f.unlink()
    status = isolated / "status" / "mnist.json"
    write_status_file(status, dataset_status("mnist", download=True))
    assert record(status)["available"] is False
    assert sync_status_file(status, "mnist") == "fresh"  # nothing changed: nothing reruns
    for name, data in saved.items():
        (mirror / name).write_bytes(data)
    state = sync_status_file(status, "mnist")
    assert state.startswith("updated: recorded unavailable") and state.endswith("now available")
    rec = record(status)
    assert rec["available"] is True and rec["content_id"].startswith("checksums:")
    assert sync_status_file(status, "mnist") == "fresh"


def test_cache_filled_from_the_mirror_changes_nothing(tiny_mnist, isolated):
    status = isolated / "status" / "mnist.json"
    write_status_file(status, local_status("mnist"))  # recorded before anything was copied
    before, mtime = status.read_bytes(), status.stat().st_mtime_ns
    load_dataset("mnist")  # copies into the cache, writes the decoded cache: the places change
    assert sync_status_file(status, "mnist") == "fresh"
    assert status.read_bytes() == before and status.stat().st_mtime_ns == mtime


def test_lost_data_rewrites_the_record(tiny_mnist, isolated):
    status = isolated / "status" / "mnist.json"
    write_status_file(status, dataset_status("mnist"))
    for f in (isolated / "mirror" / "mnist").iterdir():
        f.unlink()
    for f in (isolated / "data" / "raw" / "mnist").iterdir():
        f.unlink()
    assert sync_status_file(status, "mnist").startswith("updated: recorded available")
    assert record(status)["available"] is False


def test_different_user_data_is_a_different_content(isolated, monkeypatch):
    from .conftest import leaf_json

    root = isolated / "leaf"
    leaf_json(root / "train" / "a.json", {"u1": ([[0.5] * 784], [3])})
    monkeypatch.setenv("REPRO_FEMNIST_DIR", str(root))
    status = isolated / "status" / "femnist.json"
    write_status_file(status, dataset_status("femnist"))
    first = record(status)["content_id"]
    leaf_json(root / "train" / "b.json", {"u2": ([[0.1] * 784], [4])})
    assert sync_status_file(status, "femnist").startswith("updated")
    assert record(status)["content_id"] != first


def test_unreadable_record_is_rewritten(isolated):
    status = isolated / "status" / "mnist.json"
    status.parent.mkdir()
    status.write_text('{"dataset": "mni')
    assert sync_status_file(status, "mnist").startswith("updated: recorded an unreadable record")
    assert record(status)["available"] is False
    assert sync_status_file(isolated / "status" / "cifar10.json", "cifar10") == "missing"


def test_local_status_reads_only(tiny_mnist, isolated):
    st = local_status("mnist")
    assert st.available and st.verified and st.where == "local"
    assert not (isolated / "data" / "raw" / "mnist").exists()  # nothing copied, nothing decoded
    tiny_idx_dataset(isolated / "mirror" / "mnist", seed=1)  # other content, same names: fails the checksums
    assert local_status("mnist").available is False
    assert not any(p.name.endswith(".corrupt") for p in (isolated / "mirror" / "mnist").iterdir())


def test_status_file_mode_follows_umask(isolated):
    status = isolated / "status" / "cifar10.json"
    old = os.umask(0o027)
    try:
        write_status_file(status, dataset_status("cifar10"))
    finally:
        os.umask(old)
    assert status.stat().st_mode & 0o777 == 0o640
