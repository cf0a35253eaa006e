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


def test_slurm_profile_sends_every_job_to_the_configured_partitions(tmp_path):
    """The user's partitions reach every submitted job (no name hard-coded in the profile); with device=cpu no
    job asks for a GPU; the profile does not override a run's thread count (a local run's numbers need it)."""
    for item in ("Snakefile", "workflow", "config", "profiles", "environment.yml"):
        src = ROOT / item
        if src.exists():
            (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / item)
    cmd = [sys.executable, "-m", "snakemake", "--profile", "profiles/slurm", "-n", "all",
           "--config", "profile=smoke", "slurm_partitions={cpu: mycpu, gpu: mygpu}"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [x for x in re.findall(r"resources: .*", proc.stdout + proc.stderr) if "tmpdir" in x]
    submitted = [x for x in lines if "slurm_partition=" in x]
    assert submitted and all("slurm_partition=mycpu" in x for x in submitted)
    assert not any("gpu=1" in x for x in lines)
    assert "set-threads" not in (ROOT / "profiles" / "slurm" / "config.yaml").read_text()


def test_device_cuda_on_a_cluster_without_gpus_stops_before_submitting(tmp_path):
    """A real (not dry) run of the SLURM profile with device=cuda on a cluster whose GPU partition has no GPU (fake
    sinfo/sbatch/sacct/squeue on PATH): one line from the package, before sbatch refuses every training run with
    "Invalid generic resource (gres) specification" (issue 49)."""
    import os

    for item in ("workflow", "config", "profiles", "environment.yml"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / item)
    fake = tmp_path / "fake_slurm"
    fake.mkdir()
    scripts = {"sinfo": 'echo "$*" >> "$(dirname "$0")/sinfo.calls"; echo "(null)"', "sacct": "exit 0",
               "squeue": "exit 0", "sbatch": 'echo "sbatch: error: Invalid generic resource (gres) specification" >&2; '
                                             'echo submitted >> "$(dirname "$0")/sbatch.calls"; exit 1'}
    for name, body in scripts.items():
        (fake / name).write_text(f"#!/bin/sh\n{body}\n")
        (fake / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}", "REPRO_OFFLINE": "1"}
    cmd = ["timeout", "240", sys.executable, "-m", "snakemake", "--profile", "profiles/slurm",
           "--config", "profile=smoke", "device=cuda"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    errors = [line for line in out.splitlines() if line.startswith("repro: error:")]
    assert len(errors) == 1, out[-3000:]
    assert "SLURM partition 'gpu'" in errors[0] and "reports no GPU" in errors[0] and "device=cpu" in errors[0]
    assert "Invalid generic resource" not in out and not (fake / "sbatch.calls").exists()
    assert "--partition gpu" in (fake / "sinfo.calls").read_text()
