"""Write the README's findings, verdict and cost tables (quick: recorded; paper: probed) and the figure gallery
(docs/gallery.md) from what was measured.

    python -m repro.gallery            # rewrites the findings / verdicts / cost blocks of README.md and docs/gallery.md

Each caption is built by :func:`repro.report.figure_caption` from the verdicts of the claims judged on the
figure (never from the paper's claim); the cost table sums the runs' recorded CPU seconds.
"""

from __future__ import annotations

import sys

from repro import experiment as ex
from repro import paths, registry
from repro.record import HEADLINES, load_paper_claims  # noqa: F401  (HEADLINES re-exported)
from repro.report import figure_caption
from repro.results import read_json, write_text

START, END = "<!-- gallery:start -->", "<!-- gallery:end -->"
TIMING_START, TIMING_END = "<!-- timing:start -->", "<!-- timing:end -->"
VERDICTS_START, VERDICTS_END = "<!-- verdicts:start -->", "<!-- verdicts:end -->"
PAPER_COST_START, PAPER_COST_END = "<!-- paper-cost:start -->", "<!-- paper-cost:end -->"
FINDINGS_START, FINDINGS_END = "<!-- findings:start -->", "<!-- findings:end -->"
GALLERY_PAGE = "docs/gallery.md"
VERDICTS_PAGE = "docs/verdicts.md"

VERDICT_COLUMNS = ("reproduced", "not_reproduced", "inconclusive", "not_evaluated")


def gallery_markdown(profile: str = "quick") -> str:
    lines = [START, ""]
    for slug, info in registry.papers().items():
        claims = load_paper_claims(profile, slug)
        params = ex.load_params(slug, profile)
        lines += [f"### `{slug}`: {info.title}", ""]
        for fig in ex.figure_specs(slug, profile):
            png = paths.figures_dir(profile, slug) / f"{fig.fig_id}.png"
            rel = png.relative_to(paths.project_root())
            ref = fig.paper_ref or fig.fig_id
            lines.append(f"**{ref}** (`{fig.fig_id}`): {figure_caption(profile, slug, fig, claims, params)}")
            lines.append("")
            if png.exists():
                lines.append(f'<img src="{rel.as_posix()}" width="560" alt="{slug} {fig.fig_id}">')
            else:
                lines.append(f"_(not rendered yet: `snakemake --cores 2 {rel.with_suffix('.pdf').as_posix()}`)_")
            lines.append("")
    lines.append(END)
    return "\n".join(lines)


def run_cost(profile: str, slug: str) -> tuple[float, float, int, int]:
    """(CPU seconds, wall seconds, jobs found, jobs planned) of a paper's jobs (runs or batches of runs)."""
    run_ids = sorted({r for f in ex.figure_specs(slug, profile) for r in f.job_ids})
    cpu = wall = 0.0
    found = 0
    for rid in run_ids:
        p = paths.run_result_path(profile, slug, rid)
        if p.exists():
            rec = read_json(p)
            cpu += float(rec.get("cpu_s", rec.get("wall_s", 0.0)))
            wall += float(rec.get("wall_s", 0.0))
            found += 1
    return cpu, wall, found, len(run_ids)


def timing_markdown(profile: str = "quick") -> str:
    lines = [TIMING_START, "",
             f"Compute of the `{profile}` profile, measured (sum over each paper's jobs of the CPU seconds recorded in "
             "`results/<profile>/<slug>/runs/*.json`; one thread per job; a job is one run or a batch of short runs "
             "executed in one process):", "",
             "| paper | figures | runs | jobs | CPU seconds |", "|---|---|---|---|---|"]
    total = 0.0
    for slug in registry.slugs():
        figs = ex.figure_specs(slug, profile)
        cpu, _wall, found, planned = run_cost(profile, slug)
        total += cpu
        note = "" if found == planned else f" ({found} of {planned} jobs found)"
        runs = len({r for f in figs for r in f.run_ids})
        lines.append(f"| `{slug}` | {len(figs)} | {runs} | {planned} | {cpu:.0f}{note} |")
    lines += [f"| all | | | | {total:.0f} |", "", TIMING_END]
    return "\n".join(lines)


def paper_cost_markdown(costs_md: str = "docs/costs.md") -> str:
    """The per-paper totals of the measured paper-profile cost table (``python -m repro.costs``), or a line
    saying it has not been measured."""
    path = paths.project_root() / costs_md
    if not path.exists():
        return "\n".join([PAPER_COST_START, "", "The paper profile's cost has not been measured here "
                          "(`python -m repro.costs --profile paper`).", "", PAPER_COST_END])
    lines = path.read_text().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| paper | figure |"))
    totals = [line.replace("**", "").replace(" total (each run once)", "") for line in lines if "total (each run once)" in line]
    title = lines[0].lstrip("# ").strip()

    def drop_figure_column(row: str) -> str:
        cells = row.split("|")
        return "|".join(cells[:2] + cells[3:])

    rows = [drop_figure_column(r) for r in (lines[head], lines[head + 1], *totals)]
    return "\n".join([PAPER_COST_START, "", f"{title} (per paper, each run counted once; per figure and per part in "
                      f"[{costs_md}]({costs_md})):", "", *rows, "", PAPER_COST_END])


def _short(text: str, width: int = 150) -> str:
    one = " ".join(str(text).split()).replace("|", "/")
    return one if len(one) <= width else one[:width].rsplit(" ", 1)[0].rstrip(",;:.") + " ..."


def findings_markdown() -> str:
    """The README's first table: per paper its headline claims in a reader's words (a short title, what the paper says,
    the regenerated value with what it measures), the scale the verdict of record comes from and the verdict with its
    category."""
    from repro import record
    from repro.report import effect_text, stand_in_text, verdict_text

    lines = [FINDINGS_START, "", "| paper | claim | the paper says | regenerated | scale | verdict of record |",
             "|---|---|---|---|---|---|"]
    for slug, ids in HEADLINES.items():
        recs = {r.id: r for r in record.records(slug)}
        for cid in ids:
            r = recs.get(cid)
            title, says, measures = record.HEADLINE_TEXT.get((slug, cid), (cid, "", ""))
            if r is None or r.claim is None:
                lines.append(f"| [`{slug}`](repro/papers/{slug}/README.md) | {cid}: {title} | {says} | | | not run |")
                continue
            c = r.claim
            if r.verdict == "not_evaluated":
                measured = stand_in_text(c) or _short(c.get("reason", ""), 110)
            else:
                measured = f"{measures}: {effect_text(c)}" if measures else effect_text(c)
            verdict = verdict_text(c, r.verdict)
            verdict = f"**{verdict}**" if r.verdict == "not_reproduced" else verdict
            lines.append(f"| [`{slug}`](repro/papers/{slug}/README.md) | {cid}: {title} | {says} | "
                         f"{measured.replace('|', '/')} | {r.scale} | {verdict} |")
    lines += ["", FINDINGS_END]
    return "\n".join(lines)


def record_markdown() -> str:
    """The README's verdict table: verdicts of record per paper, quick and paper counts side by side."""
    from repro import record

    return "\n".join([VERDICTS_START, "", record.record_table_markdown(), "", VERDICTS_END])


def verdicts_markdown(profile: str = "quick") -> str:
    """Per paper: how many claims got each verdict in ``profile`` (from its claims.json), with links."""
    lines = [VERDICTS_START, "", "| paper | claims | " + " | ".join(v.replace("_", " ") for v in VERDICT_COLUMNS)
             + " | evidence |", "|---|---|" + "---|" * len(VERDICT_COLUMNS) + "---|"]
    for slug in registry.slugs():
        claims = load_paper_claims(profile, slug)
        if claims is None:
            lines.append(f"| `{slug}` | not run | " + " | " * len(VERDICT_COLUMNS) + " |")
            continue
        counts = [sum(c["verdict"] == v for c in claims) for v in VERDICT_COLUMNS]
        lines.append(f"| `{slug}` | {len(claims)} | " + " | ".join(str(n) for n in counts)
                     + f" | [README](repro/papers/{slug}/README.md) |")
    lines += ["", VERDICTS_END]
    return "\n".join(lines)


def _replace_block(text: str, start: str, end: str, block: str) -> str:
    if start not in text or end not in text:
        raise SystemExit(f"README.md has no markers {start} ... {end}")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return head + block + tail


def gallery_page() -> str:
    """docs/gallery.md: every quick-profile figure with its caption and the verdicts it carries."""
    body = gallery_markdown().replace('src="figures/', 'src="../figures/')
    return "\n".join(["# Gallery: every figure of the quick profile", "",
                      "Written by `python -m repro.gallery`. Each caption says what the profile reduces and the verdicts "
                      "of the claims judged on the figure; the numbers behind each figure are in the CSV beside it.", "",
                      body, ""])


def verdicts_page() -> str:
    """docs/verdicts.md: every claim's verdict of record, its scale, and both profiles' verdicts."""
    from repro import record
    from repro.report import CATEGORY_TEXT, verdict_text
    from repro.claims import claim_category

    lines = ["# Every claim's verdict of record", "",
             "Written by `python -m repro.gallery` from `results/{quick,paper}/<slug>/claims.json`. **Scale**: `paper` = "
             "judged on runs at the paper's settings; `quick` = judged on the reduced profile only (no paper-scale run of "
             "it yet); `-` = not evaluated at either scale. The evidence of each verdict: "
             "[figures/paper/claims.md](../figures/paper/claims.md), [figures/quick/claims.md](../figures/quick/claims.md).", ""]
    for slug in registry.slugs():
        lines += [f"## `{slug}`", "", "| claim | the paper says | category | verdict of record | scale | quick | paper |",
                  "|---|---|---|---|---|---|---|"]
        for r in record.records(slug):
            says = _short(r.claim.get("paper_says", ""), 110) if r.claim else ""
            cat = CATEGORY_TEXT[claim_category(r.claim or {})]
            lines.append(f"| {r.id} | {says} | {cat} | {verdict_text(r.claim or {}, r.verdict)} | {r.scale} | {r.quick or 'not run'} | "
                         f"{r.paper or 'not run'} |")
        lines.append("")
    return "\n".join(lines)


PAPER_RECORD_START, PAPER_RECORD_END = "<!-- record:start -->", "<!-- record:end -->"


def paper_record_markdown(slug: str) -> str:
    """The block at the head of a paper README's "Verdicts" section: every claim's verdict of record as the engine
    gives it (category, scale, both profiles, the deciding number or reason), generated so that it cannot go stale."""
    from repro import record
    from repro.claims import claim_category
    from repro.report import CATEGORY_TEXT, effect_text, stand_in_text, verdict_text

    lines = [PAPER_RECORD_START, "",
             "Verdicts of record, generated from `results/{quick,paper}/" + slug + "/claims.json` by `python -m "
             "repro.gallery` (the rules: [docs/judging.md](../../../docs/judging.md); every check and number: "
             "[figures/paper/claims.md](../../../figures/paper/claims.md)). Where the notes below quote other numbers, "
             "this table is the record.", "",
             "| claim | the paper says | category | verdict of record | scale | quick | paper | evidence |",
             "|---|---|---|---|---|---|---|---|"]
    for r in record.records(slug):
        c = r.claim or {}
        says = _short(c.get("paper_says", ""), 90)
        if r.verdict == "not_evaluated":
            ev = stand_in_text(c) or _short(c.get("reason", ""), 110)
        else:
            ev = _short(f"{effect_text(c)}; {c.get('reason', '')}".strip("; "), 160)
        lines.append(f"| {r.id} | {says} | {CATEGORY_TEXT[claim_category(c)]} | {verdict_text(c, r.verdict)} | {r.scale} | "
                     f"{(r.quick or 'not run').replace('_', ' ')} | {(r.paper or 'not run').replace('_', ' ')} | "
                     f"{ev.replace('|', '/')} |")
    return "\n".join(lines + ["", PAPER_RECORD_END])


def _with_paper_record(text: str, slug: str) -> str:
    """``text`` (a paper README) with its generated record block, inserted under its "## Verdicts" heading if absent."""
    block = paper_record_markdown(slug)
    if PAPER_RECORD_START in text:
        return _replace_block(text, PAPER_RECORD_START, PAPER_RECORD_END, block)
    lines = text.split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith("## Verdicts")), None)
    if at is None:
        return text.rstrip("\n") + "\n\n## Verdicts\n\n" + block + "\n"
    return "\n".join(lines[:at + 1] + ["", block] + lines[at + 1:])


def main(argv=None) -> int:
    for slug in registry.slugs():
        p = paths.project_root() / "repro" / "papers" / slug / "README.md"
        if p.exists():
            write_text(p, _with_paper_record(p.read_text(), slug))
    readme = paths.project_root() / "README.md"
    text = _replace_block(readme.read_text(), FINDINGS_START, FINDINGS_END, findings_markdown())
    text = _replace_block(text, TIMING_START, TIMING_END, timing_markdown())
    text = _replace_block(text, VERDICTS_START, VERDICTS_END, record_markdown())
    text = _replace_block(text, PAPER_COST_START, PAPER_COST_END, paper_cost_markdown())
    write_text(readme, text)
    write_text(paths.project_root() / GALLERY_PAGE, gallery_page())
    write_text(paths.project_root() / VERDICTS_PAGE, verdicts_page())
    return 0


if __name__ == "__main__":
    sys.exit(main())
