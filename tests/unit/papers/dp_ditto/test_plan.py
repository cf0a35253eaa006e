"""The run plan of the DP-Ditto paper: figure ids the workflow builds, few batch runs, shared jobs."""

import math
import re

import pytest

from repro.experiment import load_params
from repro.papers.dp_ditto.experiments import build_plan, figures, job_key

FIG_ID = re.compile(r"(fig|table)[0-9]+[a-z]?")


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_figure_ids_and_run_count(profile):
    params = load_params("dp_ditto", profile)
    figs = figures(params, profile)
    assert all(FIG_ID.fullmatch(f.fig_id) for f in figs), [f.fig_id for f in figs]
    runs = {r.run_id for f in figs for r in f.runs}
    # one DP-Ditto batch per (panel, seed), one baseline batch per (Fig. 3/4 panel, seed), Fig. 2
    n_panels = len(set(params["fig34_panels"]) | set(params["fig5_panels"]) | set(params["fig6_panels"])
                   | {params["fig7_panel"], params["sweep_panel"]})
    assert len(runs) == len(params["seeds"]) * (n_panels + len(params["fig34_panels"])) + 1
    if profile == "quick":
        assert len(runs) <= 30


def test_jobs_are_shared_and_merged():
    params = load_params("dp_ditto", "quick")
    plan = build_plan(params)
    dnn = plan.ditto[("dnn_mnist", 0)]
    # Fig. 3 (lambda* = 0.005) and Fig. 5 (lambda = 0.1) read the same eps = 10 job for every shared T
    for T in set(params["fig34_T"]["dnn_mnist"]) & set(params["fig5_T"]["dnn_mnist"]):
        job = dnn[job_key(10.0, params["clip"], T)][3]
        assert {0.005, 0.1} <= job.lambdas
    # eps = inf job: per-round, carries lambda = 0 (claim 18) up to the largest Fig. 5 T
    inf_job = dnn[job_key(math.inf, params["clip"], max(params["fig5_T"]["dnn_mnist"]))][3]
    assert inf_job.per_round and 0.0 in inf_job.lambdas
    # Fig. 7 jobs use C = 10, distinct from the C = 20 jobs
    assert job_key(100.0, params["fig7_clip"], params["fig7_T"][0]) in dnn


def test_jobs_of_yields_each_needed_job_once_with_its_params():
    params = load_params("dp_ditto", "smoke")
    plan = build_plan(params)
    jobs = list(plan.jobs_of("fig3", None))
    keys = [(q["panel"], q.get("algorithm"), q["epsilon"], q["T"]) for q, *_ in jobs]
    assert len(keys) == len(set(keys))
    assert {q.get("algorithm") for q, *_ in jobs} == {None, *params["baselines"]}
    assert all(q["epsilon"] == params["fig3_epsilon"] for q, *_ in jobs)
