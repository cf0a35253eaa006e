"""Readers for the official on-disk formats: IDX (MNIST family), CIFAR-10 python batches, LEAF JSON.

None of them trusts its input: IDX headers are checked against the file length, CIFAR-10 pickles
are read with an unpickler that can build nothing but numpy arrays, plain containers and numbers.
"""

from __future__ import annotations

import gzip
import io
import json
import pickle
import struct
import tarfile
from pathlib import Path

import numpy as np

IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


class FormatError(ValueError):
    """A file does not follow the format it claims."""


def read_idx_bytes(data: bytes, name: str = "<bytes>") -> np.ndarray:
    """Decode one IDX file (already decompressed) into an array of its stored dtype and shape."""
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise FormatError(f"{name}: not an IDX file (bad magic {data[:4]!r})")
    code, ndim = data[2], data[3]
    if code not in IDX_DTYPES:
        raise FormatError(f"{name}: unknown IDX element type 0x{code:02x}")
    header = 4 + 4 * ndim
    dims = struct.unpack(f">{ndim}I", data[4:header])
    dtype = np.dtype(IDX_DTYPES[code])
    expected = header + int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    if len(data) != expected:
        raise FormatError(f"{name}: IDX header promises {expected} bytes for shape {dims}, file has {len(data)}")
    arr = np.frombuffer(data, dtype=dtype, offset=header).reshape(dims)
    return arr.astype(dtype.newbyteorder("="), copy=True)


def read_idx(path: str | Path) -> np.ndarray:
    """Read an IDX file, gzip-compressed (``.gz``) or not."""
    from repro.data.integrity import DECOMPRESSION_ERRORS

    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except DECOMPRESSION_ERRORS as e:
        raise FormatError(f"{path}: cannot be read to its end ({type(e).__name__}: {e or 'truncated'})") from None
    return read_idx_bytes(data, path.name)


# --- CIFAR-10 -------------------------------------------------------------------------------------

CIFAR10_TRAIN_BATCHES = tuple(f"data_batch_{i}" for i in range(1, 6))
CIFAR10_TEST_BATCH = "test_batch"


class _ArrayOnlyUnpickler(pickle.Unpickler):
    """Unpickler that can only rebuild numpy arrays (and builtins that need no class lookup)."""

    ALLOWED = {
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "scalar"),
        ("_codecs", "encode"),
    }

    def find_class(self, module, name):
        if (module, name) in self.ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a dataset file")


def _load_cifar_batch(raw: bytes, name: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        d = _ArrayOnlyUnpickler(io.BytesIO(raw), encoding="bytes").load()
    except Exception as e:
        raise FormatError(f"{name}: not a CIFAR-10 python batch ({e})") from None
    if not isinstance(d, dict) or b"data" not in d or b"labels" not in d:
        raise FormatError(f"{name}: CIFAR-10 batch lacks 'data'/'labels'")
    data = np.asarray(d[b"data"], dtype=np.uint8)
    labels = np.asarray(d[b"labels"], dtype=np.int64)
    if data.ndim != 2 or data.shape[1] != 3072 or data.shape[0] != labels.shape[0]:
        raise FormatError(f"{name}: unexpected shapes data {data.shape}, labels {labels.shape}")
    # rows are 1024 red, 1024 green, 1024 blue values of a 32x32 image, row-major -> [N, 32, 32, 3]
    images = data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).copy()
    return images, labels


def read_cifar10_archive(path: str | Path) -> dict[str, np.ndarray]:
    """Read the official ``cifar-10-python.tar.gz``; returns train_x/train_y/test_x/test_y.

    Call only after the archive's checksum has been verified.
    """
    path = Path(path)
    wanted = {*CIFAR10_TRAIN_BATCHES, CIFAR10_TEST_BATCH}
    found: dict[str, tuple] = {}
    with tarfile.open(path, "r:gz") as tar:
        for member in tar:
            base = member.name.rsplit("/", 1)[-1]
            if member.isfile() and base in wanted:
                found[base] = _load_cifar_batch(tar.extractfile(member).read(), f"{path.name}:{member.name}")
    missing = sorted(wanted - found.keys())
    if missing:
        raise FormatError(f"{path.name}: archive lacks {', '.join(missing)}")
    train = [found[b] for b in CIFAR10_TRAIN_BATCHES]
    return {
        "train_x": np.concatenate([t[0] for t in train]),
        "train_y": np.concatenate([t[1] for t in train]),
        "test_x": found[CIFAR10_TEST_BATCH][0],
        "test_y": found[CIFAR10_TEST_BATCH][1],
    }


# --- LEAF / FedProx JSON ------------------------------------------------------------------------

def read_leaf_json(paths) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Read LEAF/FedProx JSON files ``{"users": [...], "num_samples": [...], "user_data": {u: {"x", "y"}}}``.

    Returns ``(x uint8 [N, 28, 28], y int64 [N], client int64 [N], users)`` where ``x`` is the stored
    float pixel in [0, 1] times 255, rounded (LEAF stores 784 floats per image, row-major), and
    ``client`` indexes ``users`` (writers, in the order first seen across the files).
    """
    xs, ys, cs, users = [], [], [], []
    index: dict[str, int] = {}
    for p in sorted(Path(p) for p in paths):
        try:
            doc = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise FormatError(f"{p}: not a readable JSON file ({e})") from None
        if not isinstance(doc, dict) or "users" not in doc or "user_data" not in doc:
            raise FormatError(f"{p}: not LEAF JSON (needs keys 'users', 'num_samples', 'user_data')")
        for u in doc["users"]:
            ud = doc["user_data"].get(u)
            if ud is None:
                raise FormatError(f"{p}: user {u!r} listed in 'users' has no 'user_data'")
            x = np.asarray(ud["x"], dtype=np.float64)
            y = np.asarray(ud["y"], dtype=np.int64)
            if x.ndim != 2 or x.shape[1] != 784 or x.shape[0] != y.shape[0]:
                raise FormatError(f"{p}: user {u!r} has x of shape {x.shape} and y of shape {y.shape}; expected [n, 784] and [n]")
            if u not in index:
                index[u] = len(users)
                users.append(u)
            xs.append(np.clip(np.rint(x * 255.0), 0, 255).astype(np.uint8).reshape(-1, 28, 28))
            ys.append(y)
            cs.append(np.full(y.shape[0], index[u], dtype=np.int64))
    if not xs:
        return np.zeros((0, 28, 28), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64), users
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(cs), users
