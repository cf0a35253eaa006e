"""Datasets: verified sources with an offline mirror, readers, partitioners, federated datasets.

    >>> from repro.data import load_dataset                  # doctest: +SKIP
    >>> ds = load_dataset("fashion_mnist")
    >>> ds.train_x.shape, ds.test_y.shape
    ((60000, 28, 28), (10000,))

Names: "mnist", "fashion_mnist", "cifar10", "femnist" (from ``$REPRO_FEMNIST_DIR``).
Lookup order, integrity checks and errors: see :mod:`repro.data.sources`.
"""

from repro.data.arrays import DatasetArrays, DatasetSource
from repro.data.errors import DatasetCorruptError, DatasetError, DatasetUnavailableError, DownloadError
from repro.data.loaders import load_dataset
from repro.data.registry import NAMES as DATASET_NAMES

__all__ = [
    "DATASET_NAMES",
    "DatasetArrays",
    "DatasetCorruptError",
    "DatasetError",
    "DatasetSource",
    "DatasetUnavailableError",
    "DownloadError",
    "load_dataset",
]
