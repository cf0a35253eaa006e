"""The SLURM profile dry-runs the paper profile; training runs ask for a GPU on the GPU partition."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

from repro import experiment as ex
from repro import registry

ROOT = Path(__file__).resolve().parents[2]


def test_slurm_profile_dry_run_requests_gpus_for_training_runs(tmp_path):
    for item in ("workflow", "config", "profiles", "environment.yml"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / item)
    cmd = [sys.executable, "-m", "snakemake", "--profile", "profiles/slurm", "-n", "all",
           "--config", "profile=paper", "device=cuda"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    runs = {slug: ex.run_resources(slug, "paper") for slug in registry.slugs()}
    n_gpu = sum(r["gpu"] for res in runs.values() for r in res.values())
    n_runs = sum(len(res) for res in runs.values())
    assert 0 < n_gpu < n_runs  # analytic papers (age_dp, acfl) train no torch model
    lines = re.findall(r"resources: .*", out)
    assert sum("slurm_partition=gpu" in x and "gpu=1" in x for x in lines) == n_gpu
    assert sum("gpu=0" in x and "slurm_partition=cpu" in x for x in lines) == n_runs - n_gpu
