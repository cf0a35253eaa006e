"""A figure whose run results are missing says what training them costs before it trains."""

from __future__ import annotations

import json

import pytest

from repro import cli, costs, pipeline
from repro import experiment as ex


class Stop(Exception):
    """Raised by the stand-in for training: the test only needs what was printed before it."""


@pytest.fixture
def empty_project(tmp_path, monkeypatch):
    """A project without run results (a fresh checkout's results/ deleted), with a given ledger."""
    monkeypatch.setenv("REPRO_ROOT", str(tmp_path))
    (tmp_path / "docs").mkdir()

    def with_ledger(ledger):
        (tmp_path / costs.LEDGER).write_text(json.dumps(ledger))

    return with_ledger


def _stop_training(monkeypatch):
    trained = []

    def fake_run(slug, run_id, profile, **kw):
        trained.append(run_id)
        raise Stop

    monkeypatch.setattr(pipeline, "execute_run", fake_run)
    return trained


def test_repro_figure_prints_the_cost_before_the_first_training(empty_project, monkeypatch, capsys):
    fig = ex.figure_spec("age_dp", "fig2", "quick")
    empty_project({"quick": {"age_dp": {jid: 12.5 for jid in fig.job_ids}}})
    trained = _stop_training(monkeypatch)
    with pytest.raises(Stop):
        cli.main(["figure", "age_dp", "fig2"])
    err = capsys.readouterr().err
    n = len(fig.job_ids)
    assert (f"age_dp/fig2 needs {n} runs ({n} jobs) trained, about {12.5 * n:,.0f} CPU-s, before it can be drawn "
            f"({n} as recorded when they last ran)") in err
    assert len(trained) == 1  # the message came before the first training, which stopped the command


def test_unknown_and_unavailable_runs_are_named(empty_project, monkeypatch, capsys):
    fig = ex.figure_spec("age_dp", "fig3", "quick")
    first, second, *rest = fig.job_ids
    empty_project({"quick": {"age_dp": {first: 100.0, second: None}}})
    est = costs.figure_cost("age_dp", "fig3", "quick")
    assert (est.jobs, est.recorded, est.unavailable, est.unknown, est.cpu_s) == (len(fig.job_ids), 1, 1, len(rest), 100.0)
    msg = est.message("age_dp", "fig3", "quick")
    assert "about 100 CPU-s" in msg and "1 runs found their dataset unavailable" in msg
    assert f"{len(rest)} of the runs have no cost estimate" in msg and "python -m repro.costs --profile quick" in msg


def test_no_message_when_every_result_is_there(tmp_path, monkeypatch):
    fig = ex.figure_spec("acfl", "fig1", "quick")
    monkeypatch.setenv("REPRO_ROOT", str(tmp_path))
    for jid in fig.job_ids:
        p = tmp_path / "results" / "quick" / "acfl" / "runs" / f"{jid}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("{}")
    assert costs.figure_cost("acfl", "fig1", "quick") is None


def test_estimate_from_probe_measurements_of_the_same_profile_only():
    fig = ex.figure_spec("ota_jammer", "fig9", "quick")
    hook = __import__("repro.papers.ota_jammer.experiments", fromlist=["cost_probe"]).cost_probe
    members = [r for j in fig.job_specs for r in ex.batch_members(j)]
    parts = [p for r in members for p in hook(r, 1).parts]
    units = {p.key: {"cpu_s": 2.0, "fixed_cpu_s": 1.0} for p in parts}
    store = {"profile": "quick", "device": "cpu", "rounds": 1, "units": {"ota_jammer": units}}
    est = costs.estimate_jobs("ota_jammer", "quick", fig.job_specs, ledger={}, store=store)
    assert (est.runs, est.probed, est.unknown) == (len(members), len(members), 0)
    assert est.cpu_s == pytest.approx(sum(p.jobs * 1.0 + p.full_units * 2.0 for p in parts))
    other = costs.estimate_jobs("ota_jammer", "quick", fig.job_specs, ledger={}, store={**store, "profile": "paper"})
    assert (other.probed, other.unknown, other.cpu_s) == (0, len(members), 0.0)


def test_ledger_records_each_job_once_with_its_cpu_seconds(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRO_ROOT", str(tmp_path))
    runs = tmp_path / "results" / "quick" / "acfl" / "runs"
    runs.mkdir(parents=True)
    (runs / "a.json").write_text(json.dumps({"cpu_s": 3.14159, "device": "cpu", "result": {}}))
    (runs / "b.json").write_text(json.dumps({"cpu_s": 9.0, "device": "cuda", "result": {}}))  # not a CPU's time
    (runs / "c.json").write_text(json.dumps({"cpu_s": 0.1, "device": "cpu", "result": ex.unavailable_result("no data")}))
    assert costs.recorded_ledger(["quick"]) == {"quick": {"acfl": {"a": 3.14, "c": None}}}
