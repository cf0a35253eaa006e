"""Training runs that diverged: found in their results, said on their figures, and their claims not evaluated.

A training diverges when a loss it records is not finite (NaN, inf) or exceeds :data:`LOSS_LIMIT` (a 10-class
cross-entropy starts near 2.3; a loss a million times larger is no training any more). The results of every training
task are checked (``Task.training``: torch, ``gpu``, or numpy, ``trains``; repro.pipeline.diverged_runs): analytic
runs may legitimately hold large or undefined loss *bounds*, and so may a training's analytic values beside its
losses (keys naming a ``bound`` or ``floor``, e.g. acfl's ``floor_loss``, NaN where no fixed point exists). A loss is
every number under a key containing "loss", in nested lists too; run results keep NaN and infinities as such
(repro.results.write_json), files written before stored NaN as ``null`` (skipped: not a number) and infinities as
``"inf"``.

The figure shows a red note naming each diverged training and its worst loss; its CSV gets one row per diverged
training (``panel = metric = "diverged"``, ``value`` = the worst loss, ``series`` = where in the result it is), and a
claim judged on that figure is ``not_evaluated`` with the reason "training diverged" (repro.claims), unless the claim
leaves the diverged training out of its evidence and names it (its Evidence's ``details["diverged_handled"]``; e.g.
wpfl_minmax leaves out a PFL baseline whose training diverged).
"""

from __future__ import annotations

import math

LOSS_LIMIT = 1e6
MARKER = "diverged"  # panel and metric of the CSV rows that mark a diverged training
ANALYTIC = ("bound", "floor")  # a loss key naming one of these holds an analytic value, not a recorded loss


def _number(v) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v.strip().lower() in ("inf", "-inf", "+inf", "nan", "infinity", "-infinity"):
        return float(v)  # files written before stored infinities as text (repro.results)
    return None


def _numbers(v):
    """The numbers in ``v``: a number, or lists of them at any depth (acfl's losses are seeds x configurations x
    records)."""
    if isinstance(v, list):
        for e in v:
            yield from _numbers(e)
    else:
        x = _number(v)
        if x is not None:
            yield x


def _is_loss(key) -> bool:
    k = str(key).lower()
    return "loss" in k and not any(word in k for word in ANALYTIC)


def _bad(x: float) -> bool:
    return not math.isfinite(x) or abs(x) > LOSS_LIMIT


def diverged_losses(result, path: str = "") -> list[tuple[str, float]]:
    """``[(path, worst value)]`` of every loss in ``result`` (keys containing "loss", at any depth, but not those
    in :data:`ANALYTIC`) that is not finite or above :data:`LOSS_LIMIT`; ``path`` names where
    (``jobs/pfedme|.../series/personalized/loss``)."""
    out: list[tuple[str, float]] = []
    if isinstance(result, dict):
        for k, v in result.items():
            sub = f"{path}/{k}" if path else str(k)
            if _is_loss(k):
                bad = [x for x in _numbers(v) if _bad(x)]
                if bad:
                    out.append((sub, max(bad, key=lambda x: (math.isnan(x), abs(x)))))
                    continue
            out += diverged_losses(v, sub)
    elif isinstance(result, list):
        for i, v in enumerate(result):
            if isinstance(v, (dict, list)):
                out += diverged_losses(v, f"{path}[{i}]")
    return out


def describe(found: dict[str, list[tuple[str, float]]]) -> list[str]:
    """One line per diverged training: ``run <id>: <path> reached <value>``."""
    return [f"run {rid}: {p} reached {v:.3g}" for rid, hits in sorted(found.items()) for p, v in hits]
