"""`repro bench engine|kernels` run and print the documented JSON (tiny sizes; no timing asserted)."""

import json

from repro.cli import main


def test_bench_engine_json_keys(capsys):
    assert main(["bench", "engine", "--model", "mlr", "--clients", "3", "--samples", "20", "--test-samples", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("model", "clients", "vectorized_s_per_round", "sequential_s_per_round", "speedup", "gflops"):
        assert key in out
    assert out["model"] == "mlr" and out["clients"] == 3
    assert out["max_abs_diff_vs_sequential"] < 1e-5


def test_bench_kernels_json(capsys):
    assert main(["bench", "kernels", "--clients", "3", "--params", "1000", "--repeats", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["kernel"] for r in rows] == ["clip_gaussian", "quantize_uniform", "quantize_stochastic", "subtractive_dither"]
    assert all(r["vectorized_over_copy"] > 0 and r["loop_over_vectorized"] > 0 for r in rows)
