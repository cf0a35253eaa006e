"""The transmit chain of one round (Sec. III-A, III-B): DP mechanism, R-bit quantization, bit errors.

Uplink of the scheduled clients (S1-S6; the PFL baselines use it too):

    u -> clip_C (2) -> + N(0, sigma^2) -> Q_L over +-(C + 3 sigma) (6)-(8) -> R-bit words -> bit flips (15)

with the mechanism's sigma (Table II for the proposed one, README decisions for Gaussian / MA /
Dithering / Perfect Gaussian). Downlink (18)-(19): Q_G over +-C, then each receiver's own bit flips.
A flipped bit turns a word into another quantization level, so a corrupted element stays inside
``[-A, A]`` ((17), (19)): the receiver cannot tell it from a correct one and uses it as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from repro.papers.wpfl_minmax import codec
from repro.papers.wpfl_minmax.environment import DATASET
from repro.wireless.qam import bit_error_pattern, flip_bits, word_error_probability

MECHANISMS = ("proposed", "gaussian", "ma", "dither", "perfect", "nodp")


def mechanism_sigma(env, mechanism: str, t0: int) -> float:
    """Noise std of each DP mechanism at T0 (Table II for the proposed one, printed values)."""
    p, fam = env.params, env.family
    key = ("sigma", mechanism, t0)
    if key in env.cache:
        return env.cache[key]
    clip, delta, eps = float(p["clip"][fam]), float(p["delta_q"][fam]), float(p["epsilon_q"])
    sens = 2 * clip / int(p["b_ref"][DATASET[env.config]])
    table = {int(k): float(v) for k, v in p["sigma_table"][fam].items()}
    if mechanism == "proposed" or (mechanism == "perfect" and p["perfect_gaussian_sigma"] == "table"):
        if t0 not in table:
            raise ValueError(f"sigma_table[{fam}] has no T0 = {t0}; has {sorted(table)}")
        s = table[t0]
    elif mechanism == "nodp":
        s = 0.0
    elif mechanism in ("gaussian", "perfect"):
        from repro.privacy.mechanisms_wpfl import gaussian_sigma_basic_composition
        s = gaussian_sigma_basic_composition(eps, delta, t0, sens)
    elif mechanism in ("ma", "dither"):
        from repro.privacy.mechanisms_wpfl import ma_noise_multiplier
        z = ma_noise_multiplier(eps, delta, t0, float(p["sampling_rate_q"]), conversion=p["ma_conversion"])
        s = z * sens
        if mechanism == "dither" and p["dither_bits_target"] is not None:
            # mean step so that the mean raw bits ~ target: E[Delta] = 3.19 sigma_D, R ~ 1 + log2(C/Delta + 1)
            s = clip / (2.0 ** (float(p["dither_bits_target"]) - 1) - 1) / 3.19
    else:
        raise ValueError(f"unknown mechanism {mechanism!r}; allowed: {', '.join(MECHANISMS)}")
    env.cache[key] = s
    return s


@dataclass
class BitStats:
    """Running means of ``B_q``, ``B_o`` (and Dithering's raw bits) over all uploads (Table III)."""

    bq_sum: float = 0.0
    bo_sum: float = 0.0
    raw_sum: float = 0.0
    uploads: int = 0

    def add(self, bq: torch.Tensor, raw: torch.Tensor | None = None):
        self.bq_sum += float(bq.double().mean(1).sum())
        self.bo_sum += float(codec.overhead_bits(bq).sum())
        if raw is not None:
            self.raw_sum += float(raw.double().mean(1).sum())
        self.uploads += bq.shape[0]

    def summary(self) -> dict:
        k = max(self.uploads, 1)
        return {"bq": self.bq_sum / k, "bo": self.bo_sum / k, "raw": self.raw_sum / k if self.raw_sum else None,
                "uploads": self.uploads}


def transmit_uplink(u: torch.Tensor, mechanism: str, sigma: float, clip: float, bits: int, ber: np.ndarray,
                    noise_gen: torch.Generator, flip_rng: np.random.Generator, stats: BitStats | None = None) -> torch.Tensor:
    """What the server receives from the clipped uploads ``u`` ``[k, P]`` (row j on a link of BER ``ber[j]``)."""
    ber = np.asarray(ber, dtype=np.float64)
    if mechanism == "dither":
        return _dithered_uplink(u, sigma, clip, ber, noise_gen, flip_rng, stats)
    x = u + sigma * torch.randn(u.shape, generator=noise_gen, dtype=u.dtype).to(u.device) if sigma > 0 else u
    if mechanism == "perfect":  # no quantization, no channel errors
        return x
    amp = clip + 3 * sigma  # (6): A_L = C + 3 sigma (A = C without DP)
    codes = codec.encode(x, amp, bits)
    if stats is not None:
        stats.add(codec.effective_bits(codes, bits))
    if ber.any():
        codes, _ = flip_bits(codes, ber, bits, flip_rng)
    return codec.decode(codes, amp, bits, u.dtype)


def _dithered_uplink(u, sigma, clip, ber, gen, flip_rng, stats):
    """Dithering [30]: signed codes of ``R_i`` raw bits; an erroneous element has one of its bits flipped."""
    from repro.privacy.mechanisms_wpfl import dither_raw_bits, dithered_quantize, dithered_reconstruct

    k, step, dith = dithered_quantize(u, sigma, gen)
    raw = dither_raw_bits(clip, step)
    if stats is not None:
        stats.add(codec.signed_code_bits(k), raw)
    if ber.any():
        e = torch.from_numpy(ber).double().unsqueeze(1).to(k.device)
        p_el = 1 - (1 - e) ** raw  # (14) with the element's own word length
        g = torch.Generator().manual_seed(int(flip_rng.integers(2**62)))
        err = torch.rand(k.shape, generator=g, dtype=torch.float64).to(k.device) < p_el
        if err.any():
            which = torch.floor(torch.rand(k.shape, generator=g, dtype=torch.float64).to(k.device) * raw).to(torch.int64)
            sign_flip = err & (which == raw.to(torch.int64) - 1)
            mag_flip = err & ~sign_flip
            k = torch.where(sign_flip, -k, k)
            k = torch.where(mag_flip, torch.sign(k) * (k.abs() ^ (1 << which.clamp(max=62))), k)
    return dithered_reconstruct(k, step, dith).to(u.dtype)


def downlink(model: torch.Tensor, clip: float, bits: int, ber: np.ndarray, rng: np.random.Generator,
             quantize: bool = True) -> tuple[torch.Tensor, np.ndarray]:
    """(18)-(19): every receiver's copy ``[N, P]`` of the global ``model`` ``[P]`` (already on the Q_G grid
    when ``quantize``), with its own bit errors; returns ``(copies, erroneous elements per receiver)``."""
    n = len(ber)
    recv = model.unsqueeze(0).repeat(n, 1)
    if not quantize or not np.any(ber):
        return recv, np.zeros(n, np.int64)
    r, pos, mask = corrupt_copies(recv, model, clip, bits, ber, rng)
    return recv, np.bincount(r, minlength=n)


def corrupt_copies(copies: torch.Tensor, model: torch.Tensor, clip: float, bits: int, ber, rng: np.random.Generator):
    """In place: row r of ``copies`` ``[R, P]`` is a received copy of ``model`` ``[P]`` (on the Q_G grid over
    +-C) through a link of BER ``ber[r]``; only the erroneous words are re-decoded (sparse)."""
    r, pos, mask, _ = bit_error_pattern(copies.shape[0], copies.shape[1], ber, bits, rng)
    if len(r):
        p = torch.from_numpy(pos).to(model.device)
        codes = codec.encode(model[p].unsqueeze(0), clip, bits)[0].to(torch.int64) ^ torch.from_numpy(mask).to(model.device)
        copies[torch.from_numpy(r).to(copies.device), p] = codec.decode(codes.unsqueeze(0), clip, bits, copies.dtype)[0]
    return r, pos, mask


def quantize_global(w: torch.Tensor, clip: float, bits: int) -> torch.Tensor:
    """(19): ``Q_G`` over ``+-C``."""
    return codec.decode(codec.encode(w.unsqueeze(0), clip, bits), clip, bits, w.dtype)[0]


def element_error_rate(ber, bits: int) -> np.ndarray:
    """(14): probability that an R-bit word is received wrong."""
    return word_error_probability(np.asarray(ber, dtype=np.float64), bits)
