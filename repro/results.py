"""Tidy result tables and atomic writes.

Every plotted number is saved as a tidy CSV with the columns in :data:`TIDY_COLUMNS`; claims and
tests read those CSVs, never the pictures. Every file is written to a temporary name in the same
directory and renamed, so an interrupted run never leaves a half-written result behind. The renamed
file gets the mode a plain ``open()`` would have given it (``0666`` less the umask), not the ``0600``
of the temporary file, so shared result folders and served reports stay readable.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is built (the data layer writes JSON only)
    import pandas as pd

TIDY_COLUMNS = ["figure", "panel", "series", "x", "metric", "value", "seed", "run_id"]


def current_umask() -> int:
    """The process's umask (read from /proc where possible, so no other thread sees it change)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def publish_mode(path: str | os.PathLike) -> None:
    """Give a temporary file (``mkstemp``: mode 0600) the mode ``0666 & ~umask`` before it is renamed."""
    os.chmod(path, 0o666 & ~current_umask())


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None, make_parents: bool = True):
    """Yield a temporary path beside ``path``; rename it onto ``path`` if the block succeeds.

    The file appears complete or not at all (also on a full disk or when the process is killed, at
    worst a hidden ``.<name>.*.tmp`` file is left); its mode follows the umask. ``make_parents=False``
    refuses a missing parent folder instead of creating it.
    """
    path = Path(path)
    if make_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.parent.is_dir():
        raise FileNotFoundError(f"folder {path.parent} does not exist (create it first)")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix or path.suffix + ".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        publish_mode(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _to_jsonable(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _to_jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return float(obj)  # NaN and +-inf as JSON's NaN / Infinity / -Infinity: read back as the floats they were
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if hasattr(obj, "tolist"):  # torch tensors
        return _to_jsonable(obj.tolist())
    return obj


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """``obj`` as JSON; a non-finite float is written as ``NaN`` / ``Infinity`` / ``-Infinity`` (the extension of
    Python's :mod:`json`), so that :func:`read_json` gives back the NaN or infinity it was (a diverged training's
    loss stays one: repro.divergence). Files written before kept NaN as ``null`` and infinities as ``"inf"`` /
    ``"-inf"``; they read as they always did."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(_to_jsonable(obj), indent=1, sort_keys=False, allow_nan=True) + "\n")


def read_json(path: str | os.PathLike) -> Any:
    """The JSON at ``path``; ``NaN`` / ``Infinity`` / ``-Infinity`` (:func:`write_json`) become float NaN / inf."""
    return json.loads(Path(path).read_text())


def same_as_stored(stored: Any, value: Any) -> bool:
    """Whether ``stored`` (read back from a JSON file, in this format or the earlier one: NaN as ``null``,
    infinities as ``"inf"`` / ``"-inf"``) is ``value`` as :func:`write_json` stores it (NaN equals NaN here)."""
    return _canonical(stored) == _canonical(json.loads(json.dumps(_to_jsonable(value), default=str)))


def _canonical(obj: Any) -> str:
    def plain(o):
        if isinstance(o, Mapping):
            return {str(k): plain(v) for k, v in o.items()}
        if isinstance(o, list):
            return [plain(v) for v in o]
        if isinstance(o, float) and math.isnan(o):
            return None
        return o

    return json.dumps(plain(_revive_infinities(obj)), sort_keys=True, default=str)


def read_json_or_none(path: str | os.PathLike) -> Any:
    """``read_json``, or None where the file is missing, unreadable or not JSON (a damaged or half-written record)."""
    try:
        return read_json(path)
    except (OSError, ValueError):
        return None


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def tidy_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Build a tidy frame; missing optional columns (panel, seed, run_id) are filled."""
    import pandas as pd

    df = pd.DataFrame(list(rows))
    for col in TIDY_COLUMNS:
        if col not in df.columns:
            df[col] = "" if col in ("panel", "run_id") else (np.nan if col != "seed" else -1)
    extra = [c for c in df.columns if c not in TIDY_COLUMNS]
    if extra:
        raise ValueError(f"tidy rows have unknown columns {extra}; allowed: {TIDY_COLUMNS}")
    return df[TIDY_COLUMNS]


def write_csv(path: str | os.PathLike, df: pd.DataFrame) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)


def read_tidy_csv(path: str | os.PathLike) -> pd.DataFrame:
    import pandas as pd

    df = pd.read_csv(path, keep_default_na=True)
    missing = [c for c in TIDY_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not a tidy result CSV, missing columns {missing}")
    return df


def save_figure(fig, base: str | os.PathLike, formats: tuple[str, ...] = ("pdf", "png")) -> list[Path]:
    """Save a matplotlib figure atomically as ``base.pdf`` and ``base.png``."""
    base = Path(base)
    out = []
    for fmt in formats:
        target = base.with_suffix(f".{fmt}")
        with atomic_path(target, suffix=f".tmp.{fmt}") as tmp:
            fig.savefig(tmp, format=fmt, dpi=130 if fmt == "png" else None, bbox_inches="tight",
                        metadata={"CreationDate": None} if fmt == "pdf" else None)
        out.append(target)
    return out


# ---- run results: intact or absent, computed once at a time -----------------------------------------

def read_run_result(path: str | os.PathLike, log=None, run_id: str | None = None) -> dict | None:
    """The run result JSON at ``path`` (a dict with ``spec`` and ``result``), or None if there is none.

    A file that is there but damaged (truncated, not JSON, not a run result) or, when ``run_id`` is given,
    foreign (its spec is not run ``run_id``: another run's file copied over it, or a spec edited so that its
    recorded run id no longer hashes it) is moved aside to ``<name>.corrupt`` and reported through ``log``, so it counts as missing and
    is computed again. :func:`last_refusal` says why the last file was refused.
    """
    path = Path(path)
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text())
        if isinstance(doc, dict) and "result" in doc and "spec" in doc:
            why = None if run_id is None else _foreign(doc["spec"], run_id)
            if why is None:
                return doc
        else:
            why = "not a run result (no 'spec' / 'result')"
    except (OSError, ValueError) as e:
        why = f"unreadable ({type(e).__name__}: {e})"
    from repro.data.integrity import move_aside

    moved = move_aside(path)
    msg = f"{path}: {why}; moved aside to {moved}" if moved else f"{path}: {why}"
    _REFUSED[str(path)] = msg
    if log is not None:
        log(msg)
    return None


_REFUSED: dict[str, str] = {}


def last_refusal(path: str | os.PathLike) -> str | None:
    """Why :func:`read_run_result` last refused the file at ``path`` in this process (None: never)."""
    return _REFUSED.get(str(Path(path)))


def _foreign(spec, run_id: str) -> str | None:
    """None when ``spec`` is the run ``run_id`` (its recorded id is the file's and hashes its content), else why not."""
    from repro.run_id import run_id_of

    try:
        recorded = spec["run_id"]
        # files written before stored infinite parameters as "inf" / "-inf": hash them as the floats they were
        ids = {run_id_of(spec["paper"], spec["task"], p, spec["seed"])
               for p in (spec["params"], _revive_infinities(spec["params"]))}
    except (KeyError, TypeError) as e:
        return f"not a run result (its spec lacks {e})"
    if recorded != run_id:
        return (f"foreign: it holds the result of run {recorded!r}, not of run {run_id!r} that its name says "
                f"(another run's file copied over it?)")
    if recorded not in ids:
        actual = sorted(ids)[0]
        return f"foreign: its spec was edited (it hashes to run {actual!r}, not to the {recorded!r} it records)"
    return None


def _revive_infinities(obj):
    """The infinities of files written before (``"inf"`` / ``"-inf"`` strings) back to floats."""
    if isinstance(obj, Mapping):
        return {k: _revive_infinities(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_revive_infinities(v) for v in obj]
    if obj in ("inf", "-inf"):
        return float(obj)
    return obj


class RunLock:
    """State of :func:`run_lock`: ``waited`` is True when another process held the lock first."""

    def __init__(self) -> None:
        self.waited = False


@contextmanager
def run_lock(path: str | os.PathLike, log=None):
    """Hold an exclusive lock for computing ``path`` (the lock file ``.<name>.lock`` beside it).

    A second process asking for the same path waits until the first is done (``log`` says for whom);
    the lock is released when the block ends or the process dies (even by SIGKILL: it is an flock).
    Where the platform has no ``fcntl`` the block runs unlocked.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = RunLock()
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield state
        return
    fd = os.open(path.parent / f".{path.name}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            if log is not None:
                log(f"another process (pid {holder}) is computing {path.name}; waiting for it")
            state.waited = True
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield state
    finally:
        os.close(fd)
