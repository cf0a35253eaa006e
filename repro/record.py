"""The verdict of record of every claim: the paper-scale verdict where the paper's experiment was run, else the
reduced (quick) profile's verdict, always with the scale it came from (judging rule 1).

    python -m repro.record            # prints the per-paper table and every quick-vs-paper disagreement

A claim's verdict of record is

* its ``paper`` verdict when the paper profile judged it (any verdict but ``not_evaluated``): scale ``paper``;
* else its ``quick`` verdict when the quick profile judged it and the paper profile's runs for it were not made
  (a paper-scale ``not_evaluated`` for another reason, e.g. an unstated constant, stands): scale ``quick``; such a
  verdict stands only because no paper-scale run contradicts it, and the reports say so;
* else ``not_evaluated``, with the paper profile's reason where it says why the paper's experiment could not
  be judged, and the quick one's where the paper profile only says its runs were not made.

Where both profiles judged a claim and their verdicts differ, the pair is a *disagreement*. A
*contradiction* (one profile says ``reproduced``, the other ``not_reproduced``) means the reduced profile
does not keep the paper's regime for that claim: ``tests/claims/test_quick_vs_paper.py`` fails on it, and
the fix is the quick claim's ``not_evaluated(category="regime")``, never a change to the paper verdict.
Other disagreements (one side ``inconclusive``) are differences of statistical power; they are listed in
the reports.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from repro import paths, registry
from repro.claims import RECORD_COLUMNS, VERDICTS
from repro.results import read_json

SCALES = ("paper", "quick", "-")

#: the headline claims of each paper shown in the README's findings table (the claims a reader of the paper
#: would check first: its abstract's numbers, its privacy guarantee, its main comparison)
HEADLINES = {
    "dp_ditto": ("19.a", "1.fedamp.accuracy", "4.accuracy", "27"),
    "wpfl_minmax": ("C2", "C3", "C20", "C23"),
    "ota_jammer": ("C21", "C9", "C14", "C16"),
    "age_dp": ("C2", "C7", "C8", "C12"),
    "acfl": ("C4", "C9", "C14", "C16"),
}
#: each headline claim in a reader's words: (short title, what the paper says in numbers or words, what the
#: regenerated value measures and in which unit)
HEADLINE_TEXT = {
    ("dp_ditto", "19.a"): ("The convergence bound h(T) has an interior optimum T* (Fig. 2, Sec. 4.2)",
                           "h falls, then rises", "log10 h(0) - log10 h(T*), MLR, per seed (> 0: interior optimum)"),
    ("dp_ditto", "1.fedamp.accuracy"): ("DP-Ditto is 59.06 % more accurate than DP-FedAMP (Sec. 1)", "+59.06 %",
                                        "accuracy gain over DP-FedAMP, %"),
    ("dp_ditto", "4.accuracy"): ("DP-Ditto is the most accurate private PFL method (Figs. 3-4)", "ahead of all four",
                                 "accuracy difference to each baseline"),
    ("dp_ditto", "27"): ("Eq. (8)'s noise makes the local training (eps, delta)-DP (Sec. 3.3)", "eps as set (<= 100)",
                         "certified eps of the noise run, worst configuration"),
    ("wpfl_minmax", "C2"): ("Scheduling beats round-robin, random and no adjustment by >= 52.26 % (Sec. VII-3)",
                            ">= +52.26 % accuracy", "smallest relative accuracy gain (0.01 = 1 %)"),
    ("wpfl_minmax", "C3"): ("The proposed scheduling is more accurate than each scheduler (Fig. 3)", "ahead of each",
                            "accuracy difference, worst comparison"),
    ("wpfl_minmax", "C20"): ("Table III: 4.55 quantization bits per parameter (DNN-MNIST)", "4.55 bits",
                             "B_q, bits per parameter, DNN-MNIST"),
    ("wpfl_minmax", "C23"): ("Table II's noise is eps_Q = 1 differentially private (Theorem 1)", "eps_Q = 1",
                             "certified eps of Table II's noise, worst configuration"),
    ("ota_jammer", "C21"): ("The runs of Figs. 2-5 are (6.52, 1e-5)-DP (Sec. V-A)", "eps = 6.52",
                            "exact eps of what was trained (worst-case sensitivity)"),
    ("ota_jammer", "C9"): ("Upcycled-FL (Algorithm 1) significantly outperforms all baselines (Figs. 2-5)",
                           "ahead of all", "test-accuracy gaps"),
    ("ota_jammer", "C14"): ("At eps = 0.1 the DP noise significantly impedes convergence (Figs. 6-8)",
                            "a large accuracy loss", "accuracy without minus with the jammer"),
    ("ota_jammer", "C16"): ("The proposed design outperforms [13] at eps = 0.15 (Figs. 9-10)", "ahead of [13]",
                            "accuracy and loss gaps"),
    ("age_dp", "C2"): ("Neither the freshest nor the stalest data is best for Client 2 (Fig. 2(b))",
                       "an interior optimum", "argmin of the collection time t_c"),
    ("age_dp", "C7"): ("Age-aware scheduling (scheme 4) has the lowest loss difference (Fig. 3(a))",
                       "lowest at every eps_bar", "eps_bar points where it holds"),
    ("age_dp", "C8"): ("Theorem 1 tracks the simulated trade-off (schemes 3 vs 5, 4 vs 6)", "close at every eps_bar",
                       "eps_bar points where it holds"),
    ("age_dp", "C12"): ("Theorem 1's loss bound (4) holds on the toy model", "bound >= loss difference",
                        "eps_bar points where it holds"),
    ("acfl", "C4"): ("The adaptive weight minimises the bound (33) at equal privacy (Fig. 1(a))", "adaptive lowest",
                     "smallest gap fixed minus adaptive"),
    ("acfl", "C9"): ("Theorem 2 bounds the distance to the optimum, E||W_T - W*||^2 (eqs. 33-34)", "bound >= error",
                     "log10(bound / measured error), worst part (> 0: holds)"),
    ("acfl", "C14"): ("ACFL learns better than SCFL at equal privacy (Fig. 4)", "ACFL ahead",
                      "log10 loss gap SCFL - ACFL, decades, worst part"),
    ("acfl", "C16"): ("The coded dataset is eps-MI-DP with eq. (17)'s eps (Theorem 1)", "information <= eps",
                      "bounds on the worst-case mutual information, nats"),
}


def load_paper_claims(profile: str, slug: str) -> list[dict] | None:
    p = paths.results_dir(profile, slug) / "claims.json"
    return read_json(p) if p.exists() else None



@dataclass(frozen=True)
class Record:
    """One claim's verdict of record and the verdicts of both profiles (``None``: the profile has no claims
    file for this paper)."""

    paper_slug: str
    id: str
    verdict: str
    scale: str
    quick: str | None
    paper: str | None
    claim: dict  # the claims.json entry the verdict of record comes from

    @property
    def disagreement(self) -> str | None:
        """"contradiction", "power" or None (see the module docstring)."""
        q, p = self.quick, self.paper
        if q in (None, "not_evaluated") or p in (None, "not_evaluated") or q == p:
            return None
        return "contradiction" if {q, p} == {"reproduced", "not_reproduced"} else "power"


def records(slug: str, quick: list[dict] | None = None, paper: list[dict] | None = None) -> list[Record]:
    """The verdict of record of every claim of ``slug`` (claims as in their claims.json files; by default
    read from results/quick and results/paper)."""
    quick = load_paper_claims("quick", slug) if quick is None else quick
    paper = load_paper_claims("paper", slug) if paper is None else paper
    q = {c["id"]: c for c in quick or []}
    p = {c["id"]: c for c in paper or []}
    out = []
    from repro.claims import not_evaluated_category

    for cid in list(q) + [k for k in p if k not in q]:
        qc, pc = q.get(cid), p.get(cid)
        # the paper's experiment made but not judgeable (an unstated constant, a band out of reach, ...) stands:
        # a reduced profile's verdict fills in only where the paper-scale runs were not made
        paper_not_run = pc is None or not_evaluated_category(pc.get("reason", "")) in ("not_run", "other")
        if pc is not None and pc["verdict"] != "not_evaluated":
            verdict, scale, claim = pc["verdict"], "paper", pc
        elif qc is not None and qc["verdict"] != "not_evaluated" and paper_not_run:
            verdict, scale, claim = qc["verdict"], "quick", qc
        else:  # not evaluated: the paper profile's reason, unless it only says the paper's runs were not made
            verdict, scale, claim = "not_evaluated", "-", (qc if qc is not None and paper_not_run else pc or qc)
        out.append(Record(slug, cid, verdict, scale, qc["verdict"] if qc else None, pc["verdict"] if pc else None, claim))
    return out


def column_of(r: Record) -> str:
    """The column of :data:`repro.claims.RECORD_COLUMNS` a verdict of record is counted in (judging rule f: only
    empirical and closed-form results count as reproduced)."""
    from repro.claims import record_column

    return record_column({**(r.claim or {}), "verdict": r.verdict})


def counts(recs: list[Record]) -> dict[str, int]:
    """Verdicts of record per verdict, per column of :data:`repro.claims.RECORD_COLUMNS` (keys not already verdicts),
    and per scale as ``"<verdict or column>@<scale>"``."""
    out = {v: 0 for v in VERDICTS}
    out.update({k: 0 for k in RECORD_COLUMNS if k not in out})
    for r in recs:
        keys = {r.verdict, column_of(r)}
        for k in keys:
            out[k] += 1
            out[f"{k}@{r.scale}"] = out.get(f"{k}@{r.scale}", 0) + 1
    return out


def disagreements(slugs=None) -> list[Record]:
    """Every claim judged in both profiles with different verdicts."""
    return [r for s in (slugs or registry.slugs()) for r in records(s) if r.disagreement]


_SHORT_REASON = {"offline": "data offline", "regime": "regime", "constant": "unstated constant", "readings": "readings disagree",
                 "degenerate": "degenerate", "unreachable": "not testable", "not_run": "not run", "diverged": "diverged",
                 "other": "other"}


_CATEGORY_SHORT = {"by_construction": "by construction", "calibration_input": "calibration input",
                   "package_check": "package check"}
RECORD_HEAD = ["reproduced (empirical)", "reproduced (closed form)",
               "holds, not counted (by construction / calibration input / package check)", "not reproduced",
               "inconclusive", "not evaluated"]


def _verdict_cell(c: dict, v: str, recs: list[Record] | None = None) -> str:
    """One cell of the record table: the count of verdict or column ``v``, with how many at paper scale, the
    not-evaluated ones per named reason and the held-not-counted ones per category."""
    n, at_paper = c.get(v, 0), c.get(f"{v}@paper", 0)
    if not n:
        return "0"
    if v == "not_evaluated":
        from repro.claims import not_evaluated_counts

        why = not_evaluated_counts([r.claim for r in recs or [] if r.verdict == "not_evaluated" and r.claim])
        parts = [f"{_SHORT_REASON.get(k, k)} {m}" for k, m in why.items() if m]
        return f"{n} ({', '.join(parts)})" if parts else str(n)
    notes = [f"{at_paper} paper"] if at_paper else []
    if v == "holds_not_counted":
        from repro.claims import claim_category

        held = [claim_category(r.claim or {}) for r in recs or [] if column_of(r) == v]
        notes += [f"{_CATEGORY_SHORT[k]} {held.count(k)}" for k in _CATEGORY_SHORT if held.count(k)]
    return f"{n} ({'; '.join(notes)})" if notes else str(n)


def _profile_counts(claims: list[dict]) -> str:
    """A profile's own counts: reproduced (empirical + closed form) / holds not counted / not reproduced /
    inconclusive / not evaluated."""
    from repro.claims import record_column_counts

    n = record_column_counts(claims)
    return " / ".join(str(x) for x in (n["reproduced_empirical"] + n["reproduced_closed_form"], n["holds_not_counted"],
                                       n["not_reproduced"], n["inconclusive"], n["not_evaluated"]))


def record_table_markdown(slugs=None, link=True) -> str:
    """Per paper: the verdicts of record by column (how many at paper scale; the not-evaluated ones per named
    reason; what holds without counting as a reproduction, per category), then the quick and paper profiles' own
    counts side by side."""
    lines = ["| paper | claims | " + " | ".join(RECORD_HEAD) + " | quick profile (r / held / nr / inc / ne) | paper "
             "profile (r / held / nr / inc / ne) |" + (" evidence |" if link else ""),
             "|---|---|" + "---|" * len(RECORD_HEAD) + "---|---|" + ("---|" if link else "")]
    for slug in slugs or registry.slugs():
        recs = records(slug)
        c = counts(recs)
        sides = []
        for profile in ("quick", "paper"):
            claims = load_paper_claims(profile, slug)
            sides.append("not run" if claims is None else _profile_counts(claims))
        row = (f"| `{slug}` | {len(recs)} | " + " | ".join(_verdict_cell(c, v, recs) for v in RECORD_COLUMNS) + " | "
               + " | ".join(sides) + " |")
        if link:
            row += f" [README](repro/papers/{slug}/README.md) |"
        lines.append(row)
    return "\n".join(lines)


def disagreements_markdown(slugs=None) -> str:
    rows = disagreements(slugs)
    if not rows:
        return "No claim judged in both profiles gets different verdicts."
    lines = ["| paper | claim | quick | paper | kind |", "|---|---|---|---|---|"]
    for r in rows:
        kind = ("contradiction: the quick profile does not keep the paper's regime" if r.disagreement == "contradiction"
                else "power: one profile's interval straddles")
        lines.append(f"| `{r.paper_slug}` | {r.id} | {r.quick} | {r.paper} | {kind} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    print(record_table_markdown(link=False))
    print()
    print(disagreements_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
