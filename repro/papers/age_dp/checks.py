"""Pure checks of the Fig. 3 claims (guide §5, C5-C11) on the six exact curves.

Shared by ``claims.py`` (on the regenerated CSV) and the supplementary sensitivity table (on every
model variant), so both apply the very same rule. Every function takes ``curves``: a mapping from
scheme key (``rc, ra, nc, sc, na, sa``; see :mod:`scheduler`) to arrays over the epsilon grid, and
returns booleans per grid point (or a summary dict).
"""

from __future__ import annotations

import numpy as np

MONOTONE_RTOL = 1e-9
RATIO_LIMIT = 1.10          # C9: "close" means within 10 %
LOW_PRIVACY_EPS = 0.2       # C9's regime: eps_bar <= 0.2
MAJORITY = 6                # C9: at least 6 of the 8 low-eps points for both pairs


def c5_proposed_beats_implementable(loss) -> np.ndarray:
    """na <= min(rc, ra, nc) per grid point."""
    return loss["na"] <= np.minimum(np.minimum(loss["rc"], loss["ra"]), loss["nc"])


def c6_proposed_beats_oracle_constant(loss) -> np.ndarray:
    """na <= sc per grid point (fragile)."""
    return loss["na"] <= loss["sc"]


def c7_random_is_subpar(loss) -> np.ndarray:
    """ra >= 2 na and rc >= 2 na per grid point."""
    return (loss["ra"] >= 2.0 * loss["na"]) & (loss["rc"] >= 2.0 * loss["na"])


def c8_constant_noise_does_not_excel(loss) -> np.ndarray:
    """nc >= na per grid point."""
    return loss["nc"] >= loss["na"]


def c9_bound_tracks_simulation(loss, eps_grid) -> dict:
    """Ratios num/sim for both noise modes; the majority rule on eps_bar <= 0.2."""
    eps_grid = np.asarray(eps_grid, dtype=float)
    ratio_a, ratio_c = loss["na"] / loss["sa"], loss["nc"] / loss["sc"]
    low = eps_grid <= LOW_PRIVACY_EPS + 1e-12
    close_a = int(np.sum(ratio_a[low] <= RATIO_LIMIT))
    close_c = int(np.sum(ratio_c[low] <= RATIO_LIMIT))
    return {"ratio_adaptive": ratio_a, "ratio_constant": ratio_c, "low_points": int(low.sum()),
            "close_adaptive": close_a, "close_constant": close_c,
            "max_ratio_low": float(max(ratio_a[low].max(), ratio_c[low].max())) if low.any() else float("nan"),
            "max_ratio_grid": float(max(ratio_a.max(), ratio_c.max())),
            "majority_holds": bool(low.any() and min(close_a, close_c) >= min(MAJORITY, int(low.sum())))}


def non_increasing(values, rtol: float = MONOTONE_RTOL) -> np.ndarray:
    """Per grid point: the value is not above the previous one (first point: True)."""
    values = np.asarray(values, dtype=float)
    ok = np.ones(values.shape, dtype=bool)
    ok[1:] = values[1:] <= values[:-1] * (1.0 + rtol)
    return ok


def c10_loss_falls_with_epsilon(loss, schemes=("rc", "ra", "nc", "sc", "na", "sa")) -> np.ndarray:
    """Per grid point: every listed curve is non-increasing into that point."""
    return np.all([non_increasing(loss[k]) for k in schemes], axis=0)


def c11_constant_needs_more_noise(inv_eps, atol: float = 1e-12) -> np.ndarray:
    """1/eps_c(constant) >= 1/eps_c(adaptive) for the pairs (rc, ra), (nc, na), (sc, sa)."""
    return ((inv_eps["rc"] >= inv_eps["ra"] - atol) & (inv_eps["nc"] >= inv_eps["na"] - atol)
            & (inv_eps["sc"] >= inv_eps["sa"] - atol))


def fig3_summary(loss, inv_eps, eps_grid) -> dict:
    """'Holds on x/N' counts of C5-C11 plus the C6/C9 numbers (one row of the sensitivity table)."""
    c9 = c9_bound_tracks_simulation(loss, eps_grid)
    return {
        "C5": int(c5_proposed_beats_implementable(loss).sum()),
        "C6": int(c6_proposed_beats_oracle_constant(loss).sum()),
        "C6_max_na_over_sc": float(np.max(loss["na"] / loss["sc"])),
        "C7": int(c7_random_is_subpar(loss).sum()),
        "C8": int(c8_constant_noise_does_not_excel(loss).sum()),
        "C9_majority": c9["majority_holds"],
        "C9_max_ratio_low": c9["max_ratio_low"],
        "C9_max_ratio_grid": c9["max_ratio_grid"],
        "C10": int(c10_loss_falls_with_epsilon(loss).sum()),
        "C10_non_monotone": [k for k in loss if not non_increasing(loss[k]).all()],
        "C11": int(c11_constant_needs_more_noise(inv_eps).sum()),
        "grid_points": len(eps_grid),
    }
