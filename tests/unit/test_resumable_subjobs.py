"""RunContext.resumable: a task's finished sub-jobs are kept while the job runs, so an interrupted job resumes."""

from repro import experiment as ex


def _ctx(tmp_path):
    return ex.RunContext(profile="smoke", run_id="r", log=lambda m: None, parts_dir=tmp_path / "r.parts")


def test_a_finished_subjob_is_kept_and_reused_only_for_the_same_key_and_fingerprint(tmp_path):
    calls = []

    def compute(v):
        calls.append(v)
        return {"status": "ok", "value": v}

    ctx = _ctx(tmp_path)
    assert ctx.resumable("a", {"eps": 1.0}, lambda: compute(1)) == {"status": "ok", "value": 1}
    # a new process after an interruption: the finished sub-job is read back, not recomputed
    assert _ctx(tmp_path).resumable("a", {"eps": 1.0}, lambda: compute(2)) == {"status": "ok", "value": 1}
    assert _ctx(tmp_path).resumable("a", {"eps": 2.0}, lambda: compute(3))["value"] == 3  # other parameters
    assert _ctx(tmp_path).resumable("b", {"eps": 1.0}, lambda: compute(4))["value"] == 4  # other sub-job
    assert calls == [1, 3, 4]


def test_unfinished_or_unavailable_results_are_not_kept_and_no_dir_means_no_files(tmp_path):
    ctx = _ctx(tmp_path)
    ctx.resumable("a", {}, lambda: {"status": "unavailable", "reason": "missing"})
    assert not list((tmp_path / "r.parts").glob("*.json")) if (tmp_path / "r.parts").exists() else True
    plain = ex.RunContext(profile="smoke", run_id="r", log=lambda m: None)
    assert plain.resumable("a", {}, lambda: {"status": "ok"}) == {"status": "ok"}
    assert not (tmp_path / "r.parts").exists() or not list((tmp_path / "r.parts").iterdir())


def test_a_damaged_part_is_recomputed(tmp_path):
    ctx = _ctx(tmp_path)
    ctx.resumable("a", {}, lambda: {"status": "ok", "value": 1})
    (part,) = (tmp_path / "r.parts").glob("*.json")
    part.write_text("{ truncated")
    assert _ctx(tmp_path).resumable("a", {}, lambda: {"status": "ok", "value": 2})["value"] == 2


def test_a_sub_job_with_an_infinite_parameter_is_kept_too(tmp_path):
    """eps = inf is stored as Infinity (earlier parts: the string "inf"); the kept part must still match its float
    fingerprint."""
    calls = []

    def compute(v):
        calls.append(v)
        return {"status": "ok", "value": v}

    assert _ctx(tmp_path).resumable("inf", {"epsilon": float("inf"), "T": 100}, lambda: compute(1))["value"] == 1
    assert _ctx(tmp_path).resumable("inf", {"epsilon": float("inf"), "T": 100}, lambda: compute(2))["value"] == 1
    assert calls == [1]


def test_each_sub_job_records_where_it_was_computed_and_a_kept_one_keeps_that_record(tmp_path):
    first = ex.RunContext(profile="smoke", run_id="r", device="cpu", log=lambda m: None, parts_dir=tmp_path / "r.parts")
    first.resumable("a", {}, lambda: {"status": "ok", "value": 1})
    rec = first.sub_jobs["a"]
    assert rec["device"] == "cpu" and rec["kept"] is False and rec["cpu_s"] >= 0 and rec["torch"]
    # resumed on another device: the kept part still says it was computed on the CPU
    second = ex.RunContext(profile="smoke", run_id="r", device="cuda:0", log=lambda m: None,
                           parts_dir=tmp_path / "r.parts")
    second.resumable("a", {}, lambda: {"status": "ok", "value": 2})
    assert second.sub_jobs["a"]["device"] == "cpu" and second.sub_jobs["a"]["kept"] is True


def test_a_part_written_before_provenance_was_stored_says_so(tmp_path):
    ctx = _ctx(tmp_path)
    ctx.resumable("a", {}, lambda: {"status": "ok", "value": 1})
    from repro.results import read_json, write_json
    (part,) = (tmp_path / "r.parts").glob("*.json")
    doc = read_json(part)
    doc.pop("provenance")
    write_json(part, doc)
    again = _ctx(tmp_path)
    again.resumable("a", {}, lambda: {"status": "ok", "value": 2})
    assert again.sub_jobs["a"]["device"].startswith("not recorded") and again.sub_jobs["a"]["kept"] is True
