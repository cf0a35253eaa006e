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
    off, = gpu_check.compare(bad, "smoke", "cpu", 60.0, None, log=lambda m: None)
    assert off["max_abs_diff"] == pytest.approx(0.5) and off["status"].startswith("differs")
    assert "| ok |" in gpu_check.table(rows, "cpu", bad)


def test_cuda_without_a_gpu_is_a_clear_error(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(SystemExit, match="sees no CUDA device"):
        gpu_check.main(["compare", "--reference", str(tmp_path / "r.json"), "--device", "cuda"])


def test_a_part_that_fails_on_the_device_is_listed_with_its_error_and_the_rest_still_run(tmp_path, monkeypatch):
    ref = tmp_path / "ref.json"
    gpu_check.record(["wpfl_minmax"], "smoke", 1, r"mlr_mnist: (WPFL|FedAMP \(S)", 60.0, ref, log=lambda m: None)
    reference = json.loads(ref.read_text())
    assert len(reference["parts"]) == 2
    real = gpu_check.execute
    broken = sorted(reference["parts"], key=lambda k: reference["parts"][k]["seconds"])[0]

    def execute(slug, spec, profile, device):
        if spec.run_id == reference["parts"][broken]["run_id"]:
            raise RuntimeError("Expected all tensors to be on the same device")
        return real(slug, spec, profile, device)

    monkeypatch.setattr(gpu_check, "execute", execute)
    seen = []
    rows = gpu_check.compare(reference, "smoke", "cpu", 60.0, None, log=lambda m: None, on_row=seen.append)
    status = {r["part"]: r["status"] for r in rows}
    assert status[broken] == "error: RuntimeError: Expected all tensors to be on the same device"
    assert [s for p, s in status.items() if p != broken] == ["ok"]
    assert [len(s) for s in seen] == [1, 2]  # the table is handed over after every row
