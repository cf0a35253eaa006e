"""The whole DAG (data -> runs -> figures -> claims -> claims table) on the tiny `smoke` profile."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repro import experiment as ex
from repro import registry
from repro.claims import VERDICTS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def smoke_dir(tmp_path_factory):
    work = tmp_path_factory.mktemp("smoke")
    for item in ("workflow", "config", "environment.yml"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, work / item)
    env = {**os.environ, "REPRO_DATA_DIR": str(ROOT / "data")}
    env.pop("REPRO_ROOT", None)
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", "all", "--config", "profile=smoke", "--quiet", "rules"]
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, f"smoke DAG failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
    return work


@pytest.mark.slow
def test_smoke_dag_builds_every_figure_and_claim(smoke_dir):
    for slug in registry.slugs():
        for fig in ex.figure_specs(slug, "smoke"):
            for ext in ("pdf", "png", "csv", "md"):
                p = smoke_dir / "figures" / "smoke" / slug / f"{fig.fig_id}.{ext}"
                assert p.exists() and p.stat().st_size > 0, f"missing {p}"
        claims = json.loads((smoke_dir / "results" / "smoke" / slug / "claims.json").read_text())
        assert claims and all(c["verdict"] in VERDICTS for c in claims)
    report = (smoke_dir / "figures" / "smoke" / "claims.md").read_text()
    assert all(f"## `{slug}`" in report for slug in registry.slugs())


@pytest.mark.slow
def test_smoke_dag_is_up_to_date_after_build(smoke_dir):
    """A second invocation has nothing to do (results are reused, nothing is recomputed)."""
    env = {**os.environ, "REPRO_DATA_DIR": str(ROOT / "data")}
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "all", "--config", "profile=smoke", "-n"],
                          cwd=smoke_dir, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_bad_config_value_is_named():
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "all", "--config", "profile=fast"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "fast" in proc.stdout + proc.stderr


def test_unknown_figure_is_named(capsys):
    from repro.cli import main

    assert main(["figure", "age_dp", "fig99", "--profile", "smoke", "--no-run"]) == 2
    err = capsys.readouterr().err
    assert "fig99" in err and "allowed" in err
