"""Closed forms of ACFL's learning analysis: Lemma 2, Theorems 2-3, Remark 1, and Fig. 1.

All functions are NumPy-vectorised (arguments broadcast) and use the paper's symbols:
N devices, d features, o outputs, straggler probability p, gradient bound beta (A2, eq. 14),
model-norm bound C (A3, eq. 15; printed "c" in Section IV-C), noise variances sigma1^2 (on X^T X)
and sigma2^2 (on X^T Y), aggregation weight alpha in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BoundConstants:
    """Constants of the bound u (eq. 34). Defaults: the Fig. 1 setting (text under Remark 4)."""

    N: int = 5
    d: int = 100
    o: int = 10
    p: float = 0.1
    beta: float = 10.0
    C: float = 1.0

    def __post_init__(self):
        if not 0.0 <= self.p < 1.0:
            raise ValueError(f"straggler probability p must be in [0, 1), got {self.p!r}")
        for name in ("N", "d", "o", "beta", "C"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")


def fig1_constants(params: dict) -> BoundConstants:
    """The Fig. 1 constants (text under Remark 4) from the paper's parameters ``fig1_*``."""
    return BoundConstants(N=params["fig1_N"], d=params["fig1_d"], o=params["fig1_o"], p=params["fig1_p"],
                          beta=params["fig1_beta"], C=params["fig1_C"])


def _check_alpha(alpha) -> np.ndarray:
    a = np.asarray(alpha, dtype=float)
    if np.any((a < 0) | (a > 1)):
        raise ValueError(f"aggregation weight alpha must lie in [0, 1], got {alpha!r}")
    return a


def _out(x):
    x = np.asarray(x)
    return x if x.ndim else float(x)


def straggler_factor(alpha, p):
    """c_alpha = alpha^2 p + (1-p)(alpha + (1-alpha)/(1-p))^2 = 1 + p(1-alpha)^2/(1-p) (bracket of eq. 27)."""
    a = _check_alpha(alpha)
    return _out(a**2 * p + (1 - p) * (a + (1 - a) / (1 - p)) ** 2)


def lemma2_second_moment_bound(alpha, p, N, beta2, d, o, sigma1_sq, sigma2_sq, C2):
    """Right-hand side of Lemma 2 (eq. 27), an upper bound on E||G^All_t||_F^2."""
    a = _check_alpha(alpha)
    c_alpha = straggler_factor(a, p)
    return _out((c_alpha + N - 1) * N * beta2 + a**2 * N * d * sigma1_sq * C2 + a**2 * N * sigma2_sq * o * d)


def exact_second_moment(true_grad_sq, device_grad_sq_sum, w_sq, alpha, p, N, d, o, sigma1_sq, sigma2_sq):
    """E||G^All||^2 for fresh noise and stragglers at a fixed W (README):
    ||G^True||^2 + p(1-alpha)^2/(1-p) * S + alpha^2 N (d sigma1^2 ||W||^2 + sigma2^2 o d),
    with S = sum_i ||G^(i)||^2."""
    a = _check_alpha(alpha)
    return _out(true_grad_sq + p * (1 - a) ** 2 / (1 - p) * device_grad_sq_sum
                + a**2 * N * (d * sigma1_sq * w_sq + sigma2_sq * o * d))


def bound_u(sigma1_sq, sigma2_sq, alpha, k: BoundConstants = BoundConstants()):
    """u(sigma1^2, sigma2^2, alpha) of Theorem 2 (eq. 34), the numerator of the O(1/T) bound."""
    a = _check_alpha(alpha)
    return _out((straggler_factor(a, k.p) + k.N - 1) * k.N * k.beta**2
                + a**2 * k.N * k.d * sigma1_sq * k.C**2 + a**2 * k.N * sigma2_sq * k.o * k.d)


def _straggler_weight(k: BoundConstants) -> float:
    return k.p * k.N * k.beta**2 / (1 - k.p)  # p N beta^2 / (1 - p)


def alpha_star(sigma1_sq, sigma2_sq, k: BoundConstants = BoundConstants()):
    """Optimal weight of Theorem 3 (eq. 36 = 41): the minimiser of u over [0, 1]; < 1 when sigma^2 > 0."""
    s = _straggler_weight(k)
    noise = k.N * k.d * np.asarray(sigma1_sq, float) * k.C**2 + k.N * np.asarray(sigma2_sq, float) * k.o * k.d
    return _out(s / (s + noise))


def u_tilde(sigma1_sq, sigma2_sq, k: BoundConstants = BoundConstants()):
    """Optimal bound numerator (eq. 38): -(pNb^2/(1-p))^2 / (pNb^2/(1-p) + NdC^2 s1 + N s2 o d)
    + N b^2/(1-p) + N b^2 (N-1). Equals u(alpha*) and increases in both variances (Remark 4)."""
    s = _straggler_weight(k)
    noise = k.N * k.d * np.asarray(sigma1_sq, float) * k.C**2 + k.N * np.asarray(sigma2_sq, float) * k.o * k.d
    return _out(-(s**2) / (s + noise) + k.N * k.beta**2 / (1 - k.p) + k.N * k.beta**2 * (k.N - 1))


def convergence_bound(u, lam: float, T: int):
    """Theorem 2 (eq. 33) with the sup already taken: E||W_T - W*||^2 <= 4u / (lambda^2 T)."""
    if lam <= 0 or T <= 0:
        raise ValueError(f"lambda and T must be > 0, got lambda={lam!r}, T={T!r}")
    return _out(4.0 * np.asarray(u, float) / (lam**2 * T))


def touch_sigma2(alpha, k: BoundConstants = BoundConstants()):
    """sigma^2 (with sigma1^2 = sigma2^2) at which alpha*(sigma^2) equals a fixed ``alpha`` in (0, 1],
    i.e. where the fixed-weight bound touches the adaptive one ."""
    a = np.asarray(alpha, float)
    if np.any((a <= 0) | (a > 1)):
        raise ValueError(f"alpha must lie in (0, 1], got {alpha!r}")
    return _out(_straggler_weight(k) * (1 / a - 1) / (k.N * (k.d * k.C**2 + k.o * k.d)))


# Remark 1, eqs. (11)-(13): communication overhead in bits, phi bits per real number.
def stage1_upload_bits(phi: int, d: int, o: int, N: int) -> int:
    """psi_1 = phi (d^2 + o d) N (eq. 12): the one-shot coded upload of all devices."""
    return int(phi) * (int(d) ** 2 + int(o) * int(d)) * int(N)


def training_upload_bits(phi: int, d: int, o: int, N: int, T: int) -> int:
    """psi_2 = phi T o d N (eq. 13), as printed (every device counted in every iteration)."""
    return int(phi) * int(T) * int(o) * int(d) * int(N)


def expected_training_upload_bits(phi: int, d: int, o: int, N: int, T: int, p: float) -> float:
    """The straggler-aware variant of eq. (13): only (1-p)N devices upload on average (decision D18)."""
    return float(phi * T * o * d * N * (1 - p))
