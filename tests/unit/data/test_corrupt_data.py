"""Damaged data is never fatal: a flipped byte or a truncated tail in a ``.gz`` (mirror or cache), a
damaged decoded cache or partition manifest. Every case fails verification like a checksum mismatch:
the copy is never used, a cache copy is moved aside (so a later fetch with a good mirror works), and
``repro data status|fetch`` report it without a traceback."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from repro.cli import main
from repro.data import DatasetCorruptError, DatasetUnavailableError, load_dataset
from repro.data import federated
from repro.data.federated import federated_dataset
from repro.data.registry import IDX_FILES

from .conftest import idx_bytes, tiny_idx_dataset


def flip_byte(path, where=0.5):
    data = bytearray(path.read_bytes())
    data[int(len(data) * where)] ^= 0xFF
    path.write_bytes(bytes(data))


def truncate(path, keep=0.5):
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


# damage that each gzip layer reports differently: deflate data (zlib.error or a CRC mismatch), the
# trailer (CRC / length: BadGzipFile), the header (BadGzipFile), a cut stream (EOFError)
DAMAGE = {
    "flip in the deflate data": lambda p: flip_byte(p, 0.5),
    "flip in the CRC trailer": lambda p: flip_byte(p, 0.999),
    "flip in the magic header": lambda p: flip_byte(p, 0.0),
    "truncated to half": lambda p: truncate(p, 0.5),
    "truncated by 3 bytes": lambda p: p.write_bytes(p.read_bytes()[:-3]),
}
LABELS = "train-labels-idx1-ubyte"


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_gz_in_mirror_is_a_checksum_failure(tiny_mnist, isolated, damage):
    bad = isolated / "mirror" / "mnist" / f"{LABELS}.gz"
    DAMAGE[damage](bad)
    before = bad.read_bytes()
    with pytest.raises(DatasetCorruptError) as e:
        load_dataset("mnist")
    assert isinstance(e.value, DatasetUnavailableError)  # runs degrade on it
    assert str(bad) in str(e.value) and tiny_mnist["sha256"][LABELS] in str(e.value)
    assert bad.read_bytes() == before  # a mirror is not ours: left in place, never used
    assert not (isolated / "data" / "raw" / "mnist" / f"{LABELS}.gz").exists()


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_gz_in_cache_is_moved_aside_and_replaced_from_a_good_mirror(tiny_mnist, isolated, damage):
    load_dataset("mnist")
    cache = isolated / "data" / "raw" / "mnist"
    (cache / "mnist.npz").unlink()  # force a look at the raw files
    bad = cache / f"{LABELS}.gz"
    DAMAGE[damage](bad)
    damaged = bad.read_bytes()
    ds = load_dataset("mnist")
    assert ds.source.verified and ds.source.where == "mirror"
    np.testing.assert_array_equal(ds.train_y, tiny_mnist["arrays"][LABELS])
    assert (cache / f"{LABELS}.gz.corrupt").read_bytes() == damaged
    assert load_dataset("mnist").source.where == "cache"  # and every later load works


def test_damaged_cache_without_good_copy_is_moved_aside_so_a_later_fetch_works(tiny_mnist, isolated):
    load_dataset("mnist")
    cache = isolated / "data" / "raw" / "mnist"
    (cache / "mnist.npz").unlink()
    mirror = isolated / "mirror" / "mnist"
    saved = (mirror / f"{LABELS}.gz").read_bytes()
    (mirror / f"{LABELS}.gz").unlink()
    truncate(cache / f"{LABELS}.gz")
    with pytest.raises(DatasetCorruptError, match="moved aside"):
        load_dataset("mnist")
    assert not (cache / f"{LABELS}.gz").exists() and (cache / f"{LABELS}.gz.corrupt").exists()
    (mirror / f"{LABELS}.gz").write_bytes(saved)  # the user fixes the mirror
    assert load_dataset("mnist").source.verified


def test_repro_data_status_and_fetch_report_damaged_mirror_without_traceback(tiny_mnist, isolated, capsys):
    flip_byte(isolated / "mirror" / "mnist" / f"{LABELS}.gz", 0.999)
    assert main(["data", "status"]) == 0
    out = capsys.readouterr()
    assert f"not available (corrupt copy: {LABELS}.gz: unreadable gzip stream" in out.out  # the concrete reason
    assert "Traceback" not in out.out + out.err
    assert main(["data", "fetch", "mnist"]) == 1
    err = capsys.readouterr().err
    assert f"mnist: not available (corrupt copy: {LABELS}.gz: unreadable gzip stream" in err and "Traceback" not in err
    status = isolated / "status.json"
    assert main(["data", "fetch", "mnist", "--allow-missing", "--status-json", str(status)]) == 0
    assert json.loads(status.read_text())["reason"].startswith(f"corrupt copy: {LABELS}.gz: unreadable gzip stream")


def test_repro_data_status_moves_damaged_cache_aside_then_fetch_works_from_a_good_mirror(tiny_mnist, isolated, capsys):
    load_dataset("mnist")
    cache = isolated / "data" / "raw" / "mnist"
    (cache / "mnist.npz").unlink()
    mirror = isolated / "mirror" / "mnist"
    saved = {f.name: f.read_bytes() for f in mirror.iterdir()}
    for f in mirror.iterdir():
        f.unlink()
    flip_byte(cache / f"{LABELS}.gz", 0.999)
    assert main(["data", "status"]) == 0
    out = capsys.readouterr()
    assert "not available (corrupt copy: " in out.out and "moved aside" in out.out and "Traceback" not in out.err
    assert (cache / f"{LABELS}.gz.corrupt").is_file() and not (cache / f"{LABELS}.gz").exists()
    for name, data in saved.items():  # the user provides a good mirror
        (mirror / name).write_bytes(data)
    assert main(["data", "fetch", "mnist"]) == 0
    assert "mnist: available" in capsys.readouterr().out


def test_truncated_decoded_cache_is_rebuilt(tiny_mnist, isolated):
    load_dataset("mnist")
    npz = isolated / "data" / "raw" / "mnist" / "mnist.npz"
    truncate(npz)
    assert load_dataset("mnist").train_x.shape == (30, 28, 28)
    assert (npz.parent / "mnist.npz.corrupt").is_file()


def test_damaged_user_gz_degrades(isolated, monkeypatch):
    root = isolated / "emnist"
    root.mkdir()
    img = np.zeros((2, 28, 28), np.uint8)
    for split in ("train", "test"):
        (root / f"emnist-byclass-{split}-images-idx3-ubyte.gz").write_bytes(gzip.compress(idx_bytes(img)))
        (root / f"emnist-byclass-{split}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(idx_bytes(np.array([1, 2]))))
    truncate(root / "emnist-byclass-train-images-idx3-ubyte.gz")
    monkeypatch.setenv("REPRO_FEMNIST_DIR", str(root))
    with pytest.raises(DatasetUnavailableError, match="cannot be read") as e:
        load_dataset("femnist")
    assert e.value.reason == "unreadable user data"


@pytest.fixture
def tiny(isolated, monkeypatch):
    from repro.data import registry

    made = tiny_idx_dataset(isolated / "mirror" / "mnist", n_train=200, n_test=50)
    spec = registry.DATASETS["mnist"]
    files = {f: ("sha256", made["sha256"][f]) for f in IDX_FILES}
    monkeypatch.setitem(registry.DATASETS, "mnist", registry.DatasetSpec(**{**spec.__dict__, "files": files, "system_dirs": ()}))
    return made


SPEC = {"scheme": "dirichlet", "num_clients": 4, "alpha": 0.5, "min_size": 5}


@pytest.mark.parametrize("damage", ["truncated", "edited", "npz flipped", "not a mapping", "checksum removed, edited",
                                    "npz checksum removed"])
def test_damaged_partition_manifest_is_repaired(tiny, damage):
    fd = federated_dataset("mnist", SPEC, seed=0)
    manifest = fd.path / "manifest.json"
    assert json.loads(manifest.read_text())["manifest_sha256"]
    if damage == "truncated":
        truncate(manifest)
    elif damage == "edited":  # valid JSON, wrong content: caught by the manifest's own checksum
        doc = json.loads(manifest.read_text())
        doc["train_sizes"][0] += 1
        manifest.write_text(json.dumps(doc))
    elif damage == "npz flipped":
        flip_byte(fd.path / "partition.npz", 0.5)
    elif damage == "checksum removed, edited":  # without its integrity field the manifest cannot be trusted (issue 26)
        doc = json.loads(manifest.read_text())
        del doc["manifest_sha256"]
        doc["num_classes"] = 3
        manifest.write_text(json.dumps(doc))
    elif damage == "npz checksum removed":
        doc = json.loads(manifest.read_text())
        del doc["npz_sha256"]
        doc["manifest_sha256"] = federated._manifest_digest(doc)
        manifest.write_text(json.dumps(doc))
    else:
        manifest.write_text("[1, 2]")
    again = federated_dataset("mnist", SPEC, seed=0)
    assert all(np.array_equal(a, b) for a, b in zip(fd.train_indices, again.train_indices))
    assert again.num_classes == fd.num_classes == 10
    repaired = json.loads(manifest.read_text())
    assert repaired["train_sizes"] == fd.manifest["train_sizes"] and repaired["manifest_sha256"]
    assert list(fd.path.glob("*.corrupt"))  # the damaged file was kept aside for inspection


@pytest.mark.parametrize("plot,problem", [("no/such/folder/heat.png", "does not exist"), ("heat.txt", "must end in")])
def test_partition_plot_never_creates_folders(tiny, isolated, capsys, plot, problem):
    target = isolated / plot
    argv = ["data", "partition", "mnist", "--scheme", "iid", "--clients", "4", "--seed", "0", "--plot", str(target)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert problem in err and "Traceback" not in err
    assert not (isolated / "no").exists() and not target.exists()
    assert not (isolated / "data" / "processed").exists()  # refused before any work
