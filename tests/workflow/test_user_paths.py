"""Faults on a user's path through the workflow end in one paragraph naming the bad value (issue 26)."""

from __future__ import annotations

import pytest

from .conftest import make_project, project_env, snakemake


@pytest.mark.parametrize("target, named, hint", [
    ("results/smoke/age_dp/runs/...json", "run id '..'", "repro list age_dp --runs --profile smoke"),
    ("results/smoke/age_dp/runs/nope-0123456789.json", "run id 'nope-0123456789'", "repro list age_dp --runs --profile smoke"),
    ("figures/smoke/age_dp/fig99.pdf", "figure 'fig99'", "allowed: fig1"),
])
def test_unknown_run_or_figure_target_is_one_paragraph(tmp_path, empty_mirror, target, named, hint):
    project = make_project(tmp_path / "project")
    proc = snakemake(project, project_env(project, empty_mirror), "-n", "--cores", "1", target, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    assert named in out and hint in out, out[-3000:]
    assert "Traceback" not in out and "KeyError" not in out and "InputFunctionException" not in out, out[-3000:]
