"""The papers this package knows, found from their packages (never listed by hand).

A paper is a sub-package of ``repro.papers`` whose ``__init__.py`` defines ``PAPER`` (a
:class:`PaperInfo`, also importable from :mod:`repro.experiment`). Extra directories of paper packages can be added with the
environment variable ``REPRO_PAPER_DIRS`` (``os.pathsep``-separated), so a paper can live outside
this repository. Every part of the package (the CLI, the workflow, the reports, the tests) reads the
list from here.

>>> from repro import registry
>>> "dp_ditto" in registry.slugs()
True
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

from repro.errors import ConfigError


@dataclass(frozen=True)
class PaperInfo:
    """What the registry knows of a paper without importing its code (``repro.papers.<slug>.PAPER``)."""

    slug: str
    title: str
    short_title: str = ""
    reference: str = ""  # authors, venue, year / arXiv id
    order: int = 100  # position in listings (then by slug)


@functools.cache
def papers() -> dict[str, PaperInfo]:
    """Slug -> PaperInfo for every paper package, in display order (``PaperInfo.order``, then slug)."""
    import repro.papers as pkg

    found = {}
    for mod in pkgutil.iter_modules(pkg.__path__):
        if not mod.ispkg or mod.name.startswith("_"):
            continue
        info = getattr(importlib.import_module(f"repro.papers.{mod.name}"), "PAPER", None)
        if info is None:
            continue
        if not isinstance(info, PaperInfo) or info.slug != mod.name:
            raise ValueError(f"repro.papers.{mod.name}.PAPER must be a PaperInfo with slug {mod.name!r}, got {info!r}")
        found[mod.name] = info
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))


def slugs() -> tuple[str, ...]:
    return tuple(papers())


def paper(slug: str) -> PaperInfo:
    all_ = papers()
    if slug not in all_:
        raise ConfigError(f"unknown paper {slug!r}; allowed: {', '.join(all_)}")
    return all_[slug]


def module(slug: str, part: str):
    """``repro.papers.<slug>.<part>`` (``experiments``, ``figures``, ``claims``, ...)."""
    paper(slug)
    return importlib.import_module(f"repro.papers.{slug}.{part}")


def package_dir(slug: str) -> Path:
    paper(slug)
    return Path(importlib.import_module(f"repro.papers.{slug}").__file__).resolve().parent
