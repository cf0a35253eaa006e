"""Shared loading for the claim tests: the profile under test and its regenerated tables."""

import functools
import os

from repro import experiment as ex
from repro import paths, pipeline, registry

PROFILE = os.environ.get("REPRO_TEST_PROFILE", "quick")


@functools.cache
def tables(slug: str) -> dict:
    return pipeline.paper_tables(slug, PROFILE)


@functools.cache
def params(slug: str) -> dict:
    return ex.load_params(slug, PROFILE)


def claim_cases() -> list[str]:
    return [f"{slug}/{spec.id}" for slug in registry.slugs() for spec in registry.module(slug, "claims").CLAIMS]


def results_path(slug: str):
    return paths.results_dir(PROFILE, slug) / "claims.json"
