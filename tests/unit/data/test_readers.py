"""Readers, lookup order, integrity checks and errors on tiny fixtures in the official formats."""

from __future__ import annotations

import gzip
import hashlib
import json
import pickle

import numpy as np
import pytest

from repro.data import DatasetCorruptError, DatasetUnavailableError, load_dataset, readers, registry
from repro.data.registry import IDX_FILES

from .conftest import idx_bytes, leaf_json, tiny_cifar_archive, tiny_idx_dataset


def test_idx_roundtrip_and_bad_header(tmp_path):
    arr = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    np.testing.assert_array_equal(readers.read_idx_bytes(idx_bytes(arr)), arr)
    with pytest.raises(readers.FormatError, match="header promises"):
        readers.read_idx_bytes(idx_bytes(arr)[:-1], "short")
    with pytest.raises(readers.FormatError, match="bad magic"):
        readers.read_idx_bytes(b"\x01\x02\x08\x01\x00\x00\x00\x00", "bad")


def test_load_from_mirror_verifies_and_caches(tiny_mnist, isolated):
    ds = load_dataset("mnist")
    assert ds.train_x.shape == (30, 28, 28) and ds.train_x.dtype == np.uint8
    assert ds.train_y.dtype == np.int64 and ds.test_x.shape == (10, 28, 28)
    np.testing.assert_array_equal(ds.train_x, tiny_mnist["arrays"][IDX_FILES[0]])
    assert ds.source.where == "mirror" and ds.source.verified
    cache = isolated / "data" / "raw" / "mnist"
    assert (cache / "mnist.npz").is_file() and all((cache / f"{f}.gz").is_file() for f in IDX_FILES)
    # second load: from the decoded cache, same arrays
    again = load_dataset("mnist")
    assert again.source.where == "cache" and again.source.origin == ds.source.origin
    np.testing.assert_array_equal(again.test_y, ds.test_y)


def test_uncompressed_idx_in_system_folder(isolated, monkeypatch):
    made = tiny_idx_dataset(isolated / "system" / "fashion-mnist", gz=False)
    spec = registry.DATASETS["fashion_mnist"]
    files = {f: ("sha256", made["sha256"][f]) for f in IDX_FILES}
    monkeypatch.setitem(registry.DATASETS, "fashion_mnist", registry.DatasetSpec(
        **{**spec.__dict__, "files": files, "system_dirs": (str(isolated / "system" / "fashion-mnist"),)}))
    ds = load_dataset("fashion_mnist")
    assert ds.source.where == "system" and ds.train_x.shape == (30, 28, 28)


def test_corrupt_cache_file_is_moved_aside_and_replaced_from_mirror(tiny_mnist, isolated):
    cache = isolated / "data" / "raw" / "mnist"
    cache.mkdir(parents=True)
    bad = cache / "train-labels-idx1-ubyte.gz"
    corrupt = gzip.compress(b"not the labels", mtime=0)  # fixed header: byte-comparable below
    bad.write_bytes(corrupt)
    ds = load_dataset("mnist")  # the intact mirror copy is used instead
    assert ds.source.verified
    assert (cache / "train-labels-idx1-ubyte.gz.corrupt").read_bytes() == corrupt
    assert hashlib.sha256(gzip.open(bad).read()).hexdigest() == tiny_mnist["sha256"]["train-labels-idx1-ubyte"]


def test_only_corrupt_copies_raise_with_file_and_both_checksums(tiny_mnist, isolated):
    mirror_file = isolated / "mirror" / "mnist" / "t10k-images-idx3-ubyte.gz"
    mirror_file.write_bytes(gzip.compress(b"garbage"))
    actual = hashlib.sha256(b"garbage").hexdigest()
    with pytest.raises(DatasetCorruptError) as e:
        load_dataset("mnist")
    msg = str(e.value)
    assert str(mirror_file) in msg and actual in msg and tiny_mnist["sha256"]["t10k-images-idx3-ubyte"] in msg
    assert e.value.corrupt_files[0].actual == actual
    assert isinstance(e.value, DatasetUnavailableError)  # papers degrade gracefully on it
    # a mirror is not ours: reported, left in place, never used; nothing corrupt entered the cache
    assert mirror_file.is_file()
    assert not (isolated / "data" / "raw" / "mnist" / "t10k-images-idx3-ubyte.gz").exists()


def test_corrupt_cache_without_other_copy_is_moved_aside_and_raises(tiny_mnist, isolated):
    load_dataset("mnist")
    cache = isolated / "data" / "raw" / "mnist"
    (cache / "mnist.npz").unlink()
    for f in (isolated / "mirror" / "mnist").iterdir():
        f.unlink()
    target = cache / "train-images-idx3-ubyte.gz"
    target.write_bytes(gzip.compress(b"tampered"))
    with pytest.raises(DatasetCorruptError) as e:
        load_dataset("mnist")
    assert str(target) in str(e.value) and "moved aside" in str(e.value)
    assert (cache / "train-images-idx3-ubyte.gz.corrupt").is_file() and not target.exists()


def test_tampered_decoded_cache_is_rebuilt(tiny_mnist, isolated):
    load_dataset("mnist")
    npz = isolated / "data" / "raw" / "mnist" / "mnist.npz"
    np.savez(npz, train_x=np.zeros((1, 28, 28), np.uint8), train_y=np.zeros(1, np.int64), test_x=np.zeros((1, 28, 28), np.uint8), test_y=np.zeros(1, np.int64))
    ds = load_dataset("mnist")
    assert ds.train_x.shape == (30, 28, 28)
    assert (npz.parent / "mnist.npz.corrupt").is_file()


def test_missing_dataset_lists_every_place_and_how_to_provide(isolated):
    with pytest.raises(DatasetUnavailableError) as e:
        load_dataset("mnist")
    msg = str(e.value)
    assert str(isolated / "data" / "raw" / "mnist") in msg
    assert str(isolated / "mirror" / "mnist") in msg
    assert "/usr/share/datasets/mnist" in msg
    assert "network unreachable" in msg and "REPRO_DATA_MIRROR" in msg and "repro data fetch mnist" in msg
    assert e.value.reason == "download failed: offline"


def test_download_path_verifies_before_use(isolated, monkeypatch):
    """A download that delivers the right content is verified, cached and used."""
    from repro.data import download as dl

    made = tiny_idx_dataset(isolated / "server")
    spec = registry.DATASETS["mnist"]
    files = {f: ("sha256", made["sha256"][f]) for f in IDX_FILES}
    monkeypatch.setitem(registry.DATASETS, "mnist", registry.DatasetSpec(**{**spec.__dict__, "files": files, "system_dirs": (), "urls": ("https://example.invalid/",)}))

    def fake_download(url, dest, progress=True):
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((isolated / "server" / url.rsplit("/", 1)[-1]).read_bytes())
        return dest

    monkeypatch.setattr(dl, "download_file", fake_download)
    ds = load_dataset("mnist")
    assert ds.source.where == "download" and ds.train_x.shape == (30, 28, 28)


def test_offline_download_error_is_clear(monkeypatch, tmp_path):
    from repro.data import download as dl
    from repro.data.errors import DownloadError

    from .conftest import REAL_DOWNLOAD

    monkeypatch.setenv("REPRO_OFFLINE", "1")  # the real downloader short-circuits: no network touched
    with pytest.raises(DownloadError, match="REPRO_OFFLINE") as e:
        REAL_DOWNLOAD("https://example.invalid/x.gz", tmp_path / "x.gz")
    assert e.value.offline and not (tmp_path / "x.gz").exists()


# --- CIFAR-10 ----------------------------------------------------------------------------------

@pytest.fixture
def cifar_spec(monkeypatch):
    def use(md5):
        spec = registry.DATASETS["cifar10"]
        monkeypatch.setitem(registry.DATASETS, "cifar10", registry.DatasetSpec(
            **{**spec.__dict__, "files": {"cifar-10-python.tar.gz": ("md5", md5)}, "system_dirs": ()}))
    return use


def test_cifar10_archive_reader(isolated, cifar_spec):
    made = tiny_cifar_archive(isolated / "mirror" / "cifar10" / "cifar-10-python.tar.gz")
    cifar_spec(made["md5"])
    ds = load_dataset("cifar10")
    assert ds.train_x.shape == (20, 32, 32, 3) and ds.test_x.shape == (4, 32, 32, 3)
    data, labels = made["batches"]["data_batch_2"]
    # official layout: 1024 R, 1024 G, 1024 B per row, each 32x32 row-major
    np.testing.assert_array_equal(ds.train_x[4, :, :, 1], data[0, 1024:2048].reshape(32, 32))
    assert ds.train_y[4:8].tolist() == labels
    assert ds.source.checksums == {"cifar-10-python.tar.gz": f"md5:{made['md5']}"}


def test_cifar10_checksum_checked_before_unpickling(isolated, cifar_spec, monkeypatch):
    archive = isolated / "mirror" / "cifar10" / "cifar-10-python.tar.gz"
    tiny_cifar_archive(archive)
    cifar_spec("0" * 32)
    calls = []
    monkeypatch.setattr(readers, "read_cifar10_archive", lambda path: calls.append(path))
    monkeypatch.setattr(readers, "_load_cifar_batch", lambda raw, name: calls.append(name))
    with pytest.raises(DatasetCorruptError) as e:
        load_dataset("cifar10")
    assert "0" * 32 in str(e.value) and str(archive) in str(e.value)
    assert calls == []


def test_cifar10_reader_refuses_arbitrary_pickles(tmp_path):
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    archive = tmp_path / "cifar-10-python.tar.gz"
    tiny_cifar_archive(archive, evil=pickle.dumps({b"data": Evil(), b"labels": []}, protocol=2))
    with pytest.raises(readers.FormatError, match=r"refusing to load (__builtin__|builtins)\.print"):
        readers.read_cifar10_archive(archive)


def test_cifar10_missing_offline_says_so(isolated):
    with pytest.raises(DatasetUnavailableError) as e:
        load_dataset("cifar10")
    assert e.value.reason == "download failed: offline"
    assert "cifar-10-python.tar.gz" in str(e.value) and "REPRO_DATA_MIRROR" in str(e.value)


# --- FEMNIST -------------------------------------------------------------------------------------

def test_femnist_leaf_json(isolated, monkeypatch):
    rng = np.random.default_rng(0)
    root = isolated / "leaf"
    x1, x2 = rng.random((3, 784)), rng.random((2, 784))
    leaf_json(root / "train" / "all_data_0_train.json", {"f0001": (x1, [1, 2, 3]), "f0002": (x2, [4, 5])})
    leaf_json(root / "test" / "all_data_0_test.json", {"f0002": (x2[:1], [4]), "f0003": (x1[:1], [9])})
    monkeypatch.setenv("REPRO_FEMNIST_DIR", str(root))
    ds = load_dataset("femnist")
    assert ds.train_x.shape == (5, 28, 28) and ds.train_y.tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(ds.train_x[0], np.rint(x1[0] * 255).astype(np.uint8).reshape(28, 28))
    assert ds.clients == ("f0001", "f0002", "f0003")
    assert ds.train_client.tolist() == [0, 0, 0, 1, 1] and ds.test_client.tolist() == [1, 2]
    assert not ds.source.verified and ds.source.where == "user"
    assert load_dataset("femnist").source.where == "cache"


def test_femnist_bad_json_names_file(isolated, monkeypatch):
    root = isolated / "leaf"
    (root / "train").mkdir(parents=True)
    (root / "train" / "a.json").write_text(json.dumps({"users": ["u"], "user_data": {"u": {"x": [[0.0] * 5], "y": [1]}}}))
    monkeypatch.setenv("REPRO_FEMNIST_DIR", str(root))
    with pytest.raises(DatasetUnavailableError, match=r"a\.json.*\[n, 784\]") as e:  # runs degrade on it
        load_dataset("femnist")
    assert e.value.reason == "unreadable user data"


def test_femnist_emnist_idx_is_transposed(isolated, monkeypatch):
    root = isolated / "emnist"
    root.mkdir()
    img = np.arange(28 * 28, dtype=np.uint8).reshape(1, 28, 28)
    for split in ("train", "test"):
        (root / f"emnist-byclass-{split}-images-idx3-ubyte.gz").write_bytes(gzip.compress(idx_bytes(img)))
        (root / f"emnist-byclass-{split}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(idx_bytes(np.array([40]))))
    monkeypatch.setenv("REPRO_FEMNIST_PATH", str(root))
    ds = load_dataset("femnist")
    np.testing.assert_array_equal(ds.train_x[0], img[0].T)
    assert ds.train_y.tolist() == [40]


def test_femnist_missing_lists_places_and_never_downloads(isolated, monkeypatch):
    monkeypatch.setenv("REPRO_FEMNIST_DIR", str(isolated / "nowhere"))
    with pytest.raises(DatasetUnavailableError) as e:
        load_dataset("femnist")
    msg = str(e.value)
    assert str(isolated / "nowhere") in msg and str(isolated / "mirror" / "femnist") in msg
    assert "never downloads" in msg and "REPRO_FEMNIST_DIR" in msg


def test_unknown_dataset_name():
    with pytest.raises(ValueError, match="unknown dataset 'svhn'; known: mnist, fashion_mnist, cifar10, femnist"):
        load_dataset("svhn")
