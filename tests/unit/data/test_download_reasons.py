"""A failed download says why on the status line (issue 49): the truncated transfer or the HTTP status with its URL,
or the checksum mismatch naming where the expected checksum comes from (REPRO_CIFAR10_MD5). No network: a loopback
HTTP server on 127.0.0.1 and the real download function for it; every other URL is unreachable."""

from __future__ import annotations

import contextlib
import http.server
import json

import pytest

from repro.cli import main
from repro.data import download as dl
from repro.data.errors import DownloadError
from repro.data.fixtures import cifar10_archive, serve_handler
from repro.data.status import readonly_status, status_table

from .conftest import REAL_DOWNLOAD

ARCHIVE = "cifar-10-python.tar.gz"


@contextlib.contextmanager
def serve(data: bytes):
    """``/ok/<file>``: the archive; ``/trunc/<file>``: half of it under the full Content-Length; else 404."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.startswith(("/ok/", "/trunc/")):
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data if self.path.startswith("/ok/") else data[: len(data) // 2])
                self.close_connection = True
            else:
                self.send_error(404)

    with serve_handler(Handler) as url:
        yield url


@pytest.fixture
def server(isolated, monkeypatch):
    archive = isolated / "srv" / ARCHIVE
    made = cifar10_archive(archive, n=20)

    def loopback_only(url, dest, progress=True):  # the official URL is never asked for
        if not url.startswith("http://127.0.0.1:"):
            raise DownloadError(f"{url}: network unreachable (test: offline)", offline=True)
        return REAL_DOWNLOAD(url, dest, progress=progress)

    monkeypatch.setattr(dl, "download_file", loopback_only)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for var in ("REPRO_CIFAR10_URL", "REPRO_CIFAR10_MD5", "REPRO_CIFAR10_SHA256"):
        monkeypatch.delenv(var, raising=False)
    data = archive.read_bytes()
    with serve(data) as url:
        yield url, made, len(data)


def fetch_line(capsys, status_json) -> tuple[str, dict]:
    """`repro data fetch cifar10`: its `cifar10: not available (...)` line and the status file it writes."""
    assert main(["data", "fetch", "cifar10", "--allow-missing", "--status-json", str(status_json)]) == 0
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.startswith("cifar10: not available")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0], json.loads(status_json.read_text())


def test_a_truncated_transfer_is_named_on_the_status_line(server, monkeypatch, capsys, tmp_path):
    url, _, size = server
    monkeypatch.setenv("REPRO_CIFAR10_URL", f"{url}/trunc/")
    line, record = fetch_line(capsys, tmp_path / "status.json")
    expected = f"truncated transfer ({size // 2} of {size} bytes) from {url}/trunc/{ARCHIVE}"
    assert f"not available (download failed: {expected}" in line, line
    assert expected in record["reason"] and record["available"] is False


def test_an_http_error_is_named_on_the_status_line(server, monkeypatch, capsys, tmp_path):
    url, _, _ = server
    monkeypatch.setenv("REPRO_CIFAR10_URL", f"{url}/gone/")
    line, record = fetch_line(capsys, tmp_path / "status.json")
    assert f"download failed: HTTP 404 Not Found from {url}/gone/{ARCHIVE}" in line, line
    assert "HTTP 404" in record["reason"]
    assert "1 other source(s) unreachable" in line  # the official URL, tried after the mirror


def test_an_accepted_checksum_that_does_not_match_names_its_variable(server, monkeypatch, capsys, tmp_path):
    url, made, _ = server
    monkeypatch.setenv("REPRO_CIFAR10_URL", f"{url}/ok/")
    monkeypatch.setenv("REPRO_CIFAR10_MD5", "0" * 32)
    line, record = fetch_line(capsys, tmp_path / "status.json")
    assert "corrupt copy: checksum mismatch" in line and f"md5 {made['md5'][:12]}" in line, line
    assert "expected 000000000000" in line and "set by REPRO_CIFAR10_MD5" in line, line
    assert "set by REPRO_CIFAR10_MD5" in record["reason"]


def test_status_names_the_source_of_the_expected_checksum_of_a_mirror_copy(server, isolated, monkeypatch):
    _, made, _ = server
    mirror = isolated / "mirror" / "cifar10"
    mirror.mkdir(parents=True)
    (mirror / ARCHIVE).write_bytes((isolated / "srv" / ARCHIVE).read_bytes())
    st = readonly_status("cifar10", probe=False)  # the reference md5: not this tiny archive's
    assert not st.available and "(the package's reference checksum)" in st.reason, st.reason
    monkeypatch.setenv("REPRO_CIFAR10_MD5", "0" * 32)
    st = readonly_status("cifar10", probe=False)
    assert "set by REPRO_CIFAR10_MD5" in st.reason, st.reason
    assert f"md5 expected {'0' * 32} (set by REPRO_CIFAR10_MD5), actual {made['md5']}" in st.instructions
    assert "set by REPRO_CIFAR10_MD5" in status_table([st]).splitlines()[2]


def test_only_unreachable_sources_keep_the_short_offline_reason(isolated, capsys, tmp_path):
    line, record = fetch_line(capsys, tmp_path / "status.json")  # the conftest's offline download
    assert line == "cifar10: not available (download failed: offline)" and record["reason"] == "download failed: offline"
