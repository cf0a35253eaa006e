"""toy_mean run tasks: fn(spec, ctx) -> JSON-able dict."""

from __future__ import annotations

import math

import numpy as np

from repro.engine.rng import RngStreams


def error_curve(spec, ctx) -> dict:
    """RMSE of the noisy mean over ``trials`` draws at each epsilon (data and noise from separate streams)."""
    p = spec.params
    streams = RngStreams(spec.seed)
    values = streams.numpy("data").uniform(0.0, 1.0, size=p["n"])
    noise = streams.numpy("dp_noise").standard_normal((len(p["epsilons"]), p["trials"]))
    out = []
    for i, eps in enumerate(p["epsilons"]):
        sigma = math.sqrt(2 * math.log(1.25 / p["delta"])) / (p["n"] * eps)  # the "paper's" eq. (3), sensitivity 1/n
        est = values.mean() + sigma * noise[i]
        out.append({"epsilon": eps, "sigma": sigma, "rmse": float(np.sqrt(np.mean((est - values.mean()) ** 2)))})
        ctx.log(f"eps {eps:g}: rmse {out[-1]['rmse']:.4g}")
    return {"curve": out}
