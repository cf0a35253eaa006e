"""Every run result records the code that computed it, and a figure says how many of its runs the current sources
computed (issue 49: a run id hashes the parameters, not the code)."""

from repro import code_version as cv


def test_sources_hash_is_per_paper_and_stable():
    a, b = cv.sources_hash("dp_ditto"), cv.sources_hash("acfl")
    assert len(a) == 12 and a != b and cv.sources_hash("dp_ditto") == a


def test_code_stamp_names_the_package_and_the_sources():
    stamp = cv.code_stamp("acfl")
    assert stamp["sources"] == cv.sources_hash("acfl") and stamp["package"]


def test_stamp_summary_counts_current_other_and_unrecorded_results():
    now = cv.sources_hash("acfl")
    docs = [{"code": {"sources": now}}, {"code": {"sources": "0" * 12}}, {"code": None}, {}]
    line = cv.stamp_summary("acfl", docs)
    assert line.startswith(f"Code: 1 of 4 result files computed by these sources ({now}; package ")
    assert "1 by other sources" in line and "2 written before results recorded their code" in line


def test_a_run_result_records_its_code(tmp_path, monkeypatch):
    """An acfl smoke run (numpy, a second) writes the stamp into its result file."""
    import json

    from repro import experiment as ex
    from repro import paths, pipeline

    monkeypatch.setattr(paths, "results_dir", lambda profile, slug=None: tmp_path / profile / (slug or ""))
    fig = ex.figure_specs("acfl", "smoke")[0]
    rid = fig.job_ids[0]
    out = pipeline.execute_run("acfl", rid, "smoke")
    doc = json.loads(out.read_text())
    assert doc["code"]["sources"] == cv.sources_hash("acfl")


def test_a_figure_says_what_data_ran():
    """Issue 47: a figure whose runs trained on the FEMNIST stand-in says so in its .md, not 'the paper's data'."""
    import pandas as pd

    from repro.pipeline import _stand_in_note

    rows = lambda flag: pd.DataFrame([dict(figure="f", panel="privacy", series="s", x=float("nan"), metric="surrogate_data",
                                           value=flag, seed=k, run_id=f"r{k}") for k in range(3)])  # noqa: E731
    assert "3 of 3 runs trained on MNIST digits standing in for FEMNIST" in _stand_in_note(rows(1.0))
    assert "paper's data" in _stand_in_note(rows(0.0))
    assert _stand_in_note(pd.DataFrame(columns=["metric"])) == ""
