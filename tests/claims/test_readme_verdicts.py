"""The README's findings and verdict tables are the ones the regenerated claims give (python -m repro.gallery
rewrites them)."""

import re

from repro import paths, record
from repro.gallery import FINDINGS_END, FINDINGS_START, HEADLINES, record_markdown
from repro.report import verdict_text


def _readme():
    return (paths.project_root() / "README.md").read_text()


def test_readme_verdict_table_is_the_verdicts_of_record():
    assert record_markdown() in _readme(), "README verdict table is stale: run `python -m repro.gallery`"


def test_readme_findings_carry_each_headline_claims_verdict_of_record_and_scale():
    """Numbers may move in their last digit between machines; the verdict and its scale may not."""
    block = _readme().split(FINDINGS_START, 1)[1].split(FINDINGS_END, 1)[0]
    rows = {}
    for line in block.splitlines():
        m = re.match(r"\| \[`(\w+)`\]\([^)]*\) \| ([^:|]+)[:|]", line)
        if m:
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            rows[(m.group(1), m.group(2).strip())] = (cells[-2], cells[-1].strip("*"))
    for slug, ids in HEADLINES.items():
        recs = {r.id: r for r in record.records(slug)}
        for cid in ids:
            r = recs[cid]
            assert rows.get((slug, cid)) == (r.scale, verdict_text(r.claim, r.verdict)), \
                f"README findings row {slug} {cid} is stale: run `python -m repro.gallery`"


def test_readme_paper_cost_table_is_the_measured_one():
    from repro.gallery import paper_cost_markdown

    block = paper_cost_markdown()
    assert block in _readme(), "README paper-profile cost table is stale: run `python -m repro.gallery`"
    if (paths.project_root() / "docs" / "costs.md").exists():
        assert "total" not in block and "| `dp_ditto` |" in block  # one row per paper, from docs/costs.md


def test_each_paper_readme_carries_its_generated_verdicts_of_record():
    from repro import registry
    from repro.gallery import paper_record_markdown

    for slug in registry.slugs():
        text = (paths.project_root() / "repro" / "papers" / slug / "README.md").read_text()
        assert paper_record_markdown(slug) in text, f"{slug} README's verdicts are stale: run `python -m repro.gallery`"
