"""Reproduction reports: per paper, the verdict on every claim with the numbers behind it.

``figures/<profile>/claims.md`` (``repro claims --write``) has a summary table (verdict counts per
paper), then one section per paper: the certified privacy of what was run (from the paper's
``privacy`` table, when it has one), then each claim with the paper's words, what the check computes,
the measured effect and its 95 % interval, paper value / regenerated value / ratio, the verdict and
the reason. Figure captions (README gallery, ``snakemake --report``) are built here from the measured
verdicts, never from the paper's claim.
"""

from __future__ import annotations

import json
import math

from repro import experiment as ex
from repro import paths, registry
from repro.claims import (CATEGORIES, KIND_MEANING, NOT_EVALUATED_REASONS, RECORD_COLUMNS, VERDICTS, claim_category,
                          not_evaluated_counts, record_column, record_column_counts, verdict_counts)
from repro.record import load_paper_claims  # noqa: F401  (re-exported: the workflow reads it here)
from repro.results import read_tidy_csv

VERDICT_TEXT = {"reproduced": "reproduced", "not_reproduced": "NOT reproduced", "inconclusive": "inconclusive",
                "not_evaluated": "not evaluated"}
CATEGORY_TEXT = {"empirical": "empirical", "closed_form": "closed form", "by_construction": "by construction",
                 "calibration_input": "calibration input", "package_check": "package check"}
COLUMN_TEXT = {"reproduced_empirical": "reproduced", "reproduced_closed_form": "reproduced (closed form)",
               "holds_not_counted": "holds, not counted", **{v: VERDICT_TEXT[v] for v in VERDICTS if v != "reproduced"}}


def verdict_text(c: dict, verdict: str | None = None) -> str:
    """The verdict as a reader sees it (judging rule f): a closed-form reproduction says so, and a claim of a
    category that is not a reproduction (by construction, calibration input, package check) that holds says
    "holds" with its category, never "reproduced".

    >>> verdict_text({"verdict": "reproduced", "kind": "exact", "category": "calibration_input"})
    'holds (calibration input; not a reproduction)'
    """
    v = verdict or c["verdict"]
    col = record_column({**c, "verdict": v})
    if col == "holds_not_counted":
        return f"holds ({CATEGORY_TEXT[claim_category(c)]}; not a reproduction)"
    return COLUMN_TEXT.get(col, VERDICT_TEXT[v])


def stand_in_text(c: dict) -> str:
    """Rule h: the verdict a claim gets on a stand-in for data that cannot be had (ota_jammer: MNIST digits standing in
    for FEMNIST), shown beside its 'not evaluated' and never counted; "" when there is none."""
    sv = (c.get("details") or {}).get("surrogate_verdict")
    if c.get("verdict") != "not_evaluated" or not isinstance(sv, dict) or "verdict" not in sv:
        return ""
    return f"stand-in (MNIST digits standing in for FEMNIST, not counted): {VERDICT_TEXT[sv['verdict']]}"


def column_summary(claims: list[dict]) -> str:
    """``3 reproduced, 1 reproduced (closed form), 2 holds, not counted, ...`` (the non-zero columns)."""
    n = record_column_counts(claims)
    return ", ".join(f"{n[k]} {COLUMN_TEXT[k]}" for k in RECORD_COLUMNS if n[k])




def fmt(v, digits: int = 4) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, float)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f"{f:.{digits}g}"
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(",", ":"), default=str)


def _cell(v) -> str:
    return fmt(v).replace("|", "\\|").replace("\n", " ")


def effect_text(c: dict) -> str:
    """'0.031 [0.012, 0.050] (n=3)' or the exact value."""
    if c.get("effect") is None and c.get("regenerated") is None:
        return ""
    iv = c.get("interval")
    if c.get("kind") == "exact" and c.get("regenerated") is not None:
        return fmt(c["regenerated"])  # an exact check shows the value, not its zero difference
    main = fmt(c["effect"] if c.get("effect") is not None else c.get("regenerated"))
    if iv and iv[0] != iv[1]:
        return f"{main} [{fmt(iv[0])}, {fmt(iv[1])}] (n={c.get('n')})"
    return main


def claim_line(c: dict) -> str:
    """One-line summary of a claim's verdict for captions."""
    txt = f"{c['id']} {verdict_text(c)}"
    eff = effect_text(c)
    if c["verdict"] == "not_evaluated":
        stand_in = stand_in_text(c)
        return f"{txt} ({stand_in + '; ' if stand_in else ''}{c.get('reason', '')})"
    if c["kind"] == "number" and c.get("paper_value") is not None:
        return f"{txt} (paper {fmt(c['paper_value'])}, regenerated {eff})"
    return f"{txt} ({eff})" if eff else txt


#: a figure caption is one paragraph (the report's and the gallery's); the rest is in the figure's .md
CAPTION_NOTE_CHARS = 240


def figure_caption(profile: str, slug: str, fig: ex.FigureSpec, claims: list[dict] | None, params: dict | None = None) -> str:
    """Caption of a figure, one paragraph: its title, the profile's note (its first words), the verdicts of the claims
    judged on it grouped by verdict (a not-evaluated claim by its named reason), and where the numbers, the reasons and
    the drawing code are (the figure's .md, claims.md)."""
    from repro.claims import not_evaluated_category

    parts = [fig.title.rstrip(".") + "."]
    note = (params or {}).get("profile_note")
    if note:
        head = _headline(note, CAPTION_NOTE_CHARS)
        parts.append(f"Profile `{profile}`: {head}" + ("" if head.endswith("...") else "."))
    mine = [c for c in (claims or []) if fig.fig_id in c.get("figures", [])]
    if claims is None:
        parts.append("Claims not evaluated yet.")
    elif mine:
        groups: dict[str, list[str]] = {}
        for c in mine:
            key = COLUMN_TEXT[record_column(c)]
            if c["verdict"] == "not_evaluated":
                cat = not_evaluated_category(c.get("reason", ""))
                key += f" ({NOT_EVALUATED_REASONS.get(cat, 'other reason')}" + (
                    f"; on the stand-in: {(c.get('details') or {}).get('surrogate_verdict', {}).get('verdict', '').replace('_', ' ')}"
                    if (c.get("details") or {}).get("surrogate_verdict") else "") + ")"
            groups.setdefault(key, []).append(c["id"])
        parts.append("Verdicts: " + "; ".join(f"{k} {', '.join(v)}" for k, v in groups.items()) + ".")
    parts.append(f"Numbers, reasons and drawing code: figures/{profile}/{slug}/{fig.fig_id}.md and claims.md.")
    return " ".join(parts)


def verdict_stamp(profile: str, fig_id: str, judged: list[dict], elsewhere: list[dict], listed: int = 8) -> str:
    """The line a figure carries in its corner: the verdicts of the claims judged on it alone (grouped by
    verdict), and which of its claims are judged together with other figures (their verdicts: claims.md).

    >>> verdict_stamp("quick", "fig2", [{"id": "C1", "verdict": "reproduced"}, {"id": "C4", "verdict": "not_reproduced"},
    ...                                 {"id": "C2", "verdict": "reproduced"}], [{"id": "C9", "figures": ["fig2", "fig3"]}])
    'Claims on this figure, quick profile: reproduced C1, C2 · NOT reproduced C4 · judged with fig3 (see claims.md): C9'
    """
    by_column: dict[str, list[str]] = {}
    for c in judged:  # grouped by what the verdict counts as (rule f: a calibration input that holds is not "reproduced")
        by_column.setdefault(record_column(c), []).append(c["id"])
    parts = [f"{COLUMN_TEXT[k]} {', '.join(by_column[k])}" for k in RECORD_COLUMNS if k in by_column]
    if elsewhere:
        ids = [c["id"] for c in elsewhere]
        others = sorted({f for c in elsewhere for f in c["figures"]} - {fig_id})
        names = ", ".join(ids) if len(ids) <= listed else f"{len(ids)} claims"
        parts.append(f"judged with {', '.join(others)} (see claims.md): {names}")
    return f"Claims on this figure, {profile} profile: " + " · ".join(parts) if parts else ""


def privacy_rows(profile: str, slug: str) -> list[dict]:
    """Nominal vs certified epsilon per private configuration, from the paper's ``privacy`` table CSV."""
    p = paths.figures_dir(profile, slug) / "privacy.csv"
    if not p.exists():
        return []
    df = read_tidy_csv(p)
    out = []
    for (panel, series), g in df.groupby(["panel", "series"], sort=False):
        vals = g.groupby("metric")["value"].first().to_dict()
        out.append({"figure": panel, "configuration": series, **vals})
    return out


def _headline(text: str, width: int = 90) -> str:
    """The first words of a claim's text, for its heading (cut at a word boundary)."""
    one = " ".join(str(text).split())
    if len(one) <= width:
        return one.rstrip(".")
    return one[:width].rsplit(" ", 1)[0].rstrip(",;:.") + " ..."


def not_evaluated_breakdown(claims) -> str:
    """`` (regime not preserved 3, data not available offline 1)``: the not-evaluated claims per named reason."""
    counts = not_evaluated_counts(claims)
    parts = [f"{NOT_EVALUATED_REASONS.get(k, 'other reason')} {n}" for k, n in counts.items() if n]
    return f" ({', '.join(parts)})" if parts else ""


def paper_section(profile: str, slug: str) -> str:
    info = registry.paper(slug)
    claims = load_paper_claims(profile, slug)
    lines = [f"## `{slug}`: {info.title}", ""]
    if claims is None:
        return "\n".join(lines + [f"_Claims not evaluated: run `snakemake --cores 2 all --config profile={profile}`._", ""])
    n = record_column_counts(claims)
    lines.append("**Summary:** " + ", ".join(f"{n[k]} {COLUMN_TEXT[k]}" for k in RECORD_COLUMNS)
                 + not_evaluated_breakdown(claims) + f" (of {len(claims)} claims).")
    lines.append("")
    priv = privacy_rows(profile, slug)
    if priv:
        lines += ["**Privacy as run** (paper's nominal epsilon vs the epsilon a standard accountant certifies for the "
                  "mechanism actually executed; see the paper's `privacy` table for the assumptions):", "",
                  "| figure | configuration | nominal eps | certified eps | certified / nominal | delta |",
                  "|---|---|---|---|---|---|"]
        for r in priv:
            lines.append(f"| {_cell(r['figure'])} | {_cell(r['configuration'])} | {fmt(r.get('nominal_epsilon'))} | "
                         f"{fmt(r.get('certified_epsilon'))} | {fmt(r.get('ratio'), 3)} | {fmt(r.get('delta'))} |")
        lines.append("")
    for c in claims:
        lines += [f"### {c['id']}: {_headline(c['paper_says'])} ({', '.join(c['figures'])}): {verdict_text(c)}", "",
                  f"- **Paper says:** {c['paper_says']}",
                  f"- **Check:** {c['tests']} _({c['kind']}: {KIND_MEANING[c['kind']]})_",
                  f"- **Category:** {CATEGORIES[claim_category(c)]}"]
        if c["verdict"] != "not_evaluated":
            if c["kind"] == "number":
                lines.append(f"- **Paper value:** {fmt(c['paper_value'])}; **regenerated:** {effect_text(c)}; "
                             f"**ratio:** {fmt(c.get('ratio'), 3)}; **tolerance:** {c.get('tolerance', '')}")
            else:
                lines.append(f"- **Measured:** {effect_text(c)}; **criterion:** {c.get('tolerance', '')}")
        if stand_in_text(c):
            lines.append(f"- **Stand-in:** {stand_in_text(c)}")
        if c.get("reason"):
            lines.append(f"- **Reason:** {c['reason']}")
        lines.append("")
    return "\n".join(lines)


def report_markdown(profile: str, slugs=None) -> str:
    slugs = list(slugs or registry.slugs())
    lines = [f"# Reproduction report, profile `{profile}`", "",
             "Each claim of each paper is judged on the regenerated numbers: `reproduced` (the paper's direction "
             "holds and the 95 % interval over seeds excludes the opposite, or the paper's number lies within "
             "tolerance), `NOT reproduced` (the interval excludes the paper's direction or number), `inconclusive` "
             "(the interval straddles), `not evaluated` (with the reason). Analytic values are checked exactly. Only "
             "empirical and closed-form results count as reproductions: a claim that holds by construction, a "
             "calibration input (a setting the package solves for) and a package check are counted apart "
             "(docs/judging.md, rule f).", "",
             "| paper | " + " | ".join(COLUMN_TEXT[k] for k in RECORD_COLUMNS) + " |", "|---|" + "---|" * len(RECORD_COLUMNS)]
    for slug in slugs:
        claims = load_paper_claims(profile, slug)
        if claims is None:
            lines.append(f"| [`{slug}`](#{slug}) |" + " - |" * len(RECORD_COLUMNS))
            continue
        c = record_column_counts(claims)
        lines.append(f"| `{slug}` | " + " | ".join(str(c[k]) for k in RECORD_COLUMNS[:-1])
                     + f" | {c['not_evaluated']}{not_evaluated_breakdown(claims)} |")
    lines.append("")
    from repro import record  # noqa: PLC0415 (record reads claims through this module)

    lines += ["## Verdicts of record", "",
              "The verdict a claim stands at: the paper profile's where the paper's experiment judged it, else the "
              "quick profile's (then it stands only because no paper-scale run contradicts it). Counts in brackets: "
              "how many of them come from the paper profile. The last two columns are each profile's own counts "
              "(reproduced / holds, not counted / not reproduced / inconclusive / not evaluated).", "",
              record.record_table_markdown(slugs, link=False), "",
              "### Quick vs paper", "",
              "Claims judged in both profiles with different verdicts (a contradiction fails "
              "`tests/claims/test_quick_vs_paper.py`):", "", record.disagreements_markdown(slugs), ""]
    for slug in slugs:
        lines.append(paper_section(profile, slug))
    return "\n".join(lines).rstrip() + "\n"


def write_report(profile: str):
    from repro.results import write_text

    out = paths.figures_dir(profile) / "claims.md"
    write_text(out, report_markdown(profile))
    return out


def landing_rst(profile: str, slugs=None) -> str:
    """The HTML report's landing page (reStructuredText): the verdicts of record per paper and the headline claims
    (the README's findings), every cell escaped so that no claim text is read as markup."""
    from repro.record import HEADLINES, RECORD_HEAD, _verdict_cell, counts, records
    from repro.rst import escape

    slugs = list(slugs or registry.slugs())

    def table(title, header, rows):
        out = [f".. list-table:: {escape(title)}", "   :header-rows: 1", ""]
        for row in [header, *rows]:
            out.append("   * - " + escape(row[0]))
            out += [f"     - {escape(c) if c != '' else '..'}" for c in row[1:]]
        return out + [""]

    per_paper = []
    for slug in slugs:
        recs = records(slug)
        n = counts(recs)
        per_paper.append([slug, str(len(recs))] + [_verdict_cell(n, v, recs) for v in RECORD_COLUMNS])
    head = ["paper", "claims", *RECORD_HEAD]
    findings = []
    for slug in slugs:
        recs = {r.id: r for r in records(slug)}
        for cid in HEADLINES.get(slug, ()):
            r = recs.get(cid)
            if r is None or r.claim is None:
                continue
            from repro.record import HEADLINE_TEXT

            title, _says, measures = HEADLINE_TEXT.get((slug, cid), (" ".join(str(r.claim["paper_says"]).split())[:160], "", ""))
            measured = (f"{measures}: {effect_text(r.claim)}" if measures else effect_text(r.claim)) \
                if r.verdict != "not_evaluated" else (stand_in_text(r.claim) or r.claim.get("reason", ""))
            findings.append([slug, f"{cid}: {title}", measured[:200] or "-", r.scale, verdict_text(r.claim, r.verdict)])
    lines = ["Verdicts of the claims of five papers on private and wireless federated learning, judged on regenerated "
             f"numbers (report of profile ``{escape(profile)}``). The verdict of record of a claim is the paper-scale "
             "one where the paper's experiment was run, else the quick profile's; the scale column says which. Every "
             "figure below carries the verdicts of the claims judged on it; the category *Reproduction report* holds "
             "every claim with its check and numbers.", ""]
    lines += table("Verdicts of record (in brackets: how many at paper scale; not evaluated: per named reason)", head, per_paper)
    if findings:
        lines += table("Headline claims", ["paper", "claim", "regenerated", "scale", "verdict of record"], findings)
    return "\n".join(lines)
