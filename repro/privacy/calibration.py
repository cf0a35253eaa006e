"""Noise calibration for the Gaussian mechanism: classic, analytic, and RDP / moments accounting.

All functions validate their inputs and raise ``ValueError`` naming the bad value and what is
allowed: epsilon must be finite and > 0, delta in (0, 1), steps an integer >= 1, sampling rate q in
(0, 1], sensitivity and sigma > 0.

* ``gaussian_sigma_classic(eps, delta, sensitivity)``: sigma = sqrt(2 ln(1.25/delta)) * sensitivity / eps
  (Dwork & Roth 2014, Thm A.1). The theorem holds for 0 < eps < 1 only, and the formula is not
  (eps, delta)-DP for large eps (eps = 16, delta = 1e-5: 0.3028 where 0.3442 is needed), so any
  eps >= 1 is refused with an error pointing to the exact calibration below.
* ``gaussian_sigma_analytic`` / ``gaussian_epsilon_analytic``: the exact (optimal) calibration of
  Balle & Wang 2018 (Thm 8), computed by ``dp_accounting.get_sigma_gaussian`` / ``get_epsilon_gaussian``.
  Example: eps = 1, delta = 1e-5 gives sigma = 3.7306 (classic: 4.8448).
* ``rdp_epsilon(z, delta, steps, q)``: epsilon of ``steps`` compositions of the Poisson-subsampled
  Gaussian mechanism with noise multiplier z = sigma / sensitivity (q = 1: the plain Gaussian), from
  ``dp_accounting``'s ``RdpAccountant``. ``conversion="improved"`` (default; Balle et al. 2020 Prop. 12,
  the library's) or ``"classic"`` (the moments accountant's tail bound of Abadi et al. 2016:
  eps = min_alpha RDP(alpha) + ln(1/delta)/(alpha - 1)). Abadi et al.'s example q = 0.01, sigma = 4,
  T = 10,000, delta = 1e-5 gives 1.2586 classic ("1.26" in the paper) and 1.0355 improved.
* ``rdp_noise_multiplier(eps, delta, steps, q)``: the smallest z whose ``rdp_epsilon`` is <= eps
  (bisection on log z), so ``rdp_epsilon(rdp_noise_multiplier(e, ...), ...) <= e``.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

#: Orders used when none are given (dp-accounting's defaults: 1.1..10.9, 11..63, 128, 256, 512, 1024).
DEFAULT_ORDERS: tuple[float, ...] = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512, 1024])


# ---- validation ----------------------------------------------------------------------------------
def _check_epsilon(epsilon) -> float:
    e = float(epsilon)
    if not (e > 0 and math.isfinite(e)):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    return e


def _check_delta(delta) -> float:
    d = float(delta)
    if not 0 < d < 1:
        raise ValueError(f"delta must lie in the open interval (0, 1), got {delta!r}")
    return d


def _check_positive(name, value) -> float:
    v = float(value)
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def _check_steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps (number of compositions T) must be an integer >= 1, got {steps!r}")
    return int(steps)


def _check_rate(q) -> float:
    v = float(q)
    if not 0 < v <= 1:
        raise ValueError(f"sampling rate q must lie in (0, 1], got {q!r}")
    return v


# ---- single Gaussian mechanism ---------------------------------------------------------------------
#: the classic calibration is proven for epsilon in (0, CLASSIC_MAX_EPSILON) (Dwork & Roth 2014, Thm A.1)
CLASSIC_MAX_EPSILON = 1.0


def gaussian_sigma_classic(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Classic Gaussian mechanism: sigma = sqrt(2 ln(1.25/delta)) * sensitivity / epsilon, for 0 < eps < 1.

    Outside that range the formula carries no guarantee (and for large eps it is not private at all):
    ``ValueError`` naming the value, the valid range and the exact sigma of :func:`gaussian_sigma_analytic`.
    """
    e, d, s = _check_epsilon(epsilon), _check_delta(delta), _check_positive("sensitivity", sensitivity)
    sigma = math.sqrt(2.0 * math.log(1.25 / d)) * s / e
    if e >= CLASSIC_MAX_EPSILON:
        try:
            exact = f"; the exact calibration gaussian_sigma_analytic gives sigma = {gaussian_sigma_analytic(e, d, s):.4g}"
        except Exception:  # pragma: no cover - dp-accounting is a hard dependency
            exact = ""
        raise ValueError(
            f"gaussian_sigma_classic: epsilon = {epsilon!r} is outside the classic formula's validity 0 < epsilon < "
            f"{CLASSIC_MAX_EPSILON:g} (Dwork & Roth 2014, Thm A.1); it would give sigma = {sigma:.4g}, which is not "
            f"guaranteed (epsilon, delta)-DP{exact}. Use gaussian_sigma_analytic (exact for every epsilon)")
    return sigma


def gaussian_sigma_analytic(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP (Balle & Wang 2018)."""
    import dp_accounting

    e, d, s = _check_epsilon(epsilon), _check_delta(delta), _check_positive("sensitivity", sensitivity)
    return float(dp_accounting.get_sigma_gaussian(e, d)) * s


def gaussian_epsilon_analytic(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Exact epsilon of the Gaussian mechanism with noise std ``sigma`` at ``delta`` (Balle & Wang 2018)."""
    import dp_accounting

    sg, d, s = _check_positive("sigma", sigma), _check_delta(delta), _check_positive("sensitivity", sensitivity)
    return float(dp_accounting.get_epsilon_gaussian(sg / s, d))


def gaussian_delta_analytic(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """delta(eps) = Phi(D/(2 sigma) - eps sigma/D) - e^eps Phi(-D/(2 sigma) - eps sigma/D) (Balle & Wang, Thm 8)."""
    from scipy.special import ndtr  # standard normal CDF

    sg, s = _check_positive("sigma", sigma), _check_positive("sensitivity", sensitivity)
    e = float(epsilon)
    if not (e >= 0 and math.isfinite(e)):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    a, b = s / (2 * sg), e * sg / s
    return float(ndtr(a - b) - math.exp(e) * ndtr(-a - b))


# ---- RDP / moments accountant -----------------------------------------------------------------------
def rdp_curve(noise_multiplier: float, steps: int, sampling_rate: float = 1.0, orders: Sequence[float] | None = None):
    """(orders, RDP values) of ``steps`` compositions of the Poisson-subsampled Gaussian (dp-accounting)."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    z = _check_positive("noise_multiplier", noise_multiplier)
    t, q = _check_steps(steps), _check_rate(sampling_rate)
    orders = list(orders) if orders is not None else list(DEFAULT_ORDERS)
    event = dp_accounting.GaussianDpEvent(z)
    if q < 1:
        event = dp_accounting.PoissonSampledDpEvent(q, event)
    acc = rdp_privacy_accountant.RdpAccountant(orders=orders)
    acc.compose(event, t)
    return np.asarray(acc._orders, dtype=float), np.asarray(acc._rdp, dtype=float)  # the library's own curve


def rdp_epsilon(noise_multiplier: float, delta: float, steps: int, sampling_rate: float = 1.0,
                orders: Sequence[float] | None = None, conversion: str = "improved") -> float:
    """Epsilon at ``delta`` after ``steps`` compositions of the (Poisson-subsampled, rate q) Gaussian
    mechanism with noise multiplier z = sigma / sensitivity. ``conversion``: "improved" (dp-accounting's
    RDP -> (eps, delta) bound) or "classic" (Abadi et al. 2016's moments-accountant tail bound)."""
    from dp_accounting.rdp import rdp_privacy_accountant

    d = _check_delta(delta)
    if conversion not in ("improved", "classic"):
        raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
    o, rdp = rdp_curve(noise_multiplier, steps, sampling_rate, orders)
    if conversion == "improved":
        return float(rdp_privacy_accountant.compute_epsilon(o, rdp, d)[0])
    keep = o > 1
    return float(np.min(rdp[keep] + math.log(1.0 / d) / (o[keep] - 1.0)))


def rdp_noise_multiplier(epsilon: float, delta: float, steps: int, sampling_rate: float = 1.0,
                         orders: Sequence[float] | None = None, conversion: str = "improved", rtol: float = 1e-6) -> float:
    """Smallest noise multiplier z (to relative ``rtol``) with ``rdp_epsilon(z, ...) <= epsilon``."""
    e = _check_epsilon(epsilon)
    _check_delta(delta), _check_steps(steps), _check_rate(sampling_rate)

    def eps_of(z):
        return rdp_epsilon(z, delta, steps, sampling_rate, orders, conversion)

    from scipy.optimize import brentq

    lo, hi = 0.25, 1.0
    while eps_of(hi) > e:
        lo, hi = hi, hi * 4.0
        if hi > 1e7:
            raise ValueError(f"no noise multiplier below 1e7 reaches epsilon={epsilon} (delta={delta}, steps={steps})")
    while eps_of(lo) <= e:
        hi, lo = lo, lo / 4.0
        if lo < 1e-6:
            return hi
    z = math.exp(brentq(lambda u: eps_of(math.exp(u)) - e, math.log(lo), math.log(hi), xtol=rtol / 4))
    while eps_of(z) > e:  # land on the private side of the root
        z *= 1.0 + rtol / 4
    return z


def sigma_for_epsilon(epsilon: float, delta: float, sensitivity: float = 1.0, method: str = "analytic",
                      steps: int = 1, sampling_rate: float = 1.0) -> float:
    """Noise std for a target (epsilon, delta): ``method`` "classic" (single release, 0 < eps < 1 only),
    "analytic" (single release, Balle & Wang) or "rdp" (``steps`` compositions at sampling rate q, RDP accountant)."""
    s = _check_positive("sensitivity", sensitivity)
    if method == "classic":
        return gaussian_sigma_classic(epsilon, delta, s)
    if method == "analytic":
        return gaussian_sigma_analytic(epsilon, delta, s)
    if method == "rdp":
        return rdp_noise_multiplier(epsilon, delta, steps, sampling_rate) * s
    raise ValueError(f"unknown method {method!r}; allowed: classic, analytic, rdp")
