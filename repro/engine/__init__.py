"""Vectorised multi-client FL engine (see ``repro/engine/API.md``)."""

from repro.engine.rng import RngStreams

__all__ = ["RngStreams"]
