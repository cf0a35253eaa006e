"""Runs under stress (test paper toy_data, no dataset needed for fig2): the same run asked for twice at
once is computed once; a damaged run result is never taken for a result; the same seed gives the same
numbers; an interrupted workflow (SIGINT or SIGKILL) resumes to byte-identical figures and verdicts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from .conftest import make_project, project_env, repro, snakemake

pytestmark = pytest.mark.slow
SMOKE = ["--config", "profile=smoke", "papers=[toy_data]"]


def coin_ids(project, env):
    out = repro(project, env, "list", "toy_data", "--profile", "smoke", "--runs").stdout
    return sorted(line.split()[0] for line in out.splitlines() if line.strip().startswith("coin-"))


@pytest.fixture
def slow_coin(tmp_path, empty_mirror):
    """A project whose coin runs each take 1.5 s (a user profile override)."""
    project = make_project(tmp_path / "project")
    (project / "config" / "profiles" / "smoke").mkdir(parents=True)
    (project / "config" / "profiles" / "smoke" / "toy_data.yaml").write_text("pause_s: 1.5\n")
    return project, project_env(project, empty_mirror)


def test_two_runs_of_one_id_compute_it_once(slow_coin):
    project, env = slow_coin
    rid = coin_ids(project, env)[0]
    cmd = [sys.executable, "-m", "repro", "run", "toy_data", rid, "--profile", "smoke", "--force"]
    first = subprocess.Popen(cmd, cwd=project, env=env, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    second = subprocess.Popen(cmd, cwd=project, env=env, stderr=subprocess.PIPE, text=True)
    logs = [p.communicate(timeout=300)[1] for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, logs
    assert sum(": start (coin" in log for log in logs) == 1, logs
    assert any("waiting for it" in log and "computed meanwhile by the other process, kept" in log for log in logs), logs


def test_same_seed_same_numbers_and_damaged_result_recomputed(slow_coin):
    project, env = slow_coin
    rid = coin_ids(project, env)[0]
    out = project / "results" / "smoke" / "toy_data" / "runs" / f"{rid}.json"
    assert repro(project, env, "run", "toy_data", rid, "--profile", "smoke").returncode == 0
    first = json.loads(out.read_text())["result"]
    assert repro(project, env, "run", "toy_data", rid, "--profile", "smoke", "--force").returncode == 0
    assert json.loads(out.read_text())["result"] == first  # same seed, same numbers

    for other in coin_ids(project, env)[1:]:
        assert repro(project, env, "run", "toy_data", other, "--profile", "smoke").returncode == 0
    text = out.read_text()
    out.write_text(text[: len(text) // 2])  # truncated (a copy cut short, a disk error)
    only = repro(project, env, "figure", "toy_data", "fig2", "--profile", "smoke", "--no-run")
    assert only.returncode == 2 and "Traceback" not in only.stderr
    assert "no intact result" in only.stderr and "moved aside" in only.stderr
    assert (out.parent / f"{rid}.json.corrupt").is_file() and not out.exists()
    made = repro(project, env, "figure", "toy_data", "fig2", "--profile", "smoke")
    assert made.returncode == 0, made.stderr[-3000:]
    assert json.loads(out.read_text())["result"] == first


def _build(project, env, kill=None):
    """Build toy_data's smoke DAG, optionally sending ``kill`` to the whole process group once the first
    coin run is written, then resume as the README says: the same command again (after `snakemake --unlock` for a
    SIGKILL), without --rerun-incomplete (the workflow's default profile sets it)."""
    args = [sys.executable, "-m", "snakemake", "--cores", "1", "all", *SMOKE]
    if kill is None:
        done = snakemake(project, env, "--cores", "1", "all", *SMOKE)
        assert done.returncode == 0, done.stderr[-3000:]
        return
    # SIGINT at its default in the child whatever this process inherited (an ignored SIGINT is inherited, and
    # Python then installs no KeyboardInterrupt handler: Snakemake would run to the end)
    proc = subprocess.Popen(args, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    runs = project / "results" / "smoke" / "toy_data" / "runs"
    deadline = time.monotonic() + 300
    while not any(p.name.startswith("coin-") for p in runs.glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.1)
    # half a second on, the second coin run is in its 1.5 s pause: the signal lands while a job runs, not in the
    # instant Snakemake is collecting the finished one (a SIGINT there was once lost: the workflow completed)
    time.sleep(0.5)
    os.killpg(proc.pid, kill)
    proc.wait(timeout=120)
    assert not (project / "results" / "smoke" / "toy_data" / "claims.json").exists()  # really interrupted
    if kill == signal.SIGKILL:  # Snakemake's lock outlives a SIGKILL: released by hand, as Snakemake says
        assert snakemake(project, env, "--unlock", "all", *SMOKE).returncode == 0
    done = snakemake(project, env, "--cores", "1", "all", *SMOKE)  # the same command again (README)
    assert done.returncode == 0, done.stderr[-3000:]


OUTPUTS = ["figures/smoke/toy_data/fig1.csv", "figures/smoke/toy_data/fig2.csv", "figures/smoke/toy_data/fig2.md",
           "results/smoke/toy_data/claims.json", "figures/smoke/claims.md"]


def test_interrupted_workflow_resumes_byte_identical(tmp_path, empty_mirror):
    outputs = {}
    for how in (None, signal.SIGINT, signal.SIGKILL):
        project = make_project(tmp_path / f"p{how or 0}")
        (project / "config" / "profiles" / "smoke").mkdir(parents=True)
        (project / "config" / "profiles" / "smoke" / "toy_data.yaml").write_text("pause_s: 1.5\n")
        _build(project, project_env(project, empty_mirror), kill=how)
        outputs[how] = {o: (project / o).read_bytes() for o in OUTPUTS}
        leftovers = [p for p in (project / "results").rglob("*") if p.is_file() and p.name.endswith(".tmp")]
        assert not leftovers or how == signal.SIGKILL  # a killed writer may leave a hidden temporary, never a result
    assert outputs[signal.SIGINT] == outputs[None]
    assert outputs[signal.SIGKILL] == outputs[None]


# ---- issue 49: the workflow resumes what an interrupted run kept, and the README's recipe always works --------------

BATCH_SETUP = r"""
import json, sys
from repro import experiment as ex
job = next(j for _, j in sorted(ex.job_specs("ota_jammer", "smoke").items())
           if j.task == ex.BATCH_TASK and len(j.params["members"]) >= 3)
print(json.dumps({"id": job.run_id, "members": [m.to_dict() for m in ex.batch_members(job)]}))
"""


def test_the_run_rule_reuses_the_members_a_batch_kept(tmp_path, empty_mirror):
    """An interrupted batch kept 2 of its members under <batch>.parts/: the workflow's job computes only the others
    (the rule used to pass --force, which deleted the parts and recomputed every member)."""
    project = make_project(tmp_path / "project")
    env = project_env(project, empty_mirror, REPRO_ROOT=str(project))
    made = subprocess.run([sys.executable, "-c", BATCH_SETUP], cwd=project, env=env, capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0, made.stderr[-3000:]
    batch = json.loads(made.stdout)
    parts = project / "results" / "smoke" / "ota_jammer" / "runs" / f"{batch['id']}.parts"
    parts.mkdir(parents=True)
    kept = batch["members"][:2]
    for m in kept:  # what the interrupted execution wrote (a marked result: recomputing it would lose the mark)
        (parts / f"{m['run_id']}.json").write_text(json.dumps(
            {"spec": m, "wall_s": 1.0, "cpu_s": 1.0, "provenance": {"device": "cpu"},
             "result": {"status": "ok", "kept_from": "the interrupted execution"}}))
    target = f"results/smoke/ota_jammer/runs/{batch['id']}.json"
    done = snakemake(project, env, "--cores", "1", target, "--config", "profile=smoke", "papers=[ota_jammer]")
    assert done.returncode == 0, done.stderr[-3000:]
    members = json.loads((project / target).read_text())["result"]["members"]
    assert sorted(members) == sorted(m["run_id"] for m in batch["members"])
    reused = [rid for rid, rec in members.items() if rec["result"].get("kept_from")]
    assert sorted(reused) == sorted(m["run_id"] for m in kept)


def test_the_same_command_resumes_after_a_job_finished_unrecorded(slow_coin):
    """Snakemake killed while a job runs; the job still writes its result, which Snakemake never recorded as finished
    (what a Ctrl-C landing as a job ends also leaves). The README's recipe, `snakemake --unlock` then the same
    command, must work: the workflow's default profile sets rerun-incomplete (else IncompleteFilesException)."""
    project, env = slow_coin
    rid = coin_ids(project, env)[0]
    target = f"results/smoke/toy_data/runs/{rid}.json"
    args = ["--cores", "1", target, *SMOKE]
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", *args], cwd=project, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    log = project / "logs" / "smoke" / "toy_data" / f"{rid}.log"
    deadline = time.monotonic() + 300
    while not (log.exists() and ": start (coin" in log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)  # Snakemake only: its job runs on and writes the result
    proc.wait(timeout=60)
    while not (project / target).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    assert (project / target).exists()
    assert snakemake(project, env, "--unlock", *args).returncode == 0
    again = snakemake(project, env, *args)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "IncompleteFilesException" not in again.stderr
