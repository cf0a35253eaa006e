"""A user's mirror server and own copy: the download URL override, accepting a checksum, the messages on the way
(the real download route, over a loopback HTTP server on 127.0.0.1 at a free port)."""

from __future__ import annotations

import pytest

from repro.data import download as dl
from repro.data import load_dataset
from repro.data.errors import DatasetCorruptError, DatasetUnavailableError, unavailable_reason
from repro.data.fixtures import cifar10_archive, emnist_byclass, leaf_femnist, serve_folder
from repro.data.registry import get_spec
from repro.data.status import datasets_seen, places_fingerprint, readonly_status, status_table
from repro.errors import ConfigError

from .conftest import REAL_DOWNLOAD


@pytest.fixture
def cifar_server(isolated, monkeypatch):
    """The tiny CIFAR-10 archive served over loopback; the real download function; no proxy for 127.0.0.1."""
    made = cifar10_archive(isolated / "srv" / "cifar-10-python.tar.gz", n=20)
    monkeypatch.setattr(dl, "download_file", REAL_DOWNLOAD)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for var in ("REPRO_CIFAR10_URL", "REPRO_CIFAR10_MD5", "REPRO_CIFAR10_SHA256"):
        monkeypatch.delenv(var, raising=False)
    with serve_folder(isolated / "srv") as url:
        yield made, url


def test_a_mirror_url_with_an_accepted_checksum_downloads_verifies_and_is_recorded(cifar_server, monkeypatch, tmp_path):
    made, url = cifar_server
    # no workflow status file (the project's data/status/ may hold one from a build made before the copy existed)
    monkeypatch.setattr("repro.data.status.status_file", lambda name: tmp_path / "status" / f"{name}.json")
    before = places_fingerprint("cifar10")
    monkeypatch.setenv("REPRO_CIFAR10_URL", url)
    monkeypatch.setenv("REPRO_CIFAR10_MD5", made["md5"].upper())  # hex digits in either case
    assert places_fingerprint("cifar10") != before  # a workflow run notices the new source (status re-checked)
    ds = load_dataset("cifar10", progress=False)
    assert ds.train_x.shape == (100, 32, 32, 3) and ds.test_x.shape == (20, 32, 32, 3)
    assert ds.source.where == "download" and ds.source.verified
    st = readonly_status("cifar10", probe=False)
    assert st.available and st.checksums == {"cifar-10-python.tar.gz": f"md5:{made['md5']}"}
    assert st.checksum_source == {"cifar-10-python.tar.gz": "REPRO_CIFAR10_MD5"}
    assert "yes (accepted checksum: REPRO_CIFAR10_MD5)" in status_table([st])  # `repro data status`
    seen = datasets_seen(["cifar10"])["cifar10"]  # what a run records
    assert seen["checksums"] == st.checksums and seen["checksum_source"] == st.checksum_source
    # the reference checksum is not the accepted one: the content id differs, so the runs that read it rerun
    monkeypatch.delenv("REPRO_CIFAR10_MD5")
    assert get_spec("cifar10").files["cifar-10-python.tar.gz"][1] != made["md5"]


def test_a_checksum_failure_says_how_to_accept_the_copy_not_to_fetch_again(cifar_server, monkeypatch):
    made, url = cifar_server
    monkeypatch.setenv("REPRO_CIFAR10_URL", url)  # the archive differs from the official one: md5 mismatch
    with pytest.raises(DatasetCorruptError) as err:
        load_dataset("cifar10", progress=False)
    text = str(err.value)
    assert f"export REPRO_CIFAR10_MD5={made['md5']}" in text
    assert "run `repro data fetch cifar10` (downloads and verifies)" not in text  # not the command that just failed
    reason = unavailable_reason("cifar10", err.value)  # what a run records and its panel shows
    assert reason.startswith("dataset cifar10: checksum failure") and "REPRO_CIFAR10_SHA256" in reason
    assert "missing" not in reason
    monkeypatch.setenv("REPRO_CIFAR10_MD5", made["md5"])  # the route the message gives
    assert load_dataset("cifar10", progress=False).source.verified


@pytest.mark.parametrize("var, value, words", [
    ("REPRO_CIFAR10_MD5", "abc", ["REPRO_CIFAR10_MD5='abc'", "32 hex digits", "cifar-10-python.tar.gz"]),
    ("REPRO_MNIST_SHA256", "x=" + "a" * 64, ["REPRO_MNIST_SHA256", "train-images-idx3-ubyte"]),
    ("REPRO_CIFAR10_URL", "ftp://mirror/x/", ["REPRO_CIFAR10_URL='ftp://mirror/x/'", "http://"]),
])
def test_a_malformed_override_is_refused_naming_the_variable_and_what_is_allowed(monkeypatch, var, value, words):
    monkeypatch.setenv(var, value)
    with pytest.raises(ConfigError) as err:
        get_spec(var.split("_")[1].lower())
    assert all(w in str(err.value) for w in words), str(err.value)


def test_mnist_accepts_per_file_checksums_of_the_decompressed_files(monkeypatch):
    monkeypatch.setenv("REPRO_MNIST_SHA256", "train-images-idx3-ubyte.gz=" + "ab" * 32)
    spec = get_spec("mnist")
    assert spec.files["train-images-idx3-ubyte"] == ("sha256", "ab" * 32)
    assert spec.checksum_source["train-images-idx3-ubyte"] == "REPRO_MNIST_SHA256"
    assert spec.checksum_source["t10k-labels-idx1-ubyte"] == "reference"


def test_a_femnist_copy_too_small_for_the_fixed_test_set_is_one_paragraph_naming_the_letters(isolated, monkeypatch):
    from repro.papers.ota_jammer import data as otadata
    from repro.papers.ota_jammer.runs import _reason

    leaf_femnist(isolated / "leaf", per_letter_train=30, per_letter_test=5)
    monkeypatch.setenv("REPRO_FEMNIST_DIR", str(isolated / "leaf"))
    with pytest.raises(DatasetUnavailableError) as err:
        otadata.femnist_split(seed=0, size_scale=0.05)
    text = str(err.value)
    assert text.startswith("dataset 'femnist'") and "FEMNIST" in text and "1,924" in text
    assert "'a' test 5 of" in text and "'j' test 5 of" in text and "REPRO_FEMNIST_DIR" in text
    assert err.value.reason.startswith("FEMNIST copy too small")
    assert _reason(err.value).startswith("dataset femnist not available (FEMNIST copy too small")


def test_real_femnist_is_labelled_by_the_format_it_was_read_from(isolated, monkeypatch):
    from repro.papers.ota_jammer import data as otadata

    leaf_femnist(isolated / "leaf", per_letter_train=3, per_letter_test=2)
    emnist_byclass(isolated / "emnist", per_letter_train=3, per_letter_test=2)
    labels = {}
    for name in ("leaf", "emnist"):
        monkeypatch.setenv("REPRO_FEMNIST_DIR", str(isolated / name))
        trx, try_, tex, tey, note, real = otadata._source_arrays()
        assert real and sorted(set(try_.tolist())) == list(range(10)) and len(tey) == 20  # a-j only, as 0-9
        labels[name] = otadata.dataset_label(note)
    assert labels == {"leaf": "FEMNIST (LEAF JSON, white background)",
                      "emnist": "FEMNIST (EMNIST byclass IDX, black background)"}
    assert otadata.dataset_label(otadata.SURROGATE_NOTE) == "FEMNIST surrogate"
