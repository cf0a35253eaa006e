"""Analytic runs of DP-Ditto: the curves of Fig. 2 (Theorem 1, eqs. (14), (16), (17))."""

from __future__ import annotations

import numpy as np

from repro.papers.dp_ditto import theory as th


def fig2_curves(params: dict) -> dict:
    """h(T, lambda) and h_Low(T) on T = 0..T_max, T* by 1-D search, and T*(eps) for the side table."""
    c = th.ConvergenceConstants(**params["constants"])
    T = np.arange(0, int(params["T_max"]) + 1)
    t_star, h_star = th.search_t_star(c, int(params["search_max"]))
    H = th.h_coefficients(c)
    table = []
    for eps in params["table_epsilons"]:
        ce = c.with_(epsilon=float(eps))
        ts, hs = th.search_t_star(ce, int(params["search_max"]))
        table.append({"epsilon": float(eps), "T_star": ts, "h_star": hs, "T_prime": th.t_prime(ce)})
    return {
        "status": "ok",
        "T": T.tolist(),
        "h": th.h_bound(T, c).tolist(),
        "h_16a": th.h_bound_16(T, c).tolist(),
        "h_low": th.h_low(T, c).tolist(),
        "T_star": t_star,
        "h_star": h_star,
        "H0": th.h_low_offset(c),
        "H": {k: getattr(H, k) for k in ("eps_l", "eps_g", "h1", "h2", "h3", "h4", "h5", "h6")},
        "T_prime": th.t_prime(c),
        "table": table,
    }
