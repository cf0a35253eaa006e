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


# ---- claims with a lease (issue 49): a helper that dies on another machine never blocks the run --------------------

def _part_and_claim(tmp_path):
    """The part file a sub-job "a" of _task writes, removed again, and its claim file's path."""
    ctx = ex.RunContext(profile="smoke", run_id="r", log=lambda m: None, parts_dir=tmp_path)
    _task(ctx, ["a"], [], "setup", delay=0)
    part = next(tmp_path.glob("*.json"))
    part.unlink()
    return part.with_suffix(".claim")


def _foreign_claim(claim, age_s, lease=None):
    """A claim held by a process on another host whose last heartbeat was ``age_s`` seconds ago."""
    import os

    claim.write_text("other-host.example 4242" + (f" {lease:g}" if lease else ""))
    then = time.time() - age_s
    os.utime(claim, (then, then))


def _in_thread(fn, timeout=20):
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("value", fn()), daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "still waiting for a claim whose claimant is gone"
    return out["value"]


def test_a_foreign_claim_whose_heartbeat_is_older_than_its_lease_is_taken_over(tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "CLAIM_POLL_S", 0.01)
    claim = _part_and_claim(tmp_path)
    logs, computed = [], []
    ctx = ex.RunContext(profile="smoke", run_id="r", log=logs.append, parts_dir=tmp_path)
    _foreign_claim(claim, age_s=3600, lease=300)  # a helper SIGKILLed an hour ago on another machine
    assert _in_thread(lambda: _task(ctx, ["a"], computed, "main", delay=0)) == {"a": "aa"}
    assert computed == [("main", "a")] and not claim.exists()
    assert any("other-host.example" in m and "stale" in m and "taken over" in m for m in logs), logs
    # a claim written without a lease (before leases existed): the default lease applies
    next(tmp_path.glob("*.json")).unlink()
    _foreign_claim(claim, age_s=ex.CLAIM_LEASE_S + 60)
    assert _in_thread(lambda: _task(ctx, ["a"], computed, "main", delay=0)) == {"a": "aa"} and len(computed) == 2


def test_a_foreign_claim_with_a_fresh_heartbeat_is_live_until_its_lease_expires(tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "CLAIM_POLL_S", 0.01)
    claim = _part_and_claim(tmp_path)
    computed = []
    helper = ex.RunContext(profile="smoke", run_id="r", log=lambda m: None, parts_dir=tmp_path, skip_claimed=True)
    _foreign_claim(claim, age_s=1, lease=300)
    assert _task(helper, ["a"], computed, "helper", delay=0) == {} and not computed  # live: skipped
    # the run waits for it; the claimant dies (no more heartbeats): once the lease is over, the run computes it
    _foreign_claim(claim, age_s=0, lease=0.5)
    run = ex.RunContext(profile="smoke", run_id="r", log=lambda m: None, parts_dir=tmp_path)
    t0 = time.monotonic()
    assert _in_thread(lambda: _task(run, ["a"], computed, "main", delay=0)) == {"a": "aa"}
    assert time.monotonic() - t0 >= 0.4 and computed == [("main", "a")]


def test_the_claimant_refreshes_its_claim_while_it_computes(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRO_CLAIM_LEASE_S", "0.5")  # a heartbeat every 0.1 s
    seen = []

    def slow():
        claim = ex._Claim(next(tmp_path.glob("*.claim")))
        for _ in range(6):  # 1.2 s: more than twice the lease
            time.sleep(0.2)
            seen.append((claim.age(), claim.alive()))
        return {"value": 1}

    ctx = ex.RunContext(profile="smoke", run_id="r", log=lambda m: None, parts_dir=tmp_path)
    assert ctx.resumable("a", {}, slow) == {"value": 1}
    assert all(age < 0.5 and alive for age, alive in seen), seen
    assert not list(tmp_path.glob("*.claim"))


def test_release_stale_frees_the_claims_of_dead_helpers_and_keeps_live_ones(tmp_root, monkeypatch, capsys):
    from repro import cli, paths

    rid = sorted(ex.job_specs("wpfl_minmax", "smoke"))[0]
    parts = pipeline._parts_dir(paths.run_result_path("smoke", "wpfl_minmax", rid))
    parts.mkdir(parents=True)
    stale, live = parts / "aaaa.claim", parts / "bbbb.claim"
    _foreign_claim(stale, age_s=1000, lease=300)
    _foreign_claim(live, age_s=2, lease=300)
    assert cli.main(["run", "wpfl_minmax", rid, "--profile", "smoke", "--release-stale"]) == 0
    err = capsys.readouterr().err
    assert not stale.exists() and live.exists()
    assert "1 stale claim(s) released, 1 live claim(s) kept" in err and "process 4242 on other-host.example" in err
    # a helper known dead, 100 s without a heartbeat: released without waiting out its 300 s lease; a live one never
    # (its heartbeat is at most 30 s old), even when asked for 1 s
    quiet = parts / "cccc.claim"
    _foreign_claim(quiet, age_s=100, lease=300)
    assert cli.main(["run", "wpfl_minmax", rid, "--profile", "smoke", "--release-stale", "1"]) == 0
    assert not quiet.exists() and live.exists()
    monkeypatch.setenv("REPRO_CLAIM_LEASE_S", "soon")
    assert cli.main(["run", "wpfl_minmax", rid, "--profile", "smoke", "--release-stale"]) == 2
    assert "REPRO_CLAIM_LEASE_S='soon'" in capsys.readouterr().err
