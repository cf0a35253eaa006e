"""Vectorised multi-client FL engine (see ``repro/engine/API.md``).

Clients are a tensor dimension: parameters are flat stacks ``[N, P]``, data is ``ClientData``
(all clients back to back with offsets), a round's minibatches are a ``BatchPlan``, and
``local_sgd``/``evaluate`` process every client in one batched call per step.

The names below are imported on first use (PEP 562), so importing a light sub-module such as
``repro.engine.bench_cli`` does not import torch.
"""

import importlib

_EXPORTS = {
    "ClientData": "data", "normalize_images": "data",
    "RngStreams": "rng", "RoundRng": "rng", "generator_for": "rng",
    "BatchPlan": "schedule", "epoch_plan": "schedule", "step_plan": "schedule",
    "pairwise_sq_distances": "stack", "weighted_mean": "stack",
    "EvalResult": "train", "batch_grad": "train", "batch_grads": "train", "batch_loss": "train", "evaluate": "train",
    "fused_sgd_step": "train", "local_sgd": "train",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'repro.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"repro.engine.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
