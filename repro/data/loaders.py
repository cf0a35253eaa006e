"""``load_dataset``: find, verify, decode and cache a dataset.

The first load verifies the source files (see :mod:`repro.data.sources`), decodes them and writes
``data/raw/<name>/<name>.npz`` plus ``<name>.json`` (the source checksums and the npz's own
SHA-256). Later loads read the npz after checking its SHA-256 (well under 0.5 s for MNIST).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from repro.data import readers
from repro.data.arrays import DatasetArrays, DatasetSource
from repro.data.errors import DatasetUnavailableError
from repro.data.integrity import checked_digest, file_digest, move_aside
from repro.data.registry import IDX_FILES, get_spec
from repro.data.sources import raw_dir, resolve, unavailable_error

DECODED_VERSION = 1
ARRAY_KEYS = ("train_x", "train_y", "test_x", "test_y")


def load_dataset(name: str, download: bool = True, progress: bool = True) -> DatasetArrays:
    """Load dataset ``name`` ("mnist", "fashion_mnist", "cifar10", "femnist") as numpy arrays.

    Raises :class:`DatasetUnavailableError` listing every place searched and how to provide the
    data, or :class:`DatasetCorruptError` (a subclass) when only corrupt copies were found.

    Example::

        >>> ds = load_dataset("mnist")                       # doctest: +SKIP
        >>> ds.train_x.shape, ds.train_y.dtype, ds.source.verified
        ((60000, 28, 28), dtype('int64'), True)
    """
    spec = get_spec(name)
    if spec.kind == "user":
        from repro.data.femnist import load_femnist

        return load_femnist()
    cached = _load_decoded(spec)
    if cached is not None:
        return cached
    res = resolve(spec, download=download, progress=progress)
    if len(res.files) != len(spec.files):
        raise unavailable_error(spec, res)
    try:
        if spec.kind == "idx":
            arrays = _decode_idx(res.files)
        else:
            arrays = readers.read_cifar10_archive(res.files["cifar-10-python.tar.gz"])
    except (readers.FormatError, OSError, EOFError) as e:  # verified files that still do not decode
        raise DatasetUnavailableError(f"{spec.name}: verified source files could not be decoded: {e}", reason="bad format") from None
    _check_arrays(spec.name, arrays)
    checksums = {f: f"{a}:{h}" for f, (a, h) in spec.files.items()}
    where = _first_kind(res.origin)
    _save_decoded(spec, arrays, checksums, res.origin)
    src = DatasetSource(spec.name, where, str(raw_dir(spec.name)) if where == "download" else _origin_dir(res.origin), True, checksums,
                        dict(res.origin), content_id=content_id(checksums))
    return DatasetArrays(spec.name, *(arrays[k] for k in ARRAY_KEYS), source=src)


def content_id(checksums: dict) -> str:
    """Id of a verified dataset's content: a digest of its files' reference checksums."""
    from repro.data.integrity import bytes_digest

    return "checksums:" + bytes_digest(json.dumps(checksums, sort_keys=True).encode())[:16]


def _decode_idx(files: dict) -> dict:
    x = {f: readers.read_idx(p) for f, p in files.items()}
    a, b, c, d = IDX_FILES
    return {"train_x": x[a], "train_y": x[b].astype(np.int64), "test_x": x[c], "test_y": x[d].astype(np.int64)}


def _check_arrays(name: str, arrays: dict) -> None:
    for split in ("train", "test"):
        xs, ys = arrays[f"{split}_x"], arrays[f"{split}_y"]
        if xs.dtype != np.uint8 or xs.shape[0] != ys.shape[0]:
            raise DatasetUnavailableError(f"{name}: decoded {split} images {xs.shape} {xs.dtype} do not match labels {ys.shape}", reason="bad format")


def _first_kind(origin: dict) -> str:
    kinds = [o.split(":", 1)[0] for o in origin.values()]
    for k in ("download", "system", "mirror", "cache"):
        if k in kinds:
            return k
    return "cache"


def _origin_dir(origin: dict) -> str:
    dirs = sorted({str(Path(o.split(": ", 1)[1]).parent) for o in origin.values()})
    return dirs[0] if len(dirs) == 1 else "; ".join(dirs)


def _decoded_paths(name: str) -> tuple[Path, Path]:
    d = raw_dir(name)
    return d / f"{name}.npz", d / f"{name}.json"


def _save_decoded(spec, arrays: dict, checksums: dict, origin: dict) -> None:
    from repro.results import atomic_path, write_json

    npz, meta = _decoded_paths(spec.name)
    with atomic_path(npz, suffix=".npz") as tmp:  # np.savez appends ".npz" unless the name ends so
        np.savez(tmp, **arrays)
    write_json(meta, {"version": DECODED_VERSION, "dataset": spec.name, "source_checksums": checksums,
                      "npz_sha256": file_digest(npz), "origin": origin})


def decoded_cache_intact(spec) -> bool:
    """True if the decoded cache of ``spec`` exists, matches the reference checksums and its own SHA-256."""
    npz, meta = _decoded_paths(spec.name)
    if not (npz.is_file() and meta.is_file()):
        return False
    try:
        m = json.loads(meta.read_text())
    except (OSError, ValueError):
        return False
    checksums = {f: f"{a}:{h}" for f, (a, h) in spec.files.items()}
    return (isinstance(m, dict) and m.get("version") == DECODED_VERSION and m.get("source_checksums") == checksums
            and checked_digest(npz) == m.get("npz_sha256"))


def _load_decoded(spec) -> DatasetArrays | None:
    npz, meta = _decoded_paths(spec.name)
    if not (npz.is_file() and meta.is_file()):
        return None
    try:
        m = json.loads(meta.read_text())
        if not isinstance(m, dict):
            return None
    except (OSError, ValueError):
        return None
    checksums = {f: f"{a}:{h}" for f, (a, h) in spec.files.items()}
    if m.get("version") != DECODED_VERSION or m.get("source_checksums") != checksums:
        return None  # reference checksums changed: rebuild from the verified raw files
    if checked_digest(npz) != m.get("npz_sha256"):
        move_aside(npz)  # the decoded cache was altered; rebuilt from the raw files below
        return None
    with np.load(npz, allow_pickle=False) as z:
        arrays = {k: z[k] for k in ARRAY_KEYS}
    origin = m.get("origin", {})
    src = DatasetSource(spec.name, "cache", str(npz.parent), True, checksums, origin, note="decoded cache; source files verified on first load",
                        content_id=content_id(checksums))
    return DatasetArrays(spec.name, *(arrays[k] for k in ARRAY_KEYS), source=src)
