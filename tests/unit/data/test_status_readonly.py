"""`repro data status` reads only: it copies, decodes and downloads nothing (it used to copy every
dataset found in a mirror into ./data/raw)."""

from __future__ import annotations

from repro.cli import main


def files_under(path):
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []


def test_data_status_copies_nothing(tiny_mnist, isolated, capsys):
    mirror_before = {p: p.read_bytes() for p in files_under(isolated / "mirror")}
    assert main(["data", "status"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("mnist "))
    assert "mirror:" in row and "yes" in row and "not copied into the cache" in row
    assert files_under(isolated / "data") == []  # nothing copied, nothing decoded
    assert {p: p.read_bytes() for p in files_under(isolated / "mirror")} == mirror_before
    cifar = next(line for line in out.splitlines() if line.startswith("cifar10 "))
    assert "not available" in cifar and "How to provide it:" in out


def test_data_status_reports_the_cache_after_fetch(tiny_mnist, isolated, capsys):
    assert main(["data", "fetch", "mnist"]) == 0  # fetch is the command that copies
    capsys.readouterr()
    cached = files_under(isolated / "data")
    assert cached
    assert main(["data", "status"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("mnist "))
    assert "cache:" in row and "yes" in row
    assert files_under(isolated / "data") == cached
