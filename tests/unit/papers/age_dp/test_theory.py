"""Closed forms (G1), (G2), eq. (10) and the Markov database against values computed from the closed forms."""

import numpy as np
import pytest

from repro.papers.age_dp import theory as th
from repro.papers.age_dp.markov_database import MarkovEnergyDatabase, cyclic_transition_matrix

N, S = 100, 1.8


@pytest.fixture(scope="module")
def tables():
    return th.age_tables(MarkovEnergyDatabase())


def test_cyclic_matrix_is_doubly_stochastic_circulant():
    P = cyclic_transition_matrix(0.3)
    np.testing.assert_allclose(P.sum(axis=0), 1.0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert P[3, 0] == pytest.approx(0.3) and P[0, 1] == pytest.approx(0.3)


def test_target_laws_and_moments(tables):
    db = MarkovEnergyDatabase()
    target = db.target_laws()
    np.testing.assert_allclose(target[:, 0], [[.3248, .3896, .2154, .0702], [.2627, .2717, .2373, .2283],
                                              [.2523, .2391, .2477, .2609]], atol=5e-5)
    # anchor = time: the target law does not depend on the age
    np.testing.assert_allclose(target, np.repeat(target[:, :1], 10, axis=1), atol=1e-12)
    np.testing.assert_allclose(tables.mean_t[:, 0], [61.5526, 88.2315, 93.9595], atol=5e-5)
    np.testing.assert_allclose(tables.var_t[:, 0], [2276.20, 4504.72, 4785.25], atol=5e-3)
    np.testing.assert_allclose(tables.mean_c[:, 9], [26, 135, 69], atol=1e-9)      # initial means
    np.testing.assert_allclose(tables.var_c[:, 9], [144.0, 3025.0, 1069.0], atol=1e-9)
    np.testing.assert_allclose(tables.var_c[:, 0], tables.var_t[:, 0], rtol=1e-12)


def test_mutual_information_eq10(tables):
    expected = [[1.2496, .9246, .7242, .5710, .4466, .3432, .2567, .1842, .1237, .0737],
                [1.3838, .7729, .4532, .2433, .1255, .0658, .0360, .0198, .0104, .0049],
                [1.3858, .7128, .3725, .1578, .0745, .0385, .0195, .0098, .0049, .0023]]
    np.testing.assert_allclose(tables.mutual_info, expected, atol=5e-5)
    target = MarkovEnergyDatabase().target_laws()[:, 0]
    entropy = -(target * np.log(target)).sum(axis=1)
    np.testing.assert_allclose(tables.mutual_info[:, 0], entropy, rtol=1e-12)   # I(0) = H(target)


def test_mutual_information_collection_anchor():
    t = th.age_tables(MarkovEnergyDatabase(anchor="collection"))
    np.testing.assert_allclose(t.mutual_info, [[.5004, .3399, .2680, .2206, .1846, .1551, .1301, .1085, .0898, .0737],
                                               [.9433, .5603, .3316, .1764, .0890, .0458, .0255, .0148, .0085, .0049],
                                               [1.0297, .6004, .3223, .1327, .0617, .0321, .0164, .0085, .0044, .0023]],
                               atol=5e-5)


def test_bias_and_drift_variance_g1(tables):
    np.testing.assert_allclose(tables.bias, [
        [0, -3.976, -8.073, -12.242, -16.428, -20.573, -24.615, -28.493, -32.153, -35.553],
        [0, -0.799, -0.604, 1.244, 5.369, 12.139, 21.370, 31.978, 41.668, 46.768],
        [0, 1.069, -0.376, -4.656, -8.456, -6.105, 4.993, 16.681, 17.641, -24.959]], atol=6e-4)
    np.testing.assert_allclose(tables.drift_var, [
        [0, 492.30, 873.87, 1162.14, 1376.24, 1536.51, 1663.74, 1777.85, 1896.29, 2031.91],
        [0, 3185.75, 5822.38, 8039.06, 9809.35, 10997.65, 11399.86, 10858.30, 9443.31, 7590.77],
        [0, 7126.63, 10732.16, 11656.25, 10575.16, 9528.57, 9259.03, 9304.07, 8976.19, 5884.83]], atol=6e-3)


SCHEDULES = np.array([[0, 0, 0], [9, 9, 9], [9, 4, 6]])


@pytest.mark.parametrize("eps_bar, expected", [(0.1, [216.00, 79.62, 163.34]), (1.0, [2.16, 38.89, 94.98])])
def test_loss_difference_g1(tables, eps_bar, expected):
    eps_c = th.classic_epsilons(tables, SCHEDULES, eps_bar, "adaptive")
    np.testing.assert_allclose(th.loss_difference(tables, SCHEDULES, eps_c, N, S), expected, atol=5e-3)


@pytest.mark.parametrize("eps_bar, form, expected", [
    (0.1, "standard", [1865.85, 207.12, 389.74]), (1.0, "standard", [44.10, 41.15, 99.92]),
    (0.1, "printed", [1542.35, 166.42, 311.40]), (1.0, "printed", [41.36, 41.00, 99.63]),
])
def test_upper_bound_g2(tables, eps_bar, form, expected):
    eps_c = th.classic_epsilons(tables, SCHEDULES, eps_bar, "adaptive")
    np.testing.assert_allclose(th.upper_bound(tables, SCHEDULES, eps_c, N, S, fse_form=form), expected, atol=5e-3)


def test_literal_eq12_adds_a_constant_under_time_anchor(tables):
    all_fresh_to_stale = np.array([[a, b, c] for a in range(10) for b in (0, 5) for c in (3, 9)])
    eps_c = th.classic_epsilons(tables, all_fresh_to_stale, 0.2, "adaptive")
    diff = (th.upper_bound(tables, all_fresh_to_stale, eps_c, N, S, literal_eq12=True)
            - th.upper_bound(tables, all_fresh_to_stale, eps_c, N, S))
    np.testing.assert_allclose(diff, 4067.66, atol=5e-3)
    mu = tables.mean_t[:, 0].mean()
    assert mu == pytest.approx(81.2479, abs=5e-5)
    const = ((tables.var_t[:, 0] + (tables.mean_t[:, 0] - mu) ** 2) / 3).sum()
    assert const == pytest.approx(4054.81, abs=5e-3)
    assert (tables.var_t[:, 0] / 9 / N).sum() == pytest.approx(12.8513, abs=5e-5)


def test_fse_inverse_forms():
    nu = alpha = 2 * 18.0**2      # eta = s / eps_bar = 18
    np.testing.assert_allclose(th.fse_inverse([0.1, 0.5, 1.2496], nu, alpha), [289.79, 648.00, 1133.74], atol=5e-3)
    np.testing.assert_allclose(th.fse_inverse([0.1, 0.5, 1.2496], nu, alpha, "printed"), [16.10, 36.00, 810.24], atol=5e-3)
    # the standard form is continuous at the threshold nu^2 / (2 alpha^2); the printed one is not
    thr = nu**2 / (2 * alpha**2)
    lo, hi = th.fse_inverse([thr, thr + 1e-12], nu, alpha)
    assert hi - lo == pytest.approx(0.0, abs=1e-6)


def test_constant_and_classic_noise_modes(tables):
    eps_ad = th.classic_epsilons(tables, SCHEDULES, 0.1, "adaptive")
    eps_co = th.classic_epsilons(tables, SCHEDULES, 0.1, "constant")
    np.testing.assert_allclose(eps_co, np.repeat(eps_ad.min(axis=1, keepdims=True), 3, axis=1))
    np.testing.assert_array_equal(th.classic_epsilons(tables, SCHEDULES, 0.1, "classic"), 0.1)
    assert np.all(eps_co <= eps_ad)


@pytest.mark.parametrize("call, match", [
    (lambda t: th.classic_epsilons(t, SCHEDULES, 0.1, "bogus"), "noise mode"),
    (lambda t: th.loss_difference(t, np.array([[0, 0]]), np.ones((1, 2)), N, S), "shape"),
    (lambda t: th.loss_difference(t, np.array([[0, 0, 10]]), np.ones((1, 3)), N, S), r"\[0, 9\]"),
    (lambda t: th.upper_bound(t, SCHEDULES, np.ones((3, 3)), N, S, fse_form="nope"), "fse_form"),
    (lambda t: th.upper_bound(t, SCHEDULES, np.ones((3, 3)), N, S, eq11_noise_coef="1/2"), "eq11_noise_coef"),
    (lambda t: th.age_tables(MarkovEnergyDatabase(), "approx"), "delta_mode"),
    (lambda t: MarkovEnergyDatabase(anchor="start"), "chain_anchor"),
    (lambda t: MarkovEnergyDatabase(initial_laws=((1, 0, 0, 0),)), "one initial law"),
])
def test_bad_inputs_are_named(tables, call, match):
    with pytest.raises(ValueError, match=match):
        call(tables)
