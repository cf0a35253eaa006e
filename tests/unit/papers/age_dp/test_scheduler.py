"""Schedule search and the six schemes of Fig. 3 against values computed from (G1), (G2), and Fig. 2's curves."""

import numpy as np
import pytest

from repro import experiment as ex
from repro.papers.age_dp import scheduler as sch
from repro.papers.age_dp import theory as th
from repro.papers.age_dp.markov_database import MarkovEnergyDatabase
from repro.papers.age_dp.checks import fig2_shapes, fresher_is_better, interior_optimum
from repro.papers.age_dp.runs import Model, shape_region

GRID = [0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


@pytest.fixture(scope="module")
def curves():
    tables = th.age_tables(MarkovEnergyDatabase())
    return sch.scheme_curves(tables, GRID, 100, 1.8, sch.all_schedules(10, 3))


def test_schedule_sets():
    s = sch.all_schedules(10, 3)
    assert s.shape == (1000, 3)
    assert s[0].tolist() == [0, 0, 0] and s[1].tolist() == [0, 0, 1] and s[-1].tolist() == [9, 9, 9]
    d = sch.all_schedules(10, 3, distinct=True)
    assert len(d) == 720 and all(len(set(r)) == 3 for r in d.tolist())
    with pytest.raises(ValueError, match="distinct"):
        sch.all_schedules(2, 3, distinct=True)


def test_search_breaks_ties_by_first_schedule():
    assert sch.exhaustive_schedule_search(np.array([3.0, 1.0, 1.0, 2.0])) == 1
    with pytest.raises(ValueError, match="finite"):
        sch.exhaustive_schedule_search(np.array([1.0, np.nan]))


# computed from (G1), (G2): eps_bar -> (rc, ra, nc, sc, na, sa)
TABLE = {
    0.01: (21683.8, 12217.2, 10944.4, 10929.5, 3909.3, 3909.3),
    0.1: (299.8, 207.2, 151.2, 136.2, 79.6, 74.2),
    0.2: (137.8, 115.2, 52.6, 52.5, 38.2, 35.6),
    0.5: (92.5, 89.1, 28.4, 8.6, 26.0, 8.6),
    1.0: (86.0, 85.2, 19.7, 2.16, 18.6, 2.16),
}
INV = {0.01: (100, 50.15, 71.06, 71.06, 16.34, 16.34), 0.15: (6.67, 3.67, 4.86, 4.86, 1.53, 2.50),
       1.0: (1, 0.71, 0.97, 1, 0.46, 1)}


@pytest.mark.parametrize("eps_bar", sorted(TABLE))
def test_fig3_loss_values(curves, eps_bar):
    j = GRID.index(eps_bar)
    got = [curves[k]["loss"][j] for k in sch.SCHEMES]
    np.testing.assert_allclose(got, TABLE[eps_bar], atol=0.051)


@pytest.mark.parametrize("eps_bar", sorted(INV))
def test_fig3_inverse_epsilon(curves, eps_bar):
    j = GRID.index(eps_bar)
    np.testing.assert_allclose([curves[k]["inv_eps"][j] for k in sch.SCHEMES], INV[eps_bar], atol=0.0051)


def test_fig3_chosen_schedules_and_bound(curves):
    j = GRID.index(0.1)
    assert curves["sa"]["ages"][j].tolist() == [9, 9, 5]
    assert curves["na"]["ages"][j].tolist() == [9, 9, 9]
    np.testing.assert_allclose(curves["na"]["bound"][[GRID.index(e) for e in (0.01, 0.05, 0.1, 0.2, 0.5, 1.0)]],
                               [15901.5, 690.8, 207.1, 78.7, 34.0, 23.1], atol=0.051)


def test_random_worst_variant():
    tables = th.age_tables(MarkovEnergyDatabase())
    c = sch.scheme_curves(tables, [0.01, 0.1, 1.0], 100, 1.8, sch.all_schedules(10, 3), random_constant="worst")
    np.testing.assert_allclose(c["rc"]["loss"], [20307.9, 286.6, 85.9], atol=0.051)
    np.testing.assert_allclose(c["rc"]["inv_eps"], [96.45, 9.66, 0.98], atol=0.0051)


def test_printed_fse_changes_only_numerical_curves():
    tables = th.age_tables(MarkovEnergyDatabase())
    c = sch.scheme_curves(tables, [0.15, 1.0], 100, 1.8, sch.all_schedules(10, 3), sch.SurrogateOptions(fse_form="printed"))
    np.testing.assert_allclose(c["na"]["loss"], [49.0, 17.8], atol=0.051)
    assert c["na"]["ages"][1].tolist() == [5, 9, 9]


def test_parametric_constant_noise():
    tables = th.age_tables(MarkovEnergyDatabase())
    p = sch.parametric_constant_curves(tables, [0.1], 100, 1.8, sch.all_schedules(10, 3))
    assert p["sc"]["ages"][0] == [0, 0, 0] and p["sc"]["loss"][0] == pytest.approx(216.0)
    assert p["nc"]["ages"][0] == [9, 9, 9] and p["nc"]["loss"][0] == pytest.approx(254.2, abs=0.05)
    assert p["nc"]["x"][0] == pytest.approx(0.0719, abs=5e-5)


@pytest.mark.parametrize("client, expected", [
    (0, [324.35, 306.31, 290.84, 279.13, 264.73, 247.52, 233.94, 224.21, 218.30, 216.00]),
    (1, [398.00, 351.31, 275.82, 217.22, 188.51, 184.25, 196.50, 222.51, 219.61, 216.00]),
    (2, [220.98, 190.52, 188.52, 162.65, 168.53, 181.24, 191.32, 214.97, 224.05, 216.00]),
])
def test_fig2_curves(client, expected):
    model = Model(ex.load_params("age_dp", "paper"))
    ages, ld = model.single_client_sweep(client, 0.1)
    np.testing.assert_allclose(ld, expected, atol=5e-3)
    assert ages[0, client] == 9 and ages[-1, client] == 0
    assert (fresher_is_better if client == 0 else interior_optimum)(ld)


def test_fig2_shapes_fail_outside_window():
    model = Model(ex.load_params("age_dp", "paper"))
    assert not interior_optimum(model.single_client_sweep(1, 0.3)[1])    # argmin t_c = 10 at 0.3
    assert not fresher_is_better(model.single_client_sweep(0, 0.03)[1])  # argmin t_c = 1 at 0.03
    assert fig2_shapes([model.single_client_sweep(i, 0.1)[1] for i in range(3)]) == [True, True, True]


def test_shape_region_matches_direct_sweeps():
    """The (eps_bar, s) map uses LD = data + s^2 noise; it must agree with sweeps at each s."""
    model = Model(ex.load_params("age_dp", "paper"))
    eps, sens = [0.03, 0.1, 0.3], [0.9, 1.8, 5.4]
    holds = np.asarray(shape_region(model, eps, sens)["holds"])
    for je, e in enumerate(eps):
        for js, s in enumerate(sens):
            direct = fig2_shapes([model.single_client_sweep(i, e, sensitivity=s)[1] for i in range(3)])
            assert holds[:, je, js].tolist() == [int(v) for v in direct]
    assert holds[:, 1, 1].tolist() == [1, 1, 1]          # the run's point (0.1, 1.8)
