"""Privacy/quantisation kernels on a [20, 1_000_000] stack vs a per-client Python loop and vs a plain copy.

pytest-benchmark times the vectorised kernel; the loop reference, the copy floor (``clone`` of the same
stack) and, for random kernels, the time torch's CPU generator needs just to fill a tensor of that size
are timed in the same test (minimum of a few calls) and reported in ``benchmark.extra_info``:
``loop_over_vectorized`` (> 1: faster than the loop) and ``vectorized_over_copy`` (target <= 3).
"""

import time

import pytest
import torch

from repro.engine.bench import best_time, kernel_cases
from repro.privacy import clip_rows
from repro.privacy.quantize import step_size

SHAPE = (20, 1_000_000)


@pytest.fixture(scope="module")
def stack():
    return torch.randn(*SHAPE, generator=torch.Generator().manual_seed(0))


@pytest.fixture(scope="module")
def floors(stack):
    g = torch.Generator().manual_seed(1)
    return {
        "copy": best_time(lambda: stack.clone(), repeats=5),
        "normal": best_time(lambda: torch.empty_like(stack).normal_(generator=g), repeats=3),
        "uniform": best_time(lambda: torch.empty_like(stack).uniform_(generator=g), repeats=3),
    }


RNG = {"clip_gaussian": "normal", "quantize_stochastic": "uniform", "subtractive_dither": "uniform"}


@pytest.mark.parametrize("name", ["clip_gaussian", "quantize_uniform", "quantize_stochastic", "subtractive_dither"])
def test_kernel_vs_loop_and_copy(benchmark, stack, floors, name):
    vec, loop = kernel_cases(stack, seed=0)[name]
    times = []

    def timed():
        t = time.perf_counter()
        r = vec()
        times.append(time.perf_counter() - t)
        return r

    out = benchmark.pedantic(timed, rounds=3, iterations=1, warmup_rounds=1)
    ref = loop()
    loop_s = best_time(loop, repeats=2, warmup=0)
    vec_s = min(times)
    info = {"vectorized_s": vec_s, "loop_s": loop_s, "copy_s": floors["copy"],
            "loop_over_vectorized": loop_s / vec_s, "vectorized_over_copy": vec_s / floors["copy"]}
    if name in RNG:
        info["rng_fill_s"] = floors[RNG[name]]
        info["vectorized_over_rng_fill"] = vec_s / floors[RNG[name]]
    benchmark.extra_info.update(info)
    assert out.shape == SHAPE and bool(torch.isfinite(out).all())
    if name == "quantize_uniform":  # deterministic: equal to the loop up to ties at level midpoints
        assert float((out - ref).abs().max()) <= step_size(3.0, 8) * 1.0001
        assert float((out != ref).float().mean()) < 1e-5
    elif name == "clip_gaussian":  # sigma_n = linspace(0.1, 1): the added noise has that std per row
        std = (out - clip_rows(stack, 20.0)).std(dim=1)  # norms ~ 1000 > C = 20: every row is clipped
        assert std.tolist() == pytest.approx(torch.linspace(0.1, 1.0, 20).tolist(), rel=0.01)
    else:  # random quantisers: same error statistics as the loop reference
        err, err_ref = (out - stack.clamp(-3, 3)).abs().mean(), (ref - stack.clamp(-3, 3)).abs().mean()
        assert float(err) == pytest.approx(float(err_ref), rel=0.01)
