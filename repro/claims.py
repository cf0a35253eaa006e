"""Paper claims and their evaluation.

Three kinds (see DESIGN.md):

``analytic``      exact values from formulas; must pass.
``robust``        orderings and trends the guides assert; must pass.
``paper_number``  a paper percentage or gap that depends on unstated settings; reported as paper
                  value vs regenerated value with a status, never failing the tests.

Status is ``pass``, ``fail`` or ``not_evaluated`` (with the reason). A claim that cannot be evaluated
is never reported as passed. Build claims with the helpers below so every check can fail.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

CLAIM_KINDS = ("analytic", "robust", "paper_number")
CLAIM_STATUSES = ("pass", "fail", "not_evaluated")


@dataclass
class Claim:
    id: str
    paper: str
    figure: str
    statement: str
    kind: str
    status: str
    value: Any = None
    expected: Any = None
    tolerance: Any = None
    reason: str = ""

    def __post_init__(self):
        if self.kind not in CLAIM_KINDS:
            raise ValueError(f"claim {self.id}: kind {self.kind!r} not in {CLAIM_KINDS}")
        if self.status not in CLAIM_STATUSES:
            raise ValueError(f"claim {self.id}: status {self.status!r} not in {CLAIM_STATUSES}")

    def to_dict(self) -> dict:
        return asdict(self)


def _finite(x) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def close_to(id, paper, figure, statement, value, expected, rel=None, abs_=None, kind="analytic", reason="") -> Claim:
    """Pass when ``|value - expected| <= max(abs_, rel*|expected|)``."""
    if not _finite(value):
        return not_evaluated(id, paper, figure, statement, kind, reason or f"value is {value!r}", expected=expected)
    tol = max(abs_ or 0.0, (rel or 0.0) * abs(float(expected)))
    ok = abs(float(value) - float(expected)) <= tol
    tol_txt = {"rel": rel, "abs": abs_}
    return Claim(id, paper, figure, statement, kind, "pass" if ok else "fail", float(value), expected, tol_txt, reason)


def holds(id, paper, figure, statement, condition: bool, value=None, expected=None, kind="robust", reason="", tolerance=None) -> Claim:
    """Pass when ``condition`` is true; ``value``/``expected`` document what was compared."""
    return Claim(id, paper, figure, statement, kind, "pass" if bool(condition) else "fail", value, expected, tolerance, reason)


def paper_number(id, paper, figure, statement, value, expected, rel=None, abs_=None, same_sign=False, reason="") -> Claim:
    """A fragile paper number: pass if within tolerance (or, with ``same_sign``, if of the paper's sign)."""
    if not _finite(value):
        return not_evaluated(id, paper, figure, statement, "paper_number", reason or f"value is {value!r}", expected=expected)
    if same_sign:
        ok = (float(value) > 0) == (float(expected) > 0)
        tol = "same sign"
    else:
        tol_abs = max(abs_ or 0.0, (rel or 0.0) * abs(float(expected)))
        ok = abs(float(value) - float(expected)) <= tol_abs
        tol = {"rel": rel, "abs": abs_}
    return Claim(id, paper, figure, statement, "paper_number", "pass" if ok else "fail", float(value), expected, tol, reason)


def not_evaluated(id, paper, figure, statement, kind, reason, expected=None) -> Claim:
    return Claim(id, paper, figure, statement, kind, "not_evaluated", None, expected, None, reason)


def blocking_failures(claims: list[dict]) -> list[dict]:
    """Failed analytic / robust claims (the ones that fail the tests and ``repro claims``)."""
    return [c for c in claims if c["status"] == "fail" and c["kind"] in ("analytic", "robust")]
