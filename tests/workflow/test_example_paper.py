"""A sixth paper joins by its package alone: the toy paper in docs/example_paper runs its whole DAG."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "example_paper"


@pytest.fixture(scope="module")
def toy_project(tmp_path_factory):
    work = tmp_path_factory.mktemp("toy")
    for item in ("workflow", "config", "environment.yml"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, work / item)
    env = {**os.environ, "REPRO_PAPER_DIRS": str(EXAMPLE), "REPRO_DATA_DIR": str(work / "data")}
    env.pop("REPRO_ROOT", None)
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "all", "--config", "profile=smoke", "papers=[toy_mean]",
           "--quiet", "rules"]
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"toy DAG failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return work


def test_toy_paper_dag_builds_figure_claims_and_report(toy_project):
    for ext in ("pdf", "png", "csv", "md"):
        assert (toy_project / "figures" / "smoke" / "toy_mean" / f"fig1.{ext}").stat().st_size > 0
    claims = {c["id"]: c for c in json.loads((toy_project / "results" / "smoke" / "toy_mean" / "claims.json").read_text())}
    assert set(claims) == {"C1", "C2", "C3"}
    assert claims["C1"]["verdict"] == "reproduced" and claims["C2"]["verdict"] == "reproduced"
    assert claims["C3"]["kind"] == "number" and claims["C3"]["paper_value"] == 0.05 and claims["C3"]["ratio"] is not None
    report = (toy_project / "figures" / "smoke" / "claims.md").read_text()
    assert "## `toy_mean`" in report and "**Paper value:** 0.05" in report


def test_toy_claims_counterfactuals(toy_project, monkeypatch):
    monkeypatch.setenv("REPRO_PAPER_DIRS", str(EXAMPLE))
    monkeypatch.setenv("REPRO_ROOT", str(toy_project))
    code = """
import repro.papers
from repro import experiment as ex, pipeline, registry
registry.papers.cache_clear()
claims = registry.module("toy_mean", "claims").CLAIMS
t, p = pipeline.paper_tables("toy_mean", "smoke"), ex.load_params("toy_mean", "smoke")
for spec in claims:
    assert spec.evaluate(*spec.refute(dict(t), dict(p))).verdict == "not_reproduced", spec.id
    assert spec.evaluate(*spec.support(dict(t), dict(p))).verdict == "reproduced", spec.id
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=os.environ.copy())
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-3000:]
