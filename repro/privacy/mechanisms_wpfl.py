"""Calibrations of the DP-mechanism baselines of wpfl_minmax (Fig. 2, Table III; wpfl_minmax README).

* :func:`gaussian_sigma_basic_composition` -- classic Gaussian mechanism [22] per upload with
  ``(eps/T0, delta/T0)`` each (basic composition): ``sigma = T0 sqrt(2 ln(1.25 T0/delta)) s / eps``.
  Guarantee: the classic bound (valid for per-upload eps <= 1), composed over T0 uploads.
* :func:`ma_noise_multiplier` -- moments accountant [21]: the smallest noise multiplier ``z`` such that
  the Poisson-subsampled (rate q) Gaussian mechanism composed T0 times is ``(eps, delta)``-DP, by the
  engine's root search (``repro.privacy.calibration``) on ``dp_accounting``'s RDP accountant (orders
  2..256), or (``conversion='classic'``) with Abadi et al.'s conversion ``eps = min_a [T0 RDP_a + ln(1/delta)/(a - 1)]``.
* :func:`dithered_quantize` -- subtractive dithered quantization with random Gamma-distributed steps
  [30]: the reconstruction error is exactly ``N(0, sigma_D^2)``.

Sensitivity (README of wpfl_minmax, decisions): the Gaussian and MA calibrations take ``s = 2C / b_ref``
(a per-sample sensitivity of a mean over a batch of ``b_ref`` samples); what is released is a clipped
*model*, whose L2 sensitivity is ``2C``: ``repro.privacy.certify`` reports both.
"""

from __future__ import annotations

import functools
import math

import numpy as np

MA_ORDERS = tuple(range(2, 257))
MA_CONVERSIONS = {"rdp": "improved", "classic": "classic"}  # params name -> repro.privacy.calibration name


def gaussian_sigma_basic_composition(epsilon: float, delta: float, uploads: int, sensitivity: float) -> float:
    """Classic Gaussian mechanism over ``uploads`` = T0 releases by basic composition (wpfl_minmax README, privacy)."""
    if epsilon <= 0 or not 0 < delta < 1 or uploads < 1 or sensitivity <= 0:
        raise ValueError(f"need eps > 0, 0 < delta < 1, uploads >= 1, sensitivity > 0; got {epsilon}, {delta}, {uploads}, {sensitivity}")
    return uploads * math.sqrt(2 * math.log(1.25 * uploads / delta)) * sensitivity / epsilon


def _conversion(conversion: str) -> str:
    if conversion not in MA_CONVERSIONS:
        raise ValueError(f"conversion {conversion!r} not in {tuple(MA_CONVERSIONS)}")
    return MA_CONVERSIONS[conversion]


def ma_epsilon(z: float, q: float, steps: int, delta: float, conversion: str = "rdp") -> float:
    """epsilon of the sampled Gaussian mechanism (noise multiplier z, rate q) after ``steps`` compositions
    (dp-accounting RDP, orders 2..256; ``classic`` = Abadi et al.'s conversion)."""
    from repro.privacy.calibration import rdp_epsilon

    return rdp_epsilon(z, delta, steps, q, orders=MA_ORDERS, conversion=_conversion(conversion))


@functools.lru_cache(maxsize=256)
def ma_noise_multiplier(epsilon: float, delta: float, steps: int, q: float = 0.01, conversion: str = "rdp",
                        rtol: float = 1e-5) -> float:
    """Smallest ``z`` (to relative ``rtol``) with ``ma_epsilon(z) <= epsilon``: the engine's
    :func:`repro.privacy.calibration.rdp_noise_multiplier` with this paper's orders; cached per process
    (Fig. 2 needs it for MA and Dithering at every T0)."""
    from repro.privacy.calibration import rdp_noise_multiplier

    return rdp_noise_multiplier(epsilon, delta, steps, q, orders=MA_ORDERS, conversion=_conversion(conversion), rtol=rtol)


def reference_batch_size(q: float, train_fraction: float, dataset_size: int, num_clients: int) -> int:
    """``b_ref = floor(q * train_fraction * |D| / N)`` (wpfl_minmax README, privacy): 26 for MNIST/FMNIST, 22 for CIFAR-10."""
    return int(math.floor(q * train_fraction * dataset_size / num_clients))


def dithered_quantize(u, sigma_d: float, generator):
    """Subtractive dithered quantization with random steps (torch, stacked; ``generator`` a torch.Generator).

    Per coordinate the half-step is ``sigma_D chi_3`` (``G = chi_3^2 / 2 ~ Gamma(3/2, 1)``, step
    ``Delta = 2 sigma_D sqrt(2 G) = 2 sigma_D chi_3``), dither ``U ~ U(-Delta/2, Delta/2)``, both from a
    seed shared with the server; the client sends ``k = round((u + U)/Delta)``, the server reconstructs
    ``k Delta - U``. ``k Delta - U - u`` is uniform on ``(-Delta/2, Delta/2)`` given Delta, and the chi_3
    scale mixture of such uniforms is exactly ``N(0, sigma_D^2)``.
    Returns ``(codes k (int64), steps Delta, dither U)`` (float64).
    """
    import torch

    if sigma_d <= 0:
        raise ValueError(f"sigma_d must be > 0, got {sigma_d}")
    shape = tuple(u.shape)
    # drawn on the generator's device (the CPU), then moved: the same seed gives the same numbers on any device
    chi3 = torch.randn((3, *shape), generator=generator, dtype=torch.float64).square_().sum(0).sqrt_().to(u.device)
    step = 2 * sigma_d * chi3
    dither = (torch.rand(shape, generator=generator, dtype=torch.float64).to(u.device) - 0.5) * step
    codes = torch.round((u.double() + dither) / step).to(torch.int64)
    return codes, step, dither


def dithered_reconstruct(codes, step, dither):
    """Server side of :func:`dithered_quantize`: ``k Delta - U``."""
    return codes.double() * step - dither


def dither_raw_bits(clip: float, step) -> "np.ndarray":
    """Raw bits per coordinate ``R_i = 1 + ceil(log2(C / Delta_i + 1))`` (sign + magnitude)."""
    import torch

    return 1 + torch.ceil(torch.log2(clip / step + 1))
