"""Paper claims as small named checks that end in verdicts.

Every claim of a paper is one function registered on the paper's :class:`ClaimSet`. It reads the
tidy CSV tables of the paper's figures (``tables[fig_id]``, a pandas DataFrame with the columns of
:data:`repro.results.TIDY_COLUMNS`) and the profile's parameters, and returns :class:`Evidence`
built with one of three constructors:

``exact(value, expected, rtol=, atol=)``
    An analytic value (closed form, deterministic computation): ``reproduced`` when it equals the
    expected value within the stated rounding tolerance, else ``not_reproduced``.
``direction(replicates, expect="positive"|"negative", threshold=0)``
    An ordering or trend the paper states, measured as one effect per seed (a paired difference, a
    rank correlation, ...). ``reproduced`` when the 95 % interval of the effect lies entirely on the
    paper's side of ``threshold``, ``not_reproduced`` when it lies entirely on the other side (the
    paper's direction is excluded), ``inconclusive`` when it straddles. One seed is always
    inconclusive; ``deterministic=True`` (exact curves) judges the value itself.
``number(replicates, paper_value, rtol=|atol=|log10=)``
    A number the paper prints: ``reproduced`` when the interval lies inside the tolerance band
    around the paper's value, ``not_reproduced`` when it misses the band entirely, else
    ``inconclusive``. The record shows paper value, regenerated value and their ratio; a value of
    the right sign but outside the band is never ``reproduced``.

Missing data (a figure not regenerated, a CIFAR-10 panel offline) is signalled by raising
:class:`MissingData` (or using :func:`need`): the claim is ``not_evaluated`` with that reason, never
passed. Several sub-results combine with :func:`combine` (all must hold).

Each claim also declares two *counterfactuals*: functions ``(tables, params) -> (tables, params)``
that perturb the inputs so the claim must come out ``not_reproduced`` (``refute``) and
``reproduced`` (``support``). ``tests/claims/test_counterfactuals.py`` runs both for every claim of
every paper, so a check that cannot change its verdict is caught. The helpers :func:`edit`,
:func:`relabel` and :func:`drop` build such perturbations on tidy tables.

Example (a toy paper claiming that "A beats B"):

>>> import pandas as pd
>>> CLAIMS = ClaimSet("toy")
>>> def a_minus_b(tables, params):
...     t = need(tables, "fig1")
...     a = t[t.series == "A"].set_index("seed")["value"]
...     b = t[t.series == "B"].set_index("seed")["value"]
...     return direction(a - b, expect="positive")
>>> _ = CLAIMS.claim("C1", figures="fig1", paper_says="A beats B (Sec. 5)", tests="acc(A) - acc(B) per seed",
...                  refute=lambda t, p: (relabel(t, "fig1", "series", {"A": "B", "B": "A"}), p),
...                  support=lambda t, p: (edit(t, "fig1", lambda v: v + 1.0, series="A"), p))(a_minus_b)
>>> rows = [dict(figure="fig1", panel="", series=s, x=0, metric="acc", value=v, seed=k, run_id="")
...         for k, (a, b) in enumerate([(0.9, 0.8), (0.91, 0.82), (0.88, 0.80)]) for s, v in (("A", a), ("B", b))]
>>> [c.verdict for c in CLAIMS.evaluate({"fig1": pd.DataFrame(rows)}, {})]
['reproduced']
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from repro.stats import LEVEL, Interval, exact_value, mean_interval, seeds_to_decide

VERDICTS = ("reproduced", "not_reproduced", "inconclusive", "not_evaluated")
KINDS = ("exact", "direction", "number")
#: What kind of result a claim's verdict is (judging rule f, docs/judging.md). Only the first two are reproductions;
#: a claim of the other categories that holds is counted apart under its category, never as "reproduced".
CATEGORIES = {
    "empirical": "empirical reproduction: a trained or simulated result of the paper's experiment",
    "closed_form": "closed form / identity: the paper's formula or theorem evaluated exactly",
    "by_construction": "true by construction: the runs implement what the claim states (a check of the implementation)",
    "calibration_input": "calibration input or setting: a value the package solves for or sets, not a result",
    "package_check": "package re-test or self-check: not a claim the paper's experiment makes",
}
REPRODUCTION_CATEGORIES = ("empirical", "closed_form")
#: the columns the reports count, in order: the reproductions by category, what holds without being a reproduction,
#: then the other verdicts (repro.record.record_column)
RECORD_COLUMNS = ("reproduced_empirical", "reproduced_closed_form", "holds_not_counted", "not_reproduced",
                  "inconclusive", "not_evaluated")
KIND_MEANING = {
    "exact": "an analytic value, checked exactly (to rounding)",
    "direction": "an ordering or trend, judged by the 95 % interval of its effect over seeds",
    "number": "a number printed in the paper, judged by the interval against a tolerance band",
}

Counterfactual = Callable[[dict, dict], tuple[dict, dict]]


class MissingData(LookupError):
    """A table, panel or series the claim needs is absent: the claim is not evaluated."""


# ------------------------------------------------------------------------------------------ evidence


@dataclass
class Evidence:
    """What a claim function returns: the verdict and the numbers behind it."""

    verdict: str
    effect: float | None = None
    interval: Interval | None = None
    regenerated: Any = None
    paper_value: Any = None
    tolerance: str = ""
    reason: str = ""
    details: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} not in {VERDICTS}")

    def but(self, **changes) -> "Evidence":
        """A copy with some fields replaced (e.g. a reason added)."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d.update(changes)
        return Evidence(**d)


def _finite(x) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _replicates(values) -> list[float]:
    if isinstance(values, Mapping):
        values = list(values.values())
    elif hasattr(values, "to_numpy"):
        values = values.to_numpy()
    out = [float(v) for v in np.asarray(values, dtype=float).reshape(-1)]
    if not out:
        raise MissingData("no replicates to judge")
    return out


#: The named reasons a claim may be ``not_evaluated`` for (judging rule 9): the key, and the phrase every
#: such reason starts with, so the reports count them per reason.
NOT_EVALUATED_REASONS = {
    "offline": "data not available offline",
    "regime": "regime not preserved",
    "constant": "depends on an unstated constant",
    "readings": "readings disagree",  # judging rule b: a claim judged at several readings with different verdicts
    "degenerate": "degenerate comparison",
    "unreachable": "not testable in this regime",
    "not_run": "not run at this scale",
    "diverged": "training diverged",  # a training on the claim's figure: loss not finite or above 1e6 (repro.divergence)
}


def not_evaluated(reason: str, *, category: str | None = None, **details) -> Evidence:
    """A claim that cannot be judged here. ``category`` (a key of :data:`NOT_EVALUATED_REASONS`) prefixes
    the reason with its named phrase, e.g. ``not_evaluated("E = 1 vs E = 20", category="regime")`` gives
    the reason "regime not preserved: E = 1 vs E = 20"."""
    if category is not None:
        if category not in NOT_EVALUATED_REASONS:
            raise ValueError(f"not_evaluated category {category!r} not in {sorted(NOT_EVALUATED_REASONS)}")
        phrase = NOT_EVALUATED_REASONS[category]
        if not reason.startswith(phrase):
            reason = f"{phrase}: {reason}" if reason else phrase
    return Evidence("not_evaluated", reason=reason, details=details)


def not_evaluated_category(reason: str) -> str:
    """The named reason (a key of :data:`NOT_EVALUATED_REASONS`) of a ``not_evaluated`` claim's reason text,
    or ``"other"``. Reasons written before the categories existed are classified by their words: a dataset
    unavailable offline, or a figure or panel that was not regenerated in this profile."""
    text = (reason or "").strip()
    low = text.lower()
    for key, phrase in NOT_EVALUATED_REASONS.items():
        if low.startswith(phrase):
            return key
    for key, phrase in NOT_EVALUATED_REASONS.items():  # a part's reason inside a combined one
        if phrase in low:
            return key
    if "not available" in low or "offline" in low or "cifar" in low or "femnist" in low:
        return "offline"
    if "not regenerated" in low or "has no rows" in low or "not run" in low or "no replicates" in low:
        return "not_run"
    return "other"


def exact(value, expected, *, rtol: float = 0.0, atol: float = 0.0, reason: str = "", details: dict | None = None) -> Evidence:
    """An analytic value against its expected value: within ``max(atol, rtol*|expected|)`` or not."""
    if not _finite(value):
        return Evidence("not_reproduced", regenerated=value, paper_value=expected, tolerance=f"rtol {rtol:g}, atol {atol:g}",
                        reason=(reason + "; " if reason else "") + f"regenerated value is {value!r}", details=details or {})
    tol = max(float(atol), float(rtol) * abs(float(expected)))
    ok = abs(float(value) - float(expected)) <= tol
    return Evidence("reproduced" if ok else "not_reproduced", effect=float(value) - float(expected),
                    interval=exact_value(float(value)), regenerated=float(value), paper_value=expected,
                    tolerance=f"|regenerated - expected| <= {tol:.3g}", reason=reason, details=details or {})


def exact_holds(condition: bool, *, regenerated=None, expected=None, reason: str = "", details: dict | None = None) -> Evidence:
    """An analytic statement (an identity, a sign, a set of values) that holds or does not."""
    return Evidence("reproduced" if bool(condition) else "not_reproduced", regenerated=regenerated, paper_value=expected,
                    tolerance="exact", reason=reason, details=details or {})


def direction(replicates, *, expect: str = "positive", threshold: float = 0.0, deterministic: bool = False,
              level: float = LEVEL, reason: str = "", details: dict | None = None) -> Evidence:
    """The sign of an effect, from one value per seed (or one exact value when ``deterministic``).

    ``expect="positive"``: the paper says effect > threshold. ``reproduced`` iff the whole 95 %
    interval is above ``threshold``; ``not_reproduced`` iff the whole interval is at or below it;
    ``inconclusive`` otherwise. ``"negative"`` mirrors this. ``level``: the interval's confidence level
    (e.g. ``1 - 0.05/k`` for one of ``k`` parts that must all hold: Bonferroni).
    """
    if expect not in ("positive", "negative"):
        raise ValueError(f"expect must be 'positive' or 'negative', got {expect!r}")
    reps = _replicates(replicates)
    if deterministic:
        if len(set(reps)) != 1:
            raise ValueError(f"deterministic=True needs one value (or identical replicates), got {reps}")
        iv = exact_value(reps[0])
    else:
        iv = mean_interval(reps, level)
    sign = 1.0 if expect == "positive" else -1.0
    lo, hi = (iv.low - threshold) * sign, (iv.high - threshold) * sign
    if sign < 0:
        lo, hi = hi, lo
    if not _finite(iv.mean) and deterministic:
        verdict = "not_reproduced"
    elif lo > 0:
        verdict = "reproduced"
    elif hi <= 0:
        verdict = "not_reproduced"
    else:
        verdict = "inconclusive"
    op = ">" if sign > 0 else "<"
    why = reason
    if verdict == "inconclusive" and iv.n == 1 and not iv.exact:
        why = (why + "; " if why else "") + "one replicate: no interval"
    extra = {}
    if verdict == "inconclusive" and not deterministic:  # rule g: the seeds that would decide it
        extra["seeds_to_decide"] = seeds_to_decide([r - threshold for r in reps], level)
    return Evidence(verdict, effect=iv.mean, interval=iv, regenerated=iv.mean, paper_value=f"{op} {threshold:g}",
                    tolerance=f"{_pct(level)} interval {op} {threshold:g}", reason=why,
                    details={**(details or {}), **extra, "replicates": [round(r, 6) for r in reps]})


def number(replicates, paper_value: float, *, rtol: float | None = None, atol: float | None = None,
           log10: float | None = None, deterministic: bool = False, level: float = LEVEL, reason: str = "",
           details: dict | None = None) -> Evidence:
    """A regenerated number against the paper's printed value with a tolerance band.

    Band: ``paper_value +- max(atol, rtol*|paper_value|)``, or, with ``log10``, within that many
    decades of the paper's value. ``reproduced`` iff the 95 % interval (``level``) lies inside the band,
    ``not_reproduced`` iff it misses the band entirely, else ``inconclusive``.
    """
    reps = _replicates(replicates)
    iv = exact_value(reps[0]) if deterministic else mean_interval(reps, level)
    if deterministic and len(set(reps)) != 1:
        raise ValueError(f"deterministic=True needs one value (or identical replicates), got {reps}")
    p = float(paper_value)
    if log10 is not None:
        if p <= 0:
            raise ValueError(f"log10 tolerance needs a positive paper value, got {paper_value!r}")
        lo_b, hi_b = p / 10 ** log10, p * 10 ** log10
        tol_txt = f"within {log10:g} decades of {p:g}"
    else:
        if rtol is None and atol is None:
            raise ValueError("number() needs a tolerance: rtol, atol or log10")
        half = max(atol or 0.0, (rtol or 0.0) * abs(p))
        lo_b, hi_b = p - half, p + half
        tol_txt = f"[{lo_b:.4g}, {hi_b:.4g}]"
    if not _finite(iv.mean):
        verdict = "not_reproduced" if deterministic else "inconclusive"
    elif iv.within(lo_b, hi_b):
        verdict = "reproduced"
    elif not iv.overlaps(lo_b, hi_b):
        verdict = "not_reproduced"
    else:
        verdict = "inconclusive"
    why = reason
    if verdict == "inconclusive" and iv.n == 1 and not iv.exact:
        why = (why + "; " if why else "") + "one replicate: no interval"
    return Evidence(verdict, effect=iv.mean, interval=iv, regenerated=iv.mean, paper_value=p, tolerance=tol_txt,
                    reason=why, details={**(details or {}), "replicates": [round(r, 6) for r in reps]})


def printed_magnitude(replicates, paper_value: float, ceiling: float, *, rtol: float, level: float = LEVEL,
                      limited_by: str | None = None, ceiling_note: str = "", details: dict | None = None) -> Evidence:
    """Judging rule c (reachability is evidence): a printed magnitude (a gain "at least X", a cost; negative
    ``paper_value`` for a cost) against ``ceiling``, the largest magnitude the measured competitors allow in any seed.

    Within reach: judged by :func:`number` (band ``paper_value`` +- ``rtol``). Beyond reach (the band starts above the
    ceiling): every seed's value is bounded below the band, so, where the ceiling follows from the paper's own stated
    settings (``limited_by`` None), the claim is **not reproduced**, the ceiling its evidence; where it rests on a
    constant the paper does not state (``limited_by`` names it), not evaluated ("not testable in this regime"). The
    measured values are kept either way.

    >>> printed_magnitude([0.01, 0.012, 0.011], 0.5, 0.03, rtol=0.25).verdict
    'not_reproduced'
    >>> printed_magnitude([0.01, 0.012, 0.011], 0.5, 0.03, rtol=0.25, limited_by="the baseline's lr").verdict
    'not_evaluated'
    """
    reps = [round(float(v), 6) for v in np.asarray(_replicates(replicates), dtype=float)]
    lower = abs(float(paper_value)) * (1 - rtol)
    det = {**(details or {}), ("largest_reachable_gain" if paper_value > 0 else "largest_reachable_cost"): round(float(ceiling), 4)}
    if not (paper_value != 0 and math.isfinite(ceiling) and ceiling < lower):
        return number(replicates, paper_value, rtol=rtol, level=level, details=det)
    msg = (f"at most {100 * ceiling:.2f} % reachable{f' ({ceiling_note})' if ceiling_note else ''}, the paper's band "
           f"starts at {100 * lower:.2f} %")
    if limited_by:
        return not_evaluated(f"{msg}; the limit rests on {limited_by}", category="unreachable",
                             measured_per_seed=reps, **det)
    mean = float(np.mean(reps))
    return Evidence("not_reproduced", effect=mean, regenerated=mean, paper_value=float(paper_value),
                    tolerance=f"band from {100 * lower:.4g} %, ceiling {100 * ceiling:.4g} %",
                    reason=f"the paper's band is out of reach at its own settings (rule c): {msg}; measured "
                           f"{100 * mean:.2f} %", details={**det, "measured_per_seed": reps})


def sign_test(differences, *, expect: str = "positive", level: float = LEVEL, reason: str = "",
              details: dict | None = None) -> Evidence:
    """An ordering pooled over many (seed x level) pairs (judging rule 8): each pair's difference votes for the
    paper's direction or against it (exact ties are dropped and counted). The effect is the share of pairs on
    the paper's side; its Clopper-Pearson interval decides: ``reproduced`` when it lies above 1/2,
    ``not_reproduced`` when below, else ``inconclusive``. One test for the whole family, instead of one
    Bonferroni part per level that three seeds can never pass.

    >>> sign_test([0.1, 0.2, 0.05, 0.3, 0.1, 0.2, 0.4, 0.1, 0.2, 0.3]).verdict
    'reproduced'
    >>> sign_test([0.1, -0.2, 0.05, -0.3]).verdict
    'inconclusive'
    """
    if expect not in ("positive", "negative"):
        raise ValueError(f"expect must be 'positive' or 'negative', got {expect!r}")
    d = np.asarray(_replicates(differences), dtype=float)
    if not np.all(np.isfinite(d)):
        raise ValueError(f"sign_test: non-finite differences {d[~np.isfinite(d)][:5].tolist()}")
    sign = 1.0 if expect == "positive" else -1.0
    wins, losses = int(np.sum(sign * d > 0)), int(np.sum(sign * d < 0))
    n = wins + losses
    ties = int(d.size - n)
    info = {**(details or {}), "pairs": int(d.size), "on_paper_side": wins, "against": losses, "ties": ties}
    if n == 0:
        return not_evaluated("every pair is an exact tie", category="degenerate", **info)
    from scipy.special import betaincinv  # the Beta quantile, as scipy.stats.beta.ppf computes it (no scipy.stats import)

    a = 1.0 - level
    # Clopper-Pearson interval of the share of wins
    low = 0.0 if wins == 0 else float(betaincinv(wins, n - wins + 1, a / 2))
    high = 1.0 if wins == n else float(betaincinv(wins + 1, n - wins, 1 - a / 2))
    share = wins / n
    iv = Interval(share, low, high, n)
    verdict = "reproduced" if low > 0.5 else "not_reproduced" if high < 0.5 else "inconclusive"
    return Evidence(verdict, effect=share, interval=iv, regenerated=share,
                    tolerance=f"{_pct(level)} Clopper-Pearson interval of the share of {n} pairs on the paper's side "
                              f"vs 1/2 ({ties} ties dropped)", reason=reason, details=info)


def _per_seed_mean(values) -> "tuple[np.ndarray, dict]":
    """A part's values as one mean per seed over its levels (rows the seeds of a DataFrame, or a Series/mapping of one
    value per seed), and the pair counts (on the paper's side / against / exact ties) over every (seed, level)."""
    import pandas as pd

    frame = values if isinstance(values, pd.DataFrame) else pd.DataFrame({"": pd.Series(values, dtype=float)})
    frame = frame.astype(float)
    flat = frame.to_numpy().reshape(-1)
    flat = flat[~np.isnan(flat)]
    counts = {"pairs": int(flat.size), "on_paper_side": int(np.sum(flat > 0)), "against": int(np.sum(flat < 0)),
              "ties": int(np.sum(flat == 0)), "levels": int(frame.shape[1])}
    means = frame.mean(axis=1, skipna=True).dropna().to_numpy(dtype=float)
    return means, counts


def comparisons(parts: Mapping[str, Any], *, level: float = LEVEL, reason: str = "", details: dict | None = None,
                family: int | None = None) -> Evidence:
    """Judging rules a and g: an ordering the paper states over several comparisons (baselines, metrics, panels).

    Each part is ONE comparison, measured per seed at one or more levels (T0, T, eps, ...): a DataFrame with the
    seeds as rows and the levels as columns, or one value per seed, oriented so that > 0 is the paper's side. Pooling
    happens only inside a part, and with the seed as the unit of replication: each seed's mean over its levels, then the
    Student-t interval over seeds. The parts are never pooled with each other:

    * reproduced when every part's interval (``level``) lies on the paper's side (every part must hold: an
      intersection-union test, no correction needed);
    * not reproduced when some part's interval at the Bonferroni level over the k parts lies on the other side;
    * else inconclusive. A part whose every difference is an exact 0 is degenerate (reported; the others decide).

    ``family``: the number of comparisons in the whole claim when ``parts`` is one share of them (e.g. one baseline's),
    for the Bonferroni level (default: ``len(parts)``).

    >>> comparisons({"vs B": [0.2, 0.3, 0.25], "vs C": [0.1, 0.12, 0.11]}).verdict
    'reproduced'
    >>> comparisons({"vs B": [0.2, 0.3, 0.25], "vs C": [-0.1, -0.12, -0.11]}).verdict
    'not_reproduced'
    """
    judged: dict[str, Evidence] = {}
    k = max(1, family or len(parts))
    strict = bonferroni(k, level)
    for name, values in parts.items():
        means, counts = _per_seed_mean(values)
        if not means.size:
            continue
        if counts["pairs"] and counts["ties"] == counts["pairs"]:
            judged[name] = not_evaluated(f"{name}: every pair is an exact tie", category="degenerate", **counts)
            continue
        at = direction(means, expect="positive", level=level, details=counts)
        bonf = direction(means, expect="positive", level=strict)
        verdict = ("reproduced" if at.verdict == "reproduced" else
                   "not_reproduced" if bonf.verdict == "not_reproduced" else "inconclusive")
        # the interval that decides: the Bonferroni one for a comparison against the paper, the plain one otherwise
        iv = bonf.interval if (verdict == "not_reproduced" or (at.effect or 0) < 0) else at.interval
        need_n = seeds_to_decide(means, level if float(np.mean(means)) > 0 else strict)
        judged[name] = Evidence(verdict, effect=at.effect, interval=iv, regenerated=at.effect, paper_value="> 0",
                                tolerance=f"per-seed means over the levels: {_pct(level)} interval > 0 for every part; "
                                          f"{_pct(strict)} (Bonferroni over {k}) interval <= 0 for a failing part",
                                details={**counts, "seed_means": [round(float(m), 6) for m in means],
                                         "seeds_to_decide": need_n})
    if not judged:
        raise MissingData("no comparison has a seed to judge")
    decided = {n: e for n, e in judged.items() if e.verdict != "not_evaluated"}
    if not decided:
        return not_evaluated("every comparison is degenerate (exact ties)", category="degenerate",
                             parts={n: evidence_summary(e) for n, e in judged.items()})
    ev = combine(decided, reason=reason)
    parts_detail = {n: {**evidence_summary(e), **{kk: e.details.get(kk) for kk in
                                                   ("pairs", "on_paper_side", "against", "ties", "seed_means")}}
                    for n, e in judged.items()}
    degenerate = [n for n in judged if n not in decided]
    why = ev.reason + (f"; degenerate (exact ties): {', '.join(degenerate)}" if degenerate else "")
    needed = {}
    if ev.verdict == "inconclusive":
        text, n = _seed_statement(decided)
        why += "; " + text
        needed = {"seeds_needed": n} if n else {}
    return ev.but(reason=why.strip("; "), details={**(details or {}), "parts": parts_detail, **needed,
                                                    "rule": "parts judged apart, seeds the unit (judging rules a, g)"})


def trend(curves, *, expect: str = "positive", level: float = LEVEL, reason: str = "", details: dict | None = None) -> Evidence:
    """A monotone trend over a grid (judging rule g): ``curves`` has one row per replicate (a seed, or a MultiIndex whose
    first level is the seed) and the grid's levels as sorted columns. Each step from one level to the next votes +1 for
    the ``expect`` direction, -1 against, 0 for an exact tie (an argmin on a coarse grid often stays put); a step between
    two values censored at the same grid edge (+-inf) casts no vote, one against a single censored value does. The seed
    is the unit: each seed's mean vote over its steps, then the Student-t interval over seeds above 0 (reproduced),
    below 0 (not reproduced), else inconclusive. No replicate vetoes the others.

    >>> import pandas as pd
    >>> trend(pd.DataFrame([[1, 2, 3], [1, 3, 4], [2, 2, 5]], columns=[0.1, 0.5, 1.0])).verdict
    'reproduced'
    """
    import pandas as pd

    if expect not in ("positive", "negative"):
        raise ValueError(f"expect must be 'positive' or 'negative', got {expect!r}")
    if len(curves) == 0:
        raise MissingData("no curves to judge")
    sign = 1.0 if expect == "positive" else -1.0
    seeds = curves.index.get_level_values(0) if isinstance(curves.index, pd.MultiIndex) else curves.index
    votes: dict = {}
    wins = losses = ties = silent = 0
    for seed, (_, r) in zip(seeds, curves.iterrows()):
        y = r.to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):  # inf - inf: two values censored at the same edge, no vote
            d = sign * np.diff(y)
        voting = d[~np.isnan(d)]
        silent += int(np.isnan(d).sum())
        wins, losses, ties = wins + int((voting > 0).sum()), losses + int((voting < 0).sum()), ties + int((voting == 0).sum())
        votes.setdefault(seed, []).extend(np.sign(voting).tolist())
    per_seed = {k: float(np.mean(v)) for k, v in votes.items() if v}
    info = {**(details or {}), "steps_on_paper_side": wins, "steps_against": losses, "steps_tied": ties,
            "steps_without_vote_censored": silent, "mean_vote_per_seed": {str(k): round(v, 4) for k, v in per_seed.items()}}
    if not per_seed:
        if np.isinf(curves.to_numpy(dtype=float)).any():
            return not_evaluated("every step is between two values censored at the same grid edge: their order is not "
                                 "located", category="unreachable", **info)
        raise MissingData("no step between two regenerated levels")
    if wins == losses == 0:
        return not_evaluated("every step is an exact tie", category="degenerate", **info)
    ev = direction(list(per_seed.values()), expect="positive", level=level, details=info)
    return ev.but(reason="; ".join(x for x in (reason, ev.reason) if x),
                  tolerance=f"{_pct(level)} interval over seeds of each seed's mean step vote (+1 / -1 / 0) > 0")


def _seed_statement(parts: Mapping[str, Evidence]) -> tuple[str, int | None]:
    """Rule g: how many seeds would decide an inconclusive combination of parts at the measured effects and spreads
    (a part against the paper refuted at the Bonferroni level, or every part on the paper's side reproduced): the
    statement and the number (None where more seeds would not decide it). What they cost is added where the claims
    are written (``repro.costs.seed_price``, from the recorded CPU time of the claim's runs)."""
    open_ = {n: e for n, e in parts.items() if e.verdict == "inconclusive"}
    against = {n: e.details.get("seeds_to_decide") for n, e in open_.items() if (e.effect or 0) < 0}
    against = {n: v for n, v in against.items() if v}
    if against:
        n, v = min(against.items(), key=lambda kv: kv[1])
        return f"at the measured effects and spreads, {v} seeds would decide it against the paper ({n})", int(v)
    if all((e.effect or 0) > 0 for e in open_.values()):
        need = [e.details.get("seeds_to_decide") for e in open_.values()]
        if need and all(need):
            return f"at the measured effects and spreads, {max(need)} seeds would reproduce every part", int(max(need))
    return "more seeds would not decide it at the measured effects (a part with no measurable effect)", None


def bonferroni(parts: int, family: float = LEVEL) -> float:
    """Interval level for each of ``parts`` parts that must all hold, so the family keeps ``family`` coverage."""
    if parts < 1:
        raise ValueError(f"parts must be >= 1, got {parts}")
    return 1.0 - (1.0 - family) / parts


def _pct(level: float) -> str:
    return f"{100 * level:.3g}%"


def _joined_reasons(reasons: Mapping[str, str]) -> str:
    """The parts' reasons as "k: reason; ...", a named phrase (NOT_EVALUATED_REASONS) that every part starts with
    said once in front instead of once per part."""
    phrases = {next((ph for ph in NOT_EVALUATED_REASONS.values() if r.startswith(ph + ": ")), None) for r in reasons.values()}
    common = phrases.pop() if len(phrases) == 1 else None
    cut = 0 if common is None else len(common) + 2

    def named(k, r):  # a part's reason that already opens with the part's name is not named twice
        return r if r.startswith(f"{k}: ") else f"{k}: {r}"
    joined = "; ".join(named(k, r[cut:]) for k, r in reasons.items())
    return f"{common}: {joined}" if common else joined


def combine(parts: Mapping[str, Evidence], reason: str = "") -> Evidence:
    """All sub-results must hold: ``not_reproduced`` if any part is, ``reproduced`` if all evaluated
    parts are, else ``inconclusive``. Parts that are not evaluated are left out (and named); if no
    part is evaluated the claim is ``not_evaluated``. A part whose verdict depends on an unstated constant or whose
    readings disagree (``CONFLICTS``) is not merely missing: the other parts alone cannot make the whole claim
    reproduced, so that case is ``not_evaluated`` for that part's reason."""
    if not parts:
        raise MissingData("no part of the claim could be evaluated")
    done = {k: e for k, e in parts.items() if e.verdict != "not_evaluated"}
    skipped = [k for k, e in parts.items() if e.verdict == "not_evaluated"]
    detail = {k: evidence_summary(e) for k, e in parts.items()}
    if not done:
        return not_evaluated(_joined_reasons({k: parts[k].reason for k in skipped}), parts=detail)
    verdicts = {e.verdict for e in done.values()}
    if "not_reproduced" in verdicts:
        v = "not_reproduced"
    elif verdicts == {"reproduced"}:
        v = "reproduced"
    else:
        v = "inconclusive"
    blocked = [k for k in skipped if not_evaluated_category(parts[k].reason) in CONFLICTS]
    if v == "reproduced" and blocked:
        return not_evaluated("; ".join([_joined_reasons({k: parts[k].reason for k in blocked})] + [reason] * bool(reason)
                                       + [f"reproduced: {', '.join(done)}"]),
                             category=not_evaluated_category(parts[blocked[0]].reason), parts=detail)
    failing = [k for k, e in done.items() if e.verdict == v] if v != "reproduced" else []
    why = [reason] if reason else []
    if failing:
        why.append(f"{v.replace('_', ' ')}: {', '.join(failing)}")
    if skipped:
        why.append(f"not evaluated: {', '.join(skipped)}")
    # the headline effect is the part closest to failing (smallest margin), for the report
    worst = _worst_part(done, v)
    return Evidence(v, effect=worst.effect, interval=worst.interval, regenerated=worst.regenerated,
                    paper_value=worst.paper_value, tolerance="every part", reason="; ".join(why), details={"parts": detail})


def seed_count(values, paper, lo: float, hi: float, details: dict | None = None) -> Evidence:
    """A categorical number (an argmin on a grid) judged by the count of seeds inside the band [lo, hi]: all ->
    reproduced, none -> not reproduced, some -> inconclusive (a t-interval on grid points cannot decide)."""
    v = np.asarray(list(values.values()) if isinstance(values, Mapping) else values, dtype=float).reshape(-1)
    v = v[~np.isnan(v)]
    inside, n = int(((v >= lo) & (v <= hi)).sum()), int(v.size)
    if not n:
        raise MissingData("no seed to judge")
    verdict = "reproduced" if inside == n else "not_reproduced" if inside == 0 else "inconclusive"
    return Evidence(verdict, effect=float(np.median(v)), regenerated=v.tolist(), paper_value=paper,
                    tolerance=f"every seed in [{lo:.3g}, {hi:.3g}]", reason=f"{inside} of {n} seeds in the band",
                    details={**(details or {}), "seeds_in_band": inside, "seeds": n})


def grid_optimum(curves, printed: float, lo: float, hi: float, *, minimise: bool = True,
                 details: dict | None = None) -> Evidence:
    """A printed optimum (argmin or argmax) on a grid, judged from one curve per seed (judging rule d, censoring).

    ``curves``: a DataFrame, rows the seeds, columns the grid's points (NaN: the worst value). In order:

    1. The printed value is an *interior* grid point that loses to a grid neighbour in every seed: not reproduced
       (it is the optimum on no seed's curve, so nothing is censored there), whatever the seeds' own optima are.
    2. Else each seed's optimum on the grid; a seed whose optimum sits at an edge of the grid lies at or past that
       edge: outside the band when the band does not reach past the edge, else censored (the optimum may lie past the
       grid, inside the band) and left out; every seed censored: not evaluated (the optimum is not located).
    3. The uncensored seeds' optima against the band [lo, hi] (:func:`seed_count`).
    """
    grid = sorted(float(c) for c in curves.columns)
    vals = curves.reindex(columns=sorted(curves.columns, key=float)).to_numpy(dtype=float)
    worst = np.inf if minimise else -np.inf
    vals = np.where(np.isfinite(vals), vals, worst)
    sign = 1.0 if minimise else -1.0
    opt = np.array([grid[i] for i in np.argmin(sign * vals, axis=1)])
    det = {**(details or {}), "optimum_per_seed": dict(zip((int(s) for s in curves.index), opt.tolist())),
           "grid": [grid[0], grid[-1]]}
    at = [i for i, g in enumerate(grid) if math.isclose(g, printed, rel_tol=1e-9)]
    if at and 0 < at[0] < len(grid) - 1:
        i = at[0]
        beaten = [bool(min(sign * row[i - 1], sign * row[i + 1]) < sign * row[i]) for row in vals]
        det["printed_beaten_by_a_neighbour"] = sum(beaten)
        if all(beaten):
            return Evidence("not_reproduced", effect=float(np.median(opt)), regenerated=opt.tolist(), paper_value=printed,
                            tolerance=f"every seed in [{lo:.3g}, {hi:.3g}]",
                            reason=(f"the printed optimum {printed:g} is an interior grid point and a neighbour "
                                    f"({grid[i - 1]:g} or {grid[i + 1]:g}) beats it in every seed ({len(beaten)} of "
                                    f"{len(beaten)}): it is the optimum of no seed's curve (not censored: rule d)"),
                            details=det)
    low, high = np.isclose(opt, grid[0]), np.isclose(opt, grid[-1])
    # an optimum at an edge lies at or past it: outside the band when the band does not reach past that edge
    outside = (low & (lo > grid[0])) | (high & (hi < grid[-1]))
    edge = (low | high) & ~outside
    det["censored_at_grid_edge"] = int(edge.sum())
    if edge.all():
        return not_evaluated(f"the optimum is at an edge of the grid [{grid[0]:g}, {grid[-1]:g}] in every seed: not "
                             "located (censored), evidence neither way", category="unreachable", **det)
    ev = seed_count(opt[~edge], printed, lo, hi, details=det)
    return ev.but(reason=ev.reason + (f"; {int(edge.sum())} seed(s) at the grid's edge left out (censored)" if edge.any() else ""))


#: params key a counterfactual sets so that the panels run are taken as all of the paper's (the comparison is judged)
PANELS_AS_PAPER = "panels_taken_as_the_papers"


def across_unstated(ev: Evidence, held: int, total: int, what: str, **details) -> Evidence:
    """Unstated constants (rule c, judged over a grid of them): ``ev`` is the claim at the package's choice of values the
    paper does not state (``what``), and it holds at ``held`` of ``total`` points of a grid over them. Every point: ``ev``
    stands, with the count; none: not reproduced; some: depends on an unstated constant (the package's choice is a
    setting, not a result), ``ev`` kept in the details."""
    said = f"over {what} the claim holds at {held} of {total} points; at the package's choice: {ev.verdict.replace('_', ' ')}"
    if held == total:
        return ev.but(reason=_joined(ev.reason, said))
    if held == 0:
        return Evidence("not_reproduced", regenerated=f"{held}/{total}", paper_value=f"{total}/{total}",
                        tolerance="every point", reason=said, details={**ev.details, **details})
    return not_evaluated(said, category="constant", at_chosen=evidence_summary(ev), cells_holding=held, cells=total,
                         **details)


def past_the_papers_range(edge: float, papers_end: float, what: str, **details) -> Evidence:
    """Rule d for a turning point the paper reports inside its own plotted range, when every seed's curve is still
    monotone at the grid's last point ``edge``: a grid that reaches the end of the paper's range (``papers_end``) shows
    the turning point is not there, not reproduced; a shorter grid is censored (not evaluated, the point may lie
    between ``edge`` and ``papers_end``)."""
    if edge >= papers_end:
        return Evidence("not_reproduced", effect=0.0, paper_value="a turning point inside the paper's range",
                        tolerance="interior", reason=f"{what}: monotone over the paper's whole range (up to {edge:g}) in "
                        f"every seed; not censored: the grid's edge is the paper's (judging rule d)", details=details)
    return not_evaluated(f"{what}: still monotone at the grid's last point {edge:g} in every seed (the paper's range "
                         f"runs to {papers_end:g}): the turning point, if any, lies past the grid (censored)",
                         category="unreachable", **details)


def on_every_panel(ev: Evidence, run_panels, paper_panels, params: Mapping, what: str = "the paper's percentage") -> Evidence:
    """Rule a for a printed summary number that does not name its panels (a percentage that may be the mean over the
    figure's datasets): a verdict only where every panel of the paper's figure was measured; on part of them it neither
    reproduces nor refutes it ("not run at this scale", the measured verdict kept in the details). A claim that names
    its panels, or says "at least" (every panel must reach it), is judged part by part instead."""
    if ev.verdict not in ("reproduced", "not_reproduced") or params.get(PANELS_AS_PAPER):
        return ev
    missing = [p for p in paper_panels if p not in set(run_panels)]
    if not missing:
        return ev
    return not_evaluated(f"{what} may summarise every panel of the paper's figure; measured on "
                         f"{', '.join(sorted(set(run_panels)))} only ({', '.join(missing)} not run; measured: "
                         f"{ev.verdict.replace('_', ' ')})", category="not_run",
                         **{**ev.details, "measured_on_run_panels": evidence_summary(ev)})


def on_stand_in(ev: Evidence, unobtainable: str, argument: "tuple[bool, str] | None" = None) -> Evidence:
    """Judging rule h: ``ev`` was judged on a stand-in for data that cannot be had (``unobtainable`` says what and on
    what). Not evaluated ("data not available offline"), the stand-in's verdict kept beside it (``surrogate_verdict``,
    outside the counts), unless ``argument`` = (supports the claim?, its text): a regime argument that does not depend
    on the data (a bound that holds on any data at the paper's stated setting). Where it and the stand-in's verdict
    point the same way (supports and reproduced, or contradicts and not reproduced), the claim is decided, with both
    as its evidence; where they differ, or the stand-in is undecided, it stays not evaluated with both shown."""
    if ev.verdict == "not_evaluated":
        return ev
    text = f"{unobtainable} (on the stand-in: {ev.verdict.replace('_', ' ')})"
    if argument is not None:
        supports, said = argument
        if (supports and ev.verdict == "reproduced") or (not supports and ev.verdict == "not_reproduced"):
            return ev.but(reason=_joined(f"decided without the paper's data (judging rule h): {said}; the stand-in agrees: "
                                         f"{text}", ev.reason),
                          details={**ev.details, "surrogate_verdict": evidence_summary(ev), "data_free_argument": said})
        text += f"; a data-free argument {'supports' if supports else 'contradicts'} the claim ({said}), the stand-in does not agree"
    return not_evaluated(text, category="offline", surrogate_verdict=evidence_summary(ev), **ev.details)


def judge_or_missing(fn: Callable, tables: Mapping, params: Mapping) -> Evidence:
    """``fn(tables, params)``, or ``not_evaluated`` naming the missing data (as ClaimSpec.evaluate does): one reading
    of a claim judged on other tables than the claim's own."""
    try:
        return fn(tables, params)
    except MissingData as e:
        return not_evaluated(str(e) or "data missing")


def agree_across_readings(a: Evidence, b: Evidence, *, pair: str, constant: str, details: dict,
                          names: tuple[str, str] = ("the package's reading", "the other reading"),
                          b_required: bool = False, continuous: bool = False, unstated: bool = False) -> Evidence:
    """One claim judged under two readings of something the paper leaves open or the package departs from (a
    constant it never prints, an ambiguous formula, a printed step the package replaces; judging rule b). ``a`` is
    the package's reading, ``b`` the other; ``pair`` names both results for the report, ``constant`` what the readings
    differ in, ``names`` the two readings. ``details`` is ``a.details`` plus the caller's additions.

    The same verdict at both: kept, with the numbers of ``a``. Any difference between two judged sides (reproduced,
    not reproduced, inconclusive) is ``not_evaluated`` with the named reason "readings disagree" (category
    ``readings``), both sides' verdicts and numbers kept (``details["readings"]``): a claim is never judged at a subset
    of its readings, and an inconclusive side does not mask a decided one. One side not evaluated (not run, no rows):
    the other side's verdict, except where that side is itself a conflict (a chain of these calls must not read an
    earlier disagreement as missing data, so the disagreement is kept) or where ``b_required`` says ``b`` is the
    paper's own setting and ``a`` a departure from it: then the claim is not evaluated for ``b``'s reason, ``a`` in
    the details. ``continuous``: the readings are two values of a continuous constant, so two "not reproduced" on
    opposite sides of the printed value (one effect above it, one below) do not agree: a value between them may give
    the paper's number, and the claim is not evaluated (category ``constant``). ``unstated``: the readings are values
    of a constant the paper does not state (a baseline's constants or deployment), so a disagreement is named
    "depends on an unstated constant" (category ``constant``) rather than "readings disagree"."""
    extra = {k: v for k, v in details.items() if k not in a.details or a.details[k] is not v}
    if b_required and b.verdict == "not_evaluated" and a.verdict != "not_evaluated":
        cat = not_evaluated_category(b.reason)
        carried = {"readings": {**b.details.get("readings", {}), names[0]: evidence_summary(a)}} if cat in CONFLICTS else {}
        return not_evaluated(_joined(b.reason, pair), category=cat if cat in NOT_EVALUATED_REASONS else None,
                             **{**details, "other_reading": {"reading": names[0], **evidence_summary(a)}, **carried})

    conflicts = [e for e in (a, b) if e.verdict == "not_evaluated" and not_evaluated_category(e.reason) in CONFLICTS]
    if conflicts and not (a.verdict == b.verdict == "not_evaluated"):
        judged, name = (b, names[1]) if conflicts[0] is a else (a, names[0])
        cat = not_evaluated_category(conflicts[0].reason)
        readings = {**conflicts[0].details.get("readings", {}), name: evidence_summary(judged)}
        return not_evaluated(_joined(conflicts[0].reason, pair), category=cat,
                             **{**details, "other_reading": {"reading": name, **evidence_summary(judged)},
                                "readings": readings})

    def keep(chosen: Evidence, other: Evidence, name: str) -> Evidence:
        d = details if chosen is a else {**b.details, **extra}
        d = {**d, "other_reading": {"reading": names[1] if chosen is a else names[0], **evidence_summary(other)}}
        return chosen.but(details=d, reason=_joined(chosen.reason, pair))

    if a.verdict == b.verdict == "not_evaluated" and conflicts and conflicts[0] is b:
        return keep(b, a, names[1])  # both not evaluated: the conflict is the reason that carries on
    if continuous and a.verdict == b.verdict == "not_reproduced" and _opposite_sides(a, b):
        return not_evaluated(f"{constant}: {pair + ', ' if pair else ''}on opposite sides of the printed {a.paper_value} (a value "
                             f"between them may give it)", category="constant", **details)
    if a.verdict == b.verdict or b.verdict == "not_evaluated":
        return keep(a, b, names[0])
    if a.verdict == "not_evaluated":
        return keep(b, a, names[1])
    # two judged sides that differ: both verdicts and numbers shown (the report lists what each reading gave)
    return not_evaluated(f"{constant}: {pair}" if pair else constant, category="constant" if unstated else "readings",
                         **{**details, "readings": {names[0]: evidence_summary(a), names[1]: evidence_summary(b)}})


#: the not-evaluated reasons that are a verdict conflict (they carry on through a chain of readings)
CONFLICTS = ("constant", "readings")


def _joined(*parts: str) -> str:
    """The non-empty ``parts`` joined by "; ", each distinct "; "-separated note once (a chain of readings repeats
    its notes)."""
    return "; ".join(dict.fromkeys(seg for x in parts if x for seg in x.split("; ") if seg))


def _opposite_sides(a: Evidence, b: Evidence) -> bool:
    """Both effects measured against the same printed value, one above it and one below."""
    try:
        pa, pb, ea, eb = (float(v) for v in (a.paper_value, b.paper_value, a.effect, b.effect))
    except (TypeError, ValueError):
        return False
    return pa == pb and (ea - pa) * (eb - pb) < 0


def _worst_part(done: Mapping[str, Evidence], verdict: str) -> Evidence:
    cands = [e for e in done.values() if e.verdict == verdict] or list(done.values())
    return cands[0]


def evidence_summary(e: Evidence) -> dict:
    """An evidence's verdict, effect, interval, printed value and reason as plain JSON values (for claim details)."""
    out = {"verdict": e.verdict}
    if e.effect is not None:
        out["effect"] = _round(e.effect)
    if e.interval is not None:
        out["interval"] = [_round(e.interval.low), _round(e.interval.high)]
    if e.paper_value is not None:
        out["paper"] = e.paper_value
    if e.reason:
        out["reason"] = e.reason
    return out


def _round(v, digits: int = 6):
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    if not math.isfinite(f):
        return "nan" if math.isnan(f) else ("inf" if f > 0 else "-inf")
    return float(f"{f:.{digits}g}")


# ------------------------------------------------------------------------------------------ records


@dataclass
class Claim:
    """One evaluated claim, as stored in ``results/<profile>/<slug>/claims.json``."""

    id: str
    paper: str
    figures: list[str]
    kind: str
    paper_says: str
    tests: str
    verdict: str
    effect: Any = None
    interval: list | None = None
    n: int | None = None
    paper_value: Any = None
    regenerated: Any = None
    ratio: Any = None
    tolerance: str = ""
    reason: str = ""
    details: dict = field(default_factory=dict)
    category: str = "empirical"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind {self.kind!r} not in {KINDS}")
        if self.category not in CATEGORIES:
            raise ValueError(f"claim {self.id}: category {self.category!r} not in {sorted(CATEGORIES)}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id}: verdict {self.verdict!r} not in {VERDICTS}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ClaimSpec:
    """A registered claim: its text, the function that judges it, and its two counterfactuals."""

    id: str
    paper: str
    figures: tuple[str, ...]
    kind: str
    paper_says: str
    tests: str
    fn: Callable[[dict, dict], Evidence]
    refute: Counterfactual
    support: Counterfactual
    category: str = "empirical"

    def evaluate(self, tables: Mapping, params: Mapping) -> Claim:
        ev = judge_or_missing(self.fn, tables, params)
        diverged = [line for f in self.figures for line in getattr(tables.get(f), "attrs", {}).get("diverged", [])]
        if isinstance(ev, Evidence) and isinstance(ev.details, dict):  # trainings the claim left out of its evidence
            handled = set(ev.details.get("diverged_handled", ()))
            diverged = [line for line in diverged if line not in handled]
        if diverged and self.kind != "exact" and isinstance(ev, Evidence) and ev.verdict != "not_evaluated":
            # judged on a figure where a training diverged (its table's divergence rows, repro.pipeline): not a verdict
            ev = not_evaluated("; ".join(diverged[:3]) + (f" (and {len(diverged) - 3} more)" if len(diverged) > 3 else ""),
                               category="diverged", judged_as=ev.verdict)
        if not isinstance(ev, Evidence):
            raise TypeError(f"claim {self.paper}/{self.id}: {self.fn.__name__} returned {type(ev).__name__}, not Evidence")
        iv = ev.interval
        ratio = None
        if self.kind == "number" and _finite(ev.regenerated) and _finite(ev.paper_value) and float(ev.paper_value) != 0:
            ratio = _round(float(ev.regenerated) / float(ev.paper_value))
        return Claim(
            id=self.id, paper=self.paper, figures=list(self.figures), kind=self.kind, paper_says=self.paper_says,
            tests=self.tests, verdict=ev.verdict, effect=_round(ev.effect),
            interval=None if iv is None else [_round(iv.low), _round(iv.high)], n=None if iv is None else iv.n,
            paper_value=_jsonable(ev.paper_value), regenerated=_jsonable(ev.regenerated), ratio=ratio,
            tolerance=ev.tolerance, reason=ev.reason, details=_jsonable(ev.details), category=self.category)


def _jsonable(v):
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_jsonable(x) for x in list(v)]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return _round(v, 8)
    return v


@dataclass(frozen=True)
class Margin:
    """Judging rule e (materiality): the size of a change that a paper's qualitative words ('maintained',
    'significantly', 'degrade', ...) call material, one per metric for the whole paper and used by every claim with
    such a word (a change below it is 'maintained'; 'significantly' needs at least it). ``why`` says whose reading it is."""

    value: float
    words: tuple[str, ...]
    why: str


class ClaimSet:
    """The claims of one paper, in registration order.

    >>> CLAIMS = ClaimSet("toy")
    >>> @CLAIMS.claim("C1", figures="fig1", kind="exact", paper_says="1 + 1 = 2", tests="exact sum",
    ...               refute=lambda t, p: (t, {**p, "one": 2}), support=lambda t, p: (t, {**p, "one": 1}))
    ... def one_plus_one(tables, params):
    ...     return exact(params["one"] + params["one"], 2)
    >>> CLAIMS.evaluate({}, {"one": 1})[0].verdict
    'reproduced'
    """

    def __init__(self, paper: str, margins: Mapping[str, Margin] | None = None):
        self.paper = paper
        self._specs: dict[str, ClaimSpec] = {}
        self.margins: dict[str, Margin] = dict(margins or {})

    def margin(self, metric: str) -> float:
        """The paper's one materiality margin for ``metric`` (rule e); a claim never sets its own."""
        if metric not in self.margins:
            raise KeyError(f"{self.paper} declares no materiality margin for {metric!r}; declared: {sorted(self.margins)}")
        return self.margins[metric].value

    def claim(self, id: str, *, figures, paper_says: str, tests: str, refute: Counterfactual, support: Counterfactual,
              kind: str = "direction", category: str | None = None):
        """Register the decorated function ``(tables, params) -> Evidence`` as claim ``id``. ``category`` (a key of
        :data:`CATEGORIES`) says what kind of result its verdict is; default: ``closed_form`` for an ``exact`` claim,
        ``empirical`` otherwise."""
        if kind not in KINDS:
            raise ValueError(f"claim {id}: kind {kind!r} not in {KINDS}")
        category = category or ("closed_form" if kind == "exact" else "empirical")
        if category not in CATEGORIES:
            raise ValueError(f"claim {id}: category {category!r} not in {sorted(CATEGORIES)}")
        if id in self._specs:
            raise ValueError(f"{self.paper}: claim id {id!r} registered twice")
        if not (callable(refute) and callable(support)):
            raise TypeError(f"claim {id}: refute and support must be callables (tables, params) -> (tables, params)")
        figs = (figures,) if isinstance(figures, str) else tuple(figures)

        def register(fn):
            self._specs[id] = ClaimSpec(id, self.paper, figs, kind, paper_says.strip(), tests.strip(), fn, refute, support,
                                        category)
            return fn

        return register

    def rewrap(self, id: str, **changes) -> ClaimSpec:
        """Replace fields of registered claim ``id`` (e.g. ``fn``, ``refute``, ``support`` wrapped by a rule that
        applies to a whole group of a paper's claims, ``figures``, ``tests``); returns the new spec."""
        spec = dataclasses.replace(self[id], **changes)
        self._specs[id] = spec
        return spec

    def __iter__(self):
        return iter(self._specs.values())

    def __len__(self):
        return len(self._specs)

    def __getitem__(self, id: str) -> ClaimSpec:
        if id not in self._specs:
            raise KeyError(f"{self.paper} has no claim {id!r}; claims: {', '.join(self._specs)}")
        return self._specs[id]

    def ids(self) -> list[str]:
        return list(self._specs)

    def evaluate(self, tables: Mapping, params: Mapping) -> list[Claim]:
        return [spec.evaluate(tables, params) for spec in self]


# ------------------------------------------------------------------------------------------ table helpers


def need(tables: Mapping, fig: str, **where):
    """``tables[fig]`` (rows matching ``where``), or :class:`MissingData` if absent or empty."""
    t = tables.get(fig)
    if t is None or len(t) == 0:
        raise MissingData(f"{fig} was not regenerated")
    if where:
        t = t[_mask(t, where)]
        if len(t) == 0:
            raise MissingData(f"{fig} has no rows with {where}")
    return t


def seeds_of(df) -> list[int]:
    """Sorted non-negative seeds in a tidy frame (seed -1 marks deterministic rows)."""
    return sorted(int(s) for s in df["seed"].unique() if int(s) >= 0)


def per_seed(df, agg: str | Callable = "mean", **where):
    """``value`` of the rows matching ``where``, aggregated per seed (``agg`` over the other columns)
    -> Series indexed by seed; :class:`MissingData` if nothing matches."""
    t = df[_mask(df, where)] if where else df
    if len(t) == 0:
        raise MissingData(f"no rows with {where}")
    return t.groupby("seed")["value"].agg(agg)


def curve(df, **where):
    """Mean over seeds of the rows matching ``where``, indexed by numeric x (sorted)."""
    t = df[_mask(df, where)] if where else df
    if len(t) == 0:
        raise MissingData(f"no rows with {where}")
    x = _numeric(t["x"])
    return t.assign(x=x).groupby("x")["value"].mean().sort_index()


def curves_by_seed(df, **where):
    """``{seed: Series(value indexed by numeric x)}`` for the rows matching ``where``."""
    t = df[_mask(df, where)] if where else df
    if len(t) == 0:
        raise MissingData(f"no rows with {where}")
    t = t.assign(x=_numeric(t["x"]))
    return {int(s): g.groupby("x")["value"].mean().sort_index() for s, g in t.groupby("seed")}


def _numeric(col):
    import pandas as pd

    num = pd.to_numeric(col, errors="coerce")
    return num if num.notna().all() else col


def _mask(df, where: Mapping):
    m = np.ones(len(df), dtype=bool)
    for col, want in where.items():
        if col not in df.columns:
            raise KeyError(f"tidy table has no column {col!r}; columns: {list(df.columns)}")
        c = df[col]
        if callable(want):
            m &= np.asarray(want(c), dtype=bool)
        elif isinstance(want, (list, tuple, set)):
            m &= np.asarray(c.isin(list(want)))
        elif col == "x":
            m &= np.isclose(_numeric(c).astype(float), float(want), rtol=1e-9, atol=1e-12)
        elif col in ("panel", "series", "metric", "figure", "run_id"):
            m &= np.asarray(c.astype(str) == str(want))
        else:
            m &= np.asarray(c == want)
    return m


# ------------------------------------------------------------------------------------------ counterfactuals


def edit(tables: Mapping, fig: str, fn: Callable[[Any], Any], *, rows: bool = False, **where) -> dict:
    """A copy of ``tables`` where ``value`` of the rows of ``fig`` matching ``where`` becomes ``fn(value)``
    (``fn`` gets the pandas Series of those values; with ``rows=True`` it gets the matching rows as a
    DataFrame, e.g. to set a value from ``x`` or ``seed``, and returns the new values)."""
    out = dict(tables)
    t = need(tables, fig).copy()
    m = _mask(t, where)
    if not m.any():
        raise KeyError(f"counterfactual edit of {fig}: no rows with {where}")
    new = fn(t.loc[m].copy()) if rows else fn(t.loc[m, "value"])
    t.loc[m, "value"] = np.asarray(new, dtype=float)
    out[fig] = t
    return out


def relabel(tables: Mapping, fig: str, column: str, mapping: Mapping, **where) -> dict:
    """A copy of ``tables`` with ``column`` values of ``fig`` renamed by ``mapping`` (a swap when it maps
    both ways), on the rows matching ``where``."""
    out = dict(tables)
    t = need(tables, fig).copy()
    m = _mask(t, where) & np.asarray(t[column].astype(str).isin([str(k) for k in mapping]))
    if not m.any():
        raise KeyError(f"counterfactual relabel of {fig}: no {column} in {list(mapping)} with {where}")
    t[column] = t[column].astype(object)
    t.loc[m, column] = t.loc[m, column].astype(str).map({str(k): v for k, v in mapping.items()})
    out[fig] = t
    return out


def drop(tables: Mapping, fig: str | None = None, **where) -> dict:
    """A copy of ``tables`` without figure ``fig`` (no ``where``) or without its rows matching ``where``."""
    out = dict(tables)
    if fig is None:
        return out
    if not where:
        out.pop(fig, None)
        return out
    t = need(tables, fig)
    out[fig] = t[~_mask(t, where)].copy()
    return out


def unchanged(tables: Mapping, params: Mapping) -> tuple[dict, dict]:
    """The identity counterfactual (for a ``support`` that needs no change, e.g. an exact identity that
    holds on the regenerated numbers)."""
    return dict(tables), dict(params)


# ------------------------------------------------------------------------------------------ summaries


def verdict_counts(claims: Iterable) -> dict[str, int]:
    counts = {v: 0 for v in VERDICTS}
    for c in claims:
        counts[c["verdict"] if isinstance(c, Mapping) else c.verdict] += 1
    return counts


def claim_category(c) -> str:
    """The declared category of a claim (a :class:`Claim` or its claims.json entry; an entry written before categories
    existed: ``closed_form`` for an exact claim, else ``empirical``)."""
    if not isinstance(c, Mapping):
        return c.category
    return c.get("category") or ("closed_form" if c.get("kind") == "exact" else "empirical")


def record_column(c) -> str:
    """Which of :data:`RECORD_COLUMNS` a claim is counted in: a ``reproduced`` verdict by its category (a
    calibration input, a construction or a package check that holds is ``holds_not_counted``); the other verdicts
    as they are (a failing package check is a failure like any other).

    >>> record_column({"verdict": "reproduced", "kind": "exact", "category": "calibration_input"})
    'holds_not_counted'
    >>> record_column({"verdict": "reproduced", "kind": "direction"})
    'reproduced_empirical'
    """
    verdict = c["verdict"] if isinstance(c, Mapping) else c.verdict
    if verdict != "reproduced":
        return verdict
    cat = claim_category(c)
    return f"reproduced_{cat}" if cat in REPRODUCTION_CATEGORIES else "holds_not_counted"


def record_column_counts(claims: Iterable) -> dict[str, int]:
    """How many claims fall in each of :data:`RECORD_COLUMNS`."""
    out = {k: 0 for k in RECORD_COLUMNS}
    for c in claims:
        out[record_column(c)] += 1
    return out


def not_evaluated_counts(claims: Iterable) -> dict[str, int]:
    """How many ``not_evaluated`` claims there are per named reason (``"other"`` last, only if any)."""
    counts = {k: 0 for k in NOT_EVALUATED_REASONS}
    for c in claims:
        verdict, reason = (c["verdict"], c.get("reason", "")) if isinstance(c, Mapping) else (c.verdict, c.reason)
        if verdict == "not_evaluated":
            key = not_evaluated_category(reason)
            counts[key] = counts.get(key, 0) + 1
    return counts
