import numpy as np
import pytest
import torch
from scipy import stats

from repro.papers.wpfl_minmax.codec import decode, effective_bits, encode, overhead_bits, quant_step
from repro.privacy.mechanisms_wpfl import (
    dithered_quantize, dithered_reconstruct, gaussian_sigma_basic_composition, ma_noise_multiplier, reference_batch_size)
from repro.privacy.quantized_gaussian import (
    wpfl_delta, wpfl_delta_floor, wpfl_sigma_dp, wpfl_sigma_small_sigma_approx)

T0S = (5, 10, 15, 20, 25, 30)
COMPUTED = {  # computed from eq. (23) (Table II)
    (3, 1e-3): [0.00183, 0.00367, 0.00551, 0.00736, 0.00922, 0.01108],
    (7, 1e-3): [0.00427, 0.00855, 0.01285, 0.01717, 0.02150, 0.02585],
    (20, 5e-3): [0.00243, 0.00487, 0.00731, 0.00975, 0.01220, 0.01464],
}


@pytest.mark.parametrize("key", list(COMPUTED))
def test_table2_regenerated(key):
    clip, delta = key
    got = [wpfl_sigma_dp(delta, clip, t) for t in T0S]
    assert got == pytest.approx(COMPUTED[key], abs=6e-6)
    assert all(np.diff(got) > 0)
    assert 5.9 <= got[-1] / got[0] <= 6.1
    for t, s in zip(T0S, got):
        assert wpfl_sigma_small_sigma_approx(delta, clip, t) == pytest.approx(s, rel=0.015)


def test_delta_at_printed_sigma_and_epsilon_independence():
    assert wpfl_delta(0.016, 7, 20) == pytest.approx(1.07e-3, rel=0.01)
    assert wpfl_delta(0.001, 3, 5) == pytest.approx(1.83e-3, rel=0.01)
    a = wpfl_sigma_dp(1e-3, 7, 20, epsilon=0.1)
    b = wpfl_sigma_dp(1e-3, 7, 20, epsilon=10)
    assert a == pytest.approx(0.0171702, abs=5e-8) and b == pytest.approx(a, rel=1e-6)


def test_feasibility_floor_and_bits():
    assert wpfl_delta_floor(7, 20) == pytest.approx(2.70e-4, rel=0.01)
    with pytest.raises(ValueError, match="not attained"):
        wpfl_sigma_dp(1e-3, 7, 20, bits=8)
    assert wpfl_sigma_dp(1e-3, 7, 20, bits=10) == pytest.approx(2.052, rel=1e-3)
    assert wpfl_sigma_dp(1e-3, 7, 20, bits=12) == pytest.approx(0.3089, rel=1e-3)


@pytest.mark.parametrize("clip,t0", [(3, 5), (7, 20), (20, 30)])
def test_delta_decreasing_in_sigma(clip, t0):  # claim 18
    sig = np.geomspace(1e-4, 1, 200)
    d = np.array([wpfl_delta(s, clip, t0) for s in sig])
    assert np.all(np.diff(d) < 0)


def test_baseline_calibrations():
    assert reference_batch_size(0.01, 0.75, 70000, 20) == 26
    assert reference_batch_size(0.01, 0.75, 60000, 20) == 22
    assert gaussian_sigma_basic_composition(1, 1e-3, 20, 2 * 7 / 26) == pytest.approx(48.5, abs=0.05)
    assert gaussian_sigma_basic_composition(1, 5e-3, 5, 2 * 20 / 26) == pytest.approx(29.0, abs=0.05)
    assert ma_noise_multiplier(1, 1e-3, 20) == pytest.approx(0.791, abs=1e-3)
    assert ma_noise_multiplier(1, 5e-3, 5, conversion="classic") == pytest.approx(0.835, abs=1e-3)


def test_quantizer_error_bound_and_codes():
    g = torch.Generator().manual_seed(0)
    a = torch.tensor([1.0, 2.5])
    x = (torch.rand(2, 5000, generator=g, dtype=torch.float64) * 2 - 1) * a[:, None]
    c = encode(x, a, 16)
    err = (decode(c, a, 16, torch.float64) - x).abs()
    assert torch.all(err <= quant_step(a, 16)[:, None] / 2 + 1e-12)
    assert int(c.min()) >= 0 and int(c.max()) < 2**16
    out = encode(torch.tensor([[5.0, -5.0]]), 1.0, 16)
    assert out.tolist() == [[2**16 - 1, 0]]


def test_effective_bits_and_overhead():
    codes = torch.tensor([[32767, 32768, 32766, 0, 65535]])
    assert effective_bits(codes, 16).tolist() == [[1, 1, 2, 16, 16]]
    w = torch.ones((1, 1000), dtype=torch.int64)
    assert overhead_bits(w).item() == pytest.approx((4 + 19) / 1000)
    alt = torch.arange(1000).remainder(2).reshape(1, -1)
    assert overhead_bits(alt).item() == 4.0


def test_dither_error_is_gaussian():
    g = torch.Generator().manual_seed(0)
    u = torch.full((100_000,), 0.37, dtype=torch.float64)
    k, step, dither = dithered_quantize(u, 0.2, g)
    err = (dithered_reconstruct(k, step, dither) - u).numpy() / 0.2
    assert stats.kstest(err, "norm").pvalue > 1e-3
    assert float(step.mean()) / 0.2 == pytest.approx(3.19, rel=0.02)
