"""The in-memory form of a dataset."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class DatasetSource:
    """Where a dataset came from and whether it was verified.

    ``where`` is ``cache``, ``mirror``, ``system``, ``download`` or ``user`` (the place the verified
    files were first obtained from; a later load from the decoded cache keeps that origin in
    ``origin`` and says ``cache`` here); ``checksums`` maps each source file to ``"algorithm:hex"``.
    ``content_id`` names the content (the same id means the same arrays): a digest of the reference
    checksums for verified datasets, of the files' names, sizes and times for user data.
    """

    name: str
    where: str
    path: str
    verified: bool
    checksums: dict = field(default_factory=dict)
    origin: dict = field(default_factory=dict)
    note: str = ""
    content_id: str = ""


@dataclass(frozen=True)
class DatasetArrays:
    """A dataset as numpy arrays.

    ``train_x``/``test_x``: uint8, ``[N, 28, 28]`` (MNIST family) or ``[N, 32, 32, 3]`` (CIFAR-10,
    channels last). ``train_y``/``test_y``: int64 class labels. For writer-partitioned data (LEAF
    FEMNIST) ``train_client``/``test_client`` give each sample's writer index into ``clients``;
    otherwise they are None.
    """

    name: str
    train_x: np.ndarray
    train_y: np.ndarray
    test_x: np.ndarray
    test_y: np.ndarray
    source: DatasetSource
    train_client: np.ndarray | None = None
    test_client: np.ndarray | None = None
    clients: tuple = ()

    @property
    def num_classes(self) -> int:
        return int(max(self.train_y.max(initial=-1), self.test_y.max(initial=-1)) + 1)

    @property
    def image_shape(self) -> tuple:
        return tuple(self.train_x.shape[1:])

    def __repr__(self) -> str:
        return (f"DatasetArrays({self.name}: train {self.train_x.shape}, test {self.test_x.shape}, "
                f"{self.num_classes} classes, from {self.source.where} {self.source.path}, verified={self.source.verified})")
