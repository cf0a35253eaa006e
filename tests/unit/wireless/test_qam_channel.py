import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

from repro.wireless.channel import LinkBudget, dbm_to_watt, linear_to_db, min_rate, path_loss_db
from repro.wireless.ofdma import OfdmaChannel
from repro.wireless.qam import flip_bits, qam_ber, word_error_probability


def test_qam_ber_matches_printed_constants():
    g = np.array([1.0, 100.0, 1000.0])
    from scipy.stats import norm
    expected = 0.46875 * norm.sf(np.sqrt(3 * g * 8 / 255))  # eq. (13) as printed, g read as Eb/N0
    assert np.allclose(qam_ber(g, 256, snr_per="bit"), expected, rtol=1e-12)
    # per-symbol SNR (eq. (12)): Eb/N0 = Es/N0 / log2 M
    assert np.allclose(qam_ber(8 * g, 256), expected, rtol=1e-12)


def test_ber_thresholds():
    # as printed: e = 1e-3 at Eb/N0 = 19.4 dB, 1e-6 at 23.5 dB; per symbol 9.03 dB (log2 256) higher
    assert qam_ber(10 ** 1.94, snr_per="bit") == pytest.approx(1e-3, rel=0.1)
    assert qam_ber(10 ** 2.35, snr_per="bit") == pytest.approx(1e-6, rel=0.15)
    assert qam_ber(10 ** (1.94 + 0.903)) == pytest.approx(1e-3, rel=0.1)
    with pytest.raises(ValueError, match="snr_per"):
        qam_ber(1.0, snr_per="dB")


def test_bad_qam_order():
    with pytest.raises(ValueError, match="square"):
        qam_ber(1.0, 32)


@given(st.floats(0, 0.5), st.integers(1, 32))
def test_word_error_probability(e, r):
    from fractions import Fraction
    exact = float(1 - (1 - Fraction(e)) ** r)  # exact rational reference
    assert word_error_probability(e, r) == pytest.approx(exact, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("e", [1e-3, 0.02, 0.2])
def test_empirical_element_error_rate_matches_formula(e):
    rng = np.random.default_rng(1)
    codes = torch.zeros((2, 200_000), dtype=torch.int64)
    out, n_err = flip_bits(codes, e, 16, rng)
    wrong = (out != codes).double().mean(dim=1).numpy()
    rho = 1 - (1 - e) ** 16
    se = math.sqrt(rho * (1 - rho) / codes.shape[1])
    assert np.all(np.abs(wrong - rho) <= 3 * se + 1e-12)
    assert np.array_equal((out != codes).sum(1).numpy(), n_err)
    assert int(out.max()) < 2**16


def test_empirical_bit_error_rate_per_bit():
    rng = np.random.default_rng(2)
    e = 0.05
    codes = torch.zeros((1, 100_000), dtype=torch.int64)
    out, _ = flip_bits(codes, e, 8, rng)
    bits = ((out[0, :, None] >> torch.arange(8)) & 1).double().mean(0).numpy()
    se = math.sqrt(e * (1 - e) / 100_000)
    assert np.all(np.abs(bits - e) <= 4 * se)


def test_flip_bits_zero_ber_and_seeded():
    codes = torch.randint(0, 2**16, (3, 1000), generator=torch.Generator().manual_seed(0))
    out, n = flip_bits(codes, 0.0, 16, np.random.default_rng(0))
    assert torch.equal(out, codes) and n.sum() == 0
    a, _ = flip_bits(codes, [0.01, 0.1, 0.0], 16, np.random.default_rng(5))
    b, _ = flip_bits(codes, [0.01, 0.1, 0.0], 16, np.random.default_rng(5))
    assert torch.equal(a, b)


def test_link_budget_values():
    lb = LinkBudget()
    assert lb.noise_power_w == pytest.approx(1.2589e-14, rel=1e-4)
    assert linear_to_db(lb.noise_power_w) + 30 == pytest.approx(-109.0, abs=1e-9)
    p = dbm_to_watt(23.0)
    # mean UL SNR = 102 - 28 log10 d dB
    for d in (10.0, 100.0, 37.0):
        assert linear_to_db(lb.snr(p, lb.mean_gain(d))) == pytest.approx(102 - 28 * math.log10(d), abs=1e-9)
    assert lb.dl_power_dbm == pytest.approx(20.0)
    assert linear_to_db(lb.snr(dbm_to_watt(lb.dl_power_dbm), lb.mean_gain(10.0))) == pytest.approx(99 - 28, abs=1e-9)
    assert path_loss_db(1.0) == -30.0


def test_min_rates_of_table_i():
    got = [min_rate(w, 16, t) / 1e6 for w, t in [(7850, 0.01), (79510, 0.1), (582026, 0.6), (878538, 0.6)]]
    assert got == pytest.approx([12.56, 12.72, 15.52, 23.43], abs=0.01)


def test_ofdma_shapes_and_full_power_optimal():
    ch = OfdmaChannel(LinkBudget(), np.linspace(10, 100, 6))
    g = torch.Generator().manual_seed(0)
    ul = ch.uplink(g)
    assert ul.snr.shape == (6, 10) and ch.downlink(g).snr.shape == (6,)
    # P2: rho (14) non-increasing in the transmit power (claim 22)
    rng = np.random.default_rng(0)
    gains = rng.exponential(size=1000) * ch.budget.mean_gain(rng.uniform(10, 100, 1000))
    powers = dbm_to_watt(np.linspace(-10, 23, 40))
    rho = word_error_probability(qam_ber(ch.budget.snr(powers[:, None], gains[None, :])), 16)
    assert np.all(np.diff(rho, axis=0) <= 0)
