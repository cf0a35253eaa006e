"""A mirror folder this user may not read (issue 26): the dataset is "unavailable: permission denied on
<folder>" (never a PermissionError traceback), in `repro data fetch --allow-missing` (the workflow's rule
dataset_status), in the status sync when the workflow loads, and in `repro data status`; giving read access
back is noticed and the record follows."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from repro.cli import main
from repro.data.status import dataset_status, local_status, sync_status_file, write_status_file


@pytest.fixture
def deny():
    """deny(folder): make ``folder`` unreadable (chmod 000; simulated where the user bypasses modes: root);
    deny.allow(): give read access back."""
    made = []
    monkeypatch = pytest.MonkeyPatch()

    def apply(folder: pathlib.Path):
        folder.chmod(0)
        made.append(folder)
        try:
            os.listdir(folder)
        except PermissionError:
            return  # the real thing
        real_is_file, real_scandir = pathlib.Path.is_file, os.scandir

        def is_file(self):
            if self.parent == folder:
                raise PermissionError(13, "Permission denied", str(self))
            return real_is_file(self)

        def scandir(path="."):
            if pathlib.Path(path) == folder:
                raise PermissionError(13, "Permission denied", str(path))
            return real_scandir(path)

        monkeypatch.setattr(pathlib.Path, "is_file", is_file)
        monkeypatch.setattr(os, "scandir", scandir)

    def allow():
        monkeypatch.undo()
        for folder in made:
            folder.chmod(0o755)

    apply.allow = allow
    yield apply
    allow()


def test_unreadable_mirror_is_unavailable_with_the_folder_named(tiny_mnist, isolated, deny, capsys):
    folder = isolated / "mirror" / "mnist"
    deny(folder)
    reason = f"permission denied on {folder}"
    assert local_status("mnist").reason == reason
    st = dataset_status("mnist", download=True)
    assert not st.available and st.reason == reason and "read access" in st.instructions
    # the workflow's rule dataset_status: a status file saying so, exit 0 (the runs degrade, nothing crashes)
    out = isolated / "status" / "mnist.json"
    assert main(["data", "fetch", "mnist", "--allow-missing", "--status-json", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["available"] is False and rec["reason"] == reason
    assert main(["data", "status"]) == 0
    assert reason in capsys.readouterr().out


def test_status_sync_after_a_good_build_then_access_given_back(tiny_mnist, isolated, deny):
    folder = isolated / "mirror" / "mnist"
    status = isolated / "status" / "mnist.json"
    write_status_file(status, dataset_status("mnist"))  # a good build
    assert json.loads(status.read_text())["available"] is True
    for f in (isolated / "data").rglob("*"):  # the cache deleted
        if f.is_file():
            f.unlink()
    deny(folder)
    state = sync_status_file(status, "mnist")
    assert state == "updated: recorded available, now unavailable", state
    assert json.loads(status.read_text())["reason"] == f"permission denied on {folder}"
    deny.allow()
    state = sync_status_file(status, "mnist")
    assert state.startswith("updated: recorded unavailable (permission denied on ") and state.endswith("now available")
    assert json.loads(status.read_text())["available"] is True


def test_unreadable_femnist_folder_is_unavailable_with_the_folder_named(isolated, deny, monkeypatch):
    folder = isolated / "femnist"
    (folder / "train").mkdir(parents=True)
    (folder / "train" / "all.json").write_text("{}")
    monkeypatch.setenv("REPRO_FEMNIST_DIR", str(folder))
    deny(folder)
    reason = f"permission denied on {folder}"
    assert local_status("femnist").reason == reason
    st = dataset_status("femnist")
    assert not st.available and st.reason == reason and "read access" in st.instructions
