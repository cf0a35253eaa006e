"""Calibrations of the DP-mechanism baselines of wpfl_minmax (Fig. 2, Table III; guide §6.2).

* :func:`gaussian_sigma_basic_composition` -- classic Gaussian mechanism [22] per upload with
  ``(eps/T0, delta/T0)`` each (basic composition): ``sigma = T0 sqrt(2 ln(1.25 T0/delta)) s / eps``.
  Guarantee: the classic bound (valid for per-upload eps <= 1), composed over T0 uploads.
* :func:`ma_noise_multiplier` -- moments accountant [21]: the smallest noise multiplier ``z`` such that
  the Poisson-subsampled (rate q) Gaussian mechanism composed T0 times is ``(eps, delta)``-DP, by
  bisection with ``dp_accounting``'s RDP accountant (orders 2..256), or (``conversion='classic'``)
  with Abadi et al.'s moment bound and conversion ``eps = min_a [T0 ln A_a + ln(1/delta)]/(a - 1)``.
* :func:`dithered_quantize` -- subtractive dithered quantization with random Gamma-distributed steps
  [30]: the reconstruction error is exactly ``N(0, sigma_D^2)``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import gammaln, logsumexp

MA_ORDERS = tuple(range(2, 257))
MA_CONVERSIONS = ("rdp", "classic")


def gaussian_sigma_basic_composition(epsilon: float, delta: float, uploads: int, sensitivity: float) -> float:
    """Classic Gaussian mechanism over ``uploads`` = T0 releases by basic composition (guide D13)."""
    if epsilon <= 0 or not 0 < delta < 1 or uploads < 1 or sensitivity <= 0:
        raise ValueError(f"need eps > 0, 0 < delta < 1, uploads >= 1, sensitivity > 0; got {epsilon}, {delta}, {uploads}, {sensitivity}")
    return uploads * math.sqrt(2 * math.log(1.25 * uploads / delta)) * sensitivity / epsilon


def _eps_rdp(z: float, q: float, steps: int, delta: float) -> float:
    import dp_accounting

    acc = dp_accounting.rdp.RdpAccountant(orders=list(MA_ORDERS))
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z))
    acc.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    return float(acc.get_epsilon(delta))


def _eps_classic(z: float, q: float, steps: int, delta: float) -> float:
    best = math.inf
    for a in MA_ORDERS:
        k = np.arange(a + 1)
        log_binom = gammaln(a + 1) - gammaln(k + 1) - gammaln(a - k + 1)
        log_terms = log_binom + (a - k) * math.log1p(-q) + k * math.log(q) + (k * k - k) / (2 * z * z)
        log_a = float(logsumexp(log_terms))
        best = min(best, (steps * log_a + math.log(1 / delta)) / (a - 1))
    return best


def ma_epsilon(z: float, q: float, steps: int, delta: float, conversion: str = "rdp") -> float:
    """epsilon of the sampled Gaussian mechanism (noise multiplier z, rate q) after ``steps`` compositions."""
    if conversion not in MA_CONVERSIONS:
        raise ValueError(f"conversion {conversion!r} not in {MA_CONVERSIONS}")
    return (_eps_rdp if conversion == "rdp" else _eps_classic)(z, q, steps, delta)


@functools.lru_cache(maxsize=256)
def ma_noise_multiplier(epsilon: float, delta: float, steps: int, q: float = 0.01, conversion: str = "rdp",
                        lo: float = 0.2, hi: float = 8.0, tol: float = 2e-5) -> float:
    """Smallest ``z`` (to ``tol``) with ``ma_epsilon(z) <= epsilon`` by bisection (epsilon decreases in z)."""
    if ma_epsilon(lo, q, steps, delta, conversion) <= epsilon:
        raise ValueError(f"(eps={epsilon}, delta={delta}) already met at z = {lo}; lower the bracket")
    if ma_epsilon(hi, q, steps, delta, conversion) > epsilon:
        raise ValueError(f"(eps={epsilon}, delta={delta}) not reachable with z <= {hi}")
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if ma_epsilon(mid, q, steps, delta, conversion) > epsilon:
            lo = mid
        else:
            hi = mid
    return hi


def reference_batch_size(q: float, train_fraction: float, dataset_size: int, num_clients: int) -> int:
    """``b_ref = floor(q * train_fraction * |D| / N)`` (guide D13): 26 for MNIST/FMNIST, 22 for CIFAR-10."""
    return int(math.floor(q * train_fraction * dataset_size / num_clients))


def dithered_quantize(u, sigma_d: float, rng: np.random.Generator):
    """Subtractive dithered quantization with Gamma(3/2, 1) random half-widths (torch, stacked).

    Per coordinate ``G ~ Gamma(3/2, 1)``, step ``Delta = 2 sigma_D sqrt(2 G)``, dither ``U ~ U(-Delta/2,
    Delta/2)`` from a seed shared with the server; the client sends ``k = round((u + U)/Delta)``, the
    server reconstructs ``k Delta - U``. ``k Delta - U - u`` is uniform on ``(-Delta/2, Delta/2)`` given
    Delta, and the chi_3 mixture of such uniforms is exactly ``N(0, sigma_D^2)``.
    Returns ``(codes k (int64), steps Delta, dither U)``.
    """
    import torch

    if sigma_d <= 0:
        raise ValueError(f"sigma_d must be > 0, got {sigma_d}")
    shape = tuple(u.shape)
    g = torch.from_numpy(rng.gamma(1.5, 1.0, size=shape))
    step = 2 * sigma_d * torch.sqrt(2 * g)
    dither = (torch.from_numpy(rng.random(shape)) - 0.5) * step
    codes = torch.round((u.double() + dither) / step).to(torch.int64)
    return codes, step, dither


def dithered_reconstruct(codes, step, dither):
    """Server side of :func:`dithered_quantize`: ``k Delta - U``."""
    return codes.double() * step - dither


def dither_raw_bits(clip: float, step) -> "np.ndarray":
    """Raw bits per coordinate ``R_i = 1 + ceil(log2(C / Delta_i + 1))`` (sign + magnitude, guide §6.2)."""
    import torch

    return 1 + torch.ceil(torch.log2(clip / step + 1))
