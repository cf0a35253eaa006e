"""Age-dependent differential privacy for Markov-evolving data (Zhang, Wei, Berry, Huang, IEEE T-IT 2024).

A release that is classically ``eps_c``-DP on data collected ``t`` steps ago is only
``eps(t) = ln[1 + Delta(t) (e^{eps_c} - 1)]``-DP with respect to the current data, where ``Delta(t)``
is the largest total-variation distance between two rows of the ``t``-step *reverse* kernel of the
data's Markov chain (their Th. 1; Prop. 1 of Lin et al., ISIT 2024). Aging therefore buys privacy for
free, and a client holding data of age ``t`` may use a larger classical budget for the same target.

Functions (all vectorised over numpy arrays):

- :func:`second_largest_eigenvalue_modulus` -- the SLEM ``gamma`` of a transition matrix.
- :func:`delta_tv_bound`   -- ``Delta(t) <= min{1, max_z sqrt((1 - pi(z)) / pi(z)) * gamma^t}`` (their Prop. 5).
- :func:`delta_tv_exact`   -- ``Delta(t)`` computed from the reverse kernel itself.
- :func:`age_dependent_epsilon` -- ``eps(t, eps_c)`` of Prop. 1.
- :func:`classic_epsilon_for_age_target` -- the inverse: the largest ``eps_c`` whose age-dependent
  privacy is exactly ``eps_target`` (eq. (5) of Lin et al.).

Guarantee: ``age_dependent_epsilon(d, classic_epsilon_for_age_target(d, e)) == e`` up to rounding,
and ``classic_epsilon_for_age_target(d, e) >= e`` for every ``0 < d <= 1``.
"""

from __future__ import annotations

import numpy as np


def _as_transition_matrix(P) -> np.ndarray:
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1]:
        raise ValueError(f"transition matrix must be square, got shape {P.shape}")
    if np.any(P < -1e-12) or not np.allclose(P.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError("transition matrix must have non-negative rows summing to 1")
    return P


def _as_distribution(pi, size: int, what: str = "stationary law") -> np.ndarray:
    pi = np.asarray(pi, dtype=float)
    if pi.shape != (size,) or np.any(pi < 0) or not np.isclose(pi.sum(), 1.0, atol=1e-9):
        raise ValueError(f"{what} must be a probability vector of length {size}, got {pi!r}")
    return pi


def _as_ages(ages) -> np.ndarray:
    ages = np.asarray(ages)
    if not np.issubdtype(ages.dtype, np.integer) or np.any(ages < 0):
        raise ValueError(f"ages must be non-negative integers, got {ages!r}")
    return ages


def second_largest_eigenvalue_modulus(P) -> float:
    """SLEM of ``P``: the second largest modulus among its eigenvalues (1 is the largest)."""
    P = _as_transition_matrix(P)
    moduli = np.sort(np.abs(np.linalg.eigvals(P)))[::-1]
    return float(moduli[1])


def stationary_distribution(P) -> np.ndarray:
    """The stationary law ``pi = pi P`` (left eigenvector for eigenvalue 1, normalised)."""
    P = _as_transition_matrix(P)
    w, v = np.linalg.eig(P.T)
    vec = np.real(v[:, np.argmin(np.abs(w - 1.0))])
    return vec / vec.sum()


def delta_tv_bound(gamma: float, ages, stationary) -> np.ndarray:
    """Mixing bound on ``Delta(t)``: ``min{1, max_z sqrt((1-pi(z))/pi(z)) * gamma^t}`` (ref. [11], Prop. 5).

    ``gamma`` is the SLEM of the chain, ``stationary`` its stationary law (must be positive: a
    zero entry makes the prefactor infinite, i.e. ``Delta = 1``).
    """
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma (SLEM) must lie in [0, 1], got {gamma}")
    pi = np.asarray(stationary, dtype=float)
    ages = _as_ages(ages)
    if np.any(pi <= 0):
        return np.ones(ages.shape)
    prefactor = float(np.max(np.sqrt((1.0 - pi) / pi)))
    return np.minimum(1.0, prefactor * gamma ** ages.astype(float))


def delta_tv_exact(P, ages, stationary) -> np.ndarray:
    """``Delta(t) = max_{x,x'} d_TV(Phat_t(x,.), Phat_t(x',.))`` with the reverse kernel
    ``Phat_t(x, y) = pi(y) P^t(y, x) / pi(x)`` (ref. [11], Th. 1); ``d_TV`` is half the l1 distance."""
    P = _as_transition_matrix(P)
    pi = _as_distribution(stationary, P.shape[0])
    if np.any(pi <= 0):
        raise ValueError("the reverse kernel needs a stationary law with positive entries")
    ages = _as_ages(ages)
    out = np.empty(ages.shape)
    for idx, t in np.ndenumerate(ages):
        Pt = np.linalg.matrix_power(P, int(t))
        reverse = pi[None, :] * Pt.T / pi[:, None]
        tv = 0.5 * np.abs(reverse[:, None, :] - reverse[None, :, :]).sum(axis=-1)
        out[idx] = tv.max()
    return out


def age_dependent_epsilon(delta, epsilon_classic):
    """Prop. 1: ``eps(t, eps_c) = ln[1 + Delta(t) (e^{eps_c} - 1)]`` (vectorised)."""
    delta = np.asarray(delta, dtype=float)
    eps_c = np.asarray(epsilon_classic, dtype=float)
    if np.any((delta < 0) | (delta > 1)):
        raise ValueError(f"Delta must lie in [0, 1], got {delta!r}")
    if np.any(eps_c < 0):
        raise ValueError(f"classic epsilon must be >= 0, got {eps_c!r}")
    return np.log1p(delta * np.expm1(eps_c))


def classic_epsilon_for_age_target(delta, epsilon_target):
    """Eq. (5): ``eps_c = ln((e^{eps_target} - 1) / Delta + 1)``, so that ``eps(t, eps_c) = eps_target``.

    Needs ``0 < Delta <= 1`` and ``eps_target > 0``; the result is ``>= eps_target`` with equality iff
    ``Delta = 1``.
    """
    delta = np.asarray(delta, dtype=float)
    eps = np.asarray(epsilon_target, dtype=float)
    if np.any((delta <= 0) | (delta > 1)):
        raise ValueError(f"Delta must lie in (0, 1], got {delta!r}")
    if np.any(eps <= 0):
        raise ValueError(f"target epsilon must be > 0, got {eps!r}")
    return np.log1p(np.expm1(eps) / delta)
