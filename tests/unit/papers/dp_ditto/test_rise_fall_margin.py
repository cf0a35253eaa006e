"""'Rises then falls' (dp_ditto claims 10.b, 12) is judged at margin 0 (rule 3) and at the package's margin; a
verdict only where both give it (rule 4)."""

import numpy as np
import pandas as pd

from repro.papers.dp_ditto import claims as C


def _curves(bump):
    """Fig. 6(a) accuracy at lambda = 1 over t = 1..12: flat at 0.8 with a hump of height ``bump`` in the middle."""
    rows = []
    for seed in range(3):
        for x in range(1, 13):
            v = 0.8 + bump * (1 - ((x - 6.5) / 5.5) ** 2) + 0.0002 * seed
            rows.append(dict(figure="fig6", panel="a", series=C._lk(1.0), x=x, metric="accuracy", value=v, seed=seed, run_id=""))
    return pd.DataFrame(rows)


def test_a_bump_between_the_margins_is_not_a_verdict():
    t = _curves(0.005)  # a peak 0.005 above the ends: above 0, below the package's 0.01
    ev = C._rise_fall_judged(t, [(0, "dnn_mnist")], [1.0])
    assert ev.verdict == "not_evaluated" and ev.reason.startswith("depends on an unstated constant")
    assert "margin 0: reproduced" in ev.reason and f"margin {C.RISE_FALL_MIN}" in ev.reason


def test_clear_humps_and_flat_curves_are_judged_alike_at_both_margins():
    assert C._rise_fall_judged(_curves(0.05), [(0, "dnn_mnist")], [1.0]).verdict == "reproduced"
    assert C._rise_fall_judged(_curves(0.0), [(0, "dnn_mnist")], [1.0]).verdict in ("not_reproduced", "inconclusive")
    assert np.isclose(C._rise_fall(pd.Series([0.9, 0.8, 0.7, 0.6])), 0.0)


def _ramp(slope):
    """Fig. 6(a) accuracy at lambda = 1 over t = 1..30, monotone in every seed (the rise-fall statistic is 0)."""
    rows = []
    for seed in range(3):
        for x in range(1, 31):
            v = 0.1 + slope * x * (1 + 0.1 * seed)
            rows.append(dict(figure="fig6", panel="a", series=C._lk(1.0), x=x, metric="accuracy", value=v, seed=seed, run_id=""))
    return pd.DataFrame(rows)


def test_a_curve_monotone_in_every_seed_is_judged_by_its_edge_slope_not_a_zero_width_interval():
    """Rule 8: the rise-fall statistic of a monotone curve is 0 in every seed (interval [0, 0]); the verdict comes from
    the signed slope over the third of the horizon where the curve peaks, whose interval has width."""
    rising = C._rise_fall_judged(_ramp(0.02), [(0, "dnn_mnist")], [1.0])
    assert rising.verdict == "not_reproduced" and rising.interval.low > 0 and rising.interval.high > rising.interval.low
    assert "slope of the accuracy over t = 21-30" in str(rising.details)
    falling = C._rise_fall_judged(_ramp(-0.002), [(0, "dnn_mnist")], [1.0])
    assert falling.verdict == "not_reproduced" and falling.interval.high < 0 and "first third" in str(falling.details)
