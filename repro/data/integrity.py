"""Checksums and moving bad files aside.

A file that cannot even be read to the end (a gzip stream with a flipped byte or a truncated tail, an
I/O error) has no checksum: :func:`file_digest` raises :class:`UnreadableFile`, and the callers treat
it exactly like a checksum mismatch (the copy is never used; in the project cache it is moved aside).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import zlib
from pathlib import Path

CHUNK = 1 << 20

#: what reading a damaged gzip file can raise: BadGzipFile (an OSError: bad header, CRC or length
#: check failed), EOFError (truncated stream), zlib.error (corrupt deflate data)
DECOMPRESSION_ERRORS = (OSError, EOFError, zlib.error)


class UnreadableFile(ValueError):
    """A file could not be read (or decompressed) to its end; ``str(err)`` says why."""


def file_digest(path: str | os.PathLike, algorithm: str = "sha256", decompress: bool = False) -> str:
    """Hex digest of a file's bytes, or of its decompressed bytes when ``decompress`` (gzip).

    Raises :class:`UnreadableFile` when the file (or its gzip stream) cannot be read to the end.
    """
    h = hashlib.new(algorithm)
    opener = gzip.open if decompress else open
    try:
        with opener(path, "rb") as f:
            while chunk := f.read(CHUNK):
                h.update(chunk)
    except DECOMPRESSION_ERRORS as e:
        what = "gzip stream" if decompress else "file"
        raise UnreadableFile(f"unreadable {what} ({type(e).__name__}: {e or 'truncated'})") from None
    return h.hexdigest()


def checked_digest(path: str | os.PathLike, algorithm: str = "sha256", decompress: bool = False) -> str:
    """Like :func:`file_digest`, but an unreadable file gives the text ``"unreadable ..."`` instead of
    an exception: it can never equal a reference checksum, so it fails verification like a mismatch."""
    try:
        return file_digest(path, algorithm, decompress)
    except UnreadableFile as e:
        return str(e)


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
