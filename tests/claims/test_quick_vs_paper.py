"""Each claim's quick verdict against its paper-scale verdict (judging rule 1): a reduced profile may keep a
verdict only where it agrees with the paper's experiment. A contradiction (one profile ``reproduced``, the other
``not_reproduced``) fails here; differences of power (one side ``inconclusive``) are listed in the reports
(figures/<profile>/claims.md, section "Quick vs paper")."""

import pytest

from repro import record, registry


@pytest.mark.claims
@pytest.mark.parametrize("slug", registry.slugs())
def test_quick_never_contradicts_the_paper_scale(slug):
    bad = [r for r in record.records(slug) if r.disagreement == "contradiction"]
    assert not bad, "quick contradicts the paper scale (mark the quick claim not_evaluated(category='regime')): " + \
        "; ".join(f"{r.id}: quick {r.quick}, paper {r.paper}" for r in bad)


def test_verdict_of_record_prefers_the_paper_scale_and_flags_contradictions():
    quick = [{"id": "C1", "verdict": "reproduced"}, {"id": "C2", "verdict": "inconclusive"},
             {"id": "C3", "verdict": "not_reproduced"}, {"id": "C4", "verdict": "not_evaluated"}]
    paper = [{"id": "C1", "verdict": "not_reproduced"}, {"id": "C2", "verdict": "not_evaluated"},
             {"id": "C3", "verdict": "inconclusive"}, {"id": "C4", "verdict": "not_evaluated"}]
    recs = {r.id: r for r in record.records("toy", quick, paper)}
    assert (recs["C1"].verdict, recs["C1"].scale, recs["C1"].disagreement) == ("not_reproduced", "paper", "contradiction")
    assert (recs["C2"].verdict, recs["C2"].scale, recs["C2"].disagreement) == ("inconclusive", "quick", None)
    assert (recs["C3"].verdict, recs["C3"].scale, recs["C3"].disagreement) == ("inconclusive", "paper", "power")
    assert (recs["C4"].verdict, recs["C4"].scale) == ("not_evaluated", "-")
    c = record.counts(list(recs.values()))
    assert c["not_reproduced"] == 1 and c["not_reproduced@paper"] == 1 and c["inconclusive@quick"] == 1


def test_a_paper_scale_not_evaluated_for_a_reason_of_its_own_is_not_replaced_by_the_quick_verdict():
    """Only a paper profile that did not make the runs lets the quick verdict stand; an unstated constant or a band
    out of reach at paper scale is the verdict of record."""
    quick = [{"id": "C1", "verdict": "not_reproduced"}, {"id": "C2", "verdict": "not_reproduced"}]
    paper = [{"id": "C1", "verdict": "not_evaluated", "reason": "depends on an unstated constant: tau = 100 vs tau = 1"},
             {"id": "C2", "verdict": "not_evaluated", "reason": "not run at this scale: fig3 was not regenerated"}]
    recs = {r.id: r for r in record.records("toy", quick, paper)}
    assert (recs["C1"].verdict, recs["C1"].scale) == ("not_evaluated", "-")
    assert recs["C1"].claim["reason"].startswith("depends on an unstated constant")
    assert (recs["C2"].verdict, recs["C2"].scale) == ("not_reproduced", "quick")
