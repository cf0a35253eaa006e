"""Where the project's files live (config, results, figures, data caches)."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def project_root() -> Path:
    """The directory holding ``config/``, ``results/`` and ``figures/``.

    Order: ``$REPRO_ROOT``; the current directory if it is a project (has ``config/config.yaml`` or a
    ``workflow/Snakefile``); the checkout that contains this package, if it is one; else the current directory.
    """
    env = os.environ.get("REPRO_ROOT")
    if env:
        return Path(env).resolve()
    cwd = Path.cwd()
    if is_project(cwd):
        return cwd
    if is_project(PACKAGE_DIR.parent):
        return PACKAGE_DIR.parent
    return cwd


def is_project(path: Path) -> bool:
    return (path / "config" / "config.yaml").is_file() or (path / "workflow" / "Snakefile").is_file()


def config_dir() -> Path:
    return project_root() / "config"


def results_dir(profile: str, slug: str) -> Path:
    return project_root() / "results" / profile / slug


def run_result_path(profile: str, slug: str, run_id: str) -> Path:
    return results_dir(profile, slug) / "runs" / f"{run_id}.json"


def figures_dir(profile: str, slug: str | None = None) -> Path:
    base = project_root() / "figures" / profile
    return base / slug if slug else base


def data_dir() -> Path:
    """Cache for raw and processed datasets (``data/raw``, ``data/processed``)."""
    env = os.environ.get("REPRO_DATA_DIR")
    return Path(env).resolve() if env else project_root() / "data"
