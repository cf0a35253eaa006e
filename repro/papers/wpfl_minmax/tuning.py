"""The small learning-rate sweep that gives every fixed-rate method the same tuning (README, decisions).

For each tuned series (Round-Robin, Random, Non-Adjustment and the four PFL baselines) and each
learning rate of ``tuning_lrs``, the series is trained at ``T0 = min(t0 grid)`` on (1 - f) of every
client's training samples and scored by the sample-weighted accuracy of its personalised models on
the held-out f (``validation_fraction``). The best rate (a diverged run scores -inf; ties go to the
smaller rate) is then used at every T0 of the run. Test sets are never used to choose.
"""

from __future__ import annotations

import math

from repro.papers.wpfl_minmax.training import run_series


def tune_learning_rate(env, series: str, t0: int, lrs, log=print) -> dict:
    """``{"grid": {lr: validation accuracy}, "chosen": lr, "t0": t0}`` for one series."""
    val_env = env.validation_split()
    scores = {}
    for lr in sorted(float(x) for x in lrs):
        res = run_series(val_env, series, t0, lr=lr, log=lambda m: None)
        acc = res["accuracy"]
        scores[lr] = acc if (acc is not None and math.isfinite(acc) and res["nonfinite_clients"] == 0) else -math.inf
    chosen = max(scores, key=lambda lr: (scores[lr], -lr))
    log(f"{env.config} {series}: validation accuracy per learning rate "
        + ", ".join(f"{lr:g}: {s:.4f}" for lr, s in scores.items()) + f" -> {chosen:g}")
    return {"grid": {str(lr): (None if not math.isfinite(s) else s) for lr, s in scores.items()}, "chosen": chosen, "t0": t0}


def validation_accuracy(env, series: str, t0: int) -> float:
    """Validation accuracy of a series that sets its own rates (Proposed: P5 / P7), on the sweep's split."""
    return float(run_series(env.validation_split(), series, t0, log=lambda m: None)["accuracy"])
