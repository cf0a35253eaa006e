"""Fig. 2: Theorem 1's bound h(T, lambda) (eq. (14)), its lower bound h_Low(T) (eq. (17)) and T* by a 1-D
search (Sec. 4.2), for constants measured on trained models (``constants.py``) and for the illustrative
set of ``fig2_constants`` (not from the paper, not measured)."""

from __future__ import annotations

import math

import numpy as np

from repro.papers.dp_ditto import theory as th


def curves(c: th.ConvergenceConstants, T_max: int, search_max: int, table_epsilons) -> dict:
    """h on T = 0..T_max, h_Low and T' where Theorem 1's lower bound is defined (eps_L, eps_G < 1, eps_L != eps_G),
    T* by search, the violated parts of Assumption 1, and T*(eps) for the side table."""
    T = np.arange(0, int(T_max) + 1)
    el, eg = th.eps_l(c), th.eps_g(c)
    defined = el < 1 and eg < 1 and abs(el - eg) >= 1e-10
    t_star, h_star = th.search_t_star(c, int(search_max))
    out = {
        "T": T.tolist(),
        "h": th.h_bound(T, c).tolist(),
        "h_16a": th.h_bound_16(T, c).tolist() if defined else None,
        "h_low": th.h_low(T, c).tolist() if defined else None,
        "T_star": t_star,
        "h_star": h_star,
        "H0": th.h_low_offset(c) if defined else None,
        "T_prime": th.t_prime(c) if defined else None,
        "eps_l": el,
        "eps_g": eg,
        "violations": th.check_assumptions(c),
        "constants": {k: getattr(c, k) for k in c.__dataclass_fields__},
        "table": [],
    }
    for eps in table_epsilons:
        ts, hs = th.search_t_star(c.with_(epsilon=float(eps)), int(search_max))
        out["table"].append({"epsilon": float(eps), "T_star": ts, "h_star": hs})
    return out


def measured_constants(panel_params: dict, caption: dict, streams, log) -> dict:
    """Train the panel's model without noise and measure Theorem 1's constants; returns the constants
    (with the setting's N, C, d, |D_n|, eta, eps, delta, lambda) and the raw measurements."""
    from repro.papers.dp_ditto import runs
    from repro.papers.dp_ditto.constants import estimate_constants

    p = panel_params
    train, _test, split = runs.load_clients(p)
    model = runs.build_model(p)
    theta0 = model.init(streams.torch("init"), rows=1)[0]
    m = estimate_constants(model, train, theta0, lam=float(caption["lam"]), lr=float(p["lr"]), rounds=int(p["rounds"]),
                           batch_size=int(p["batch_size"]), epochs=int(p["local_epochs"]), streams=streams,
                           power_iterations=int(p["power_iterations"]), log=log)
    c = th.ConvergenceConstants(lam=float(caption["lam"]), epsilon=float(caption["epsilon"]), delta=float(caption["delta"]),
                                num_clients=int(p["num_clients"]), clip=float(p["clip"]), eta_g=float(p["eta"]),
                                eta_l=float(p["eta"]), dim=m["dim"], num_samples=int(round(float(np.mean(split)))),
                                mu=m["mu"], smooth=m["smooth"], g0=m["g0"], m_gap=m["m_gap"], psi1=m["psi1"], psi2=m["psi2"])
    return {"constants": c, "measured": m}


def fig2_curves(spec, ctx) -> dict:
    """The run of Fig. 2: one entry per measured panel (or its unavailable reason) and the illustrative set."""
    from repro.data import DatasetUnavailableError
    from repro.data.errors import unavailable_reason

    q = spec.params
    caption = q["caption"]
    out = {"status": "ok", "measured": {}, "illustrative": None}
    for panel, pp in q["measured_panels"].items():
        try:
            mc = measured_constants(pp, caption, ctx.streams(spec), ctx.log)
        except DatasetUnavailableError as e:
            out["measured"][panel] = {"status": "unavailable", "reason": unavailable_reason(pp["dataset"], e)}
            continue
        cur = curves(mc["constants"], q["T_max"], q["search_max"], q["table_epsilons"])
        cur["measured"] = mc["measured"]
        cur["status"] = "ok"
        out["measured"][panel] = cur
        ctx.log(f"fig2 {panel}: mu={mc['measured']['mu']:.3g} L={mc['measured']['smooth']:.3g} eps_L={cur['eps_l']:.6f} "
                f"T*={cur['T_star']}")
    illus = th.ConvergenceConstants(**{**q["illustrative"], "lam": caption["lam"], "epsilon": caption["epsilon"],
                                       "delta": caption["delta"]})
    out["illustrative"] = curves(illus, q["T_max"], q["search_max"], q["table_epsilons"])
    out["illustrative"]["status"] = "ok"
    return out


def finite_or_none(v):
    return v if v is not None and isinstance(v, (int, float)) and math.isfinite(v) else None
