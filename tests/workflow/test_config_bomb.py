"""A YAML alias bomb reaching the workflow's config by any entrance (--configfile, --config) is refused at once with
one line naming the key and the limit, before the schema's error message writes it out (issue 49)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from repro.config_files import MAX_NODES

from .conftest import make_project


def bomb(levels: int) -> str:
    """A flow-style YAML list of 9**levels strings, in a few hundred characters."""
    names = "abcdefghij"
    parts = [f"&{names[0]} [" + ",".join("l" * 9) + "]"]
    parts += [f"&{names[i]} [" + ",".join([f"*{names[i - 1]}"] * 9) + "]" for i in range(1, levels)]
    return "[" + ",".join(parts) + "]"


@pytest.mark.parametrize("entrance", ["configfile", "config"])
def test_alias_bomb_in_the_workflow_config_is_refused_in_one_line(tmp_path, entrance):
    project = make_project(tmp_path / "project")
    value = bomb(8)  # 9**8 = 43 million values
    if entrance == "configfile":
        (tmp_path / "bomb.yaml").write_text(f"papers: {value}\n")
        args = ["--configfile", str(tmp_path / "bomb.yaml")]
    else:
        assert len(value) < 260  # the size of the example
        args = ["--config", f"papers={value}"]
    start = time.monotonic()
    proc = subprocess.run(["timeout", "60", sys.executable, "-m", "snakemake", "-n", *args], cwd=project,
                          capture_output=True, text=True)
    elapsed = time.monotonic() - start
    assert proc.returncode not in (0, 124, 137), (proc.returncode, proc.stderr[-2000:])
    assert elapsed < 30, elapsed
    errors = [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("repro: error:")]
    assert len(errors) == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "'papers'" in errors[0] and f"at most {MAX_NODES} values" in errors[0]
    assert "Traceback" not in proc.stderr and "lol" not in proc.stderr
