"""Faults on a user's path through the workflow end in one paragraph naming the bad value (issue 26)."""

from __future__ import annotations

import pytest

from .conftest import make_project, project_env, snakemake


@pytest.mark.parametrize("target, named, hint", [
    ("results/smoke/age_dp/runs/...json", "run id '..'", "repro list age_dp --runs --profile smoke"),
    ("results/smoke/age_dp/runs/nope-0123456789.json", "run id 'nope-0123456789'", "repro list age_dp --runs --profile smoke"),
    ("figures/smoke/age_dp/fig99.pdf", "figure 'fig99'", "allowed: fig1"),
    # planned, then failed inside with argparse's "invalid choice" (issue 49)
    ("data/status/nosuch.json", "dataset 'nosuch'", "allowed: mnist, fashion_mnist, cifar10, femnist"),
])
def test_unknown_run_or_figure_target_is_one_paragraph(tmp_path, empty_mirror, target, named, hint):
    project = make_project(tmp_path / "project")
    proc = snakemake(project, project_env(project, empty_mirror), "-n", "--cores", "1", target, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    assert named in out and hint in out, out[-3000:]
    assert "Traceback" not in out and "KeyError" not in out and "InputFunctionException" not in out, out[-3000:]


@pytest.mark.slow
def test_foreign_run_file_is_moved_aside_and_recomputed_in_the_same_invocation(tmp_path, empty_mirror):
    import json
    import shutil

    project = make_project(tmp_path / "project")
    env = project_env(project, empty_mirror)
    target = ["--cores", "1", "figures/smoke/age_dp/fig2.pdf"]
    built = snakemake(project, env, *target, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    runs = project / "results/smoke/age_dp/runs"
    a, b = sorted(runs.glob("*.json"))[:2]
    own = json.loads(b.read_text())
    shutil.copy(a, b)  # another run's result under this run's name
    # the figure was built from the genuine result; asking for the run file (or a figure to rebuild) recomputes it
    again = snakemake(project, env, *target, str(b.relative_to(project)), timeout=600)
    out = again.stdout + again.stderr
    assert again.returncode == 0, out[-3000:]
    assert f"holds the result of run {a.stem!r}, not of run {b.stem!r}" in out and "the run is computed again" in out
    assert b.is_file(), out[-4000:]
    assert json.loads(b.read_text())["spec"] == own["spec"]
    assert b.with_name(b.name + ".corrupt").is_file()
