"""Vectorised multi-client FL engine (see ``repro/engine/API.md``).

Clients are a tensor dimension: parameters are flat stacks ``[N, P]``, data is ``ClientData``
(all clients back to back with offsets), a round's minibatches are a ``BatchPlan``, and
``local_sgd``/``evaluate`` process every client in one batched call per step.
"""

from repro.engine.data import ClientData, normalize_images
from repro.engine.rng import RngStreams, RoundRng, generator_for
from repro.engine.schedule import BatchPlan, epoch_plan, step_plan
from repro.engine.stack import pairwise_sq_distances, weighted_mean
from repro.engine.train import EvalResult, batch_grad, batch_grads, batch_loss, evaluate, fused_sgd_step, local_sgd

__all__ = [
    "BatchPlan", "ClientData", "EvalResult", "RngStreams", "RoundRng", "batch_grad", "batch_grads", "batch_loss",
    "epoch_plan", "evaluate", "fused_sgd_step", "generator_for", "local_sgd", "normalize_images", "pairwise_sq_distances",
    "step_plan", "weighted_mean",
]
