"""The judgement rules of wpfl_minmax's claims: per-level parts with Bonferroni intervals, log ratios for the
heavy-tailed max test loss, and the exact Theorem 1 check."""

import numpy as np
import pandas as pd

from repro import experiment as ex
from repro.papers.wpfl_minmax import claims as C


def test_bonferroni_level():
    assert C.bonferroni(1) == 0.95 and abs(C.bonferroni(10) - 0.995) < 1e-12


def test_one_failing_level_fails_the_ordering():
    """A method ahead on average but behind at one T0 must not pass (the averaging the audit found)."""
    good = pd.Series([0.2, 0.21, 0.22], index=[0, 1, 2])
    bad = pd.Series([-0.2, -0.21, -0.19], index=[0, 1, 2])
    assert C._judge_all({"T0=5": good, "T0=10": good, "T0=20": bad}).verdict == "not_reproduced"
    assert C._judge_all({"T0=5": good, "T0=10": good}).verdict == "reproduced"


def test_log_loss_ratio_ranks_diverged_runs_last_without_swamping():
    la = pd.DataFrame({5: [1.0, 1.0, 1.0]})
    lb = pd.DataFrame({5: [np.inf, 10.0, 3372.0]})
    r = C._log_loss_ratio(la, lb)[5]
    assert r.iloc[0] == C.LOSS_DIVERGED_DECADES and abs(r.iloc[1] - 1) < 1e-12 and r.min() > 0
    assert C._log_loss_ratio(lb, la)[5].max() < 0


def test_theorem1_one_release_delta_is_q():
    """One release in the worst-case coordinate: the exact delta of the paper's q-mixture is q, above delta_Q."""
    p = ex.load_params("wpfl_minmax", "paper")
    ev = C.theorem1_delta_one_release({}, p)
    assert ev.verdict == "not_reproduced"
    for part in ev.details["parts"].values():
        delta = float(part["reason"].split("delta = ")[1].split(" ")[0])
        assert abs(delta - p["sampling_rate_q"]) / p["sampling_rate_q"] < 0.01
    assert C.theorem1_delta_one_release({}, {**p, "sampling_rate_q": 1e-6}).verdict == "reproduced"
