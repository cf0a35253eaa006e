"""The package works installed (non-editable), away from the checkout: its wheel carries every paper's
parameter profiles and schema; `repro list` works from an empty folder; a user's config/profiles
overrides a value; a missing parameter file is an error, never an empty profile."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The wheel built from the checkout, unpacked as pip would install it (dependencies: this environment's)."""
    pytest.importorskip("setuptools")
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"  # a copy: the build writes build/ and *.egg-info beside the sources
    shutil.copytree(ROOT / "repro", src / "repro", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                            str(work / "dist"), str(src)], capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr[-500:]}")
    wheel = next((work / "dist").glob("repro_privfl-*.whl"))
    site = work / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    return site


def run(site, cwd, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "REPRO_ROOT", "REPRO_PAPER_DIRS")}
    env.update(PYTHONPATH=str(site), MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "repro", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_wheel_ships_every_paper_profile(installed):
    from repro import registry

    for slug in registry.slugs():
        for name in ("paper", "quick", "smoke", "schema"):
            assert (installed / "repro" / "papers" / slug / "params" / f"{name}.yaml").is_file(), (slug, name)


def test_installed_repro_list_from_an_empty_folder(installed, tmp_path):
    proc = run(installed, tmp_path, "list", "--runs")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "repro/papers" not in proc.stderr and "age_dp:" in proc.stdout and "fig2-" in proc.stdout
    assert run(installed, tmp_path, "--version").stdout.startswith("repro ")
    assert list(tmp_path.iterdir()) == []  # listing writes nothing


def test_installed_user_override_and_missing_file(installed, tmp_path):
    (tmp_path / "config" / "profiles" / "quick").mkdir(parents=True)
    (tmp_path / "config" / "config.yaml").write_text("data_mirror: ''\n")
    (tmp_path / "config" / "profiles" / "quick" / "age_dp.yaml").write_text("fig2_epsilon: 0.5\n")
    proc = run(installed, tmp_path, "list", "age_dp", "--runs")
    assert proc.returncode == 0 and "fig2_epsilon=0.5" in proc.stdout, proc.stderr
    (installed / "repro" / "papers" / "age_dp" / "params" / "smoke.yaml").unlink()
    proc = run(installed, tmp_path, "list", "age_dp", "--profile", "smoke")
    assert proc.returncode == 2 and "smoke.yaml is missing" in proc.stderr and "Traceback" not in proc.stderr
