"""The check before submitting to SLURM with device=cuda (repro.slurm, issue 49): a partition whose nodes have no GPU
is refused in one line before sbatch refuses every training run; when sinfo cannot tell, nothing is said."""

from __future__ import annotations

import os

import pytest

from repro.slurm import gpu_request_problem


def fake_sinfo(tmp_path, monkeypatch, script: str):
    (tmp_path / "bin").mkdir(exist_ok=True)
    sinfo = tmp_path / "bin" / "sinfo"
    sinfo.write_text("#!/bin/sh\n" + script + "\n")
    sinfo.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize("out", ["(null)", "(null)\\nshard:4"])
def test_a_partition_without_gpus_is_one_line_naming_it_and_the_fix(tmp_path, monkeypatch, out):
    fake_sinfo(tmp_path, monkeypatch, f'printf "{out}\\n"')
    msg = gpu_request_problem("cuda", "gpu")
    assert msg and "\n" not in msg
    assert "partition 'gpu' (slurm_partitions.gpu)" in msg and "reports no GPU" in msg and "device=cpu" in msg


def test_a_partition_that_does_not_exist_is_named(tmp_path, monkeypatch):
    fake_sinfo(tmp_path, monkeypatch, "exit 0")
    msg = gpu_request_problem("cuda:0", "gpus")
    assert "device=cuda:0" in msg and "'gpus'" in msg and "lists no nodes" in msg


@pytest.mark.parametrize("out", ["gpu:a100:4(S:0-1)", "(null)\\ngpu:2", "shard:4,gpu:v100:2", "gpu"])
def test_a_partition_with_gpus_passes(tmp_path, monkeypatch, out):
    fake_sinfo(tmp_path, monkeypatch, f'printf "{out}\\n"')
    assert gpu_request_problem("cuda", "gpu") is None


def test_without_a_working_sinfo_nothing_is_said(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert gpu_request_problem("cuda", "gpu") is None
    fake_sinfo(tmp_path, monkeypatch, 'echo "sinfo: error: Unable to contact slurm controller" >&2; exit 1')
    assert gpu_request_problem("cuda", "gpu") is None
    fake_sinfo(tmp_path, monkeypatch, "sleep 5")
    assert gpu_request_problem("cuda", "gpu", timeout_s=0.2) is None
