"""A training that diverges is found in its result, said on its figure's table, and its claims are not evaluated."""

import math

import numpy as np

from repro.claims import ClaimSet, direction, exact, need, not_evaluated_category
from repro.divergence import LOSS_LIMIT, MARKER, diverged_losses
from repro.pipeline import _diverged_rows, _split_divergence
from repro.results import read_tidy_csv, tidy_frame, write_csv


def test_losses_not_finite_or_huge_are_found_with_where_they_are():
    result = {"jobs": {"pfedme|K=5": {"series": {"personalized": {"loss": [2.3, "inf"], "accuracy": [0.1, float("inf")]}}},
                       "fedala|eta=1": {"series": {"personalized": {"loss": [2.3, 3.5e19]}}},
                       "ditto|lam=0.1": {"series": {"0.1": {"loss": [2.3, 1.9], "train_loss_odd": None}}}},
              "max_test_loss": float("nan"), "bound_loss": LOSS_LIMIT}
    found = dict(diverged_losses(result))
    assert set(found) == {"jobs/pfedme|K=5/series/personalized/loss", "jobs/fedala|eta=1/series/personalized/loss",
                          "max_test_loss"}
    assert found["jobs/pfedme|K=5/series/personalized/loss"] == math.inf
    assert found["jobs/fedala|eta=1/series/personalized/loss"] == 3.5e19 and math.isnan(found["max_test_loss"])
    assert diverged_losses({"loss": [2.3, 0.4], "accuracy": [float("nan")]}) == []  # accuracy is no loss


def _claims():
    cs = ClaimSet("toy")

    @cs.claim("C1", figures="fig1", kind="direction", paper_says="a beats b", tests="a - b > 0",
              refute=lambda t, p: (t, p), support=lambda t, p: (t, p))
    def a_beats_b(tables, params):
        t = need(tables, "fig1")
        a, b = (t[t.series == s].groupby("seed")["value"].mean() for s in ("a", "b"))
        return direction(a - b)

    @cs.claim("C2", figures="fig1", kind="exact", paper_says="1 + 1 = 2", tests="exact",
              refute=lambda t, p: (t, p), support=lambda t, p: (t, p))
    def closed_form(tables, params):
        return exact(2, 2)

    return cs


def _table(tmp_path, diverged: bool):
    rows = [dict(figure="fig1", panel="a", series=s, x=1, metric="accuracy", value=v + 0.01 * seed, seed=seed, run_id=f"r{s}")
            for s, v in (("a", 0.9), ("b", 0.1)) for seed in range(3)]
    if diverged:
        rows += _diverged_rows("fig1", {"rb": [("jobs/pfedme/series/personalized/loss", math.inf)]})
    path = tmp_path / "fig1.csv"
    write_csv(path, tidy_frame(rows))
    return _split_divergence(read_tidy_csv(path))


def test_a_claim_on_a_figure_with_a_diverged_training_is_not_evaluated_and_names_it(tmp_path):
    healthy = _claims().evaluate({"fig1": _table(tmp_path, diverged=False)}, {})
    assert [c.verdict for c in healthy] == ["reproduced", "reproduced"]
    table = _table(tmp_path, diverged=True)
    assert MARKER not in set(table["metric"]) and table.attrs["diverged"]  # the claims never see the marker rows
    c1, c2 = _claims().evaluate({"fig1": table}, {})
    assert c1.verdict == "not_evaluated" and not_evaluated_category(c1.reason) == "diverged"
    assert "run rb" in c1.reason and "pfedme" in c1.reason and "inf" in c1.reason
    assert c1.details["judged_as"] == "reproduced"
    assert c2.verdict == "reproduced"  # a closed form does not rest on the training


def test_marker_rows_keep_an_infinite_or_nan_loss_readable():
    rows = _diverged_rows("fig1", {"r1": [("loss", float("nan"))], "r2": [("loss", 3.5e19)]})
    df = tidy_frame(rows)
    assert set(df["panel"]) == {MARKER} and np.isinf(df["value"]).sum() == 1 and (df["value"] == 3.5e19).sum() == 1


def test_the_figure_says_which_training_diverged():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from repro.pipeline import _stamp_divergence

    fig, _ = plt.subplots()
    _stamp_divergence(fig, {"baseline_batch-1": [("jobs/fedala|eta=1/series/personalized/loss", 3.5e19)]})
    text = " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    plt.close(fig)
    assert "TRAINING DIVERGED" in text and "fedala" in text and "3.5e+19" in text


def test_losses_in_nested_lists_are_found_and_analytic_floors_are_not():
    """acfl records its losses as seeds x configurations x records; its ``floor_loss`` (the loss at a fixed point,
    NaN where there is none) is an analytic value beside them, not a training's loss."""
    healthy = {"loss": [[[3.0, 2.0], [4.0, 1.5]]], "floor_loss": [[0.4, float("nan")]], "bound_loss": [1e9]}
    assert diverged_losses(healthy) == []
    nested = {**healthy, "loss": [[[3.0, 2.0], [4.0, float("nan")]], [[2.0, 3.5e19]]]}
    ((where, worst),) = diverged_losses(nested)
    assert where == "loss" and math.isnan(worst)


def test_every_training_task_of_every_paper_is_checked_for_divergence():
    """A task that trains (torch or numpy) is ``Task.training``: repro.pipeline.diverged_runs checks its results."""
    from repro import experiment as ex
    from repro import registry

    trains = {(slug, name): task for slug in registry.slugs() for name, task in ex.tasks(slug).items()
              if "train" in name or task.gpu}
    assert ("acfl", "train_panel") in trains and ("ota_jammer", "train") in trains
    assert [k for k, task in trains.items() if not task.training] == []


def test_a_numpy_training_with_a_nan_loss_is_a_diverged_run():
    from repro import experiment as ex
    from repro.pipeline import diverged_runs

    fig = ex.figure_spec("acfl", "fig3", "smoke")
    runs = [r for r in fig.runs if r.task == "train_panel"]
    results = {r.run_id: {"loss": [[[3.0, 2.0]]], "floor_loss": [[float("nan")]]} for r in runs}
    assert diverged_runs("acfl", fig, results) == {}
    results[runs[0].run_id]["loss"] = [[[3.0, float("nan")]]]
    found = diverged_runs("acfl", fig, results)
    assert list(found) == [runs[0].run_id] and found[runs[0].run_id][0][0] == "loss"
