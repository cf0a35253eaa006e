"""A NaN or infinite loss survives its run result file and is flagged as a diverged training (issue 49).

The files used to keep NaN as ``null`` (which repro.divergence skips: a diverged training went unmarked) and
infinities as ``"inf"`` (text: ota_jammer's figures failed on it with "ufunc 'isfinite' not supported"). Files written
that way still read as they always did.
"""

import json
import math

import numpy as np
import pytest

from repro import experiment as ex
from repro import pipeline, registry
from repro.divergence import MARKER, diverged_losses
from repro.results import read_json, read_json_or_none, read_run_result, write_json


def test_nan_and_infinities_are_read_back_as_the_floats_they_were(tmp_path):
    p = tmp_path / "r.json"
    write_json(p, {"loss": [2.3, float("nan"), np.float32("inf"), -math.inf], "x": np.float64("nan")})
    for doc in (read_json(p), read_json_or_none(p)):
        loss = doc["loss"]
        assert loss[0] == 2.3 and math.isnan(loss[1]) and loss[2] == math.inf and loss[3] == -math.inf
        assert math.isnan(doc["x"])
    assert "null" not in p.read_text() and '"inf"' not in p.read_text()


def test_a_nan_loss_read_back_from_its_file_is_a_diverged_training(tmp_path):
    p = tmp_path / "run.json"
    spec = ex.RunSpec("toy", "t", {"lr": 1e30}, 0)
    write_json(p, {"spec": spec.to_dict(), "result": {"series": {"loss": [2.3, float("nan")]}}})
    doc = read_run_result(p, run_id=spec.run_id)
    found = diverged_losses(doc["result"])
    assert [w for w, _ in found] == ["series/loss"] and math.isnan(found[0][1])


def test_files_written_before_still_load_as_they_did(tmp_path):
    """NaN as null, infinities as "inf": read unchanged (a null is no number: an absent value, never a divergence)."""
    from repro.results import same_as_stored

    spec = ex.RunSpec("toy", "t", {"epsilon": math.inf}, 0)
    old = {"spec": {**spec.to_dict(), "params": {"epsilon": "inf"}},
           "result": {"loss": [2.3, None], "init_train_loss": None, "max_test_loss": "inf"}}
    p = tmp_path / f"{spec.run_id}.json"
    p.write_text(json.dumps(old))
    doc = read_run_result(p, run_id=spec.run_id)  # not taken for foreign: "inf" hashes as the float it was
    assert doc == old and read_json_or_none(p) == old
    assert diverged_losses(doc["result"]) == [("max_test_loss", math.inf)]
    # a kept sub-job part of either format matches its fingerprint
    assert same_as_stored({"epsilon": "inf", "T": 100}, {"epsilon": math.inf, "T": 100})
    assert same_as_stored({"epsilon": math.inf, "T": 100}, {"epsilon": math.inf, "T": 100})
    assert same_as_stored({"sigma": float("nan")}, {"sigma": float("nan")})
    assert not same_as_stored({"epsilon": "inf", "T": 100}, {"epsilon": 1.0, "T": 100})


def _ota_result(train_loss) -> dict:
    """One ota_jammer training result as the task returns it (smoke scale)."""
    return {"status": "ok", "algorithm": "fedavg", "mode": "nonprivate", "local_rule": "epochs", "rounds": [1, 2],
            "test_acc": [0.3, 0.5], "train_loss": train_loss, "init_test_acc": 0.1, "init_train_loss": 2.31,
            "odd_test_acc": [], "odd_train_loss": [], "dataset": "FEMNIST surrogate: MNIST digits 0-9",
            "dataset_real": False, "dataset_size": 824, "num_clients": 50, "num_params": 155830,
            "power_budget": 196178.3, "p_max": 0.119, "max_power_ratio": 0.0, "min_s": 1.0, "frac_s_above_1": 0.0,
            "frac_clipped": 0.04, "num_transmissions": 2, "num_iterations": 2, "noise_std_mean": 0.0,
            "server_step_mean": 1.0, "signal_norm_median": 0.26, "pc_bias_rel_mean": 0.0, "noise_to_signal_median": 0.0}


@pytest.mark.parametrize("bad", [math.inf, float("nan")])
def test_an_ota_jammer_training_whose_loss_is_not_finite_is_drawn_and_flagged(tmp_path, bad):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slug, fig_id = "ota_jammer", "fig4"
    fig = ex.figure_spec(slug, fig_id, "smoke")
    rid = next(r.run_id for r in fig.runs if r.task == "train" and r.params["mode"] == "nonprivate")
    p = tmp_path / "r.json"
    write_json(p, _ota_result([2.1, bad]))  # through its file, as the renderer gets it
    results = {r.run_id: ex.unavailable_result("not in this test") for r in fig.runs}
    results[rid] = read_json(p)
    ctx = ex.RenderContext(profile="smoke", params=ex.load_params(slug, "smoke"))
    rendered = registry.module(slug, "figures").RENDERERS[fig_id](fig, results, ctx)  # used to raise a TypeError
    plt.close(rendered.figure)
    found = pipeline.diverged_runs(slug, fig, results)
    assert list(found) == [rid] and found[rid][0][0] == "train_loss"
    assert math.isnan(found[rid][0][1]) if bad != bad else found[rid][0][1] == math.inf


def test_acfl_numpy_training_is_checked_and_its_claims_are_not_evaluated(tmp_root):
    """acfl trains without torch: a NaN in its (seeds x configurations x records) losses marks Fig. 3, its figure
    says so and the claims judged on it alone are not evaluated; the NaN floor of a weight with no fixed point
    (``floor_loss``, analytic) is no divergence."""
    slug, fig_id = "acfl", "fig3"
    fig = ex.figure_spec(slug, fig_id, "smoke")
    for jid in fig.job_ids:
        pipeline.execute_run(slug, jid, "smoke")
    rid = next(r.run_id for r in fig.runs if r.task == "train_panel")
    path = pipeline.paths.run_result_path("smoke", slug, rid)
    healthy = read_json(path)
    assert any(v is None or v != v for row in healthy["result"]["floor_loss"] for v in row)  # NaN floors are there
    assert pipeline.diverged_runs(slug, fig, pipeline.load_results(slug, fig, "smoke")) == {}
    healthy["result"]["loss"][0][0][-1] = float("nan")
    write_json(path, healthy)
    pipeline.render_figure(slug, fig_id, "smoke")
    table = pipeline.paper_tables(slug, "smoke")[fig_id]
    assert table.attrs["diverged"] == [f"run {rid}: loss reached inf"]  # the CSV keeps a NaN loss as inf
    md = (pipeline.paths.figures_dir("smoke", slug) / f"{fig_id}.md").read_text()
    assert "TRAINING DIVERGED" in md and f"run {rid}: loss reached nan" in md
    judged, _ = pipeline.judge_figure(slug, fig_id, "smoke")  # the verdicts stamped on the figure
    assert judged and all(c["verdict"] == "not_evaluated" and c["reason"].startswith("training diverged")
                          for c in judged if c["kind"] != "exact")
    csv = pipeline.read_tidy_csv(pipeline.paths.figures_dir("smoke", slug) / f"{fig_id}.csv")
    assert (csv["metric"] == MARKER).sum() == 1
