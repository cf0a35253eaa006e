"""Tidy result tables and atomic writes.

Every plotted number is saved as a tidy CSV with the columns in :data:`TIDY_COLUMNS`; claims and
tests read those CSVs, never the pictures. Every file is written to a temporary name in the same
directory and renamed, so an interrupted run never leaves a half-written result behind.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

TIDY_COLUMNS = ["figure", "panel", "series", "x", "metric", "value", "seed", "run_id"]


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None):
    """Yield a temporary path beside ``path``; rename it onto ``path`` if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix or path.suffix + ".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
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
        f = float(obj)
        return None if math.isnan(f) else (("inf" if f > 0 else "-inf") if math.isinf(f) else f)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if hasattr(obj, "tolist"):  # torch tensors
        return _to_jsonable(obj.tolist())
    return obj


def write_json(path: str | os.PathLike, obj: Any) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(_to_jsonable(obj), indent=1, sort_keys=False) + "\n")


def read_json(path: str | os.PathLike) -> Any:
    return json.loads(Path(path).read_text())


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def tidy_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Build a tidy frame; missing optional columns (panel, seed, run_id) are filled."""
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
