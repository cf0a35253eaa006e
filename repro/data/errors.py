"""Errors a user can act on: each message says what is wrong and how to fix it."""

from __future__ import annotations


class DatasetError(RuntimeError):
    """Base class of the dataset errors."""


class DatasetUnavailableError(DatasetError):
    """The dataset could not be found anywhere nor downloaded.

    The message lists every place searched and how to provide the data. Runs that need a missing
    dataset catch this and return ``repro.experiment.unavailable_result(str(err))``.
    ``reason`` is a short phrase for tables (for example ``"download failed: offline"``).
    """

    def __init__(self, message: str, reason: str = "not found"):
        super().__init__(message)
        self.reason = reason


class DatasetCorruptError(DatasetUnavailableError):
    """A copy of the dataset failed its checksum and no intact copy was found.

    The message names each bad file with its expected and actual checksum; the bad files were moved
    aside (renamed ``*.corrupt``) where the folder allowed it, and are never used. It is a subclass of
    :class:`DatasetUnavailableError`, so code that degrades gracefully on a missing dataset also does
    so on a corrupt one (the message still says why).
    """

    def __init__(self, message: str, corrupt_files: list | None = None, reason: str = "corrupt copy"):
        super().__init__(message, reason=reason)
        self.corrupt_files = list(corrupt_files or [])


class DownloadError(DatasetError):
    """A download failed (network unreachable, HTTP error, truncated transfer). ``url`` is what was asked for and
    ``cause`` what went wrong, without the URL (``"HTTP 404 Not Found"``); the message holds both."""

    def __init__(self, message: str, offline: bool = False, url: str | None = None, cause: str | None = None):
        super().__init__(message)
        self.offline = offline
        self.url = url
        self.cause = cause

    def short(self) -> str:
        """``cause from url``: one download's failure for a status line."""
        return f"{self.cause} from {self.url}" if self.cause and self.url else str(self)


def unavailable_reason(name: str, err: DatasetUnavailableError) -> str:
    """The line a run records (and its panel shows) for dataset ``name`` that it could not read: names the dataset
    and says what went wrong; a checksum failure is said as such, with the files and how to accept a legitimate copy
    (``repro data status`` shows the whole message)."""
    if isinstance(err, DatasetCorruptError):
        from pathlib import Path

        files = sorted({Path(str(c.path)).name for c in err.corrupt_files}) or ["a source file"]
        return (f"dataset {name}: checksum failure ({', '.join(files)} does not match its expected checksum; never "
                f"used). A legitimate copy is accepted with REPRO_{name.upper()}_SHA256 / _MD5; see `repro data status`")
    return f"dataset {name} not available ({err.reason})"
