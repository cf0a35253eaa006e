"""Clipping, noise, quantisers, chains, bit accounting."""

import pytest
import torch
from hypothesis import given, settings, strategies as st

from repro.engine.rng import RngStreams, RoundRng
from repro.privacy import (chain, clip_l2, clip_rows, gaussian_noise, identity, laplace_noise, quantize_stochastic,
                           quantize_uniform, uniform_indices, dequantize_uniform, subtractive_dither,
                           gaussian_dither_steps, stochastic_quantizer, uniform_quantizer)
from repro.privacy.bits import effective_bits, run_length_overhead, upload_bits, signed_code_bits
from repro.privacy.quantize import step_size


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 50), st.floats(0.01, 10.0), st.floats(0.01, 100.0))
def test_clip_bounds_norms_and_keeps_small_rows(n, p, c, scale):
    x = torch.randn(n, p, generator=torch.Generator().manual_seed(n * 100 + p), dtype=torch.float64) * scale
    y = clip_rows(x, c)
    norms = torch.linalg.vector_norm(x, dim=1)
    assert bool((torch.linalg.vector_norm(y, dim=1) <= c * (1 + 1e-12)).all())
    inside = norms <= c
    assert torch.equal(y[inside], x[inside])
    # direction preserved
    assert torch.allclose(y * norms.unsqueeze(1), x * torch.linalg.vector_norm(y, dim=1).unsqueeze(1))


def test_clip_per_client_norms_and_errors():
    x = torch.ones(3, 4) * 10
    y = clip_rows(x, torch.tensor([1.0, 2.0, 100.0]))
    assert torch.allclose(torch.linalg.vector_norm(y, dim=1), torch.tensor([1.0, 2.0, 20.0]))
    with pytest.raises(ValueError, match="max_norm must be > 0"):
        clip_rows(x, 0.0)
    with pytest.raises(ValueError, match="one value per client"):
        clip_rows(x, torch.tensor([1.0, 2.0]))


def test_gaussian_noise_per_client_scale_and_common_random_numbers():
    x = torch.zeros(3, 200_000)
    sig = torch.tensor([0.0, 1.0, 3.0])
    y = gaussian_noise(sig)(x, torch.Generator().manual_seed(0))
    assert torch.equal(y[0], x[0])
    assert y[1].std().item() == pytest.approx(1.0, rel=0.01)
    assert y[2].std().item() == pytest.approx(3.0, rel=0.01)
    # same generator state, other sigma: same directions
    y2 = gaussian_noise(2 * sig)(x, torch.Generator().manual_seed(0))
    assert torch.allclose(y2, 2 * y)


def test_laplace_noise_scale():
    y = laplace_noise(torch.tensor([0.5, 2.0]))(torch.zeros(2, 400_000), torch.Generator().manual_seed(1))
    # Laplace(b): mean |L| = b, variance 2 b^2
    assert y[0].abs().mean().item() == pytest.approx(0.5, rel=0.01)
    assert y[1].var().item() == pytest.approx(8.0, rel=0.02)


def test_chain_uses_round_streams_deterministically():
    x = torch.randn(4, 1000, generator=torch.Generator().manual_seed(3)) * 5
    up = chain(clip_l2(20.0), gaussian_noise(0.1), uniform_quantizer(20.0 + 0.3, 8))
    a = up(x, RoundRng(RngStreams(1), 0))
    b = up(x, RoundRng(RngStreams(1), 0))
    c = up(x, RoundRng(RngStreams(1), 1))
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert torch.equal(identity()(x), x)
    with pytest.raises(TypeError):
        chain(clip_l2(1.0), 3)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 12), st.floats(0.1, 10.0))
def test_uniform_quantizer_error_and_levels(bits, a):
    x = torch.linspace(-1.5 * a, 1.5 * a, 1001, dtype=torch.float64).unsqueeze(0)
    q = quantize_uniform(x, a, bits)
    d = step_size(a, bits)
    inside = x.abs() <= a
    assert float((q - x).abs()[inside].max()) <= d / 2 * (1 + 1e-9)
    assert float(q.max()) == pytest.approx(a) and float(q.min()) == pytest.approx(-a)  # out of range -> end levels
    k = uniform_indices(x, a, bits)
    assert int(k.min()) >= 0 and int(k.max()) <= 2**bits - 1
    assert torch.allclose(dequantize_uniform(k, a, bits, dtype=torch.float64), q)


def test_stochastic_rounding_is_unbiased_and_bounded():
    x = torch.tensor([[0.3, -0.77, 0.999, 1.4]]).repeat(1, 1).expand(50_000, -1).contiguous()
    q = quantize_stochastic(x, 1.0, 3, torch.Generator().manual_seed(0))
    d = step_size(1.0, 3)
    assert float((q - x.clamp(-1, 1)).abs().max()) < d + 1e-6
    assert q.mean(0).tolist() == pytest.approx([0.3, -0.77, 0.999, 1.0], abs=3e-3)
    sq = stochastic_quantizer(1.0, 3)
    assert torch.equal(sq(x, RoundRng(RngStreams(0), 0)), sq(x, RoundRng(RngStreams(0), 0)))


def test_subtractive_dither_error_uniform_and_gaussian():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 200_000, generator=g, dtype=torch.float64)
    k, r = subtractive_dither(x, 0.2, g)
    e = r - x
    assert float(e.abs().max()) <= 0.1 + 1e-12
    assert e.std().item() == pytest.approx(0.2 / 12**0.5, rel=0.01)
    assert abs(torch.corrcoef(torch.stack([e.flatten(), x.flatten()]))[0, 1].item()) < 0.01
    steps = gaussian_dither_steps(x.shape, 0.05, g, dtype=torch.float64)
    _, r = subtractive_dither(x, steps, g)
    e = (r - x).flatten()
    assert e.std().item() == pytest.approx(0.05, rel=0.01)
    assert ((e**4).mean() / e.var() ** 2).item() == pytest.approx(3.0, abs=0.1)  # Gaussian kurtosis


def test_effective_bits_and_run_length_overhead():
    # R = 4: k=7,8 are levels -/+0.5 (1 bit: sign only); k=0,15 are -/+7.5 (1 + 3 bits)
    assert effective_bits(torch.tensor([[0, 7, 8, 15, 6, 9]]), 4).tolist() == [[4, 1, 1, 4, 2, 2]]
    assert int(effective_bits(torch.tensor([[0]]), 16)) == 16
    with pytest.raises(ValueError, match="0..15"):
        effective_bits(torch.tensor([[16]]), 4)
    # runs [4,4,4],[1,1]: (4 + gamma(3)=3) + (4 + gamma(2)=3) = 14 bits / 5 elements
    assert run_length_overhead(torch.tensor([[4, 4, 4, 1, 1], [2, 2, 2, 2, 2]])).tolist() == pytest.approx([2.8, 1.8])
    # alternating widths: overhead capped at 4 bits per element
    assert run_length_overhead(torch.tensor([[1, 2] * 10])).tolist() == [4.0]
    s = upload_bits(torch.tensor([[0, 7, 8, 15, 15, 15]]), 4)
    assert s["effective"].item() == pytest.approx(3.0) and s["transmitted"].item() == 4.0
    assert signed_code_bits(torch.tensor([0, -1, 5])).tolist() == [1, 2, 4]


def test_fused_kernels_equal_their_compositions():
    from repro.privacy import clip_and_gaussian, clipped_gaussian, stochastic_indices
    x = torch.randn(5, 70_000, generator=torch.Generator().manual_seed(0)) * 0.1  # rows span several chunks
    sig = torch.linspace(0.0, 1.0, 5)
    a = clip_and_gaussian(x, 20.0, sig, torch.Generator().manual_seed(1))
    b = chain(clip_l2(20.0), gaussian_noise(sig))(x, torch.Generator().manual_seed(1))
    assert torch.allclose(a, b, atol=1e-6)
    c = clipped_gaussian(20.0, sig)(x, RoundRng(RngStreams(0), 0))
    assert torch.equal(c, clipped_gaussian(20.0, sig)(x, RoundRng(RngStreams(0), 0)))
    q = quantize_stochastic(x, 0.3, 6, torch.Generator().manual_seed(2))
    k = stochastic_indices(x, 0.3, 6, torch.Generator().manual_seed(2))
    assert torch.allclose(q, dequantize_uniform(k, 0.3, 6), atol=1e-6)
    # small rows are packed several per chunk: same numbers as one row at a time
    y = torch.randn(300, 50, generator=torch.Generator().manual_seed(3))
    z = quantize_uniform(y, torch.linspace(0.5, 2.0, 300), 5)
    assert torch.equal(z[7], quantize_uniform(y[7:8], float(torch.linspace(0.5, 2.0, 300)[7]), 5)[0])


@pytest.mark.parametrize("kernel", ["gaussian", "laplace", "stochastic", "dither", "dither_steps", "wpfl_dither"])
def test_kernels_draw_on_the_generators_device_and_return_on_the_inputs(kernel):
    """A CPU generator with tensors on another device (here 'meta', which refuses to mix with CPU tensors as CUDA
    does): the random numbers are drawn on the CPU and moved, so a GPU run draws the same numbers as a CPU run."""
    from repro.privacy import noise, quantize
    from repro.privacy.mechanisms_wpfl import dithered_quantize

    x = torch.zeros(3, 700, device="meta")
    g = torch.Generator().manual_seed(0)
    out = {"gaussian": lambda: noise.add_gaussian(x, 0.5, g),
           "laplace": lambda: noise.add_laplace(x, 0.5, g),
           "stochastic": lambda: quantize.quantize_stochastic(x, 1.0, 4, g),
           "dither": lambda: quantize.subtractive_dither(x, 0.1, g)[1],
           "dither_steps": lambda: quantize.gaussian_dither_steps((3, 700), 0.5, g, device="meta"),
           "wpfl_dither": lambda: dithered_quantize(x, 0.5, g)[0]}[kernel]()
    assert out.device.type == "meta" and out.shape == (3, 700)
    with pytest.raises(RuntimeError):  # the premise: 'meta' does not mix with CPU tensors
        torch.zeros(3) + torch.zeros(3, device="meta")
