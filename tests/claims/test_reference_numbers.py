"""Regenerated figure CSVs against the stored reference numbers (tests/reference/<profile>/).

A code change that moves results fails here; if the move is intended, refresh deliberately with
``python -m repro.reference refresh --profile quick`` (it prints what changed).
"""

import os
from pathlib import Path

import pytest

from repro import experiment as ex
from repro.reference import compare, tolerances
from repro.results import read_tidy_csv

ROOT = Path(__file__).resolve().parents[2]
PROFILE = os.environ.get("REPRO_TEST_PROFILE", "quick")
REF = ROOT / "tests" / "reference" / PROFILE
CASES = sorted(str(p.relative_to(REF).with_suffix("")) for p in REF.glob("*/*.csv"))


@pytest.mark.claims
@pytest.mark.parametrize("name", CASES)
def test_figure_numbers_match_reference(name):
    slug, fig = name.split("/")
    current = ROOT / "figures" / PROFILE / slug / f"{fig}.csv"
    assert current.exists(), f"{current} missing: run `snakemake -j8 all --config profile={PROFILE}`"
    rtol, atol = tolerances(slug, fig)
    problems = compare(read_tidy_csv(current), read_tidy_csv(REF / f"{name}.csv"), rtol, atol)
    assert not problems, f"{name} moved from the stored reference:\n" + "\n".join(problems)


def test_reference_exists_for_every_figure():
    missing = [f"{s}/{f.fig_id}" for s in ex.PAPERS for f in ex.figure_specs(s, PROFILE)
               if not (REF / s / f"{f.fig_id}.csv").exists()]
    assert not missing, f"no stored reference for {missing}; store with python -m repro.reference refresh --profile {PROFILE}"
