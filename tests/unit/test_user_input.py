"""Bad input is refused when it is read, in one paragraph naming the key, the value and what is allowed,
and the ``repro`` command prints it without a traceback (issue 16's probes of a careless or hostile user).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repro import experiment as ex
from repro import registry
from repro.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project folder (user profiles go to config/profiles/<profile>/<slug>.yaml)."""
    (tmp_path / "config" / "profiles" / "quick").mkdir(parents=True)
    monkeypatch.setenv("REPRO_ROOT", str(tmp_path))
    return tmp_path


def user_profile(project, slug, text, profile="quick"):
    path = project / "config" / "profiles" / profile / f"{slug}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# (paper, user profile line, words the error must contain): the probes of issue 16 and a few more
BAD_VALUES = [
    ("wpfl_minmax", "epsilon_q: 0", ["'epsilon_q' = 0", "exclusiveMinimum"]),
    ("dp_ditto", "batch_size: 0", ["'batch_size' = 0", "allowed:"]),
    ("ota_jammer", "batch_size: 0", ["'batch_size' = 0", "less than the minimum", "allowed:"]),
    ("dp_ditto", "batch_size: 2.5", ["'batch_size' = 2.5", "integer"]),
    ("age_dp", "sensitivity: .nan", ["'sensitivity' = nan", "not a number"]),
    ("acfl", "eta0: .nan", ["'eta0' = nan", "not a number"]),
    ("dp_ditto", "fig5_epsilons: [1.0, .nan]", ["'fig5_epsilons.1' = nan"]),
    ("age_dp", "seeds_typo: 3", ["unknown parameter 'seeds_typo'", "allowed:"]),
    ("dp_ditto", "fig3_epsilon: .inf", ["'fig3_epsilon' = inf"]),  # a non-private run is not Fig. 3
]


@pytest.mark.parametrize("slug,line,words", BAD_VALUES)
def test_bad_profile_value_is_refused_on_load(project, capsys, slug, line, words):
    user_profile(project, slug, line + "\n")
    with pytest.raises(ex.ConfigError) as e:
        ex.load_params(slug, "quick")
    msg = str(e.value)
    assert msg.startswith(f"{slug}, profile quick") or "unknown parameter" in msg
    assert all(w in msg for w in words), msg
    assert "\n" not in msg  # one paragraph
    # the command line says it without a traceback, for every command that reads the profile
    for argv in (["list", slug], ["figure", slug, "fig1", "--no-run"], ["evaluate", slug]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("repro: error: ") and words[0] in err and "Traceback" not in err


def test_nan_is_refused_whatever_the_schema():
    for slug in registry.slugs():
        numeric = [k for k, v in ex.load_params(slug, "smoke").items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for key in numeric[:5]:
            with pytest.raises(ex.ConfigError, match=f"'{key}' = nan is not allowed"):
                ex.load_params(slug, "smoke", {key: math.nan})


def test_yaml_tags_are_refused_and_never_executed(project, tmp_path):
    marker = tmp_path / "pwned"
    user_profile(project, "age_dp", f"sensitivity: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ex.ConfigError, match="not valid YAML"):
        ex.load_params("age_dp", "quick")
    assert not marker.exists()


def test_user_profile_that_is_not_a_mapping(project):
    user_profile(project, "acfl", "- 1\n- 2\n")
    with pytest.raises(ex.ConfigError, match="expected a mapping"):
        ex.load_params("acfl", "quick")


def test_missing_parameter_file_is_an_error(tmp_path, monkeypatch):
    params = tmp_path / "params"
    shutil.copytree(ex.params_dir("age_dp"), params)
    (params / "quick.yaml").unlink()
    monkeypatch.setattr(ex, "params_dir", lambda slug: params)
    with pytest.raises(ex.ConfigError, match=r"parameter file .*quick\.yaml is missing"):
        ex.load_params("age_dp", "quick")
    ex.load_params("age_dp", "paper")  # the other profiles still load


@pytest.mark.parametrize("device,words", [("gpu", "unknown device 'gpu'"), ("cuda:7", "cuda:7"), ("cpu; rm -rf /", "unknown device")])
def test_device_is_validated(capsys, device, words):
    import torch

    if device.startswith("cuda") and torch.cuda.device_count() > 7:
        pytest.skip("this machine has 8 CUDA devices")
    assert main(["run", "age_dp", "whatever", "--profile", "smoke", "--device", device]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_unknown_run_id_names_the_choices(capsys):
    assert main(["run", "age_dp", "nope", "--profile", "smoke"]) == 2
    assert "unknown run id of age_dp under profile smoke 'nope'; allowed:" in capsys.readouterr().err


def test_snakemake_refuses_a_bad_profile_before_any_job(tmp_path):
    """The workflow loads every selected paper's parameters while it builds the DAG: a bad value stops it
    with the key named, before anything runs."""
    for item in ("workflow", "config", "environment.yml"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / item)
    user_profile(tmp_path, "wpfl_minmax", "epsilon_q: 0\n")
    env = {**os.environ}
    env.pop("REPRO_ROOT", None)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "all"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "repro: error: wpfl_minmax, profile quick: parameter 'epsilon_q' = 0 is not allowed" in out
    assert "Traceback" not in out and "File " not in out
    assert not (tmp_path / "results").exists()
