"""`snakemake --lint` is clean; the HTML report covers the figures that exist (also without Snakemake's
records of how they were made, as in a fresh clone) without "Missing metadata" warnings, and each
figure's caption is its own title and measured verdicts."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from .conftest import ROOT, make_project, project_env, snakemake

REPORT = ["-s", "workflow/report/Snakefile"]


@pytest.mark.parametrize("snakefile", ["workflow/Snakefile", "workflow/report/Snakefile"])
def test_lint_is_clean(snakefile, empty_mirror):
    proc = snakemake(ROOT, project_env(ROOT, empty_mirror), "-s", snakefile, "--lint")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "Congratulations, your workflow is in a good condition!" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_report_of_existing_figures_without_metadata_warnings(tmp_path, empty_mirror):
    project = make_project(tmp_path / "project")
    env = project_env(project, empty_mirror)
    smoke = ["--config", "profile=smoke", "papers=[toy_data]"]
    built = snakemake(project, env, "--cores", "2", "all", *smoke)
    assert built.returncode == 0, built.stderr[-3000:]
    shutil.rmtree(project / ".snakemake")  # as in a fresh clone: the figures are there, Snakemake's records are not
    items = snakemake(project, env, *REPORT, "--cores", "2", *smoke)
    assert items.returncode == 0, items.stderr[-3000:]
    made = snakemake(project, env, *REPORT, "--report", "report.html", *smoke)
    out = made.stdout + made.stderr
    assert made.returncode == 0, out[-3000:]
    assert "Missing metadata" not in out and "Report created" in out
    html = (project / "report.html").read_text()
    captions = {m.group(1): m.group(2) for m in re.finditer(
        r'"results/smoke/report/toy_data/(fig\d)\.png": \{"name": [^{}]*?"caption": "(.*?)", "mime_type"', html)}
    assert set(captions) == {"fig1", "fig2"}
    claims = {c["id"]: c for c in json.loads((project / "results/smoke/toy_data/claims.json").read_text())}
    assert "Mean pixel per digit" in captions["fig1"] and "not evaluated" in captions["fig1"]
    # the caption groups the claims by verdict: "Verdicts: reproduced C2."
    assert "Fair coin" in captions["fig2"] and f"{claims['C2']['verdict'].replace('_', ' ')} C2".lower() in captions["fig2"].lower()
