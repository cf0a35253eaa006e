"""Aggregation weights: ACFL's practical adaptive policy (eqs. 42-43) and fixed weights (NA, SCFL).

Eq. (43) is eq. (36) with beta -> beta_hat and C -> C_hat, multiplied through by (1-p)/N:

    alpha_t = p beta_hat^2 / (p beta_hat^2 + (1-p)(d sigma1^2 C_hat^2 + sigma2^2 o d)),

with C_hat^2 = ||W_t||_F^2 and beta_hat^2 the mean squared norm of the gradients received in this
iteration (eq. 42, D16). It always lies in [0, 1]. If no device reports (probability p^N) the weight
is 1 (D15), and 1 also when the denominator vanishes.
"""

from __future__ import annotations

import numpy as np

NA_ALPHA = 0.5  # fixed weight of NA and SCFL "as suggested by [24]"


def estimate_beta2(received_sq_norm_sum, n_received):
    """beta_hat^2 of eq. (42): sum_i ||G^(i)||^2 I^(i) / sum_i I^(i); NaN where nothing arrived."""
    n = np.asarray(n_received, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.asarray(received_sq_norm_sum, float) / np.where(n > 0, n, 1.0), np.nan)


def adaptive_weight(beta2_hat, C2_hat, p, d: int, o: int, sigma1_sq, sigma2_sq):
    """alpha_t of eq. (43); arrays broadcast. NaN beta_hat^2 (no device reported) gives 1."""
    b = np.asarray(beta2_hat, float)
    num = p * b
    den = num + (1 - np.asarray(p, float)) * (d * np.asarray(sigma1_sq, float) * C2_hat + np.asarray(sigma2_sq, float) * o * d)
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = np.where(np.isfinite(b) & (den > 0), num / np.where(den > 0, den, 1.0), 1.0)
    return np.clip(alpha, 0.0, 1.0)
