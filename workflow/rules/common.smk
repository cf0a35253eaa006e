# Shared helpers: papers come from the registry (repro/papers/*), figures and runs from each paper's
# experiments.py.
import functools
import os
import shlex
import sys

from snakemake_interface_executor_plugins.settings import DeploymentMethod

from repro import experiment as ex
from repro import registry
from repro.data import sources

PROFILES = ex.PROFILES
ALL_PAPERS = registry.slugs()
#: the software of every rule (used with --software-deployment-method conda; rules run from the project
#: root, so `python -m repro` there imports this checkout's package)
CONDA_ENV = "../../environment.yml"
# data_mirror (config.yaml or --config data_mirror=DIR): used here (dataset status) and passed to every command
MIRROR = os.path.abspath(config["data_mirror"]) if config.get("data_mirror") else ""
sources.use_mirrors(MIRROR or None)
# the interpreter snakemake runs in, whatever PATH says; the conda env's python when rules use conda
PYTHON = (
    "python"
    if DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
    else shlex.quote(sys.executable)
)
REPRO = (
    f"{PYTHON} -m repro --data-mirror {shlex.quote(MIRROR)}"
    if MIRROR
    else f"{PYTHON} -m repro"
)


def user_error(err):
    """Stop the workflow with one paragraph (no traceback) for a bad name or value in the configuration."""
    raise SystemExit(f"repro: error: {err}")


def selected_papers():
    """config["papers"]: "all" or a list of slugs (each checked against the registry)."""
    chosen = config["papers"]
    if chosen == "all":
        return list(ALL_PAPERS)
    for slug in chosen:
        try:
            ex.check_choice("paper in config 'papers'", slug, ALL_PAPERS)
        except ex.ConfigError as e:
            user_error(e)
    return list(chosen)


wildcard_constraints:
    profile="|".join(PROFILES),
    slug="|".join(ALL_PAPERS),
    fig=ex.FIG_ID.pattern.strip("^$"),
    run_id=r"[A-Za-z0-9_.\-]+",


@functools.cache
def figures_of(profile, slug):
    try:
        return {f.fig_id: f for f in ex.figure_specs(slug, profile)}
    except ex.ConfigError as e:  # a bad parameter value, checked when the profile loads
        user_error(e)


@functools.cache
def resources_of(profile, slug):
    try:
        return ex.run_resources(slug, profile)
    except ex.ConfigError as e:
        user_error(e)


def job_resources(profile, slug, run_id):
    """``threads`` and ``gpu`` of the job ``run_id``; an id that is no job of the paper under the profile
    (a typo, ``..``, a run of another profile) stops the workflow with one paragraph saying how to list them.
    """
    res = resources_of(profile, slug)
    if run_id not in res:
        user_error(
            f"run id {run_id!r} (in results/{profile}/{slug}/runs/{run_id}.json) is not a job of paper "
            f"{slug!r} under profile {profile!r}; allowed: the {len(res)} job ids listed by "
            f"`repro list {slug} --runs --profile {profile}` (a batch job's id, else the run's id)"
        )
    return res[run_id]


def recorded_cpu_seconds(wc):
    """The CPU seconds recorded by the last execution of this run (its result file), else 0: the run rule's
    priority, so that the longest runs start first (shortens the wall time of a rebuild on few cores; the
    scheduling order never changes a result)."""
    import json

    path = f"results/{wc.profile}/{wc.slug}/runs/{wc.run_id}.json"
    try:
        with open(path, encoding="utf-8") as fh:
            return int(float(json.load(fh).get("cpu_s") or 0.0))
    except (OSError, ValueError, AttributeError, TypeError):
        return 0


def slurm_partition(gpus=0):
    """SLURM partition of a job (config slurm_partitions; only profiles/slurm reads the resource): every job that is
    not a training run with a GPU goes to the cpu partition, so a user sets partitions in one place.
    """
    return config["slurm_partitions"]["gpu" if gpus else "cpu"]


def run_gpus(wc):
    """1 when the run's task trains torch models (experiments.TASKS gpu=True) and the device is not the CPU."""
    return int(
        job_resources(wc.profile, wc.slug, wc.run_id)["gpu"]
        and config["device"] != "cpu"
    )


def run_files(profile, slug, fig):
    figs = figures_of(profile, slug)
    if fig not in figs:
        user_error(
            f"figure {fig!r} (in figures/{profile}/{slug}/{fig}.*) is not a figure of paper {slug!r} under "
            f"profile {profile!r}; allowed: {', '.join(figs)} (`repro list {slug} --profile {profile}`)"
        )
    return [
        checked_run_file(f"results/{profile}/{slug}/runs/{rid}.json", rid)
        for rid in figs[fig].job_ids
    ]


@functools.cache
def checked_run_file(path, run_id):
    """``path``, the result file of job ``run_id``. When the workflow loads (main process only), a file there that
    is damaged or foreign (not the run its name says: another run's file copied over it) is moved aside here
    (repro.results.read_run_result), so it is never read: a figure that needs rebuilding (or the run file asked for)
    gets the run computed again first; a figure already built from the genuine result is left as it is.
    """
    if workflow.is_main_process and os.path.exists(path):
        from repro.results import read_run_result

        read_run_result(
            path,
            run_id=run_id,
            log=lambda msg: print(
                f"run result {msg}; never read, the run is computed again where a target "
                f"needs it",
                file=sys.stderr,
            ),
        )
    return path


def figure_files(profile, slug, fig):
    return [f"figures/{profile}/{slug}/{fig}.{e}" for e in ("pdf", "png", "csv", "md")]


#: datasets whose status file a dry run found untrue (dataset_flag): nothing is written, the plan is forced instead
DRY_RUN_STALE = set()


@functools.cache
def dataset_flag(name):
    """``data/status/<name>.json``, the run input that records whether the dataset can be had.

    When the workflow loads (main process only), a status file that no longer tells the truth (its
    dataset was fixed, damaged or removed since) is rewritten here with what is true now, so exactly the
    runs that need the dataset rerun (repro.data.status.sync_status_file). A dry run writes nothing: it
    notes the dataset, and the runs that read it are planned as forced (dataset_flags), so the plan is the
    one a real run would carry out, and a dataset back unchanged before the next call reruns nothing.
    """
    path = f"data/status/{name}.json"
    if workflow.is_main_process:
        from repro.data.status import sync_status_file

        try:
            state = sync_status_file(path, name, write=not workflow.dryrun)
        except (
            ex.ConfigError
        ) as e:  # a malformed REPRO_<NAME>_URL / _SHA256 / _MD5: one paragraph
            user_error(e)
        if state.startswith("updated"):
            print(
                f"dataset {name}: status {state}; the runs that need it rerun",
                file=sys.stderr,
            )
        elif state.startswith("stale"):
            DRY_RUN_STALE.add(name)
            print(
                f"dataset {name}: status {state}; a real run rewrites {path} and reruns the runs that need it "
                f"(dry run: nothing written)",
                file=sys.stderr,
            )
    return path


def known_dataset(name):
    """No input (``[]``) for a dataset the package knows; an unknown name (``data/status/nosuch.json`` asked for)
    stops the workflow with one paragraph naming the allowed ones."""
    from repro.data.registry import NAMES

    if name not in NAMES:
        user_error(
            f"dataset {name!r} (in data/status/{name}.json) is not a dataset of the package; allowed: "
            f"{', '.join(NAMES)} (`repro data status`)"
        )
    return []


def force_in_plan(path):
    """Have the DAG being built run the job that makes ``path`` (in a dry run: a run whose dataset's status file a
    real run would rewrite). Snakemake's DAG keeps the files to force in ``forcefiles`` (--forcerun's); without it
    (another Snakemake), nothing is forced and the dry run's plan only leaves those runs out.
    """
    files = getattr(getattr(workflow, "dag", None), "forcefiles", None)
    if isinstance(files, set):
        files.add(path)


@functools.cache
def datasets_of(profile, slug):
    try:
        return ex.job_datasets(slug, profile)
    except ex.ConfigError as e:
        user_error(e)


def dataset_flags(profile, slug, run_id):
    """Dataset status files of the datasets the job reads (repro.experiment.job_datasets): providing a dataset
    reruns exactly the jobs that read it."""
    job_resources(
        profile, slug, run_id
    )  # an unknown job id: one paragraph, before anything else
    names = datasets_of(profile, slug).get(run_id, ())
    flags = [dataset_flag(name) for name in names]
    if DRY_RUN_STALE.intersection(names):
        force_in_plan(f"results/{profile}/{slug}/runs/{run_id}.json")
    return flags


def all_targets(profile, slugs):
    out = [f"figures/{profile}/claims.md"]
    for slug in slugs:
        for fig in figures_of(profile, slug):
            out += figure_files(profile, slug, fig)
        out.append(f"results/{profile}/{slug}/claims.json")
    return out


def report_items(profile, slugs):
    """The HTML report's figures: those of the profile that exist (the report workflow draws none; the paper
    profile's clone holds some of its figures only)."""
    return [
        f"results/{profile}/report/{slug}/{fig}.png"
        for slug in slugs
        for fig in figures_of(profile, slug)
        if os.path.exists(f"figures/{profile}/{slug}/{fig}.png")
    ]


def figure_caption(wc, input):
    """A report item's caption: the figure's title and the measured verdicts of the claims judged on it."""
    from repro import report as rp
    from repro import rst

    fig = figures_of(wc.profile, wc.slug)[wc.fig]
    claims = rp.load_paper_claims(wc.profile, wc.slug)
    return rst.escape(
        rp.figure_caption(
            wc.profile, wc.slug, fig, claims, ex.load_params(wc.slug, wc.profile)
        )
    )
