"""Conventions a user relies on: importing the package never switches matplotlib's backend; `repro list
--runs` names every run id with what the run is; `repro --version`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from repro import __version__, registry
from repro import experiment as ex
from repro.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_package_keeps_the_users_backend():
    figures = "; ".join(f"import repro.papers.{slug}.figures" for slug in registry.slugs())
    code = ("import matplotlib; matplotlib.use('svg'); import repro.plotting, repro.pipeline, repro.report, repro.data.cli; "
            f"{figures}; print(matplotlib.get_backend())")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().lower() == "svg"


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as e:
        assert e.code == 0
    assert capsys.readouterr().out.strip() == f"repro {__version__}"


def test_list_runs_names_each_run(capsys):
    assert main(["list", "age_dp", "--profile", "smoke", "--runs"]) == 0
    out = capsys.readouterr().out
    for rid, spec in ex.run_specs("age_dp", "smoke").items():
        assert any(line.strip().startswith(f"{rid}  {spec.task} seed={spec.seed}") for line in out.splitlines()), rid
