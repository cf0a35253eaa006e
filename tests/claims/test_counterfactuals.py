"""Every claim can change its verdict: its ``refute`` counterfactual must give ``not_reproduced`` and its
``support`` counterfactual ``reproduced``, on the regenerated tables of the profile under test.

A claim whose verdict cannot move is a defect (it would report whatever the data say as the same
finding). The counterfactuals live beside each claim (``repro/papers/<slug>/claims.py``).
"""

import pytest

from repro import registry

from .conftest import claim_cases, params, tables


def _spec(name):
    slug, cid = name.split("/", 1)
    return registry.module(slug, "claims").CLAIMS[cid], slug


@pytest.mark.claims
@pytest.mark.parametrize("name", claim_cases())
def test_refuting_counterfactual_gives_not_reproduced(name):
    spec, slug = _spec(name)
    t, p = spec.refute(dict(tables(slug)), dict(params(slug)))
    claim = spec.evaluate(t, p)
    assert claim.verdict == "not_reproduced", f"{name}: refuting counterfactual gave {claim.verdict} ({claim.reason})"


@pytest.mark.claims
@pytest.mark.parametrize("name", claim_cases())
def test_supporting_counterfactual_gives_reproduced(name):
    spec, slug = _spec(name)
    t, p = spec.support(dict(tables(slug)), dict(params(slug)))
    claim = spec.evaluate(t, p)
    assert claim.verdict == "reproduced", f"{name}: supporting counterfactual gave {claim.verdict} ({claim.reason})"


@pytest.mark.claims
@pytest.mark.parametrize("slug", registry.slugs())
def test_every_paper_has_claims(slug):
    assert len(registry.module(slug, "claims").CLAIMS) > 0, f"{slug}: claims.CLAIMS is empty"
