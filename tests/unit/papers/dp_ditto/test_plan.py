"""The run plan and the parameters of the DP-Ditto paper: figure ids, batch runs, shared jobs, checks."""

import math

import pytest

from repro.experiment import FIG_ID, ConfigError, load_params
from repro.papers.dp_ditto.experiments import (CONSTANTS_ID, LITERAL_FIGS, LITERAL_ID, PRIVACY_ID, SWEEP_ID, TASKS, TUNING_ID, build_plan,
                                               figures, job_key, literal_figure, literal_need, reference_T, validate)

LITERAL_IDS = {literal_figure(f) for f in LITERAL_FIGS}


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_figure_ids_tasks_and_seeds(profile):
    params = load_params("dp_ditto", profile)
    figs = figures(params)
    ids = [f.fig_id for f in figs]
    assert all(FIG_ID.match(i) for i in ids) and len(ids) == len(set(ids))
    assert {"table1", "fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "fig7", SWEEP_ID, TUNING_ID, PRIVACY_ID,
            LITERAL_ID, "fig3_literal", "fig4_literal", "fig5_literal", "fig7_literal", CONSTANTS_ID} == set(ids)
    runs = {r.run_id: r for f in figs for r in f.runs}
    assert all(r.task in TASKS for r in runs.values())
    # every training batch is read by the privacy table (one certificate per private configuration run)
    privacy = next(f for f in figs if f.fig_id == PRIVACY_ID)
    assert {r.run_id for r in runs.values() if r.task != "fig2"} == set(privacy.run_ids)
    seeds = {r.seed for r in runs.values() if r.task != "fig2"}
    assert seeds == set(params["seeds"])
    # Fig. 2 alone may add seeds (fig2.seeds: claim 19.a's seed statement), never drop the profile's
    fig2_seeds = {r.seed for r in runs.values() if r.task == "fig2"}
    assert fig2_seeds == set(params["fig2"].get("seeds", params["seeds"])) and set(params["seeds"]) <= fig2_seeds
    if profile == "quick":  # >= 3 seeds; the narrow CNN (its panels decide no verdict at either scale, README "Scale")
        assert len(seeds) >= 3 and params["cnn"] == "reduced"
    if profile == "paper":
        assert params["cnn"] == "paper"


def test_quick_keeps_the_paper_noise_and_lambda_star():
    quick, paper = load_params("dp_ditto", "quick"), load_params("dp_ditto", "paper")
    assert quick["dp_sample_size"] == "split"  # sigma_u from the paper profile's |D_n|
    for key in ("clip", "delta", "fig3_epsilon", "fig4_epsilon", "fig3_lambda", "fig4_lambda", "fig5_lambda", "num_clients",
                "fig7_clip", "fig7_epsilon", "fig6_lambdas", "local_epochs"):
        assert quick[key] == paper[key], key
    assert set(quick["fig5_epsilons"]) <= set(paper["fig5_epsilons"])


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_literal_step_reruns_its_figures_at_one_step_per_round(profile):
    """The reading check of D1: the jobs of the figures listed in literal_step (Figs. 3-4 with their baselines) once
    more with one full-gradient step per round; every other run keeps its run id (the flag lives on the literal
    batches only)."""
    params = load_params("dp_ditto", profile)
    figs = {f.fig_id: f for f in figures(params)}
    lit = [r for i in LITERAL_IDS for r in figs[i].runs]
    if not params["literal_step"]:
        assert lit == []
        return
    assert {r.seed for r in lit} == set(params["seeds"])
    assert all(r.params["one_step_per_round"] and r.params["group"].startswith(LITERAL_ID) for r in lit)
    others = [r for f in figs.values() if f.fig_id not in LITERAL_IDS | {PRIVACY_ID, CONSTANTS_ID} for r in f.runs]
    assert not any(r.params.get("one_step_per_round") for r in others)
    # each listed figure's literal jobs are its D1 jobs (method, panel, seed, eps, C, T), run once more
    plan = build_plan(params)
    for f in params["literal_step"]:
        d1 = {(kind, panel, seed, k) for (kind, panel, seed, _g), k in plan.needs[f]}
        assert {(kind, panel, seed, k) for (kind, panel, seed, _g), k in plan.needs[literal_need(f)]} == d1, f
        assert {r.run_id for r in plan.runs_of(literal_need(f))} <= {r.run_id for r in figs[literal_figure(f)].runs}
    lams = {float(l) for f, key in (("fig6", "fig6_lambdas"), (SWEEP_ID, "sweep_lambdas")) if f in params["literal_step"]
            for l in params[key]}
    assert set().union(*(set(j["lambdas"]) for r in figs[LITERAL_ID].runs for j in r.params["jobs"])) == lams
    if "fig6" in params["literal_step"]:
        fig6_key = job_key(params["fig6_epsilon"], params["clip"], params["fig6_T"][params["fig6_panels"][0]])
        assert all(set(j["per_round"]) == {float(l) for l in params["fig6_lambdas"]}
                   for r in figs[LITERAL_ID].runs for j in r.params["jobs"] if j["key"] == fig6_key)


def test_literal_figures_of_the_paper_profile():
    """The paper profile runs every training figure at the printed step; Fig. 6 and the sweep keep their own group
    (their committed run ids), the baselines of Figs. 3-4 run in literal batches of their own."""
    params = load_params("dp_ditto", "paper")
    assert set(params["literal_step"]) == set(LITERAL_FIGS)
    figs = {f.fig_id: f for f in figures(params)}
    assert {r.params["group"] for r in figs[LITERAL_ID].runs} == {LITERAL_ID}
    assert {r.task for r in figs["fig3_literal"].runs} == {"ditto_batch", "baseline_batch"}
    assert {r.task for r in figs["fig7_literal"].runs} == {"ditto_batch"}


def test_literal_step_names_only_training_figures():
    with pytest.raises(ConfigError, match="literal_step.*fig2"):
        load_params("dp_ditto", "quick", overrides={"literal_step": ["fig2"]})


def test_jobs_are_shared_and_merged():
    params = load_params("dp_ditto", "quick")
    plan = build_plan(params)
    dnn = plan.ditto[("dnn_mnist", 0, "main")]
    # Fig. 3 (lambda* = 0.005) and Fig. 5 (lambda = 0.1) read the same eps = 10 training for every shared T
    for T in set(params["fig34_T"]["dnn_mnist"]) & set(params["fig5_T"]["dnn_mnist"]):
        assert {0.005, 0.1} <= dnn[job_key(10.0, params["clip"], T)][3].lambdas
    # eps = inf: one per-round training carrying lambda = 0 (local-training reference, claim 18.b)
    inf_job = dnn[job_key(math.inf, params["clip"], reference_T(params, "dnn_mnist"))][3]
    assert inf_job.per_round and 0.0 in inf_job.lambdas
    # Fig. 7 trainings (C = 10) are their own batch
    assert job_key(100.0, params["fig7_clip"], params["fig7_T"][0]) in plan.ditto[("dnn_mnist", 0, "fig7")]
    # the tuning jobs evaluate on the held-out validation split, never on the test data
    tuning = plan.base[(params["tuning"]["panel"], 0, "tuning")]
    assert tuning and all(j["eval_split"] == "validation" and j["val_per_client"] == params["val_per_client"]
                          for j in tuning.values())
    assert all("eval_split" not in j for (_, _, g), jobs in plan.base.items() if g != "tuning" for j in jobs.values())


def test_jobs_of_yields_each_needed_job_once_with_its_params():
    params = load_params("dp_ditto", "smoke")
    plan = build_plan(params)
    jobs = list(plan.jobs_of("fig3", None))
    keys = [(q["panel"], q.get("algorithm"), q["epsilon"], q["T"]) for q, *_ in jobs]
    assert len(keys) == len(set(keys))
    assert {q.get("algorithm") for q, *_ in jobs} == {None, *params["baselines"]}
    assert {q["epsilon"] for q, *_ in jobs} == {params["fig3_epsilon"], math.inf}


@pytest.mark.parametrize("key, value", [("delta", 1.5), ("dp_sample_size", "all"), ("fig3_lambda", 2.5), ("seeds", [-1]),
                                        ("batch_size", 0), ("partition", "iid"), ("cnn", "tiny")])
def test_schema_refuses_bad_values(key, value):
    with pytest.raises(ConfigError, match=key):
        load_params("dp_ditto", "smoke", {key: value})


def test_validate_refuses_inconsistent_keys():
    params = load_params("dp_ditto", "smoke")
    with pytest.raises(ConfigError, match="fig6_lambdas"):
        validate({**params, "fig6_lambdas": [0.1, 0.5]})
    with pytest.raises(ConfigError, match="fig6_T"):
        validate({**params, "fig6_panels": ["dnn_mnist", "mlr_mnist"], "fig6_T": {"dnn_mnist": 2}})
    with pytest.raises(ConfigError, match="tuning"):
        validate({**params, "tuning": {**params["tuning"], "grids": {"fedamp": {"nope": [1]}}}})


def test_baselines_use_the_best_value_of_the_regenerated_tuning_sweep():
    """The hyper-parameters the baselines run with are the best mean validation accuracy of the quick tuning
    sweep (README D32); skipped until the quick profile has been regenerated."""
    from repro import paths
    from repro.results import read_tidy_csv

    path = paths.figures_dir("quick", "dp_ditto") / f"{TUNING_ID}.csv"
    if not path.exists():
        pytest.skip("quick profile not regenerated")
    t = read_tidy_csv(path)
    params = load_params("dp_ditto", "quick")
    plan = build_plan(params)
    for (algo, name), g in t[t["metric"] == "val_accuracy"].groupby(["panel", "series"]):
        means = g.groupby("x")["value"].mean()
        assert float(plan.hyper(algo, params["tuning"]["panel"])[name]) == pytest.approx(float(means.idxmax())), (algo, name, means)


def test_the_printed_step_is_costed_apart_from_d1():
    """A printed-step batch (one full-batch step per round) does other arithmetic than its D1 twin (an epoch at batch
    10): its cost-probe parts carry their own keys, so the costs tool never prices one with the other's measurement."""
    from repro.papers.dp_ditto.experiments import cost_probe

    params = load_params("dp_ditto", "paper")
    figs = {f.fig_id: f for f in figures(params)}
    d1 = {p.key for r in figs["fig3"].runs for p in cost_probe(r, 1).parts}
    lit = {p.key for r in figs["fig3_literal"].runs if r.params.get("one_step_per_round") for p in cost_probe(r, 1).parts}
    assert d1 and lit and not d1 & lit
    assert all(k.split(":")[0].endswith("/one_step_per_round") for k in lit)


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_constant_variants_run_in_batches_of_their_own_beside_the_tuned_baselines(profile):
    """constant_variants: each baseline of Figs. 3-4 once more at other published constants, at both readings of the
    step, in batches of their own (the tuned baselines' run ids do not change); the baseline_constants figure reads
    both. Variants with ``batch`` run in batches of their own again: removing those of one batch name leaves every other
    run id as it is."""
    params = load_params("dp_ditto", profile)
    figs = {f.fig_id: f for f in figures(params)}
    variants = params.get("constant_variants") or {}
    runs = figs[CONSTANTS_ID].runs
    if not variants:
        assert runs == []
        return
    own = [r for r in runs if ":variants" in r.params["group"]]
    tuned = {r.run_id for f in ("fig3", "fig4", "fig3_literal", "fig4_literal") for r in figs[f].runs}
    assert {r.run_id for r in runs} - {r.run_id for r in own} <= tuned  # the tuned baselines, as their figures run them
    assert not {r.run_id for r in own} & tuned
    assert {r.seed for r in own} == set(params["seeds"])
    assert {bool(r.params.get("one_step_per_round")) for r in own} == {False, True}
    for r in own:
        for job in r.params["jobs"]:
            over = dict(variants[job["algorithm"]][job["variant"]])
            batch = over.pop("batch", None)
            assert job["hp"] == {**build_plan(params).hyper(job["algorithm"], r.params["panel"]), **over}
            assert r.params["group"].endswith(f":variants:{batch}" if batch else ":variants")
    batches = {over["batch"] for vs in variants.values() for over in vs.values() if "batch" in over}
    for batch in batches:  # the variants sharing a batch name leave together
        less = {**params, "constant_variants": {a: {n: o for n, o in vs.items() if o.get("batch") != batch}
                                                for a, vs in variants.items()}}
        before = {r.run_id for f in figures(less) for r in f.runs}
        after = {r.run_id for f in figures(params) for r in f.runs}
        assert before <= after and all(":variants:" in r.params["group"] for f in figures(params) for r in f.runs
                                        if r.run_id in after - before)
