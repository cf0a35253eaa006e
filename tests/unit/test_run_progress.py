"""RunContext: progress lines with an ETA for long runs."""

from repro import experiment as ex


def test_run_progress_logs_the_fraction_and_an_eta():
    lines = []
    ctx = ex.RunContext(profile="smoke", run_id="r", log=lines.append)
    import time as _time

    now = _time.monotonic()
    ctx.started = now - 100.0  # 100 s elapsed
    line = ctx.progress(25, 100, "rounds")
    assert lines == [line] and line.startswith("rounds 25/100 (25 %)")
    eta = line.split("ETA ")[1]
    h, m, s = (int(v) for v in eta.split(":"))
    assert 295 <= 3600 * h + 60 * m + s <= 305  # 3 x the elapsed time is left
    assert ctx.progress(0, 10).endswith("ETA ?")


def _eta_seconds(line):
    h, m, s = (int(v) for v in line.split("ETA ")[1].split(":"))
    return 3600 * h + 60 * m + s


def test_a_resumed_run_does_not_count_kept_sub_jobs_in_its_eta(tmp_path):
    import time as _time

    ctx = ex.RunContext(profile="smoke", run_id="r", log=lambda _: None, parts_dir=tmp_path)
    # an earlier execution kept 8 of 10 equal sub-jobs
    for i in range(8):
        ctx.resumable(f"job{i}", {"i": i}, lambda i=i: {"status": "ok", "i": i})
    resumed = ex.RunContext(profile="smoke", run_id="r", log=lambda _: None, parts_dir=tmp_path)
    resumed.started = _time.monotonic() - 60.0
    done = 0
    for i in range(9):  # 8 kept (instant), then 1 computed in the 60 s elapsed
        resumed.resumable(f"job{i}", {"i": i}, lambda i=i: {"status": "ok", "i": i})
        done += 1
        line = resumed.progress(done, 10, "jobs")
    assert [v["kept"] for v in resumed.sub_jobs.values()] == [True] * 8 + [False]
    # one job computed in 60 s, one left: about 60 s, not the 7.5 s a rate over all 9 "done" jobs would give
    assert 55 <= _eta_seconds(line) <= 65
