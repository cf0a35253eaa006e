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


def test_bench_roofline_counts_a_steps_flops_and_bounds_its_rate(capsys):
    import pytest

    assert main(["bench", "roofline", "--shape", "3", "4", "20,8,5", "--repeats", "1", "--json"]) == 0
    (r,) = json.loads(capsys.readouterr().out).values()
    # layer 1: forward + weight gradient; layer 2 also its input gradient: 2 R B (2 x 20*8 + 3 x 8*5) FLOPs
    assert r["step_gflop"] * 1e9 == pytest.approx(2 * 3 * 4 * (2 * 20 * 8 + 3 * 8 * 5))
    assert r["params"] == 20 * 8 + 8 + 8 * 5 + 5
    # each memory pass can only lower the ceiling
    assert r["ceiling_products_gflops"] > r["ceiling_1_passes_gflops"] > r["ceiling_3_passes_gflops"] > 0
    with pytest.raises(SystemExit, match="WIDTHS"):
        main(["bench", "roofline", "--shape", "3", "x", "20,8"])
    with pytest.raises(SystemExit, match="at least two widths"):
        main(["bench", "roofline", "--shape", "3", "4", "20"])
