"""The rules behind the claims on Figs. 2 and 3, as pure functions of the exact curves.

Shared by ``claims.py`` (on the regenerated CSV), the Fig. 2 region map and the supplementary
sensitivity table (on every model variant), so all three apply the very same rule. Curves are numpy
arrays: Fig. 2 one loss difference per collection time t_c = 1..t_agg; Fig. 3 a mapping from scheme
key (``rc, ra, nc, sc, na, sa``, see :mod:`scheduler`) to one value per eps_bar grid point.
"""

from __future__ import annotations

import numpy as np

#: rounding tolerance of comparisons between exact (closed-form) values
EXACT_RTOL = 1e-12
#: "Theorem 1 accurately captures the trade-off": bound-chosen and simulation-chosen schedules give a
#: loss difference within this factor (fixed before looking at the results: 10 %)
CLOSE_RATIO = 1.10
#: the shape the paper describes for each Fig. 2 panel (Sec. I): Client 1 fresher-is-better, Clients
#: 2 and 3 an interior optimum ("neither the freshest nor the stalest data")
PANEL_SHAPES = ("fresher_better", "interior", "interior")
#: pairs (constant noise, adaptive noise) of Fig. 3(b): without scheduling, bound-chosen, simulation-chosen
NOISE_PAIRS = (("rc", "ra"), ("nc", "na"), ("sc", "sa"))


# ------------------------------------------------------------------------------------------ Fig. 2


def fresher_is_better(ld) -> bool:
    """Fig. 2(a): the loss does not increase as t_c moves towards t_agg, so the freshest time is optimal."""
    ld = np.asarray(ld, dtype=float)
    return bool(np.all(ld[1:] <= ld[:-1] * (1 + EXACT_RTOL)) and np.argmin(ld) == len(ld) - 1)


def interior_optimum(ld) -> bool:
    """Fig. 2(b), (c): the minimum over t_c lies strictly inside, below both the stalest and the freshest time."""
    ld = np.asarray(ld, dtype=float)
    k = int(np.argmin(ld))
    return bool(0 < k < len(ld) - 1 and ld[k] < min(ld[0], ld[-1]) * (1 - EXACT_RTOL))


def panel_shape_holds(ld, shape: str) -> bool:
    if shape == "fresher_better":
        return fresher_is_better(ld)
    if shape == "interior":
        return interior_optimum(ld)
    raise ValueError(f"unknown Fig. 2 shape {shape!r}; allowed: fresher_better, interior")


def fig2_shapes(curves) -> list[bool]:
    """The shape of every Fig. 2 panel (one curve per client, in client order)."""
    return [panel_shape_holds(ld, shape) for ld, shape in zip(curves, PANEL_SHAPES)]


def log10_span(ld) -> float:
    """Decades spanned by a curve, log10(max / min) (what a log axis shows of it)."""
    ld = np.asarray(ld, dtype=float)
    return float(np.log10(ld.max() / ld.min()))


# ------------------------------------------------------------------------------------------ Fig. 3


def beats(loss, better: str, worse: str) -> np.ndarray:
    """Per eps_bar: scheme ``better`` has a loss difference no larger than scheme ``worse``."""
    return loss[better] <= loss[worse] * (1 + EXACT_RTOL)


def bound_choice_ratios(loss) -> dict[str, np.ndarray]:
    """Loss of the bound-chosen schedule over the simulation-chosen one, per noise mode (3/5 and 4/6)."""
    return {"constant (3 vs 5)": loss["nc"] / loss["sc"], "adaptive (4 vs 6)": loss["na"] / loss["sa"]}


def constant_needs_more_noise(inv_eps) -> dict[str, np.ndarray]:
    """Fig. 3(b) per pair: 1/eps_c of the constant-noise scheme >= that of its adaptive counterpart."""
    return {f"{c} >= {a}": inv_eps[c] >= inv_eps[a] * (1 - EXACT_RTOL) for c, a in NOISE_PAIRS}


def fig3_summary(loss, inv_eps) -> dict:
    """'Holds on x of N eps_bar points' for every Fig. 3 rule (one row of the sensitivity table)."""
    ratios = bound_choice_ratios(loss)
    noise = constant_needs_more_noise(inv_eps)
    return {
        "4 beats 1, 2": int(np.sum(beats(loss, "na", "rc") & beats(loss, "na", "ra"))),
        "4 beats 3": int(np.sum(beats(loss, "na", "nc"))),
        "4 beats 5": int(np.sum(beats(loss, "na", "sc"))),
        "bound within 10 %": int(np.sum(np.maximum(*ratios.values()) <= CLOSE_RATIO)),
        "max bound ratio": float(max(r.max() for r in ratios.values())),
        "constant >= adaptive noise": int(np.sum(np.logical_and.reduce(list(noise.values())))),
        "grid_points": int(len(loss["na"])),
    }
