"""Providing a dataset reruns exactly the runs that read it (smoke profile, a dry run, nothing trained).

A temporary project gets every job's result file (a valid placeholder), every figure and claims file, and the
dataset status files, all up to date; then one dataset's status file says the dataset appeared. The run jobs
``snakemake -n`` schedules must be exactly the jobs that read it, decided here from the run specs themselves:
dp_ditto's panel dataset, wpfl_minmax's configuration, ota_jammer's FEMNIST runs (real FEMNIST where
provided, else MNIST). The smoke profile gets one CIFAR-10 panel per paper through the user's override files
(config/profiles/smoke/<slug>.yaml), so CIFAR-10 is read by some jobs and not by others.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from .conftest import make_project, project_env, snakemake

pytestmark = pytest.mark.slow

PAPERS = ("dp_ditto", "wpfl_minmax", "ota_jammer")
SMOKE = ["--config", "profile=smoke", f"papers=[{','.join(PAPERS)}]"]
#: the user's overrides: dp_ditto's Fig. 5 and wpfl_minmax's proposed series also on CIFAR-10
OVERRIDES = {"dp_ditto": "fig5_panels: [dnn_mnist, cnn_cifar10]\n",
             "wpfl_minmax": "configs: [mlr_mnist, cnn_cifar10]\n"}
CIFAR_CONFIGS = {"cnn_cifar10"}

# what the project writes, in one process inside the project: placeholders of every job's result (valid run
# files), every figure and claims file, the status files of the datasets; prints the jobs of every paper
SETUP = r"""
import json, sys
from repro import experiment as ex
from repro.data.status import DatasetStatus, write_status_file
from repro.results import write_json, write_text
jobs = {}
for slug in sys.argv[1:]:
    jobs[slug] = {}
    for fig in ex.figure_specs(slug, "smoke"):
        for job in fig.job_specs:
            jobs[slug][job.run_id] = [m.to_dict() for m in ex.batch_members(job)]
            write_json(f"results/smoke/{slug}/runs/{job.run_id}.json",
                       {"spec": job.to_dict(), "result": {"status": "unavailable", "reason": "placeholder"}})
        for ext in ("pdf", "png", "csv", "md"):
            write_text(f"figures/smoke/{slug}/{fig.fig_id}.{ext}", "placeholder\n")
    write_text(f"results/smoke/{slug}/claims.json", "[]\n")
write_text("figures/smoke/claims.md", "placeholder\n")
for name in ("mnist", "fashion_mnist", "cifar10", "femnist"):
    write_status_file(f"data/status/{name}.json", DatasetStatus(name, False, None, None, False, "-", "not found"))
print(json.dumps(jobs))
"""


def reads(slug: str, member: dict) -> set[str]:
    """What a run reads, from its spec (independent of the package's run_datasets)."""
    p = member["params"]
    if slug == "dp_ditto":
        if member["task"] == "fig2":
            return {q["dataset"] for q in p["measured_panels"].values()}
        return {p["dataset"]}
    if slug == "wpfl_minmax":
        cfgs = [p["config"]] if member["task"] == "train_group" else p.get("configs", [])
        return {"cifar10" if c in CIFAR_CONFIGS else "fashion_mnist" if c == "cnn_fmnist" else "mnist" for c in cfgs}
    if slug == "ota_jammer":
        return {"femnist", "mnist"} if member["task"] == "regime" or p.get("data") == "femnist" else set()
    raise AssertionError(slug)


def scheduled_runs(dry_run_stdout: str) -> set[str]:
    """Result files of the run jobs a dry run plans (``output: results/smoke/<slug>/runs/<id>.json``)."""
    out = set()
    for line in dry_run_stdout.splitlines():
        line = line.strip()
        if line.startswith("output: results/smoke/") and "/runs/" in line:
            out.add(line.split("output: ", 1)[1].split(",")[0].strip())
    return out


def test_a_dataset_appearing_reruns_exactly_the_runs_that_read_it(tmp_path, empty_mirror):
    project = make_project(tmp_path / "project")
    for slug, text in OVERRIDES.items():
        (project / "config" / "profiles" / "smoke").mkdir(parents=True, exist_ok=True)
        (project / "config" / "profiles" / "smoke" / f"{slug}.yaml").write_text(text)
    env = project_env(project, empty_mirror, REPRO_ROOT=str(project))
    made = subprocess.run([sys.executable, "-c", SETUP, *PAPERS], cwd=project, env=env, capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0, made.stderr[-3000:]
    jobs = json.loads(made.stdout)
    expected = {ds: {f"results/smoke/{slug}/runs/{jid}.json" for slug in PAPERS for jid, members in jobs[slug].items()
                     if any(ds in reads(slug, m) for m in members)} for ds in ("cifar10", "femnist")}
    assert expected["cifar10"] and expected["femnist"]  # the check below is not vacuous
    every = {f"results/smoke/{slug}/runs/{jid}.json" for slug in PAPERS for jid in jobs[slug]}
    assert expected["cifar10"] < every and expected["femnist"] < every

    # every output newer than every input: nothing to do
    later = time.time() + 5
    for path in project.rglob("*"):
        if path.is_file() and path.parts[-3:-1] != ("data", "status") and any(p in path.parts for p in ("results", "figures")):
            os.utime(path, (later, later))
    plan = snakemake(project, env, "-n", "all", *SMOKE)
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert "Nothing to be done" in plan.stdout, plan.stdout[-3000:]

    for name in ("cifar10", "femnist"):
        # the dataset appears: its status file changes (what sync_status_file writes when the data is provided)
        status = project / "data" / "status" / f"{name}.json"
        status.write_text(json.dumps({"dataset": name, "available": True, "content_id": f"test:{name}", "reason": None}))
        newer = later + 10
        os.utime(status, (newer, newer))
        plan = snakemake(project, env, "-n", "all", *SMOKE)
        assert plan.returncode == 0, plan.stderr[-3000:]
        got = scheduled_runs(plan.stdout)
        assert got == expected[name], (name, sorted(got ^ expected[name]))
        os.utime(status, (later - 10, later - 10))  # back to older than every output for the next dataset
