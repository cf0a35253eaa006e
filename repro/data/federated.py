"""Federated datasets: a dataset plus a saved, reloadable partition over clients.

``federated_dataset(dataset, spec, seed)`` partitions once and stores the result under
``data/processed/<key>/``: ``partition.npz`` (per-client index arrays, concatenated with offsets)
and ``manifest.json`` (generator, parameters, seed, per-client sizes and label counts, checksums of
the source data, the npz's SHA-256 and its own, ``manifest_sha256``). Both are written atomically; the
manifest is written last and is the marker of a complete entry; an entry whose manifest does not parse
or whose checksums are missing or do not match is moved aside (``*.corrupt``) and recomputed. Later calls with the same arguments reload it. The key hashes the
dataset name, its source checksums, the spec and the seed, so any change gives a new entry.

Spec keys (``scheme`` is required; unknown keys are an error):

=====================  ======================================================================
``scheme``             ``iid`` | ``pathological`` | ``dirichlet`` | ``label_skew``
``num_clients``        iid, pathological, dirichlet
``classes_per_client`` pathological; label_skew (cyclic classes ``(u + j) mod C``) unless
                       ``class_sets`` is given
``balance``            pathological (default true)
``alpha``, ``min_size``, ``max_retries``  dirichlet (defaults min_size 10, max_retries 100)
``pool``               ``merged`` (default: official train + test concatenated, PFLlib) or
                       ``train`` (training set only); not for label_skew
``test_fraction``      per-client test share after partitioning the pool (default 0.25)
``train_sizes``, ``test_sizes``, ``class_sets``  label_skew: drawn from the official train and
                       test sets separately with the same class sets (ota_jammer README, "data")
``classes``            optional list of original labels to keep, relabelled 0..len-1 in that order
=====================  ======================================================================

Example::

    >>> fd = federated_dataset("mnist", {"scheme": "pathological", "num_clients": 20,
    ...                                   "classes_per_client": 2}, seed=1)      # doctest: +SKIP
    >>> x, y = fd.client_train(0)            # uint8 images, int64 labels of client 0
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from repro.data.arrays import DatasetArrays
from repro.data.integrity import checked_digest, file_digest, move_aside
from repro.data.partition import (
    DirichletPartitioner,
    IIDPartitioner,
    LabelSkewPartitioner,
    PathologicalPartitioner,
    label_counts,
    train_test_split_per_client,
)
from repro.paths import data_dir

log = logging.getLogger("repro.data")

GENERATOR = "repro.data.federated/1"
SCHEMES = ("iid", "pathological", "dirichlet", "label_skew")
ALLOWED_KEYS = {
    "iid": {"num_clients", "pool", "test_fraction", "classes"},
    "pathological": {"num_clients", "classes_per_client", "balance", "pool", "test_fraction", "classes"},
    "dirichlet": {"num_clients", "alpha", "min_size", "max_retries", "pool", "test_fraction", "classes"},
    "label_skew": {"train_sizes", "test_sizes", "class_sets", "classes_per_client", "classes"},
}
REQUIRED_KEYS = {
    "iid": {"num_clients"},
    "pathological": {"num_clients", "classes_per_client"},
    "dirichlet": {"num_clients", "alpha"},
    "label_skew": {"train_sizes", "test_sizes"},
}


def processed_dir() -> Path:
    return data_dir() / "processed"


@dataclass
class FederatedData:
    """A dataset split over clients. Indices refer to ``pool_x``/``pool_y`` (``merged`` or ``train``
    pools) or, for ``label_skew``, to the official train (``train_indices``) and test sets."""

    key: str
    path: Path
    data: DatasetArrays
    manifest: dict
    train_indices: list
    test_indices: list
    _label_map: np.ndarray | None = field(default=None, repr=False)

    @property
    def num_clients(self) -> int:
        return len(self.train_indices)

    @property
    def num_classes(self) -> int:
        return int(self.manifest["num_classes"])

    def _pools(self):
        space = self.manifest["index_space"]
        d = self.data
        if space == "merged":
            x = np.concatenate([d.train_x, d.test_x])
            y = np.concatenate([d.train_y, d.test_y])
            return (x, y), (x, y)
        if space == "train":
            return (d.train_x, d.train_y), (d.train_x, d.train_y)
        return (d.train_x, d.train_y), (d.test_x, d.test_y)

    def _take(self, pool, idx):
        x, y = pool
        y = y[idx]
        if self._label_map is not None:
            y = self._label_map[y]
        return x[idx], y

    def client_train(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Images (uint8) and labels (int64, relabelled when ``classes`` was given) of client i's training split."""
        return self._take(self._pools()[0], self.train_indices[i])

    def client_test(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        return self._take(self._pools()[1], self.test_indices[i])

    def clients(self, split: str = "train") -> list[tuple[np.ndarray, np.ndarray]]:
        """All clients' (x, y) for ``split`` ("train" or "test"), building the pools once."""
        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test'; got {split!r}")
        pools = self._pools()
        pool, idx = (pools[0], self.train_indices) if split == "train" else (pools[1], self.test_indices)
        return [self._take(pool, i) for i in idx]

    def label_counts(self, split: str = "train") -> np.ndarray:
        return np.asarray(self.manifest[f"{split}_label_counts"], dtype=np.int64)


def _validate(spec: dict) -> dict:
    if not isinstance(spec, dict) or "scheme" not in spec:
        raise ValueError(f"partitioner spec must be a dict with a 'scheme' ({', '.join(SCHEMES)}); got {spec!r}")
    scheme = spec["scheme"]
    if scheme not in SCHEMES:
        raise ValueError(f"unknown partition scheme {scheme!r}; allowed: {', '.join(SCHEMES)}")
    keys = set(spec) - {"scheme"}
    unknown = keys - ALLOWED_KEYS[scheme]
    if unknown:
        raise ValueError(f"unknown key(s) {sorted(unknown)} for scheme {scheme!r}; allowed: {sorted(ALLOWED_KEYS[scheme])}")
    missing = REQUIRED_KEYS[scheme] - keys
    if missing:
        raise ValueError(f"scheme {scheme!r} needs {sorted(missing)}")
    if scheme == "label_skew" and "class_sets" not in spec and "classes_per_client" not in spec:
        raise ValueError("scheme 'label_skew' needs 'class_sets' or 'classes_per_client'")
    if spec.get("pool", "merged") not in ("merged", "train"):
        raise ValueError(f"pool must be 'merged' or 'train'; got {spec['pool']!r}")
    return json.loads(json.dumps(spec))  # plain JSON values (lists, not tuples): stable hashing


def _key(dataset: str, spec: dict, seed: int, checksums: dict) -> str:
    from repro.experiment import canonical_json

    digest = hashlib.sha256(canonical_json({"g": GENERATOR, "d": dataset, "s": spec, "seed": seed, "c": checksums}).encode()).hexdigest()
    return f"{dataset}-{spec['scheme']}-{digest[:12]}"


def _pack(parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.cumsum([0] + [len(p) for p in parts]).astype(np.int64)
    flat = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    return flat, offsets


def _unpack(flat: np.ndarray, offsets: np.ndarray) -> list[np.ndarray]:
    return [flat[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]


def make_partition(data: DatasetArrays, spec: dict, seed: int) -> tuple[list, list, str, int, np.ndarray | None]:
    """Compute (train_indices, test_indices, index_space, num_classes, label_map) for ``spec``."""
    spec = _validate(spec)
    part_ss, split_ss = np.random.SeedSequence([int(seed), 0x706172]).spawn(2)
    scheme = spec["scheme"]
    label_map = None
    classes = spec.get("classes")
    if classes is not None:
        label_map = np.full(int(max(data.train_y.max(), data.test_y.max(), max(classes))) + 1, -1, dtype=np.int64)
        label_map[np.asarray(classes, dtype=np.int64)] = np.arange(len(classes))
    num_classes = len(classes) if classes is not None else data.num_classes

    def relabel(y):
        return label_map[y] if label_map is not None else y

    if scheme == "label_skew":
        sets = spec.get("class_sets")
        k = spec.get("classes_per_client")
        def partitioner(sizes, ss):
            if sets is not None:
                return LabelSkewPartitioner(tuple(sizes), tuple(map(tuple, sets)), ss)
            return LabelSkewPartitioner.cyclic(sizes, k, num_classes, ss)
        if len(spec["train_sizes"]) != len(spec["test_sizes"]):
            raise ValueError(f"train_sizes ({len(spec['train_sizes'])}) and test_sizes ({len(spec['test_sizes'])}) must name the same clients")
        train = partitioner(spec["train_sizes"], part_ss).split(relabel(data.train_y))
        test = partitioner(spec["test_sizes"], split_ss).split(relabel(data.test_y))
        return train, test, "official", num_classes, label_map

    pool = spec.get("pool", "merged")
    y = np.concatenate([data.train_y, data.test_y]) if pool == "merged" else data.train_y
    y = relabel(y)
    keep = np.flatnonzero(y >= 0)
    n = spec["num_clients"]
    if scheme == "iid":
        p = IIDPartitioner(n, part_ss)
    elif scheme == "pathological":
        p = PathologicalPartitioner(n, spec["classes_per_client"], part_ss, balance=spec.get("balance", True))
    else:
        p = DirichletPartitioner(n, spec["alpha"], part_ss, min_size=spec.get("min_size", 10), max_retries=spec.get("max_retries", 100))
    parts = [keep[i] for i in p.split(y[keep])]
    train, test = train_test_split_per_client(parts, spec.get("test_fraction", 0.25), split_ss)
    return train, test, pool, num_classes, label_map


def federated_dataset(dataset: str | DatasetArrays, partitioner_spec: dict, seed: int, cache: bool = True) -> FederatedData:
    """The federated version of ``dataset`` under ``partitioner_spec`` and partition ``seed``.

    ``dataset`` is a name for :func:`repro.data.load_dataset` (which raises
    ``DatasetUnavailableError`` when it cannot be had) or already loaded arrays. Partitions are
    cached under ``data/processed/<key>/`` (see the module doc); ``cache=False`` computes afresh
    without reading or writing the cache.
    """
    from repro.data.loaders import load_dataset
    from repro.results import atomic_path, write_json

    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    seed = int(seed)
    data = load_dataset(dataset) if isinstance(dataset, str) else dataset
    spec = _validate(partitioner_spec)
    checksums = dict(data.source.checksums)
    key = _key(data.name, spec, seed, checksums)
    folder = processed_dir() / key
    npz, manifest_path = folder / "partition.npz", folder / "manifest.json"
    if cache:
        entry = _load_entry(key, folder, data)
        if entry is not None:
            return entry

    train, test, space, num_classes, label_map = make_partition(data, spec, seed)
    fd = FederatedData(key, folder, data, {"index_space": space, "num_classes": num_classes}, train, test, label_map)
    ytr = [y for _, y in _labels_only(fd, "train")]
    yte = [y for _, y in _labels_only(fd, "test")]
    manifest = {
        "generator": GENERATOR,
        "key": key,
        "dataset": data.name,
        "scheme": spec["scheme"],
        "parameters": spec,
        "seed": seed,
        "index_space": space,
        "num_clients": len(train),
        "num_classes": num_classes,
        "source": {"where": data.source.where, "path": data.source.path, "verified": data.source.verified, "checksums": checksums},
        "train_sizes": [len(i) for i in train],
        "test_sizes": [len(i) for i in test],
        "train_label_counts": [np.bincount(y, minlength=num_classes).tolist() for y in ytr],
        "test_label_counts": [np.bincount(y, minlength=num_classes).tolist() for y in yte],
    }
    fd.manifest = manifest
    if cache:
        tr, tro = _pack(train)
        te, teo = _pack(test)
        arrays = {"train_indices": tr, "train_offsets": tro, "test_indices": te, "test_offsets": teo}
        if label_map is not None:
            arrays["label_map"] = label_map
        with atomic_path(npz, suffix=".npz") as tmp:
            np.savez(tmp, **arrays)
        manifest["npz_sha256"] = file_digest(npz)
        manifest["manifest_sha256"] = _manifest_digest(manifest)
        write_json(manifest_path, manifest)  # written last: marks a complete entry
    return fd


def _manifest_digest(manifest: dict) -> str:
    """SHA-256 of the manifest's canonical JSON without its own ``manifest_sha256`` field."""
    from repro.experiment import canonical_json

    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


def _load_entry(key: str, folder: Path, data: DatasetArrays) -> FederatedData | None:
    """The cached partition under ``folder`` if it is complete and intact, else None.

    Intact: ``manifest.json`` parses, carries its own checksum (``manifest_sha256``) and the
    partition's (``npz_sha256``), both match, and it names ``key``. An entry without either checksum
    field cannot be verified and is never trusted (an edited manifest with its checksum removed would
    otherwise be used). A damaged, unverifiable or incomplete entry is moved aside (``*.corrupt``) so the
    caller recomputes and rewrites it.
    """
    npz, manifest_path = folder / "partition.npz", folder / "manifest.json"
    if not manifest_path.is_file():
        return None  # never written completely (the manifest is written last): recomputed below
    why = "damaged"
    try:
        manifest = json.loads(manifest_path.read_text())
        if not isinstance(manifest, dict):
            raise ValueError("not a mapping")
        lacking = [f for f in ("manifest_sha256", "npz_sha256") if not isinstance(manifest.get(f), str)]
        if lacking:
            why = f"unverifiable (no {' / '.join(lacking)} in the manifest)"
            ok = False
        else:
            why = "damaged (a checksum does not match, or the entry is of another key)"
            ok = (manifest.get("key") == key and manifest["manifest_sha256"] == _manifest_digest(manifest)
                  and npz.is_file() and manifest["npz_sha256"] == checked_digest(npz))
    except (OSError, ValueError):
        ok = False
    if ok:
        with np.load(npz, allow_pickle=False) as z:
            train, test = _unpack(z["train_indices"], z["train_offsets"]), _unpack(z["test_indices"], z["test_offsets"])
            label_map = z["label_map"] if "label_map" in z.files else None
        return FederatedData(key, folder, data, manifest, train, test, label_map)
    for p in (manifest_path, npz):
        if p.exists():
            moved = move_aside(p)
            log.warning("partition cache %s: %s, %s; recomputing", p, why, f"moved to {moved}" if moved else "left in place")
    return None


def _labels_only(fd: FederatedData, split: str):
    d = fd.data
    space = fd.manifest["index_space"]
    if space == "merged":
        y = np.concatenate([d.train_y, d.test_y])
        ys = (y, y)
    elif space == "train":
        ys = (d.train_y, d.train_y)
    else:
        ys = (d.train_y, d.test_y)
    y = ys[0] if split == "train" else ys[1]
    idx = fd.train_indices if split == "train" else fd.test_indices
    for i in idx:
        yy = y[i]
        yield i, (fd._label_map[yy] if fd._label_map is not None else yy)


__all__ = ["FederatedData", "federated_dataset", "make_partition", "label_counts", "SCHEMES"]
