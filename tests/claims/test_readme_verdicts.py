"""The README's verdict table is the one the regenerated claims give (python -m repro.gallery rewrites it)."""

from repro import paths
from repro.gallery import verdicts_markdown


def test_readme_verdict_table_matches_the_claims():
    readme = (paths.project_root() / "README.md").read_text()
    assert verdicts_markdown("quick") in readme, "README verdict table is stale: run `python -m repro.gallery`"


def test_readme_paper_cost_table_is_the_measured_one():
    from repro.gallery import paper_cost_markdown

    readme = (paths.project_root() / "README.md").read_text()
    block = paper_cost_markdown()
    assert block in readme, "README paper-profile cost table is stale: run `python -m repro.gallery`"
    if (paths.project_root() / "docs" / "costs.md").exists():
        assert "total" not in block and "| `dp_ditto` |" in block  # one row per paper, from docs/costs.md
