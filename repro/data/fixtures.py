"""Tiny datasets in the official formats, and a loopback HTTP server: for offline tests of the data paths.

The files are what the real sources ship, only small: MNIST-style gzip IDX files, the CIFAR-10 python archive
(``cifar-10-python.tar.gz`` with Python-2-style pickled batches under ``cifar-10-batches-py/``), LEAF FEMNIST JSON
(``train/*.json``, ``test/*.json``, pixels in [0, 1] on a white background) and EMNIST byclass IDX
(``emnist-byclass-{train,test}-{images-idx3,labels-idx1}-ubyte.gz``, images stored transposed, ink light on black).
Pixels are seeded noise: these fixtures exercise readers, checksums, downloads and the workflow, not learning.

Example::

    >>> made = cifar10_archive(tmp / "srv" / "cifar-10-python.tar.gz", n=50)          # doctest: +SKIP
    >>> with serve_folder(tmp / "srv") as url:                                       # doctest: +SKIP
    ...     os.environ.update(REPRO_CIFAR10_URL=url, REPRO_CIFAR10_MD5=made["md5"])
    ...     load_dataset("cifar10")  # downloads from 127.0.0.1 and verifies the accepted checksum
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import http.server
import io
import json
import pickle
import struct
import tarfile
import threading
from pathlib import Path

import numpy as np

from repro.data.registry import IDX_FILES

#: EMNIST byclass labels of lowercase a..j (digits 0-9, uppercase 10-35, lowercase 36-61)
LOWER_A_TO_J = tuple(range(36, 46))


def idx_bytes(arr: np.ndarray) -> bytes:
    """An uint8 array as an IDX file (magic 0x08 = unsigned byte, big-endian dimensions)."""
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    return struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape) + arr.tobytes()


def tiny_idx_dataset(folder: Path, n_train=30, n_test=10, seed=0, gz=True) -> dict:
    """The four MNIST IDX files (gzip unless ``gz`` is False) in ``folder``: ``{"sha256": {file: sha256 of the
    decompressed content}, "arrays": {file: array}}``."""
    rng = np.random.default_rng(seed)
    arrays = {
        IDX_FILES[0]: rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        IDX_FILES[1]: (np.arange(n_train) % 10).astype(np.uint8),
        IDX_FILES[2]: rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        IDX_FILES[3]: (np.arange(n_test) % 10).astype(np.uint8),
    }
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    sums = {}
    for name, arr in arrays.items():
        raw = idx_bytes(arr)
        sums[name] = hashlib.sha256(raw).hexdigest()
        (folder / (f"{name}.gz" if gz else name)).write_bytes(gzip.compress(raw, mtime=0) if gz else raw)
    return {"sha256": sums, "arrays": arrays}


def cifar_batch(n: int, seed: int) -> tuple[bytes, np.ndarray, list]:
    """One CIFAR-10 batch pickled as the official (Python 2) files are: bytes keys, ``data`` uint8 [n, 3072]."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
    labels = [int(i % 10) for i in range(n)]  # every class in every batch
    payload = {b"batch_label": b"tiny", b"labels": labels, b"data": data, b"filenames": [b"x.png"] * n}
    return pickle.dumps(payload, protocol=2), data, labels


def cifar10_archive(path: Path, n: int = 4, evil: bytes | None = None, n_test: int | None = None) -> dict:
    """``cifar-10-python.tar.gz`` at ``path``: five training batches of ``n`` images and a test batch of ``n_test``
    (default ``n``) under the official member names. ``evil`` replaces ``data_batch_1``'s bytes (a hostile pickle).
    Returns ``{"md5", "sha256", "batches": {name: (data, labels)}}``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    out = {}
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
        for i, name in enumerate(names):
            raw, data, labels = cifar_batch(n if name != "test_batch" or n_test is None else n_test, i)
            if evil is not None and name == "data_batch_1":
                raw = evil
            out[name] = (data, labels)
            _add(tar, f"cifar-10-batches-py/{name}", raw)
        _add(tar, "cifar-10-batches-py/batches.meta", pickle.dumps({b"label_names": [b"airplane"] * 10}, protocol=2))
    path.write_bytes(buf.getvalue())
    body = path.read_bytes()
    return {"md5": hashlib.md5(body).hexdigest(), "sha256": hashlib.sha256(body).hexdigest(), "batches": out}


def _add(tar: tarfile.TarFile, name: str, raw: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(raw)
    tar.addfile(info, io.BytesIO(raw))


def leaf_json(path: Path, users: dict) -> None:
    """One LEAF JSON file; ``users`` maps writer -> (x [n, 784] floats in [0, 1], y [n])."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"users": list(users), "num_samples": [len(v[1]) for v in users.values()],
           "user_data": {u: {"x": np.asarray(x, float).tolist(), "y": list(map(int, y))}
                         for u, (x, y) in users.items()}}
    path.write_text(json.dumps(doc))


def leaf_femnist(folder: Path, per_letter_train: int, per_letter_test: int, writers: int = 4, seed: int = 0) -> dict:
    """LEAF FEMNIST (``train/all_data_0.json``, ``test/all_data_0.json``) holding lowercase a-j only, split over
    ``writers`` writers; pixels on a white background (1.0), as LEAF stores them. Returns per-split label counts."""
    rng = np.random.default_rng(seed)
    counts = {}
    for split, per in (("train", per_letter_train), ("test", per_letter_test)):
        y = np.repeat(np.array(LOWER_A_TO_J), per)
        x = 1.0 - 0.8 * (rng.random((len(y), 784)) < 0.15)  # white page, dark strokes
        users = {f"f{w:04d}_{w:02d}": (x[w::writers], y[w::writers]) for w in range(writers)}
        leaf_json(Path(folder) / split / "all_data_0.json", users)
        counts[split] = len(y)
    return counts


def emnist_byclass(folder: Path, per_letter_train: int, per_letter_test: int, seed: int = 0, extra_classes=(3, 20)) -> dict:
    """EMNIST byclass gzip IDX files in ``folder``: lowercase a-j (``per_letter_*`` images each) plus a few images of
    ``extra_classes`` (a digit and an uppercase letter, which FEMNIST readers must leave out); images stored
    transposed (as EMNIST does), ink light on black. Returns ``{split: (images as stored, labels)}``."""
    rng = np.random.default_rng(seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for split, per in (("train", per_letter_train), ("test", per_letter_test)):
        y = np.concatenate([np.repeat(np.array(LOWER_A_TO_J), per), np.array(extra_classes * 2)]).astype(np.uint8)
        x = (255 * (rng.random((len(y), 28, 28)) < 0.15)).astype(np.uint8)
        for kind, arr in (("images-idx3", x), ("labels-idx1", y)):
            (folder / f"emnist-byclass-{split}-{kind}-ubyte.gz").write_bytes(gzip.compress(idx_bytes(arr), mtime=0))
        out[split] = (x, y)
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request lines on stderr
        pass


@contextlib.contextmanager
def serve_handler(handler):
    """Serve HTTP requests with ``handler`` on 127.0.0.1 at a free port (port 0) in a background thread; yields the
    base URL (no trailing ``/``). The server stops when the block ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextlib.contextmanager
def serve_folder(folder: Path):
    """Serve ``folder`` over HTTP on 127.0.0.1 at a free port; yields the base URL (ending in ``/``)."""
    with serve_handler(functools.partial(_QuietHandler, directory=str(folder))) as url:
        yield url + "/"
