"""Data availability is an input of the runs (the test paper toy_data: fig1 needs MNIST, fig2 no data).

Offline without MNIST the DAG completes: the MNIST run records "unavailable", fig1 is marked, its claim
is not evaluated, fig2 and its claim are regenerated. Once MNIST is provided, exactly the MNIST run
(and the figure, claims and report built on it) reruns; afterwards nothing is left to do.
"""

from __future__ import annotations

import json
import shutil

import pytest

from .conftest import SHARED_MNIST, make_project, planned_jobs, project_env, snakemake

pytestmark = pytest.mark.slow
SMOKE = ["--config", "profile=smoke", "papers=[toy_data]"]


def claims(project):
    return {c["id"]: c for c in json.loads((project / "results/smoke/toy_data/claims.json").read_text())}


def run_files(project):
    return {p.name: json.loads(p.read_text()) for p in (project / "results/smoke/toy_data/runs").glob("*.json")}


def test_offline_without_data_degrades_then_a_data_fix_reruns_exactly_what_needs_it(tmp_path, empty_mirror):
    if not SHARED_MNIST.is_dir():
        pytest.skip(f"no MNIST copy at {SHARED_MNIST}")
    project = make_project(tmp_path / "project")
    env = project_env(project, empty_mirror)

    built = snakemake(project, env, "--cores", "2", "all", *SMOKE)
    assert built.returncode == 0, built.stderr[-4000:]
    status = json.loads((project / "data/status/mnist.json").read_text())
    assert status["available"] is False and "offline" in status["reason"]
    runs = run_files(project)
    pixel = next(r for r in runs.values() if r["spec"]["task"] == "mean_pixel")
    assert pixel["result"]["status"] == "unavailable" and pixel["datasets"] == {"mnist": {"available": False, "content_id": None}}
    c = claims(project)
    assert c["C1"]["verdict"] == "not_evaluated" and c["C2"]["verdict"] != "not_evaluated"
    assert "NOT REGENERATED" not in (project / "figures/smoke/toy_data/fig2.md").read_text()
    coin_bytes = {n: (project / "results/smoke/toy_data/runs" / n).read_bytes() for n, r in runs.items() if r["spec"]["task"] == "coin"}
    fig2 = (project / "figures/smoke/toy_data/fig2.csv").read_bytes()

    # nothing changed: nothing to do
    assert "Nothing to be done" in snakemake(project, env, "-n", "all", *SMOKE).stdout

    # the data is fixed: a mirror with MNIST appears
    mirror = tmp_path / "mirror"
    shutil.copytree(SHARED_MNIST, mirror / "mnist")
    env = project_env(project, mirror)
    plan = snakemake(project, env, "-n", "all", *SMOKE)
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert planned_jobs(plan.stdout) == {"run": 1, "figure": 1, "claims": 1, "claims_report": 1, "all": 1}, plan.stdout
    rebuilt = snakemake(project, env, "--cores", "2", "all", *SMOKE)
    assert rebuilt.returncode == 0, rebuilt.stderr[-4000:]
    runs = run_files(project)
    pixel = next(r for r in runs.values() if r["spec"]["task"] == "mean_pixel")
    assert "mean" in pixel["result"] and pixel["datasets"]["mnist"]["available"] is True
    assert claims(project)["C1"]["verdict"] != "not_evaluated"
    assert all((project / "results/smoke/toy_data/runs" / n).read_bytes() == b for n, b in coin_bytes.items())  # untouched
    assert (project / "figures/smoke/toy_data/fig2.csv").read_bytes() == fig2

    # the cache was filled from the mirror meanwhile (the places changed, the outcome did not): nothing reruns
    again = snakemake(project, env, "-n", "all", *SMOKE)
    assert "Nothing to be done" in again.stdout, again.stdout[-3000:]

    # the data is lost again: the MNIST run reruns and says so
    shutil.rmtree(mirror / "mnist")
    shutil.rmtree(project / "data" / "raw" / "mnist")
    plan = snakemake(project, env, "-n", "all", *SMOKE)
    assert planned_jobs(plan.stdout).get("run") == 1, plan.stdout


# the run results, figures and claims of toy_data (placeholders, nothing trained) and MNIST's status file as a
# finished build with MNIST in the mirror leaves them
BUILT = r"""
from repro import experiment as ex
from repro.data.status import local_status, write_status_file
from repro.results import write_json, write_text
for fig in ex.figure_specs("toy_data", "smoke"):
    for job in fig.job_specs:
        write_json(f"results/smoke/toy_data/runs/{job.run_id}.json",
                   {"spec": job.to_dict(), "result": {"status": "ok", "placeholder": True}})
    for ext in ("pdf", "png", "csv", "md"):
        write_text(f"figures/smoke/toy_data/{fig.fig_id}.{ext}", "placeholder\n")
write_text("results/smoke/toy_data/claims.json", "[]\n")
write_text("figures/smoke/claims.md", "placeholder\n")
st = local_status("mnist")
assert st.available, st.reason
write_status_file("data/status/mnist.json", st)
"""


def test_a_dry_run_during_a_data_outage_writes_nothing_and_the_data_back_reruns_nothing(tmp_path):
    """Issue 49: MNIST away from the mirror, `snakemake -n`, MNIST back unchanged: the dry run planned the MNIST run
    (as a real run would) but rewrote data/status/mnist.json, so afterwards that run was planned again."""
    import os
    import subprocess
    import sys
    import time

    if not SHARED_MNIST.is_dir():
        pytest.skip(f"no MNIST copy at {SHARED_MNIST}")
    project = make_project(tmp_path / "project")
    mirror = tmp_path / "mirror"
    shutil.copytree(SHARED_MNIST, mirror / "mnist")
    env = project_env(project, mirror, REPRO_ROOT=str(project))
    made = subprocess.run([sys.executable, "-c", BUILT], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr[-3000:]
    built = time.time() - 60  # the status file written first, then every output
    for path in (project / "data").rglob("*"):
        os.utime(path, (built, built))
    for path in [*(project / "results").rglob("*"), *(project / "figures").rglob("*")]:
        if path.is_file():
            os.utime(path, (built + 30, built + 30))
    assert "Nothing to be done" in snakemake(project, env, "-n", "all", *SMOKE).stdout

    def disk():
        return {p: (p.read_bytes(), p.stat().st_mtime_ns) for d in ("data", "results", "figures")
                for p in (project / d).rglob("*") if p.is_file()}

    before = disk()
    shutil.move(mirror / "mnist", tmp_path / "mnist-away")
    plan = snakemake(project, env, "-n", "all", *SMOKE)
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert disk() == before, "a dry run changed files on disk"
    assert planned_jobs(plan.stdout).get("run") == 1, plan.stdout[-3000:]  # what a real run would do: the MNIST run
    assert "dry run: nothing written" in plan.stderr

    shutil.move(tmp_path / "mnist-away", mirror / "mnist")
    again = snakemake(project, env, "-n", "all", *SMOKE)
    assert "Nothing to be done" in again.stdout, again.stdout[-3000:]
