"""Fixtures shared by the unit tests."""

import shutil

import pytest


@pytest.fixture
def tmp_root(tmp_path, project_root, monkeypatch):
    """A project root in a temporary folder: the config without local profile overrides, no results."""
    shutil.copytree(project_root / "config", tmp_path / "config")
    shutil.rmtree(tmp_path / "config" / "profiles", ignore_errors=True)  # a local override must not leak in
    monkeypatch.setenv("REPRO_ROOT", str(tmp_path))
    return tmp_path
