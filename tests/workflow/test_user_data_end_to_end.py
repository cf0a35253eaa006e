"""The paths a user with real data takes, offline, on tiny official-format copies (repro.data.fixtures), at smoke scale:

* CIFAR-10 downloaded over the real download route from a loopback mirror (``REPRO_CIFAR10_URL``), accepted with its
  checksum (``REPRO_CIFAR10_MD5``), then one CIFAR-10 figure per paper (dp_ditto Fig. 5, wpfl_minmax Fig. 2) through
  its runs, the figure and the claims; every run records the checksum it was verified against;
* FEMNIST as EMNIST byclass IDX through ota_jammer's Fig. 2 (runs, figure, claims), labelled by its format.

The CIFAR-10 panels come from the user's override files (config/profiles/smoke/<slug>.yaml), as a user adds them.
"""

from __future__ import annotations

import json

import pytest

from repro import experiment as ex
from repro import pipeline
from repro.claims import not_evaluated_category
from repro.data import download as dl
from repro.data import sources
from repro.data.fixtures import cifar10_archive, emnist_byclass, serve_folder

from .conftest import make_project

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = make_project(tmp_path / "project")
    (tmp_path / "mirror").mkdir()
    for var in ("REPRO_OFFLINE", "REPRO_FEMNIST_DIR", "REPRO_FEMNIST_PATH", "REPRO_CIFAR10_URL", "REPRO_CIFAR10_MD5",
                "REPRO_CIFAR10_SHA256"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("REPRO_ROOT", str(root))
    monkeypatch.setenv("REPRO_DATA_DIR", str(root / "data"))
    monkeypatch.setenv("REPRO_DATA_MIRROR", str(tmp_path / "mirror"))  # empty: nothing but what the test provides
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    sources.use_mirrors(None)
    return root


def _override(root, slug: str, text: str) -> None:
    d = root / "config" / "profiles" / "smoke"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{slug}.yaml").write_text(text)


def _through_claims(root, slug: str, fig_id: str):
    """Every job of the figure, the figure, the paper's claims on what exists: (run documents, figure .md, claims)."""
    fig = ex.figure_spec(slug, fig_id, "smoke")
    docs = [json.loads(pipeline.execute_run(slug, jid, "smoke").read_text()) for jid in fig.job_ids]
    pipeline.render_figure(slug, fig_id, "smoke")
    claims = json.loads(pipeline.evaluate_claims(slug, "smoke").read_text())
    md = (root / "figures" / "smoke" / slug / f"{fig_id}.md").read_text()
    return docs, md, [c for c in claims if fig_id in c["figures"]]


def _members(doc):
    res = doc["result"]
    return list(res["members"].values()) if isinstance(res.get("members"), dict) else [doc]


def test_cifar10_from_a_mirror_server_through_a_figure_and_claims_of_each_paper(project, tmp_path, monkeypatch):
    made = cifar10_archive(tmp_path / "srv" / "cifar-10-python.tar.gz", n=300, n_test=250)
    with serve_folder(tmp_path / "srv") as url:
        monkeypatch.setenv("REPRO_CIFAR10_URL", url)
        monkeypatch.setenv("REPRO_CIFAR10_MD5", made["md5"])
        from repro.data.status import dataset_status

        st = dataset_status("cifar10", download=True)  # `repro data fetch cifar10`: the real download route
    assert st.available and st.where == "download", st.reason
    monkeypatch.setenv("REPRO_OFFLINE", "1")  # from here on, the verified copy in the cache
    _override(project, "dp_ditto", "fig5_panels: [cnn_cifar10]\n")
    _override(project, "wpfl_minmax", "configs: [cnn_cifar10]\ndirichlet_alpha: 1.0\nseeds: [0]\n")
    expect = {"available": True, "checksums": {"cifar-10-python.tar.gz": f"md5:{made['md5']}"},
              "checksum_source": {"cifar-10-python.tar.gz": "REPRO_CIFAR10_MD5"}}
    for slug, fig_id in (("dp_ditto", "fig5"), ("wpfl_minmax", "fig2")):
        docs, md, claims = _through_claims(project, slug, fig_id)
        trained = [d for d in docs if d["datasets"]]
        assert trained, slug
        for d in trained:
            seen = d["datasets"]["cifar10"]
            assert {k: seen.get(k) for k in expect} == expect, (slug, seen)
            assert not pipeline.any_unavailable(d["result"]), (slug, d["result"])
        assert "NOT REGENERATED" not in md and "cifar10" in md, (slug, md)
        assert claims, slug
        assert all(not_evaluated_category(c["reason"]) != "offline" for c in claims if c["verdict"] == "not_evaluated"), \
            [(c["id"], c["reason"]) for c in claims]


def test_femnist_as_emnist_idx_through_ota_jammer(project, tmp_path, monkeypatch):
    emnist_byclass(tmp_path / "emnist", per_letter_train=120, per_letter_test=260)
    monkeypatch.setenv("REPRO_FEMNIST_DIR", str(tmp_path / "emnist"))
    monkeypatch.setenv("REPRO_OFFLINE", "1")
    docs, md, claims = _through_claims(project, "ota_jammer", "fig2")
    femnist_runs = [m for d in docs for m in _members(d) if m["spec"]["params"].get("data") == "femnist"]
    assert femnist_runs
    for m in femnist_runs:
        assert "EMNIST byclass IDX" in m["result"]["dataset"] and m["result"]["dataset_real"] is True
    for d in docs:
        assert d["datasets"]["femnist"]["available"] is True and d["datasets"]["femnist"]["content_id"].startswith("user-files:")
    assert "NOT REGENERATED" not in md and "femnist" in md
    assert claims and all(not_evaluated_category(c["reason"]) != "offline" for c in claims if c["verdict"] == "not_evaluated")
    assert dl.downloads_disabled()
