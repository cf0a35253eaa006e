"""Errors a user can act on, shared by every part of the package."""

from __future__ import annotations

from typing import Any


class ConfigError(ValueError):
    """A configuration value or name that is not allowed; the message names it and the choices."""


def check_choice(what: str, value: Any, allowed) -> None:
    """Raise :class:`ConfigError` naming ``value`` and the allowed choices unless ``value`` is one of them."""
    allowed = list(allowed)
    if value not in allowed:
        raise ConfigError(f"unknown {what} {value!r}; allowed: {', '.join(map(str, allowed))}")
