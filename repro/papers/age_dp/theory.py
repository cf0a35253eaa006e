"""Closed forms of Lin et al., *Age Aware Scheduling for DP-FL* (ISIT 2024) on the toy model.

Everything here is exact (no sampling):

- :class:`AgeTables` -- per (client, age) tables computed from the pair laws ``J_{i,a}``: the bias
  ``e_i(a)`` and variance ``sigma_i^2(a)`` of one record's drift (G1), the mutual information ``I_i(a)``
  of eq. (10), the collected / target means and variances (G2), and ``Delta_i(a)`` of eq. (8).
- :func:`loss_difference` -- (G1), the exact ``E[L(W~, D^(t_agg)) - L(w*, D^(t_agg))]`` of (3a).
- :func:`fse_inverse` -- ``f~_SE`` after eq. (9) (standard infimum form, or the printed erratum).
- :func:`upper_bound` -- (G2), the Theorem-1 surrogate of eqs. (9)-(12) that the protocol minimises.
- :func:`classic_epsilons` -- per-client classical budgets for the three noise modes of §IV-B.

Shapes: a batch of schedules is an integer array ``ages[S, m]``; per-client budgets ``eps_c[S, m]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repro.papers.age_dp.markov_database import MarkovEnergyDatabase
from repro.privacy.age_dependent import (
    classic_epsilon_for_age_target,
    delta_tv_bound,
    delta_tv_exact,
    second_largest_eigenvalue_modulus,
    stationary_distribution,
)
from repro.privacy.laplace_mechanism import laplace_scale

DELTA_MODES = ("bound", "exact")
FSE_FORMS = ("standard", "printed")
SUB_EXP_PARAMS = ("paper", "laplace")
EQ11_NOISE_COEFS = ("1/m", "1/m^2")
NOISE_MODES = ("adaptive", "constant", "classic")


def _xlogy_ratio(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``p ln(p/q)`` with ``0 ln 0 = 0``."""
    out = np.zeros_like(p)
    pos = p > 0
    out[pos] = p[pos] * np.log(p[pos] / q[pos])
    return out


@dataclass(frozen=True)
class AgeTables:
    """Per-client, per-age quantities, all arrays ``[m, T]`` (T = t_agg, ages 0..T-1)."""

    bias: np.ndarray            # e_i(a) = E[v(Z^c) - v(Z^t)]              (G1)
    drift_var: np.ndarray       # sigma_i^2(a) = Var[v(Z^c) - v(Z^t)]      (G1)
    mutual_info: np.ndarray     # I_i(a) = I(Z^c; Z^t) in nats             (10)
    mean_c: np.ndarray          # mean of v under the collected law        (G2)
    var_c: np.ndarray
    mean_t: np.ndarray          # mean of v under the target law           (G2)
    var_t: np.ndarray
    delta: np.ndarray           # Delta_i(a)                               (8)
    slem: np.ndarray            # gamma_i, [m]

    @property
    def num_clients(self) -> int:
        return self.bias.shape[0]

    @property
    def t_agg(self) -> int:
        return self.bias.shape[1]


def age_tables(db: MarkovEnergyDatabase, delta_mode: str = "bound") -> AgeTables:
    """Compute :class:`AgeTables` from the pair laws of ``db``."""
    if delta_mode not in DELTA_MODES:
        raise ValueError(f"unknown delta_mode {delta_mode!r}; allowed: {', '.join(DELTA_MODES)}")
    v = db.value_array
    J = db.pair_laws()                                   # [m, T, K, K]
    law_c = J.sum(axis=-1)
    law_t = J.sum(axis=-2)
    diff = v[:, None] - v[None, :]                       # v_x - v_y
    bias = (J * diff).sum(axis=(-2, -1))
    second = (J * diff**2).sum(axis=(-2, -1))
    product = law_c[..., :, None] * law_t[..., None, :]
    mi = _xlogy_ratio(J, np.where(product > 0, product, 1.0)).sum(axis=(-2, -1))
    mean_c, mean_t = law_c @ v, law_t @ v
    var_c, var_t = law_c @ v**2 - mean_c**2, law_t @ v**2 - mean_t**2
    P = db.transition_matrices()
    ages = np.arange(db.t_agg)
    slem = np.array([second_largest_eigenvalue_modulus(Pi) for Pi in P])
    stationaries = [stationary_distribution(Pi) for Pi in P]
    if delta_mode == "bound":
        delta = np.stack([delta_tv_bound(g, ages, pi) for g, pi in zip(slem, stationaries)])
    else:
        delta = np.stack([delta_tv_exact(Pi, ages, pi) for Pi, pi in zip(P, stationaries)])
    return AgeTables(bias=bias, drift_var=np.maximum(second - bias**2, 0.0), mutual_info=mi,
                     mean_c=mean_c, var_c=np.maximum(var_c, 0.0), mean_t=mean_t, var_t=np.maximum(var_t, 0.0),
                     delta=delta, slem=slem)


def at_ages(table: np.ndarray, ages: np.ndarray) -> np.ndarray:
    """``table[i, ages[s, i]]`` as ``[S, m]``."""
    ages = np.asarray(ages)
    if ages.ndim != 2 or ages.shape[1] != table.shape[0]:
        raise ValueError(f"ages must have shape [S, {table.shape[0]}], got {ages.shape}")
    if np.any(ages < 0) or np.any(ages >= table.shape[1]):
        raise ValueError(f"ages must lie in [0, {table.shape[1] - 1}]")
    return table[np.arange(table.shape[0])[None, :], ages]


# ---------------------------------------------------------------------------------------------
# privacy budgets of the noise modes (§IV-B)


def classic_epsilons(tables: AgeTables, ages: np.ndarray, eps_bar: float, mode: str) -> np.ndarray:
    """Per-client classical budgets ``eps_c[S, m]`` meeting the age-dependent target ``eps_bar``.

    ``adaptive``: eq. (5) per client; ``constant``: the least of those for every client (the worst
    client meets ``eps_bar`` with equality); ``classic``: ``eps_bar`` for everyone (ages ignored).
    """
    if mode not in NOISE_MODES:
        raise ValueError(f"unknown noise mode {mode!r}; allowed: {', '.join(NOISE_MODES)}")
    delta = at_ages(tables.delta, ages)
    if mode == "classic":
        return np.full(delta.shape, float(eps_bar))
    adaptive = classic_epsilon_for_age_target(delta, eps_bar)   # (5)
    if mode == "adaptive":
        return adaptive
    return np.repeat(adaptive.min(axis=1, keepdims=True), adaptive.shape[1], axis=1)


# ---------------------------------------------------------------------------------------------
# (G1): exact loss difference


def loss_difference(tables: AgeTables, ages: np.ndarray, eps_c: np.ndarray, n: int, sensitivity: float) -> np.ndarray:
    """(G1) ``LD = (1/m^2) [(sum_i e_i)^2 + (1/n) sum_i sigma_i^2 + sum_i 2 eta_i^2]``, ``eta_i = s/eps_c,i``.

    Exact expectation of ``L(W~, D^(t_agg)) - L(w*, D^(t_agg))`` for the squared loss with ``p_i = 1/m``
    (objective (3a)); returns ``[S]``.
    """
    laplace_scale(sensitivity, eps_c)  # validates both
    data, noise_per_s2 = loss_difference_parts(tables, ages, eps_c, n)
    return data + float(sensitivity) ** 2 * noise_per_s2


def loss_difference_parts(tables: AgeTables, ages: np.ndarray, eps_c: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(G1) split by its dependence on the sensitivity s: ``LD = data + s^2 * noise_per_s2``, with
    ``data = [(sum_i e_i)^2 + (1/n) sum_i sigma_i^2] / m^2`` and ``noise_per_s2 = sum_i 2 / eps_c,i^2 / m^2``."""
    m = tables.num_clients
    e = at_ages(tables.bias, ages)
    var = at_ages(tables.drift_var, ages)
    eps_c = np.asarray(eps_c, dtype=float)
    return (e.sum(axis=1) ** 2 + var.sum(axis=1) / n) / m**2, (2.0 / eps_c**2).sum(axis=1) / m**2


# ---------------------------------------------------------------------------------------------
# (G2): the Theorem-1 surrogate


def sub_exponential_parameters(eta: np.ndarray, form: str = "paper") -> tuple[np.ndarray, np.ndarray]:
    """(nu, alpha) of the loss's SE law: the paper's ``nu = alpha = 2 eta^2`` (§IV-B) or Laplace's ``(2 eta, 2 eta)``."""
    if form not in SUB_EXP_PARAMS:
        raise ValueError(f"unknown sub_exp_params {form!r}; allowed: {', '.join(SUB_EXP_PARAMS)}")
    base = 2.0 * eta**2 if form == "paper" else 2.0 * eta
    return base, base


def fse_inverse(info, nu, alpha, form: str = "standard"):
    """``f~_SE(I)`` after eq. (9), the inverse Legendre transform of ``psi(l) = l^2 nu^2 / 2`` on [0, 1/alpha].

    ``standard``: ``nu sqrt(2 I)`` if ``I <= nu^2/(2 alpha^2)`` else ``alpha I + nu^2/(2 alpha)`` (continuous);
    ``printed``: the paper's ``sqrt(4 nu I)`` / ``nu^2/(2 alpha^2) + alpha I`` (README: the f~_SE erratum).
    """
    if form not in FSE_FORMS:
        raise ValueError(f"unknown fse_form {form!r}; allowed: {', '.join(FSE_FORMS)}")
    info, nu, alpha = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (info, nu, alpha)))
    if np.any(info < 0):
        raise ValueError("mutual information must be >= 0")
    threshold = nu**2 / (2.0 * alpha**2)
    if form == "standard":
        low, high = nu * np.sqrt(2.0 * info), alpha * info + nu**2 / (2.0 * alpha)
    else:
        low, high = np.sqrt(4.0 * nu * info), threshold + alpha * info
    return np.where(info <= threshold, low, high)


def upper_bound(tables: AgeTables, ages: np.ndarray, eps_c: np.ndarray, n: int, sensitivity: float, *,
                fse_form: str = "standard", sub_exp_params: str = "paper", eq11_noise_coef: str = "1/m",
                literal_eq12: bool = False) -> np.ndarray:
    """(G2) ``UB = sum_i p_i f~(I_i) + Var(w*) + Var(W) + (E W - mu)^2 + c sum_i 2 eta_i^2``, ``[S]``.

    ``c = 1/m`` as printed in (11)-(12) (``eq11_noise_coef = "1/m^2"`` for the true coefficient);
    ``literal_eq12`` adds the spurious ``C + Var(w*)`` of the printed "+L(w*)" term (README).
    With ``p_i = 1/m``.
    """
    if eq11_noise_coef not in EQ11_NOISE_COEFS:
        raise ValueError(f"unknown eq11_noise_coef {eq11_noise_coef!r}; allowed: {', '.join(EQ11_NOISE_COEFS)}")
    m = tables.num_clients
    p = 1.0 / m
    eta = laplace_scale(sensitivity, eps_c)
    nu, alpha = sub_exponential_parameters(eta, sub_exp_params)
    info = at_ages(tables.mutual_info, ages)
    generalisation = p * fse_inverse(info, nu, alpha, fse_form).sum(axis=1)              # (9), (10)
    var_t, mean_t = at_ages(tables.var_t, ages), at_ages(tables.mean_t, ages)
    var_star = (p**2 * var_t / n).sum(axis=1)
    var_w = (at_ages(tables.var_c, ages) / n).sum(axis=1) / m**2
    bias_sq = (p * at_ages(tables.bias, ages).sum(axis=1)) ** 2
    coef = 1.0 / m if eq11_noise_coef == "1/m" else 1.0 / m**2
    noise = coef * (2.0 * eta**2).sum(axis=1)                                              # (11)
    ub = generalisation + var_star + var_w + bias_sq + noise                               # (12), corrected
    if literal_eq12:
        mu = (p * mean_t).sum(axis=1, keepdims=True)
        const = (p * (var_t + (mean_t - mu) ** 2)).sum(axis=1)
        ub = ub + const + var_star
    return ub
