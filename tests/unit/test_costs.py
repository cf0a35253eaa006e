"""repro.costs: probes shorten a run and scale its time; every run is counted once per paper."""

import pytest

from repro import costs
from repro import experiment as ex
from repro.papers.dp_ditto import experiments as dpx


def test_dp_ditto_probe_cuts_every_job_and_scales_by_the_rounds():
    specs = [s for s in ex.run_specs("dp_ditto", "smoke").values() if s.task in ("ditto_batch", "baseline_batch")]
    assert specs
    for spec in specs:
        probe = dpx.cost_probe(spec, 1)
        full = sum(j["T"] for j in spec.params["jobs"])
        assert all(j["T"] == 1 for j in probe.spec.params["jobs"])
        assert probe.scale == pytest.approx(full / len(spec.params["jobs"])) and probe.rounds == full
        assert probe.spec.run_id != spec.run_id and probe.spec.task == spec.task
    fig2 = next(s for s in ex.run_specs("dp_ditto", "smoke").values() if s.task == "fig2")
    assert dpx.cost_probe(fig2, 1) is None  # timed in full
    with pytest.raises(ValueError, match="rounds"):
        dpx.cost_probe(specs[0], 0)


def test_cost_table_counts_shared_runs_once():
    results = {"age_dp": costs.paper_costs("age_dp", "smoke", rounds=1, device="cpu", log=lambda m: None)}
    table = costs.cost_markdown(results, "smoke", "cpu", 1)
    run_costs, per_fig = results["age_dp"]
    shared = sum(len(r) for _, r in per_fig)
    assert shared > len(run_costs)  # some runs feed several figures ...
    total = next(line for line in table.splitlines() if "total (each run once)" in line)
    assert f"| {len(run_costs)} |" in total  # ... and the total counts each once
    assert all(c.cpu_s >= 0 and not c.probed for c in run_costs.values())  # closed forms: timed in full
