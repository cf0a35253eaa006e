"""Checksums and moving bad files aside."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

CHUNK = 1 << 20


def file_digest(path: str | os.PathLike, algorithm: str = "sha256", decompress: bool = False) -> str:
    """Hex digest of a file's bytes, or of its decompressed bytes when ``decompress`` (gzip)."""
    h = hashlib.new(algorithm)
    opener = gzip.open if decompress else open
    with opener(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def bytes_digest(data: bytes, algorithm: str = "sha256") -> str:
    return hashlib.new(algorithm, data).hexdigest()


def move_aside(path: Path) -> Path | None:
    """Rename ``path`` to ``path.corrupt`` (``.corrupt.1``, ... if taken); None if the folder is read-only."""
    target = path.with_name(path.name + ".corrupt")
    i = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt.{i}")
        i += 1
    try:
        os.replace(path, target)
    except OSError:
        return None
    return target
