"""`repro evaluate` refuses to judge a paper whose figure CSVs are missing (it used to write an
all-not-evaluated claims.json and exit 0); the workflow's claims rule takes every CSV as input, so a
normal build never meets this case."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from repro.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "config").mkdir()
    monkeypatch.setenv("REPRO_ROOT", str(tmp_path))
    return tmp_path


def test_no_figures_exits_nonzero_with_one_paragraph(project, capsys):
    assert main(["evaluate", "age_dp", "--profile", "smoke"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("repro: error: ") and "\n" not in err, err
    for part in ("figures/smoke/age_dp/fig2.csv", "figures/smoke/age_dp/privacy.csv",
                 "snakemake --cores all results/smoke/age_dp/claims.json", "repro figure age_dp FIG --profile smoke"):
        assert part in err, (part, err)
    assert "--partial" not in err  # nothing to judge: --partial would not help
    assert not (project / "results").exists()  # nothing written


def test_some_figures_missing_needs_partial(project, capsys):
    src = ROOT / "figures" / "quick" / "age_dp"
    csvs = sorted(src.glob("*.csv"))
    if not csvs:
        pytest.skip("no committed quick figure CSVs of age_dp")
    dest = project / "figures" / "quick" / "age_dp"
    dest.mkdir(parents=True)
    for p in csvs[1:]:
        shutil.copy(p, dest / p.name)
    assert main(["evaluate", "age_dp", "--profile", "quick"]) == 2
    err = capsys.readouterr().err
    assert f"figures/quick/age_dp/{csvs[0].name}" in err and "--partial" in err
    assert not (project / "results").exists()
    assert main(["evaluate", "age_dp", "--profile", "quick", "--partial"]) == 0
    assert (project / "results" / "quick" / "age_dp" / "claims.json").is_file()
