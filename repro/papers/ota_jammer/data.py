"""Data of the ota_jammer experiments: the paper's 50-client FEMNIST split (or its MNIST surrogate)
and the FedProx synthetic-IID set (this paper's README, data).

FEMNIST split: client u holds classes (u + j) mod 10, j = 0..4, with the paper's per-client
train/test sizes (16,421 / 1,924 in all), drawn without replacement per class. With real EMNIST/FEMNIST
(a user path, ``repro.data.load_dataset("femnist")``) the classes are lowercase a-j; otherwise MNIST
digits 0-9 stand in (labelled as a surrogate in every figure). The split is fixed across trials.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repro.papers.ota_jammer.theory import FEMNIST_TEST_SIZES, FEMNIST_TRAIN_SIZES

#: EMNIST byclass labels of lowercase a..j (digits 0-9, uppercase 10-35, lowercase 36-61).
EMNIST_LOWER_A_TO_J = tuple(range(36, 46))
SURROGATE_NOTE = "FEMNIST surrogate: MNIST digits 0-9 with the paper's FedProx-style split (50 clients, 5 classes each)"
#: the figures' per-run metric that says a run trained on the surrogate (1) or on the paper's FEMNIST (0)
SURROGATE_METRIC = "surrogate_data"
FEMNIST_NOTE = "FEMNIST lowercase a-j, the paper's FedProx-style split (50 clients, 5 classes each)"
#: what real FEMNIST was read from, as the figures name it (LEAF stores ink dark on white 1.0, EMNIST IDX light on black 0)
FEMNIST_FORMATS = {"LEAF JSON": "LEAF JSON, white background", "emnist-byclass IDX": "EMNIST byclass IDX, black background"}
LETTERS = "abcdefghij"


def femnist_note(fmt: str | None) -> str:
    """The dataset note of real FEMNIST read from ``fmt`` (a key of FEMNIST_FORMATS)."""
    return f"{FEMNIST_NOTE}; read from {FEMNIST_FORMATS.get(fmt, fmt or 'user files')}"


def dataset_label(note: str | None) -> str:
    """Short name of the data a run trained on, from its result's ``dataset`` note: ``FEMNIST surrogate`` (MNIST),
    ``FEMNIST (LEAF JSON, white background)`` or ``FEMNIST (EMNIST byclass IDX, black background)``."""
    if not note or note.startswith("FEMNIST surrogate"):
        return "FEMNIST surrogate"
    fmt = note.split("; read from ", 1)[1] if "; read from " in note else "user files"
    return f"FEMNIST ({fmt})"


@dataclass
class FederatedSplit:
    """Flattened float inputs in [0, 1] per client, the pooled test set, and what data it is."""

    train_x: list  # per client float32 [n_u, features]
    train_y: list  # per client int64 [n_u]
    test_x: np.ndarray  # pooled [N_test, features]
    test_y: np.ndarray
    note: str  # dataset label for titles and the claims report
    real: bool  # True for the paper's dataset, False for a surrogate


def class_sets(num_clients: int, classes_per_client: int, num_classes: int) -> list[list[int]]:
    """Client u holds classes ``(u + j) mod num_classes``, j = 0..k-1 (FedProx nist generator)."""
    if not (1 <= classes_per_client <= num_classes):
        raise ValueError(f"classes_per_client must be in 1..{num_classes}, got {classes_per_client}")
    return [[(u + j) % num_classes for j in range(classes_per_client)] for u in range(num_clients)]


def _split_indices(labels: np.ndarray, sizes, sets, seed: int) -> list[np.ndarray]:
    from repro.data.partition import LabelSkewPartitioner

    return LabelSkewPartitioner(tuple(sizes), tuple(map(tuple, sets)), seed=seed).split(labels)


def _source_arrays():
    """(train_x, train_y, test_x, test_y, note, real): EMNIST a-j if the user provided it, else MNIST."""
    from repro.data import DatasetUnavailableError, load_dataset

    try:
        ds = load_dataset("femnist")
        keep = {c: i for i, c in enumerate(EMNIST_LOWER_A_TO_J)}
        out = []
        for x, y in ((ds.train_x, ds.train_y), (ds.test_x, ds.test_y)):
            sel = np.isin(y, EMNIST_LOWER_A_TO_J)
            out += [x[sel], np.vectorize(keep.get, otypes=[np.int64])(y[sel]).astype(np.int64)]
        return (*out, femnist_note(ds.source.origin.get("format")), True)
    except DatasetUnavailableError:
        ds = load_dataset("mnist")
        return ds.train_x, ds.train_y, ds.test_x, ds.test_y, SURROGATE_NOTE, False


def train_sizes(classes_per_client: int = 5, size_scale: float = 1.0) -> list[int]:
    """Each client's training-set size in the paper's split, scaled by ``size_scale`` (at least one sample per class)."""
    return [max(classes_per_client, int(round(n * size_scale))) for n in FEMNIST_TRAIN_SIZES]


def femnist_split(seed: int = 0, num_clients: int = 50, classes_per_client: int = 5, num_classes: int = 10,
                  size_scale: float = 1.0) -> FederatedSplit:
    """The paper's split. ``size_scale < 1`` shrinks every client's training set (p_i kept up to rounding);
    the pooled test set stays the paper's 1,924 samples. Quick uses 0.5 with M = 20 transmissions: the
    calibrated alpha_u = |D| sqrt(2 S*/M) then equals the paper's (|D| = 16,421, M = 80), so the power
    control's s_i and the per-round noise are the paper's (README, "regime")."""
    if num_clients != len(FEMNIST_TRAIN_SIZES):
        raise ValueError(f"the paper's split has {len(FEMNIST_TRAIN_SIZES)} clients, got num_clients={num_clients}")
    if not (0 < size_scale <= 1):
        raise ValueError(f"size_scale must be in (0, 1], got {size_scale}")
    trx, trY, tex, teY, note, real = _source_arrays()
    sets = class_sets(num_clients, classes_per_client, num_classes)
    tr_sizes = train_sizes(classes_per_client, size_scale)
    te_sizes = list(FEMNIST_TEST_SIZES)
    if real:  # a user's FEMNIST copy too small for the split: one paragraph naming the letters, not a PartitionError
        _check_enough(trY, teY, tr_sizes, te_sizes, sets)
    tr_idx = _split_indices(trY, tr_sizes, sets, seed)
    te_idx = _split_indices(teY, te_sizes, sets, seed + 1)
    flat = _flat_unit  # pixels in [0, 1], flattened, no standardisation
    te_all = np.concatenate(te_idx)
    return FederatedSplit([flat(trx[i]) for i in tr_idx], [trY[i].astype(np.int64) for i in tr_idx],
                          flat(tex[te_all]), teY[te_all].astype(np.int64), note, real)


def _check_enough(train_y, test_y, tr_sizes, te_sizes, sets) -> None:
    """Raise :class:`~repro.data.DatasetUnavailableError` naming FEMNIST, each short letter and the counts when the
    user's copy holds fewer samples of a letter than the paper's split draws (train, or the fixed test set)."""
    from repro.data import DatasetUnavailableError
    from repro.data.partition import LabelSkewPartitioner

    short = []
    for split, y, sizes in (("train", train_y, tr_sizes), ("test", test_y, te_sizes)):
        demand = LabelSkewPartitioner(tuple(sizes), tuple(map(tuple, sets))).demand()
        have = np.bincount(np.asarray(y, np.int64), minlength=len(LETTERS))
        short += [f"'{LETTERS[c]}' {split} {int(have[c])} of {sum(k for _, k in demand[c])}"
                  for c in sorted(demand) if sum(k for _, k in demand[c]) > have[c]]
    if short:
        raise DatasetUnavailableError(
            "dataset 'femnist': the FEMNIST copy provided (REPRO_FEMNIST_DIR or <mirror>/femnist) is too small for "
            "the paper's split (50 clients, lowercase letters a-j; the test set is fixed at the paper's 1,924 samples, "
            f"about 190 per letter): samples of letter, split, held of needed: {'; '.join(short)}. Provide the full "
            "LEAF FEMNIST (all writers) or EMNIST byclass, or unset REPRO_FEMNIST_DIR to train on the labelled MNIST "
            "surrogate.", reason="FEMNIST copy too small: " + ", ".join(short[:3]) + (" ..." if len(short) > 3 else ""))


def _flat_unit(a: np.ndarray) -> np.ndarray:
    """Images as float32 rows in [0, 1]: uint8 pixels are divided by 255; float pixels (LEAF JSON) are kept."""
    a = a.reshape(len(a), -1)
    return a.astype(np.float32) / 255.0 if a.dtype == np.uint8 else a.astype(np.float32)


def synthetic_iid_split(num_clients: int = 50, seed: int = 0, test_fraction: float = 0.1) -> FederatedSplit:
    """FedProx Synthetic-IID: 60 features, 10 classes, lognormal(4, 2) + 50 samples per client,
    ``floor(0.9 n)`` for training; the pooled test set is the union of the client test parts."""
    from repro.data.synthetic import fedprox_synthetic

    clients = fedprox_synthetic(alpha=0.0, beta=0.0, num_clients=num_clients, sizes=None, seed=seed, iid=True)
    trx, trY, tex, teY = [], [], [], []
    for x, y in clients:
        n_tr = int(np.floor((1 - test_fraction) * len(y)))
        trx.append(np.asarray(x[:n_tr], np.float32)), trY.append(np.asarray(y[:n_tr], np.int64))
        tex.append(np.asarray(x[n_tr:], np.float32)), teY.append(np.asarray(y[n_tr:], np.int64))
    return FederatedSplit(trx, trY, np.concatenate(tex), np.concatenate(teY),
                          "synthetic i.i.d. (FedProx Synthetic-IID recipe, 50 clients)", True)

