"""Which code computed a run result (issue 49, 'same run id, other numbers').

A run id hashes a run's parameters, not the code that computes it, so a committed result need not be what the
committed code computes. Every run result records ``code``: the package version, a hash of the sources that compute
a run of that paper (the engine, algorithms, privacy, wireless, data and models, and the paper's own modules except
its claims, figures and README, which only read results), and the git commit where there is one. A figure's ``.md``
says how many of its runs the current sources computed, and ``repro run`` says when it keeps a result computed by
other sources (``--force`` recomputes it).
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

#: modules that read results and never compute them: a change there keeps every run current
_READERS = {"claims.py", "figures.py", "cli.py", "report.py", "gallery.py", "record.py", "plotting.py", "rst.py",
            "costs.py", "reference.py", "code_version.py", "__main__.py", "gpu_check.py", "bench.py"}


def _package_root() -> Path:
    return Path(__file__).resolve().parent


@functools.cache
def sources_hash(slug: str) -> str:
    """12 hex digits over the sources that compute a run of paper ``slug`` (paths and contents, sorted)."""
    root = _package_root()
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if p.name in _READERS or "__pycache__" in rel.parts:
            continue
        if rel.parts[0] == "papers" and (len(rel.parts) < 3 or rel.parts[1] != slug):
            continue  # another paper's modules (or papers/__init__)
        h.update(str(rel).encode())
        h.update(b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


@functools.cache
def git_commit() -> str | None:
    """The checkout's commit (12 hex digits, '+dirty' with uncommitted changes), or None outside a git checkout."""
    root = _package_root().parent
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--", "repro"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")


def code_stamp(slug: str) -> dict:
    """What a run result records about the code that computed it."""
    from repro import __version__

    return {"package": __version__, "sources": sources_hash(slug), "commit": git_commit()}


def stamp_summary(slug: str, docs: list[dict]) -> str:
    """One line for a figure: how many of its result files the current sources computed.

    >>> stamp_summary("toy", [])
    ''
    """
    if not docs:
        return ""
    now = sources_hash(slug)
    same = sum(1 for d in docs if (d.get("code") or {}).get("sources") == now)
    unrecorded = sum(1 for d in docs if not (d.get("code") or {}).get("sources"))
    other = len(docs) - same - unrecorded
    from repro import __version__

    # the git commit is recorded in each result file, not here: a redraw of unchanged results changes no tracked file
    parts = [f"{same} of {len(docs)} result files computed by these sources ({now}; package {__version__})"]
    if other:
        parts.append(f"{other} by other sources (the code changed since; `repro run --force` recomputes them)")
    if unrecorded:
        parts.append(f"{unrecorded} written before results recorded their code")
    return "Code: " + "; ".join(parts) + "."
