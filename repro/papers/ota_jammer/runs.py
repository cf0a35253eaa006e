"""Run tasks of ota_jammer (``experiments.TASKS``): one OTA-FL training on the FEMNIST surrogate or Synthetic IID."""

from __future__ import annotations

from repro.experiment import RunContext, RunSpec, unavailable_result


def _reason(err) -> str:
    """What a FEMNIST run records when it cannot train: real FEMNIST too small, or the MNIST surrogate missing."""
    from repro.data.errors import unavailable_reason

    return unavailable_reason("femnist" if str(err).startswith("dataset 'femnist'") else "mnist (the FEMNIST surrogate)", err)


def train(spec: RunSpec, ctx: RunContext) -> dict:
    """Train one configuration; a missing dataset gives an ``unavailable`` result (panels marked, claims not evaluated)."""
    import torch

    from repro.data import DatasetUnavailableError
    from repro.papers.ota_jammer import data as otadata
    from repro.papers.ota_jammer.training import run_training

    torch.set_num_threads(max(1, ctx.threads))
    cfg = spec.params
    try:
        if cfg["data"] == "femnist":
            split = otadata.femnist_split(seed=cfg["partition_seed"], size_scale=cfg["size_scale"])
        else:
            split = otadata.synthetic_iid_split(num_clients=cfg["num_clients"], seed=cfg["data_seed"])
    except DatasetUnavailableError as e:
        ctx.log(f"dataset unavailable: {e}")
        return unavailable_result(_reason(e))
    return run_training(cfg, split, ctx.streams(spec), log=ctx.log)


def regime(spec: RunSpec, ctx: RunContext) -> dict:
    """Regime quantities of one setting at the initial model (fig92): PC bias, noise-to-signal, prox effect."""
    import torch

    from repro.data import DatasetUnavailableError
    from repro.papers.ota_jammer import data as otadata
    from repro.papers.ota_jammer.regime import measure

    torch.set_num_threads(max(1, ctx.threads))
    cfg = spec.params
    try:
        split = otadata.femnist_split(seed=cfg["partition_seed"], size_scale=cfg["size_scale"])
    except DatasetUnavailableError as e:
        ctx.log(f"dataset unavailable: {e}")
        return unavailable_result(_reason(e))
    return measure(cfg, split, ctx.streams(spec), log=ctx.log)
