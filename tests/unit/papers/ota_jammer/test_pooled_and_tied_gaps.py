"""ota_jammer (referee audit of 2026-11-29): C15's six (target x baseline) comparisons are one sign test pooled over
the seeds (judging rule 8: six Bonferroni parts would need t > 10.9 each with 3 seeds), and a part whose gaps are all
exact ties is a degenerate comparison (rule 5), not a loss."""

import numpy as np

from repro.papers.ota_jammer import claims as C


def test_six_bonferroni_parts_cannot_decide_consistent_small_gaps_but_the_sign_test_can():
    gaps = {f"part {i}": np.array([0.004, 0.006, 0.008]) for i in range(6)}  # every one of 18 gaps > 0
    assert C._judge(gaps).verdict == "inconclusive"
    from repro.claims import sign_test

    assert sign_test(np.concatenate(list(gaps.values()))).verdict == "reproduced"


def test_a_part_of_exact_ties_is_degenerate_not_a_loss():
    ev = C._judge({"identical runs": np.zeros(3)})
    assert ev.verdict == "not_evaluated" and "degenerate" in ev.reason
    mixed = C._judge({"identical runs": np.zeros(3), "gain": np.array([0.05, 0.06, 0.07])})
    assert mixed.verdict == "reproduced"  # the tied part is left out and named, not counted against
