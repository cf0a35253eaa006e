"""The verdicts of the regenerated numbers (results/<profile>/<slug>/claims.json) against the stored ones.

Run the workflow first (``snakemake --cores 2 all``); the profile checked is ``$REPRO_TEST_PROFILE``
(default ``quick``). A verdict is a finding, whichever it is (``not_reproduced`` included): the test fails
when a verdict differs from the one stored in ``tests/reference/<profile>/<slug>/verdicts.json``, or when the
stored file and the claims disagree on which claims exist. Refresh deliberately with
``python -m repro.reference refresh --profile quick`` after checking that the change is intended.
"""

import json

import pytest

from repro import registry
from repro.claims import VERDICTS
from repro.reference import stored_verdicts

from .conftest import PROFILE, claim_cases, results_path

STORED = stored_verdicts(PROFILE)


def _claims(slug):
    p = results_path(slug)
    return {c["id"]: c for c in json.loads(p.read_text())} if p.exists() else None


@pytest.mark.claims
@pytest.mark.parametrize("slug", registry.slugs())
def test_claims_regenerated_for_every_claim(slug):
    claims = _claims(slug)
    assert claims is not None, f"{results_path(slug)} missing: run `snakemake --cores 2 all --config profile={PROFILE}`"
    declared = {n.split("/", 1)[1] for n in claim_cases() if n.startswith(slug + "/")}
    assert set(claims) == declared, f"{slug}: claims.json is stale (re-run the claims rule): {set(claims) ^ declared}"
    for c in claims.values():
        assert c["verdict"] in VERDICTS
        if c["verdict"] != "not_evaluated" and c["kind"] != "exact":
            assert c["effect"] is not None or c["regenerated"] is not None, f"{slug}/{c['id']}: verdict without a number"


@pytest.mark.claims
@pytest.mark.parametrize("name", claim_cases())
def test_verdict_matches_stored(name):
    slug, cid = name.split("/", 1)
    claims = _claims(slug) or {}
    assert cid in claims, f"{name}: not in {results_path(slug)}"
    c = claims[cid]
    assert name in STORED, f"{name}: no stored verdict (refresh the reference after checking it)"
    assert c["verdict"] == STORED[name], (
        f"{name} verdict changed: {c['verdict']} (stored {STORED[name]}); effect {c.get('effect')} {c.get('interval')}; "
        f"{c.get('reason')}")


def test_no_stored_verdict_without_claim():
    gone = sorted(set(STORED) - set(claim_cases()))
    assert not gone, f"stored verdicts for claims that no longer exist: {gone}"
