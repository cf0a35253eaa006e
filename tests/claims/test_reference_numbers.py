"""Regenerated figure CSVs against the stored reference numbers (tests/reference/<profile>/).

Cells are matched on numeric x; seed-means must lie within a tolerance derived from the seed spread
(deterministic cells: the tolerances in tests/reference/tolerances.yaml). A change that moves results
fails here; if the move is intended, refresh deliberately with
``python -m repro.reference refresh --profile quick`` (it prints what changed).
"""

import pytest

from repro import experiment as ex
from repro import registry
from repro.reference import compare, reference_dir, tolerances
from repro.results import read_tidy_csv

from .conftest import PROFILE

REF = reference_dir(PROFILE)
CASES = [f"{s}/{f.fig_id}" for s in registry.slugs() for f in ex.figure_specs(s, PROFILE)]


@pytest.mark.claims
@pytest.mark.parametrize("name", CASES)
def test_figure_numbers_match_reference(name):
    from repro import paths

    slug, fig = name.split("/")
    current = paths.figures_dir(PROFILE, slug) / f"{fig}.csv"
    assert current.exists(), f"{current} missing: run `snakemake --cores 2 all --config profile={PROFILE}`"
    ref = REF / slug / f"{fig}.csv"
    assert ref.exists(), f"no stored reference for {name}; store with python -m repro.reference refresh --profile {PROFILE}"
    rtol, atol = tolerances(slug, fig)
    problems = compare(read_tidy_csv(current), read_tidy_csv(ref), rtol, atol)
    assert not problems, f"{name} moved from the stored reference:\n" + "\n".join(problems)
