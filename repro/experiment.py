"""The contract between a paper's code and the workflow.

A paper is a sub-package ``repro.papers.<slug>`` with three modules:

``experiments.py``
    ``figures(params: dict, profile: str) -> list[FigureSpec]``: every figure / table of the paper
    for that profile, each with the runs it needs. Must be cheap and must not import torch at
    module level (Snakemake calls it while building the DAG).
    ``execute(spec: RunSpec, ctx: RunContext) -> dict``: do one run, return JSON-able results.
    A run whose dataset is missing returns ``unavailable_result(reason)`` instead of failing.
    Optional ``GPU_TASKS``: the run tasks that train torch models (they ask for a GPU on a cluster).
``figures.py``
    ``render(fig: FigureSpec, results: dict[str, dict], ctx: RenderContext) -> Rendered``.
``claims.py``
    ``evaluate(tables: dict[str, pandas.DataFrame], params: dict, profile: str) -> list[Claim]``:
    tables are the tidy CSVs of the paper's figures, keyed by figure id.

Parameters of each profile live in ``config/profiles/<profile>/<slug>.yaml``. The ``paper`` file
holds every key with the paper's values; ``quick`` and ``smoke`` override some of them. A key that
is not in the ``paper`` file is an error naming the key and the allowed keys.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from repro.paths import config_dir

PAPERS = ("age_dp", "acfl", "dp_ditto", "wpfl_minmax", "ota_jammer")
PROFILES = ("smoke", "quick", "paper")
FIGURE_KINDS = ("figure", "table", "diagram")


class ConfigError(ValueError):
    """A configuration value or name that is not allowed; the message names it and the choices."""


def check_choice(what: str, value: Any, allowed) -> None:
    if value not in allowed:
        raise ConfigError(f"unknown {what} {value!r}; allowed: {', '.join(map(str, allowed))}")


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class RunSpec:
    """One training or analytic computation with a fixed seed.

    ``task`` names what ``execute`` should do (a paper-level dispatch key), ``params`` are plain
    JSON values. The run id is ``<task>-<hash>`` of (paper, task, params, seed), so the same
    computation is shared by every figure that needs it and any change of a parameter gives a new id.
    """

    paper: str
    task: str
    params: dict
    seed: int = 0

    @property
    def run_id(self) -> str:
        digest = hashlib.sha1(canonical_json([self.paper, self.task, self.params, self.seed]).encode()).hexdigest()
        return f"{self.task}-{digest[:10]}"

    def to_dict(self) -> dict:
        return {"paper": self.paper, "task": self.task, "params": self.params, "seed": self.seed, "run_id": self.run_id}


@dataclass
class FigureSpec:
    """A figure or table of a paper: its id (``fig3``, ``table2``), what it shows, the runs it needs.

    ``claim`` is one line stating what the paper claims with this figure (README gallery).
    ``datasets`` lists datasets whose absence makes (part of) the figure unavailable.
    ``threads``/``gpu`` are per-run resource hints for the workflow.
    """

    paper: str
    fig_id: str
    title: str
    claim: str
    runs: list[RunSpec] = field(default_factory=list)
    kind: str = "figure"
    paper_ref: str = ""  # e.g. "Fig. 3" or "Table II"
    datasets: tuple[str, ...] = ()
    threads: int = 1
    gpu: bool = False
    est_paper_minutes: float | None = None  # estimated paper-profile time (CPU-minutes) for README

    def __post_init__(self):
        check_choice("figure kind", self.kind, FIGURE_KINDS)

    @property
    def run_ids(self) -> list[str]:
        return sorted({r.run_id for r in self.runs})


@dataclass
class RunContext:
    """What a run gets besides its spec: device, threads, progress reporting."""

    profile: str
    run_id: str
    device: str = "cpu"
    threads: int = 1
    log: Callable[[str], None] = print

    def streams(self, spec: RunSpec):
        from repro.engine.rng import RngStreams

        return RngStreams(spec.seed)


@dataclass
class RenderContext:
    profile: str
    params: dict


@dataclass
class Rendered:
    """What a figure renderer returns: the tidy numbers, the picture, and (tables) markdown."""

    data: Any  # pandas.DataFrame with repro.results.TIDY_COLUMNS
    figure: Any = None  # matplotlib Figure
    markdown: str | None = None


def unavailable_result(reason: str) -> dict:
    """Result of a run whose input (e.g. CIFAR-10) cannot be had; figures mark it, claims skip it."""
    return {"status": "unavailable", "reason": reason}


def is_unavailable(result: dict) -> bool:
    return isinstance(result, dict) and result.get("status") == "unavailable"


# ---------------------------------------------------------------------------------------------
# profiles


def _read_yaml(path: Path) -> dict:
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of parameter names to values")
    return data


def load_params(slug: str, profile: str, overrides: dict | None = None) -> dict:
    """Parameters of ``slug`` under ``profile`` (paper values, then profile and user overrides)."""
    check_choice("paper", slug, PAPERS)
    check_choice("profile", profile, PROFILES)
    base_path = config_dir() / "profiles" / "paper" / f"{slug}.yaml"
    params = _read_yaml(base_path)
    layers = []
    if profile != "paper":
        layers.append((config_dir() / "profiles" / profile / f"{slug}.yaml", _read_yaml(config_dir() / "profiles" / profile / f"{slug}.yaml")))
    if overrides:
        layers.append(("overrides", overrides))
    for origin, layer in layers:
        for key, value in layer.items():
            if key not in params:
                raise ConfigError(
                    f"unknown parameter {key!r} for paper {slug!r} (in {origin}); allowed: {', '.join(sorted(params))}"
                )
            params[key] = value
    return params


# ---------------------------------------------------------------------------------------------
# registry


def paper_module(slug: str, part: str):
    check_choice("paper", slug, PAPERS)
    return importlib.import_module(f"repro.papers.{slug}.{part}")


def figure_specs(slug: str, profile: str, overrides: dict | None = None) -> list[FigureSpec]:
    params = load_params(slug, profile, overrides)
    figs = paper_module(slug, "experiments").figures(params, profile)
    ids = [f.fig_id for f in figs]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{slug}: duplicate figure ids {ids}")
    return figs


def figure_spec(slug: str, fig_id: str, profile: str) -> FigureSpec:
    figs = {f.fig_id: f for f in figure_specs(slug, profile)}
    check_choice(f"figure of {slug}", fig_id, list(figs))
    return figs[fig_id]


def run_specs(slug: str, profile: str) -> dict[str, RunSpec]:
    """All runs of a paper under a profile, by run id."""
    out: dict[str, RunSpec] = {}
    for fig in figure_specs(slug, profile):
        for r in fig.runs:
            out[r.run_id] = r
    return out


def run_resources(slug: str, profile: str) -> dict[str, dict]:
    """Per-run threads / gpu hints (the max over the figures that use the run).

    A run wants a GPU when a figure using it says so (``FigureSpec.gpu``) or when its task is in the
    paper's ``experiments.GPU_TASKS`` (the tasks that train torch models).
    """
    gpu_tasks = set(getattr(paper_module(slug, "experiments"), "GPU_TASKS", ()))
    res: dict[str, dict] = {}
    for fig in figure_specs(slug, profile):
        for r in fig.runs:
            cur = res.setdefault(r.run_id, {"threads": 1, "gpu": False})
            cur["threads"] = max(cur["threads"], fig.threads)
            cur["gpu"] = cur["gpu"] or fig.gpu or r.task in gpu_tasks
    return res
