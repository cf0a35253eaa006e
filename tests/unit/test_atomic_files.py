"""Every output is written atomically (complete or absent, also on a full disk or a SIGKILL) with the
mode the umask gives a plain file (shared cluster folders and served reports stay readable)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from repro import results
from repro.results import atomic_path, read_run_result, save_figure, tidy_frame, write_csv, write_json, write_text


@pytest.fixture
def umask():
    old = os.umask(0o022)
    yield lambda m: os.umask(m)
    os.umask(old)


@pytest.mark.parametrize("mask,mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600), (0o027, 0o640)])
def test_outputs_follow_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    assert results.current_umask() == mask
    write_json(tmp_path / "a.json", {"x": 1})
    write_text(tmp_path / "a.md", "# a\n")
    write_csv(tmp_path / "a.csv", tidy_frame([{"figure": "f", "series": "s", "x": 1, "metric": "m", "value": 2.0}]))
    from matplotlib.figure import Figure

    fig = Figure()
    fig.subplots().plot([0, 1])
    save_figure(fig, tmp_path / "a")
    with atomic_path(tmp_path / "a.npz", suffix=".npz") as tmp:
        np.savez(tmp, x=np.arange(3))
    for name in ("a.json", "a.md", "a.csv", "a.pdf", "a.png", "a.npz"):
        assert (tmp_path / name).stat().st_mode & 0o777 == mode, name


def test_data_cache_files_follow_the_umask(tmp_path, umask):
    from repro.data.download import copy_atomic

    umask(0o002)
    src = tmp_path / "src.bin"
    src.write_bytes(b"abc")
    os.chmod(src, 0o444)  # a read-only mirror copy: the cache copy is still the user's to manage
    copy_atomic(src, tmp_path / "cache" / "dst.bin")
    assert (tmp_path / "cache" / "dst.bin").stat().st_mode & 0o777 == 0o664


def test_full_disk_leaves_no_partial_file_and_keeps_the_old_one(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    write_json(target, {"old": True})

    def no_space(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", no_space)
    with pytest.raises(OSError, match="No space left"):
        write_json(target, {"new": True})
    monkeypatch.undo()
    assert results.read_json(target) == {"old": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_missing_folder_is_not_created_when_asked(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        with atomic_path(tmp_path / "no" / "such" / "x.png", make_parents=False):
            pass
    assert not (tmp_path / "no").exists()


def test_sigkill_during_a_write_leaves_the_target_absent(tmp_path):
    """A process killed while writing leaves at most a hidden temporary file, never a partial result."""
    target = tmp_path / "big.json"
    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from repro.results import atomic_path
        with atomic_path({str(target)!r}) as tmp:
            with open(tmp, "w") as f:
                f.write("[" + "1," * 1000)
                f.flush()
                print("writing", flush=True)
                time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert not target.exists()
    assert all(p.name.startswith(".big.json.") for p in tmp_path.iterdir())


@pytest.mark.parametrize("content", ['{"spec": {}, "resu', "", '{"spec": {}}', "[1, 2]", "\x00\x01"])
def test_damaged_run_result_counts_as_missing_and_is_moved_aside(tmp_path, content):
    p = tmp_path / "runs" / "train-0123456789.json"
    p.parent.mkdir()
    p.write_text(content)
    said = []
    assert read_run_result(p, log=said.append) is None
    assert not p.exists() and (p.parent / (p.name + ".corrupt")).read_text() == content
    assert said and str(p) in said[0]
    write_json(p, {"spec": {}, "result": {"x": 1}})
    assert read_run_result(p)["result"] == {"x": 1}


def test_run_lock_serialises_and_reports_waiting(tmp_path):
    target = tmp_path / "runs" / "r.json"
    code = textwrap.dedent(f"""
        import time
        from repro.results import run_lock
        with run_lock({str(target)!r}):
            print("locked", flush=True)
            time.sleep(1.5)
    """)
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    said, t0 = [], time.monotonic()
    with results.run_lock(target, log=said.append) as lock:
        waited = time.monotonic() - t0
    holder.wait(timeout=30)
    assert lock.waited and waited > 0.5
    assert said and f"pid {holder.pid}" in said[0]
    with results.run_lock(target) as lock:  # released: no wait
        assert not lock.waited
