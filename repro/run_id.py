"""The run id: ``<task>-<hash>`` of (paper, task, params, seed) in canonical JSON (a module of its own, so that the
result files can check a stored id without importing the experiment layer)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def run_id_of(paper: str, task: str, params: Any, seed: int) -> str:
    """The run id of one computation.

    >>> run_id_of("toy", "train", {"lr": 0.1}, 0)
    'train-100e46814a'
    """
    digest = hashlib.sha1(canonical_json([paper, task, params, seed]).encode()).hexdigest()
    return f"{task}-{digest[:10]}"
