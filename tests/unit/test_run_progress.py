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
