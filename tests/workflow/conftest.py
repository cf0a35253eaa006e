"""Helpers of the workflow tests: a temporary project (workflow/ with its Snakefile, config/) and its commands."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: test-only paper packages (toy_data: one figure needs MNIST, one needs no dataset)
TEST_PAPERS = Path(__file__).resolve().parent / "papers"
SHARED_MNIST = Path(os.environ.get("REPRO_DATA_MIRROR", str(ROOT.parent / "shared" / "datasets")).split(os.pathsep)[0]) / "mnist"


def make_project(where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    for item in ("workflow", "config", "environment.yml"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, where / item)
    return where


def project_env(project: Path, mirror: Path, **extra) -> dict:
    """Offline, an empty data cache of the project's own, ``mirror`` as the only mirror, the test papers."""
    env = {**os.environ, "REPRO_DATA_DIR": str(project / "data"), "REPRO_DATA_MIRROR": str(mirror),
           "REPRO_OFFLINE": "1", "REPRO_PAPER_DIRS": str(TEST_PAPERS), "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    for var in ("REPRO_ROOT", "REPRO_FEMNIST_DIR", "REPRO_FEMNIST_PATH"):
        env.pop(var, None)
    env.update(extra)
    return env


def snakemake(project: Path, env: dict, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=timeout)


def repro(project: Path, env: dict, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "repro", *args], cwd=project, env=env, capture_output=True, text=True,
                          timeout=timeout)


def planned_jobs(dry_run_output: str) -> dict[str, int]:
    """``{rule: count}`` from the job table of ``snakemake -n`` ("Job stats")."""
    jobs, table = {}, False
    for line in dry_run_output.splitlines():
        parts = line.split()
        if parts[:2] == ["job", "count"]:
            table = True
            continue
        if table:
            if len(parts) == 2 and parts[1].isdigit() and parts[0] != "total":
                jobs[parts[0]] = int(parts[1])
            elif parts and parts[0] == "total":
                break
    return jobs


@pytest.fixture
def empty_mirror(tmp_path) -> Path:
    (tmp_path / "empty_mirror").mkdir()
    return tmp_path / "empty_mirror"
