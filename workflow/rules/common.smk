# Shared helpers: the list of figures and runs comes from repro/papers/<slug>/experiments.py.
import functools
import os

from repro import experiment as ex

PAPERS = ex.PAPERS
PROFILES = ex.PROFILES

if config.get("data_mirror"):
    os.environ["REPRO_DATA_MIRROR"] = os.path.abspath(config["data_mirror"])

wildcard_constraints:
    profile="|".join(PROFILES),
    slug="|".join(PAPERS),
    fig=r"(fig|table)[0-9]+[a-z]?",
    run_id=r"[A-Za-z0-9_.\-]+",


@functools.cache
def figures_of(profile, slug):
    return {f.fig_id: f for f in ex.figure_specs(slug, profile)}


@functools.cache
def resources_of(profile, slug):
    return ex.run_resources(slug, profile)


def run_gpus(wc):
    """1 when the run wants a GPU (``experiment.run_resources``: a GPU task or a figure asking for one) and the
    workflow's device is not the CPU."""
    return int(resources_of(wc.profile, wc.slug)[wc.run_id]["gpu"] and config["device"] != "cpu")


def run_files(profile, slug, fig):
    figs = figures_of(profile, slug)
    if fig not in figs:
        raise ValueError(f"unknown figure {fig!r} of {slug}; allowed: {', '.join(figs)}")
    return [f"results/{profile}/{slug}/runs/{rid}.json" for rid in figs[fig].run_ids]


def figure_files(profile, slug, fig):
    spec = figures_of(profile, slug)[fig]
    exts = ["pdf", "png", "csv"] + (["md"] if spec.kind == "table" else [])
    return [f"figures/{profile}/{slug}/{fig}.{e}" for e in exts]


def dataset_flags(profile, slug, run_id):
    """Dataset status files a run needs (every dataset named by a figure that uses the run)."""
    names = set()
    for f in figures_of(profile, slug).values():
        if run_id in f.run_ids:
            names.update(f.datasets)
    return [f"data/status/{name}.json" for name in sorted(names)]


def all_targets(profile, slugs):
    out = [f"figures/{profile}/claims.md"]
    for slug in slugs:
        for fig in figures_of(profile, slug):
            out += figure_files(profile, slug, fig)
        out.append(f"results/{profile}/{slug}/claims.json")
    return out
