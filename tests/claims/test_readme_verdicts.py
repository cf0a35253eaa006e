"""The README's verdict table is the one the regenerated claims give (python -m repro.gallery rewrites it)."""

from repro import paths
from repro.gallery import verdicts_markdown


def test_readme_verdict_table_matches_the_claims():
    readme = (paths.project_root() / "README.md").read_text()
    assert verdicts_markdown("quick") in readme, "README verdict table is stale: run `python -m repro.gallery`"
