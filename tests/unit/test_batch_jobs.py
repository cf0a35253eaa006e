"""Batch jobs (repro.experiment, "Jobs"): several short runs in one process, each with exactly its own result."""

import os

import pytest

from repro import experiment as ex

SLUG = "ota_jammer"  # the paper that packs its training runs (runs_per_job 10 in quick and smoke)




def test_every_run_is_in_exactly_one_job_of_at_most_runs_per_job_runs():
    figs = ex.figure_specs(SLUG, "smoke")
    per_job = ex.load_params(SLUG, "smoke")["runs_per_job"]
    jobs = ex.job_specs(SLUG, "smoke")
    held: dict[str, str] = {}
    for jid, job in jobs.items():
        members = ex.batch_members(job)
        assert len(members) <= per_job
        for m in members:
            assert m.run_id not in held, f"{m.run_id} in {held.get(m.run_id)} and {jid}"
            held[m.run_id] = jid
    assert set(held) == set(ex.run_specs(SLUG, "smoke"))
    assert any(j.task == ex.BATCH_TASK for j in jobs.values())
    assert all(ex.batch_members(j)[0].task == "regime" for j in jobs.values() if j.task != ex.BATCH_TASK)
    for f in figs:  # a figure's jobs hold all of its runs
        assert set(f.run_ids) <= {m.run_id for j in f.jobs for m in ex.batch_members(j)}


def test_runs_per_job_1_keeps_one_job_per_run():
    for f in ex.figure_specs(SLUG, "smoke", overrides={"runs_per_job": 1}):
        assert f.jobs is None and f.job_ids == f.run_ids


def test_bad_runs_per_job_is_named():
    with pytest.raises(ex.ConfigError, match="runs_per_job"):
        ex.load_params(SLUG, "smoke", overrides={"runs_per_job": 0})


def _smallest_batch(fig_id="fig9"):
    fig = ex.figure_spec(SLUG, fig_id, "smoke")
    return min((j for j in fig.jobs if j.task == ex.BATCH_TASK), key=lambda j: len(j.params["members"]))


def test_batch_job_equals_its_runs_one_by_one(tmp_root):
    import json

    from repro import pipeline
    from repro.results import _to_jsonable, read_json

    job = _smallest_batch()
    out = pipeline.execute_run(SLUG, job.run_id, "smoke")
    members = read_json(out)["result"]["members"]
    assert sorted(members) == sorted(m.run_id for m in ex.batch_members(job))
    for spec in ex.batch_members(job):  # each alone, in this process after the batch: the same numbers
        ctx = ex.RunContext(profile="smoke", run_id=spec.run_id, log=lambda m: None)
        alone = json.loads(json.dumps(_to_jsonable(pipeline._execute_task(SLUG, spec, ctx))))  # as stored (nan: null)
        assert alone == members[spec.run_id]["result"]
    assert not pipeline._parts_dir(out).exists()  # finished: the per-run parts are gone


def test_figures_read_their_runs_through_the_batch_files(tmp_root):
    from repro import pipeline

    fig = ex.figure_spec(SLUG, "fig9", "smoke")
    for jid in fig.job_ids:
        pipeline.execute_run(SLUG, jid, "smoke")
    results = pipeline.load_results(SLUG, fig, "smoke")
    assert set(fig.run_ids) <= set(results)
    assert all(results[r]["status"] == "ok" and len(results[r]["test_acc"]) > 0 for r in fig.run_ids)


def test_interrupted_batch_keeps_its_finished_runs(tmp_root):
    from repro import pipeline
    from repro.results import read_json, write_json

    job = _smallest_batch()
    first = ex.batch_members(job)[0]
    out = tmp_root / "results" / "smoke" / SLUG / "runs" / f"{job.run_id}.json"
    # what an interrupted batch leaves: the finished run's part (marked, to see that it is reused, not recomputed)
    part = pipeline._parts_dir(out) / f"{first.run_id}.json"
    write_json(part, {"spec": first.to_dict(), "wall_s": 0.0, "cpu_s": 0.0, "result": {"kept": True}})
    stale = ex.batch_members(job)[1]  # a part whose spec does not match is recomputed
    write_json(pipeline._parts_dir(out) / f"{stale.run_id}.json",
               {"spec": {**stale.to_dict(), "seed": -1}, "wall_s": 0.0, "cpu_s": 0.0, "result": {"kept": True}})
    pipeline.execute_run(SLUG, job.run_id, "smoke")
    members = read_json(out)["result"]["members"]
    assert members[first.run_id]["result"] == {"kept": True}
    assert members[stale.run_id]["result"] != {"kept": True}
    assert not pipeline._parts_dir(out).exists()
    # force starts over: the marked part is not reused
    write_json(part, {"spec": first.to_dict(), "wall_s": 0.0, "cpu_s": 0.0, "result": {"kept": True}})
    pipeline.execute_run(SLUG, job.run_id, "smoke", force=True)
    assert read_json(out)["result"]["members"][first.run_id]["result"] != {"kept": True}


def test_a_job_without_its_dataset_keeps_the_finished_parts(tmp_root, monkeypatch, capsys):
    """A resumed job whose dataset is missing (e.g. the mirror not set) writes an 'unavailable' result, and the
    work an earlier execution finished stays in its parts, to be reused once the data is there."""
    from repro import pipeline
    from repro.results import read_json, write_json

    job = _smallest_batch()
    first = ex.batch_members(job)[0]
    out = tmp_root / "results" / "smoke" / SLUG / "runs" / f"{job.run_id}.json"
    part = pipeline._parts_dir(out) / f"{first.run_id}.json"
    write_json(part, {"spec": first.to_dict(), "wall_s": 0.0, "cpu_s": 0.0, "result": {"kept": True}})
    real = pipeline._execute_task
    monkeypatch.setattr(pipeline, "_execute_task", lambda *a: ex.unavailable_result("dataset unavailable: test"))
    pipeline.execute_run(SLUG, job.run_id, "smoke")
    assert pipeline.any_unavailable(read_json(out)["result"])
    assert "result is unavailable: dataset unavailable: test" in capsys.readouterr().err  # the log says why
    assert part.exists()  # the finished member survives the data fault
    monkeypatch.setattr(pipeline, "_execute_task", real)
    pipeline.execute_run(SLUG, job.run_id, "smoke")  # the data is back: the job reruns and reuses the part
    assert read_json(out)["result"]["members"][first.run_id]["result"] == {"kept": True}
    assert not pipeline._parts_dir(out).exists()


def test_a_batch_member_without_its_dataset_makes_the_job_rerun():
    from repro import pipeline

    assert pipeline.any_unavailable({"members": {"a": {"result": ex.unavailable_result("no data")},
                                                  "b": {"result": {"acc": 1.0}}}})
    assert not pipeline.any_unavailable({"members": {"b": {"result": {"acc": 1.0}}}})


def test_listing_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys, contextlib, io; from repro import cli; "
            "buf = io.StringIO()\nwith contextlib.redirect_stdout(buf): cli.main(['list', 'ota_jammer', '--runs', '--profile', 'smoke'])\n"
            "assert 'torch' not in sys.modules, 'torch imported by the repro command'; assert 'batch of' in buf.getvalue()")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})
