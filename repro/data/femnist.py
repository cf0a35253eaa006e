"""FEMNIST / EMNIST from a user-given path (never downloaded by this project).

``$REPRO_FEMNIST_DIR`` (or ``$REPRO_FEMNIST_PATH``; else ``<mirror>/femnist``, ``<mirror>/emnist``)
points at either

* LEAF / FedProx JSON: ``train/*.json`` and ``test/*.json`` (or ``*.json`` directly in the folder,
  then everything is training data), each ``{"users": [...], "num_samples": [...],
  "user_data": {u: {"x": [[784 floats in [0, 1]]], "y": [...]}}}``; writers are kept as clients; or
* EMNIST ``byclass`` IDX files (``emnist-byclass-{train,test}-{images-idx3,labels-idx1}-ubyte[.gz]``,
  62 classes: digits 0-9, uppercase 10-35, lowercase 36-61). EMNIST images are stored transposed
  relative to MNIST; they are transposed back here.

User-provided data has no reference checksum, so ``source.verified`` is False. The decoded arrays are
cached in ``data/raw/femnist/`` keyed by the files' names, sizes and modification times.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from repro.data import readers
from repro.data.arrays import DatasetArrays, DatasetSource
from repro.data.errors import DatasetUnavailableError
from repro.data.integrity import checked_digest, file_digest, move_aside
from repro.data.sources import mirror_roots, raw_dir

ENV_VARS = ("REPRO_FEMNIST_DIR", "REPRO_FEMNIST_PATH")
EMNIST_PREFIX = "emnist-byclass"


def candidate_dirs() -> list[tuple[str, Path]]:
    out = []
    for var in ENV_VARS:
        if os.environ.get(var):
            out.append((f"${var}", Path(os.environ[var]).expanduser()))
    for root in mirror_roots():
        out += [("mirror", root / "femnist"), ("mirror", root / "emnist")]
    return out


def _emnist_files(d: Path, split: str) -> tuple[Path, Path] | None:
    found = []
    for kind in ("images-idx3", "labels-idx1"):
        base = d / f"{EMNIST_PREFIX}-{split}-{kind}-ubyte"
        hit = next((p for p in (base.with_name(base.name + ".gz"), base) if p.is_file()), None)
        if hit is None:
            return None
        found.append(hit)
    return found[0], found[1]


def _leaf_files(d: Path) -> tuple[list[Path], list[Path]] | None:
    train, test = sorted((d / "train").glob("*.json")), sorted((d / "test").glob("*.json"))
    if train:
        return train, test
    flat = sorted(d.glob("*.json"))
    return (flat, []) if flat else None


def _cache_key(files: list[Path]) -> str:
    h = hashlib.sha256()
    for p in files:
        st = p.stat()
        h.update(f"{p.resolve()}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def find_user_files(searched: list | None = None, denied: list | None = None):
    """``(folder, files, format, read)`` of the first user location holding a known format, else None
    (``searched`` collects a line per place looked at; ``denied`` the folders this user may not read,
    skipped: never a PermissionError)."""
    searched = [] if searched is None else searched
    for label, d in candidate_dirs():
        try:
            if not d.is_dir():
                searched.append(f"{label}: {d} (no such folder)")
                continue
            os.scandir(d).close()
            em_train, em_test = _emnist_files(d, "train"), _emnist_files(d, "test")
            if em_train and em_test:
                return d, [*em_train, *em_test], "emnist-byclass IDX", lambda: _read_emnist(em_train, em_test)
            leaf = _leaf_files(d)
        except PermissionError:
            searched.append(f"{label}: {d} (permission denied)")
            if denied is not None:
                denied.append(str(d))
            continue
        if leaf:
            return d, [*leaf[0], *leaf[1]], "LEAF JSON", lambda: _read_leaf(*leaf)
        searched.append(f"{label}: {d} (neither LEAF JSON nor {EMNIST_PREFIX} IDX files)")
    return None


def user_content_id(files: list[Path]) -> str:
    return f"user-files:{_cache_key(files)}"


def load_femnist() -> DatasetArrays:
    """Load FEMNIST/EMNIST from the first user location holding a known format (see module doc)."""
    searched: list = []
    denied: list = []
    found = find_user_files(searched, denied)
    if found is not None:
        return _cached(*found)
    if not any(os.environ.get(v) for v in ENV_VARS):
        searched.insert(0, f"${ENV_VARS[0]} / ${ENV_VARS[1]}: not set")
    msg = "\n".join(
        ["dataset 'femnist' (FEMNIST/EMNIST) is not available; this project never downloads it.", "Searched:"]
        + [f"  - {s}" for s in searched]
        + [
            "How to provide it:",
            "  * LEAF FEMNIST (https://github.com/TalwalkarLab/leaf, data/femnist: ./preprocess.sh): set "
            "REPRO_FEMNIST_DIR to the folder holding train/*.json and test/*.json;",
            "  * or EMNIST byclass (https://www.nist.gov/itl/products-and-services/emnist-dataset, gzip IDX files "
            f"{EMNIST_PREFIX}-train-images-idx3-ubyte.gz etc.): set REPRO_FEMNIST_DIR to their folder;",
            "  * or put either under <mirror>/femnist/ with REPRO_DATA_MIRROR=<mirror>.",
        ]
        + ([f"  * give this user read access to {denied[0]} (its owner: `chmod -R u+rX`)"] if denied else [])
    )
    if denied:
        from repro.data.sources import denied_reason

        raise DatasetUnavailableError(msg, reason=denied_reason(denied))
    raise DatasetUnavailableError(msg, reason="not provided: set REPRO_FEMNIST_DIR")


def _read_emnist(train, test) -> dict:
    def pair(imgs, labels):
        x = readers.read_idx(imgs)
        if x.ndim != 3 or x.shape[1:] != (28, 28):
            raise readers.FormatError(f"{imgs}: expected [N, 28, 28] images, got {x.shape}")
        return np.ascontiguousarray(x.transpose(0, 2, 1)), readers.read_idx(labels).astype(np.int64)

    tx, ty = pair(*train)
    vx, vy = pair(*test)
    return {"train_x": tx, "train_y": ty, "test_x": vx, "test_y": vy}


def _read_leaf(train_files, test_files) -> dict:
    tx, ty, tc, users = readers.read_leaf_json(train_files)
    vx, vy, vc, vusers = readers.read_leaf_json(test_files)
    # align test writers to the training writer indices (new writers appended)
    index = {u: i for i, u in enumerate(users)}
    for u in vusers:
        index.setdefault(u, len(index))
    remap = np.array([index[u] for u in vusers], dtype=np.int64)
    vc = remap[vc] if len(vc) else vc
    return {"train_x": tx, "train_y": ty, "test_x": vx, "test_y": vy, "train_client": tc, "test_client": vc,
            "clients": np.array(list(index), dtype=str)}


def _cached(d: Path, files: list[Path], fmt: str, read) -> DatasetArrays:
    """Decoded arrays of the user files ``files``: from ``data/raw/femnist/femnist-<key>.npz`` when its
    SHA-256 matches the one recorded beside it, else read (and cache) afresh. A damaged cache entry is
    moved aside and rebuilt; unreadable user files raise :class:`DatasetUnavailableError`."""
    from repro.results import atomic_path, write_json

    key = _cache_key(files)
    npz = raw_dir("femnist") / f"femnist-{key}.npz"
    meta = npz.with_suffix(".json")
    arrays = _load_cached(npz, meta)
    where = "cache"
    if arrays is None:
        try:
            arrays = read()
        except (ValueError, KeyError, TypeError, OSError) as e:  # readers.FormatError is a ValueError
            raise DatasetUnavailableError(f"dataset 'femnist': the user files in {d} cannot be read: {e}",
                                          reason="unreadable user data") from None
        with atomic_path(npz, suffix=".npz") as tmp:
            np.savez(tmp, **arrays)
        write_json(meta, {"dataset": "femnist", "format": fmt, "source": str(d), "files": [str(p) for p in files],
                          "npz_sha256": file_digest(npz)})
        where = "user"
    src = DatasetSource("femnist", where, str(d), False, {}, {"format": fmt, "folder": str(d)},
                        note=f"user-provided {fmt}; no reference checksum", content_id=user_content_id(files))
    clients = tuple(arrays["clients"].tolist()) if "clients" in arrays else ()
    return DatasetArrays("femnist", arrays["train_x"], arrays["train_y"], arrays["test_x"], arrays["test_y"], src,
                         arrays.get("train_client"), arrays.get("test_client"), clients)


def _load_cached(npz: Path, meta: Path) -> dict | None:
    if not npz.is_file():
        return None
    try:
        recorded = json.loads(meta.read_text()).get("npz_sha256")
    except (OSError, ValueError, AttributeError):
        recorded = None
    if recorded is None or checked_digest(npz) != recorded:
        move_aside(npz)
        return None
    with np.load(npz, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}
