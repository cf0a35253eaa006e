"""The named reasons of a not-evaluated claim (judging rule 9) and their counts."""

import pytest

from repro.claims import NOT_EVALUATED_REASONS, not_evaluated, not_evaluated_category, not_evaluated_counts


def test_category_prefixes_the_named_phrase_and_is_recovered():
    for key, phrase in NOT_EVALUATED_REASONS.items():
        ev = not_evaluated("detail", category=key)
        assert ev.verdict == "not_evaluated"
        assert ev.reason == f"{phrase}: detail"
        assert not_evaluated_category(ev.reason) == key


def test_unknown_category_names_the_allowed_ones():
    with pytest.raises(ValueError, match="'bogus'.*offline"):
        not_evaluated("x", category="bogus")


def test_legacy_reasons_are_classified_and_unknown_ones_counted_as_other():
    assert not_evaluated_category("dataset 'cifar10' is not available offline") == "offline"
    assert not_evaluated_category("fig3 was not regenerated") == "not_run"
    assert not_evaluated_category("something else") == "other"
    claims = [{"verdict": "not_evaluated", "reason": "regime not preserved: E = 1 vs 20"},
              {"verdict": "not_evaluated", "reason": "something else"},
              {"verdict": "reproduced", "reason": "regime not preserved"}]
    counts = not_evaluated_counts(claims)
    assert counts["regime"] == 1 and counts["other"] == 1 and sum(counts.values()) == 2


def test_sign_test_moves_with_the_pairs():
    from repro.claims import sign_test

    assert sign_test([0.1] * 10).verdict == "reproduced"
    assert sign_test([-0.1] * 10).verdict == "not_reproduced"
    assert sign_test([-0.1] * 10, expect="negative").verdict == "reproduced"
    ev = sign_test([0.1, 0.0, -0.1])
    assert ev.verdict == "inconclusive" and ev.details["ties"] == 1 and ev.interval.low < 0.5 < ev.interval.high
    assert sign_test([0.0, 0.0]).reason.startswith("degenerate comparison")
