"""Downloads with a progress bar, a short connection timeout and a clear offline message."""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from repro.results import publish_mode  # mkstemp files are 0600: published with 0666 & ~umask

DEFAULT_TIMEOUT_S = 10.0


def downloads_disabled() -> bool:
    """True if ``$REPRO_OFFLINE`` is set to a true value (skip the network entirely)."""
    return os.environ.get("REPRO_OFFLINE", "").lower() in {"1", "true", "yes", "on"}


def timeout_s() -> float:
    return float(os.environ.get("REPRO_DOWNLOAD_TIMEOUT", DEFAULT_TIMEOUT_S))


def download_file(url: str, dest: Path, progress: bool = True) -> Path:
    """Download ``url`` to ``dest`` atomically (temporary file, then rename), showing progress on stderr.

    Raises :class:`~repro.data.errors.DownloadError` (``offline=True`` when the host cannot be
    reached) instead of a bare urllib traceback.
    """
    from repro.data.errors import DownloadError

    if downloads_disabled():
        raise DownloadError("downloads disabled by REPRO_OFFLINE", offline=True)
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    os.close(fd)
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "repro-data/1.0"})
        with urllib.request.urlopen(req, timeout=timeout_s()) as resp, open(tmp, "wb") as out:
            total = int(resp.headers.get("Content-Length") or 0) or None
            bar = _progress_bar(total, dest.name) if progress else None
            got = 0
            while chunk := resp.read(1 << 16):
                out.write(chunk)
                got += len(chunk)
                if bar is not None:
                    bar.update(len(chunk))
            if bar is not None:
                bar.close()
        if total is not None and got != total:
            cause = f"truncated transfer ({got} of {total} bytes)"
            raise DownloadError(f"{url}: {cause}", url=url, cause=cause)
        publish_mode(tmp)
        os.replace(tmp, dest)
        return dest
    except urllib.error.HTTPError as e:
        cause = f"HTTP {e.code} {e.reason}"
        raise DownloadError(f"{url}: {cause}", url=url, cause=cause) from None
    except http.client.HTTPException as e:  # the connection broke mid-transfer (IncompleteRead, a bad status line)
        cause = f"broken transfer ({type(e).__name__}: {e})"
        raise DownloadError(f"{url}: {cause}", url=url, cause=cause) from None
    except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError, OSError) as e:
        reason = getattr(e, "reason", e)
        cause = f"network unreachable ({reason})"
        raise DownloadError(f"{url}: {cause}", offline=True, url=url, cause=cause) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _progress_bar(total, name):
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, unit="B", unit_scale=True, desc=f"download {name}", file=sys.stderr, leave=False)


def copy_atomic(src: Path, dest: Path) -> Path:
    """Copy ``src`` to ``dest`` through a temporary file in ``dest``'s folder."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        publish_mode(tmp)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest


def probe(url: str) -> str | None:
    """None if ``url`` answers (HEAD request, short timeout); else a short reason ("offline", "HTTP 404")."""
    if downloads_disabled():
        return "offline (REPRO_OFFLINE set)"
    try:
        req = urllib.request.Request(url, method="HEAD", headers={"User-Agent": "repro-data/1.0"})
        with urllib.request.urlopen(req, timeout=min(timeout_s(), 5.0)):
            return None
    except urllib.error.HTTPError as e:
        return f"HTTP {e.code}"
    except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError, OSError):
        return "offline"
