"""Monte Carlo: seeded, vectorised, agrees with (G1) within its standard error; the chain reference
sampler satisfies the identity behind (G1) and agrees with the fast path."""

import numpy as np
import pytest

from repro.engine.rng import RngStreams
from repro.papers.age_dp import simulation as sim
from repro.papers.age_dp import theory as th
from repro.papers.age_dp.markov_database import MarkovEnergyDatabase

N, S = 100, 1.8


def _draws(db, R, seed=0):
    streams = RngStreams(seed)
    return sim.draw_monte_carlo(db, N, R, streams.numpy("data"), streams.numpy("dp_noise"))


@pytest.fixture(scope="module", params=["time", "collection"])
def setup(request):
    db = MarkovEnergyDatabase(anchor=request.param)
    return db, th.age_tables(db), _draws(db, 20000)


def test_deviations_have_the_exact_moments(setup):
    db, tables, draws = setup
    mean = draws.deviations.mean(axis=0)
    se = draws.deviations.std(axis=0, ddof=1) / np.sqrt(draws.replicates) + 1e-12
    assert np.all(np.abs(mean - tables.bias) <= 5 * se)
    np.testing.assert_allclose(draws.deviations.var(axis=0), tables.drift_var / N, rtol=0.06, atol=1e-9)


@pytest.mark.parametrize("ages", [[0, 0, 0], [9, 9, 9], [9, 4, 6], [3, 7, 1]])
@pytest.mark.parametrize("eps_bar", [0.05, 0.3, 1.0])
def test_mc_agrees_with_g1(setup, ages, eps_bar):
    db, tables, draws = setup
    eps_c = th.classic_epsilons(tables, np.array([ages]), eps_bar, "adaptive")
    exact = th.loss_difference(tables, np.array([ages]), eps_c, N, S)[0]
    mean, se = sim.mc_loss_difference(draws, ages, eps_c[0], S)
    assert abs(mean - exact) <= 4 * se
    assert se / exact < 0.02    # R = 20000: about 1 % relative SE


def test_mc_is_seeded():
    db = MarkovEnergyDatabase()
    a, b, c = _draws(db, 500, 3), _draws(db, 500, 3), _draws(db, 500, 4)
    np.testing.assert_array_equal(a.deviations, b.deviations)
    np.testing.assert_array_equal(a.unit_laplace, b.unit_laplace)
    assert not np.array_equal(a.deviations, c.deviations)


def test_all_schedules_estimate_matches_single_points():
    db = MarkovEnergyDatabase()
    tables, draws = th.age_tables(db), _draws(db, 1000)
    schedules = np.array([[0, 0, 0], [9, 4, 6], [2, 8, 5]])
    eps_c = th.classic_epsilons(tables, schedules, 0.2, "constant")
    est = sim.mc_loss_all_schedules(draws, schedules, eps_c, S, chunk=2)
    single = [sim.mc_loss_difference(draws, a, e, S)[0] for a, e in zip(schedules, eps_c)]
    np.testing.assert_allclose(est, single, rtol=1e-10)


def test_random_schedule_per_replicate_estimates_the_mean_over_schedules():
    from repro.papers.age_dp.scheduler import all_schedules, uniform_random_schedules

    db = MarkovEnergyDatabase()
    tables, draws = th.age_tables(db), _draws(db, 20000)
    ages = uniform_random_schedules(10, 3, draws.replicates, RngStreams(0).numpy("scheduling"))
    eps_c = th.classic_epsilons(tables, ages, 0.5, "adaptive")
    mean, se = sim.mc_loss_difference(draws, ages, eps_c, S)
    S_all = all_schedules(10, 3)
    exact = th.loss_difference(tables, S_all, th.classic_epsilons(tables, S_all, 0.5, "adaptive"), N, S).mean()
    assert abs(mean - exact) <= 4 * se


@pytest.mark.parametrize("anchor", ["time", "collection"])
def test_chain_reference_identity_and_agreement(anchor):
    db = MarkovEnergyDatabase(anchor=anchor)
    tables = th.age_tables(db)
    ages = [9, 4, 6]
    eps_c = th.classic_epsilons(tables, np.array([ages]), 0.3, "adaptive")[0]
    streams = RngStreams(1)
    out = sim.chain_loss_difference(db, ages, eps_c, N, S, 3000, streams.numpy("data"), streams.numpy("dp_noise"))
    # L(W~, D) - L(w*, D) = (W~ - w*)^2 exactly for the squared loss with p_i = 1/m
    np.testing.assert_allclose(out["loss_gap"], out["squared_error"], rtol=1e-9, atol=1e-9)
    exact = th.loss_difference(tables, np.array([ages]), eps_c[None, :], N, S)[0]
    se = out["loss_gap"].std(ddof=1) / np.sqrt(out["loss_gap"].size)
    assert abs(out["loss_gap"].mean() - exact) <= 4 * se


def test_chain_sampler_laws():
    db = MarkovEnergyDatabase()
    collected, target = db.sample_record_paths([9, 0, 3], 400, 200, np.random.default_rng(0))   # 80 000 records: SE < 0.002
    v = db.value_array
    for i, a in enumerate([9, 0, 3]):
        freq = np.array([(collected[:, i] == x).mean() for x in v])
        np.testing.assert_allclose(freq, db.collected_laws()[i, a], atol=0.01)
        freq_t = np.array([(target[:, i] == x).mean() for x in v])
        np.testing.assert_allclose(freq_t, db.target_laws()[i, a], atol=0.01)
    np.testing.assert_array_equal(collected[:, 1], target[:, 1])      # age 0: collected at t_agg


def test_bad_monte_carlo_inputs():
    db = MarkovEnergyDatabase()
    with pytest.raises(ValueError, match="replicates"):
        sim.draw_monte_carlo(db, N, 1, np.random.default_rng(0), np.random.default_rng(1))
    with pytest.raises(ValueError, match="ages"):
        db.sample_record_paths([10, 0, 0], 5, 2, np.random.default_rng(0))
