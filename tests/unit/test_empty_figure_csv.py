"""A committed figure whose CSV holds only its header row says why in words in its .md (never a silent empty table)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_header_only_figure_csv_is_explained_in_its_md():
    empty = [p for p in sorted((ROOT / "figures").glob("*/*/*.csv"))
             if p.read_text().count("\n") <= 1 and p.with_suffix(".md").exists()]
    assert empty, "no header-only figure CSV committed: the check has nothing to look at"
    silent = [str(p.relative_to(ROOT)) for p in empty if "holds only its header row" not in p.with_suffix(".md").read_text()]
    assert not silent, f"header-only CSVs whose .md does not say why: {silent}"
