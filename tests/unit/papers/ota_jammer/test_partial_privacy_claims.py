"""C12p and C21 on a privacy table that certifies only some configurations (a partial paper-scale render)."""

import pytest

from repro import experiment as ex
from repro.papers.ota_jammer import claims
from repro.papers.ota_jammer.privacy import NO_CJ_NAME, ONE_STEP_NAME
from repro.results import tidy_frame



@pytest.fixture(scope="module")
def PARAMS(project_root):
    return ex.load_params("ota_jammer", "paper")


def _table(values: dict, replace_one: dict | None = None, exact_share: float = 0.9):
    """A privacy table: RDP certificates ``values``, their exact values ``exact_share`` x them."""
    def row(name, metric, v):
        return dict(figure="privacy", panel="p", series=name, x=0.0, metric=metric, value=v, seed=-1, run_id="")

    rows = [row(n, m, v * f) for n, v in values.items()
            for m, f in (("certified_epsilon", 1.0), ("certified_epsilon_tight", exact_share))]
    rows += [row(n, m, v * f) for n, v in (replace_one or {}).items()
             for m, f in (("certified_epsilon_replace_one", 1.0), ("certified_epsilon_replace_one_tight", exact_share))]
    return {"privacy": tidy_frame(rows)}


def _claim(cid):
    return next(c for c in claims.CLAIMS if c.id == cid)


def test_one_refuted_level_decides_c12p_without_the_jammer_runs(PARAMS):
    got = _claim("C12p").fn(_table({NO_CJ_NAME: 1e7}), PARAMS)
    assert got.verdict == "not_reproduced"
    assert "not evaluated: proposed PC + CJ, target eps 1" in got.reason


def test_levels_that_hold_do_not_make_c12p_reproduced_while_others_are_not_run(PARAMS):
    got = _claim("C12p").fn(_table({NO_CJ_NAME: 6.0}), PARAMS)
    assert got.verdict == "not_evaluated" and got.reason.startswith("not run at this scale")
    full = {NO_CJ_NAME: 6.0, **{claims.cj_name(e): e * 0.9 for e in PARAMS["cj_epsilons"]}}
    assert _claim("C12p").fn(_table(full), PARAMS).verdict == "reproduced"


def test_c21_states_the_bound_from_the_one_step_runs(PARAMS):
    got = _claim("C21").fn(_table({NO_CJ_NAME: 1e7, ONE_STEP_NAME: 5.9}, {ONE_STEP_NAME: 13.5}), PARAMS)
    assert got.verdict == "not_reproduced" and "lower bound on any data of this split: 12.2" in got.reason
    assert _claim("C21").fn(_table({NO_CJ_NAME: 6.0}), PARAMS).verdict == "reproduced"


def test_an_rdp_bound_above_the_level_is_not_a_refutation_when_the_exact_value_meets_it(PARAMS):
    """The RDP certificate is an upper bound: above 6.52 it fails to certify the level; only the exact epsilon
    of the same Gaussian releases above 6.52 shows the level does not hold."""
    assert _claim("C21").fn(_table({NO_CJ_NAME: 7.0}, exact_share=0.9), PARAMS).verdict == "inconclusive"
    assert _claim("C21").fn(_table({NO_CJ_NAME: 7.5}, exact_share=0.9), PARAMS).verdict == "not_reproduced"
