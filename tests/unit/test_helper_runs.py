"""Several processes on one run's sub-jobs (``repro run --helper``): each sub-job is computed once, both processes
work (neither only waits for the other), the run's own process assembles every result; a dead claimant's claim is
taken over."""

import subprocess
import sys
import threading
import time

import pytest

from repro import experiment as ex
from repro import pipeline


def _task(ctx, keys, computed, who, delay=0.05):
    """A task of independent sub-jobs as the papers write them: one ``resumable`` call per sub-job."""
    out = {}
    for k in keys:
        res = ctx.resumable(k, {"k": k}, lambda k=k: computed.append((who, k)) or time.sleep(delay) or {"value": k * 2})
        if ex.is_pending(res):
            continue
        out[k] = res["value"]
    return out


def test_main_and_helper_share_the_sub_jobs(tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "CLAIM_POLL_S", 0.01)
    keys = [f"job{i}" for i in range(12)]
    computed, results = [], {}

    def run(who):
        ctx = ex.RunContext(profile="smoke", run_id="r", log=lambda m: None, parts_dir=tmp_path)
        if who == "helper":
            ctx.skip_claimed = True
            results[who] = _task(ctx, keys, computed, who)
        else:  # the run's own process: as pipeline.execute_run does it
            results[who] = pipeline._execute_shared("x", None, ctx)

    monkeypatch.setattr(pipeline, "_execute_task", lambda slug, spec, ctx: _task(ctx, keys, computed, "main"))
    threads = [threading.Thread(target=run, args=("main",)), threading.Thread(target=run, args=("helper",))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    done = [k for _, k in computed]
    assert sorted(done) == sorted(keys), "every sub-job computed exactly once"
    assert {w for w, _ in computed} == {"main", "helper"}, "both processes did part of the work"
    assert results["main"] == {k: k * 2 for k in keys}, "the run's own process has every result"
    assert not list(tmp_path.glob("*.claim")), "every claim released"


def test_claim_of_a_dead_process_is_taken_over(tmp_path, monkeypatch):
    import socket

    monkeypatch.setattr(ex, "CLAIM_POLL_S", 0.01)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    ctx = ex.RunContext(profile="smoke", run_id="r", log=lambda m: None, parts_dir=tmp_path)
    computed = []
    _task(ctx, ["a"], computed, "main", delay=0)  # writes the part; find its file name
    part = next(tmp_path.glob("*.json"))
    part.unlink()
    part.with_suffix(".claim").write_text(f"{socket.gethostname()} {dead.pid}")
    out = _task(ctx, ["a"], computed, "main", delay=0)
    assert out == {"a": "aa"} and len(computed) == 2


def test_a_live_claim_is_skipped_by_a_helper_and_waited_for_by_the_run(tmp_path, monkeypatch):
    import os
    import socket

    monkeypatch.setattr(ex, "CLAIM_POLL_S", 0.01)
    ctx = ex.RunContext(profile="smoke", run_id="r", log=lambda m: None, parts_dir=tmp_path, skip_claimed=True)
    computed = []
    _task(ctx, ["a"], computed, "x", delay=0)
    part = next(tmp_path.glob("*.json"))
    part.unlink()
    claim = part.with_suffix(".claim")
    claim.write_text(f"{socket.gethostname()} {os.getpid()}")  # a live claimant
    assert _task(ctx, ["a"], computed, "helper", delay=0) == {} and len(computed) == 1  # skipped
    ctx.skip_claimed = False
    threading.Timer(0.2, claim.unlink).start()  # the claimant gives up without a result: the run computes it
    assert _task(ctx, ["a"], computed, "main", delay=0) == {"a": "aa"} and computed[-1] == ("main", "a")


def test_helper_refuses_a_batch_job():
    specs = ex.job_specs("ota_jammer", "smoke")
    batch = next(rid for rid, s in specs.items() if s.task == ex.BATCH_TASK)
    with pytest.raises(ex.ConfigError, match="batch job"):
        pipeline.help_run("ota_jammer", batch, "smoke")
