"""Age-aware schedule search (§III-B) and the six schemes of §IV-B.

A schedule is a tuple of ages ``(a_1..a_m)``, ``a_i = t_agg - t_c,i``. The search is exhaustive over
all ``t_agg^m`` schedules (or the ``t_agg!/(t_agg-m)!`` with distinct slots), vectorised: the
objective is evaluated on the whole ``[S, m]`` schedule array at once. Ties go to the first schedule
in lexicographic age order (numpy ``argmin``).

Schemes (legend of Fig. 3, paper numbering):

====  ==============================  ====================  =====================================
 #    legend                          schedule              per-client classical budget
====  ==============================  ====================  =====================================
 1    random scheduling constant      uniform random        eps_bar (classic DP) or worst client
 2    random scheduling adaptive      uniform random        eq. (5)
 3    numerical opt constant noise    argmin (G2)           min_i eq. (5) for every client
 4    numerical opt adaptive noise    argmin (G2)           eq. (5)  -- the proposed protocol
 5    simulation opt constant noise   argmin (G1)           as 3
 6    simulation opt adaptive noise   argmin (G1)           as 4
====  ==============================  ====================  =====================================

Random schemes are reported by their exact expectation: the mean over all schedules.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from repro.papers.age_dp import theory as th

SCHEMES = ("rc", "ra", "nc", "sc", "na", "sa")  # plotting order of the paper's legend
SCHEME_LEGENDS = {
    "rc": "random scheduling constant noise",
    "ra": "random scheduling adaptive noise",
    "nc": "numerical opt constant noise",
    "sc": "simulation opt constant noise",
    "na": "numerical opt adaptive noise",
    "sa": "simulation opt adaptive noise",
}
SCHEME_NUMBERS = {"rc": 1, "ra": 2, "nc": 3, "na": 4, "sc": 5, "sa": 6}
RANDOM_CONSTANT_MODES = ("classic", "worst")


def all_schedules(t_agg: int, m: int, distinct: bool = False) -> np.ndarray:
    """Every age tuple in lexicographic order, ``[t_agg^m, m]`` (or only tuples with distinct slots)."""
    if t_agg < 1 or m < 1:
        raise ValueError(f"need t_agg >= 1 and m >= 1, got t_agg={t_agg}, m={m}")
    if distinct and m > t_agg:
        raise ValueError(f"{m} clients cannot use distinct slots among {t_agg}")
    grid = np.array(list(itertools.product(range(t_agg), repeat=m)), dtype=int)
    if distinct:
        grid = grid[np.array([len(set(row)) == m for row in grid])]
    return grid


def exhaustive_schedule_search(objective_values: np.ndarray) -> int:
    """Index of the best schedule: argmin over the evaluated objective (first one on ties)."""
    values = np.asarray(objective_values, dtype=float)
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise ValueError("objective values must be a non-empty finite 1-d array")
    return int(np.argmin(values))


def uniform_random_schedules(t_agg: int, m: int, size: int, rng: np.random.Generator, distinct: bool = False) -> np.ndarray:
    """``size`` schedules (ages) drawn uniformly from the schedule set, ``[size, m]``."""
    if distinct:
        schedules = all_schedules(t_agg, m, distinct=True)
        return schedules[rng.integers(0, len(schedules), size=size)]
    return rng.integers(0, t_agg, size=(size, m))


@dataclass(frozen=True)
class SurrogateOptions:
    """Flags of the Theorem-1 surrogate (G2) (README: decisions)."""

    fse_form: str = "standard"
    sub_exp_params: str = "paper"
    eq11_noise_coef: str = "1/m"
    literal_eq12: bool = False

    def kwargs(self) -> dict:
        return dict(fse_form=self.fse_form, sub_exp_params=self.sub_exp_params,
                    eq11_noise_coef=self.eq11_noise_coef, literal_eq12=self.literal_eq12)


def mean_inverse_epsilon(eps_c: np.ndarray) -> np.ndarray:
    """``1/eps_c`` with ``eps_c = (1/m) sum_i eps_c,i`` (Fig. 3(b)), per schedule."""
    return 1.0 / eps_c.mean(axis=1)


def scheme_curves(tables: th.AgeTables, eps_grid, n: int, sensitivity: float, schedules: np.ndarray,
                  surrogate: SurrogateOptions = SurrogateOptions(), random_constant: str = "classic") -> dict:
    """The six curves of Fig. 3 on ``eps_grid`` (exact (G1) values), vectorised over schedules.

    Returns a dict with, per scheme key of :data:`SCHEMES`, arrays over ``eps_grid``:
    ``loss`` (G1 of the chosen schedule, or the mean over schedules for random schemes),
    ``inv_eps`` (Fig. 3(b)), ``ages`` ``[E, m]`` of the chosen schedule (-1 for random schemes) and,
    for the numerical-opt schemes, ``bound`` (G2 at the chosen schedule); plus ``num_schedules``.
    """
    if random_constant not in RANDOM_CONSTANT_MODES:
        raise ValueError(f"unknown random_constant {random_constant!r}; allowed: {', '.join(RANDOM_CONSTANT_MODES)}")
    eps_grid = np.asarray(eps_grid, dtype=float)
    E, m = len(eps_grid), schedules.shape[1]
    out = {k: {"loss": np.empty(E), "inv_eps": np.empty(E), "ages": np.full((E, m), -1, dtype=int)} for k in SCHEMES}
    for k in ("nc", "na"):
        out[k]["bound"] = np.empty(E)
    for j, eps_bar in enumerate(eps_grid):
        eps = {mode: th.classic_epsilons(tables, schedules, eps_bar, mode) for mode in th.NOISE_MODES}
        loss = {mode: th.loss_difference(tables, schedules, e, n, sensitivity) for mode, e in eps.items()}
        inv = {mode: mean_inverse_epsilon(e) for mode, e in eps.items()}
        random_mode = "classic" if random_constant == "classic" else "constant"
        out["rc"]["loss"][j], out["rc"]["inv_eps"][j] = loss[random_mode].mean(), inv[random_mode].mean()
        out["ra"]["loss"][j], out["ra"]["inv_eps"][j] = loss["adaptive"].mean(), inv["adaptive"].mean()
        for key, mode in (("nc", "constant"), ("na", "adaptive")):
            ub = th.upper_bound(tables, schedules, eps[mode], n, sensitivity, **surrogate.kwargs())
            best = exhaustive_schedule_search(ub)
            out[key]["bound"][j] = ub[best]
            _store(out[key], j, best, schedules, loss[mode], inv[mode])
        for key, mode in (("sc", "constant"), ("sa", "adaptive")):
            _store(out[key], j, exhaustive_schedule_search(loss[mode]), schedules, loss[mode], inv[mode])
    out["num_schedules"] = len(schedules)
    return out


def _store(curve: dict, j: int, best: int, schedules, loss, inv) -> None:
    curve["loss"][j] = loss[best]
    curve["inv_eps"][j] = inv[best]
    curve["ages"][j] = schedules[best]


def parametric_constant_curves(tables: th.AgeTables, eps_c_grid, n: int, sensitivity: float, schedules: np.ndarray,
                               surrogate: SurrogateOptions = SurrogateOptions()) -> dict:
    """The paper's other reading of scheme 3 (README: decisions): every client uses the same fixed ``eps_c``;
    schemes 3 (argmin (G2)) and 5 (argmin (G1)) pick a schedule at that noise and are plotted at the
    achieved target ``x = max_i ln(1 + Delta_i(a_i)(e^{eps_c} - 1))`` (CSV-only series)."""
    from repro.privacy.age_dependent import age_dependent_epsilon

    out = {k: {"x": [], "loss": [], "inv_eps": [], "ages": []} for k in ("nc", "sc")}
    delta = tables.delta[np.arange(tables.num_clients)[None, :], schedules]
    for eps_c in np.asarray(eps_c_grid, dtype=float):
        e = np.full(schedules.shape, eps_c)
        loss = th.loss_difference(tables, schedules, e, n, sensitivity)
        ub = th.upper_bound(tables, schedules, e, n, sensitivity, **surrogate.kwargs())
        for key, values in (("nc", ub), ("sc", loss)):
            best = exhaustive_schedule_search(values)
            out[key]["x"].append(float(age_dependent_epsilon(delta[best], eps_c).max()))
            out[key]["loss"].append(float(loss[best]))
            out[key]["inv_eps"].append(1.0 / eps_c)
            out[key]["ages"].append(schedules[best].tolist())
    return out
