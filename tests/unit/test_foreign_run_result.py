"""A run result file that is not the run its name says (another run's file copied over it, or an edited spec) is
foreign: moved aside and recomputed, and a figure that meets it stops with one paragraph saying so (issue 26)."""

from __future__ import annotations

import json
import shutil

import pytest

from repro import experiment as ex
from repro import paths, pipeline
from repro.cli import main
from repro.results import read_run_result

SLUG, FIG = "age_dp", "fig2"  # four cheap analytic / Monte Carlo runs under smoke




def test_foreign_run_file_is_refused_by_the_figure_then_recomputed(tmp_root, capsys):
    fig = ex.figure_spec(SLUG, FIG, "smoke")
    for rid in fig.job_ids:
        pipeline.execute_run(SLUG, rid, "smoke")
    a, b = fig.job_ids[:2]
    pa, pb = (paths.run_result_path("smoke", SLUG, r) for r in (a, b))
    own = json.loads(pb.read_text())
    shutil.copy(pa, pb)  # run a's result under run b's name
    assert main(["figure", SLUG, FIG, "--profile", "smoke", "--no-run"]) == 2
    err = capsys.readouterr().err
    assert f"run {b} has no intact result" in err and f"holds the result of run {a!r}, not of run {b!r}" in err
    assert f"repro run {SLUG} {b} --profile smoke" in err and "Traceback" not in err
    assert not pb.exists() and pb.with_name(pb.name + ".corrupt").is_file()  # moved aside
    pipeline.execute_run(SLUG, b, "smoke")  # the next workflow run recomputes it
    again = json.loads(pb.read_text())
    assert again["spec"] == own["spec"] and again["result"] == own["result"]
    assert main(["figure", SLUG, FIG, "--profile", "smoke", "--no-run"]) == 0


def test_execute_run_recomputes_over_a_foreign_file_instead_of_skipping_it(tmp_root):
    fig = ex.figure_spec(SLUG, FIG, "smoke")
    a, b = fig.job_ids[:2]
    pipeline.execute_run(SLUG, a, "smoke")
    pa, pb = (paths.run_result_path("smoke", SLUG, r) for r in (a, b))
    shutil.copy(pa, pb)
    pipeline.execute_run(SLUG, b, "smoke")
    assert json.loads(pb.read_text())["spec"]["run_id"] == b


def test_edited_spec_is_foreign_and_the_unchecked_read_is_unchanged(tmp_root):
    fig = ex.figure_spec(SLUG, FIG, "smoke")
    rid = fig.job_ids[0]
    p = pipeline.execute_run(SLUG, rid, "smoke")
    doc = json.loads(p.read_text())
    doc["spec"]["seed"] += 1  # the recorded id no longer hashes the spec
    p.write_text(json.dumps(doc))
    assert read_run_result(p)["spec"]["seed"] == doc["spec"]["seed"]  # without run_id: no identity check
    said = []
    assert read_run_result(p, log=said.append, run_id=rid) is None
    assert "its spec was edited" in said[0] and p.with_name(p.name + ".corrupt").is_file()


def test_a_run_with_an_infinite_parameter_is_not_taken_for_foreign(tmp_path):
    """eps = inf (Ditto without DP) is stored as Infinity (files written before: "inf"); its file still hashes to its
    own run."""
    from repro.experiment import RunSpec
    from repro.results import read_run_result, write_json

    spec = RunSpec("toy", "t", {"jobs": [{"epsilon": float("inf")}, {"epsilon": 1.0}]}, 0)
    path = tmp_path / f"{spec.run_id}.json"
    write_json(path, {"spec": spec.to_dict(), "result": {"status": "ok"}})
    assert read_run_result(path, run_id=spec.run_id) is not None and path.exists()
