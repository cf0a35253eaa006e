"""The GPU check's CPU path (record the CPU reference, compare a device against it), on the smoke profile."""

import json

import pytest

from repro import gpu_check


def test_record_then_compare_on_the_cpu_matches_and_a_perturbed_reference_does_not(tmp_path):
    ref = tmp_path / "ref.json"
    doc = gpu_check.record(["wpfl_minmax"], "smoke", 1, r"mlr_mnist: WPFL", 60.0, ref, log=lambda m: None)
    (name, entry), = doc["parts"].items()
    assert name.startswith("wpfl_minmax | ") and entry["numbers"] and entry["seconds"] > 0
    rows = gpu_check.compare(json.loads(ref.read_text()), "smoke", "cpu", 60.0, None, log=lambda m: None)
    assert [r["status"] for r in rows] == ["ok"] and rows[0]["max_abs_diff"] == 0.0 and rows[0]["numbers"] > 10
    bad = json.loads(ref.read_text())
    k = sorted(bad["parts"][name]["numbers"])[0]
    bad["parts"][name]["numbers"][k] += 0.5
    assert gpu_check.compare(bad, "smoke", "cpu", 60.0, None, log=lambda m: None)[0]["max_abs_diff"] == pytest.approx(0.5)
    assert "| ok |" in gpu_check.table(rows, "cpu", bad)


def test_cuda_without_a_gpu_is_a_clear_error(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(SystemExit, match="sees no CUDA device"):
        gpu_check.main(["compare", "--reference", str(tmp_path / "r.json"), "--device", "cuda"])
