"""Minibatch schedules for all clients of one round, drawn at once from the ``data_order`` stream.

A ``BatchPlan`` holds, for every local step ``s`` and client ``n``, the positions (within client
``n``'s data) of the samples of its minibatch, ``positions[s, n, :]``, and a ``mask`` marking real
samples (a partial last batch, or a client that has no batch at step ``s``, is padded with
position 0 and masked out). ``active[s, n]`` says whether client ``n`` takes step ``s`` at all.

Two kinds:

* ``epoch_plan``: E passes over each client's data, a fresh uniform permutation per pass, batches
  of ``batch_size`` in order. ``last_batch`` says what happens to the M_n mod B samples left at the end
  of a pass: ``"partial"`` takes them as a last, smaller batch (ceil(M_n / B) steps per epoch; with
  M_n mod B = 1 that batch is one sample, whose gradient alone moves the model); ``"drop"`` leaves them
  out of this pass, as PyTorch's ``drop_last=True`` in PFLlib's client loaders (floor(M_n / B) steps;
  each pass draws a fresh permutation, so every sample is used in some pass). A client smaller than one
  batch takes its whole set as one batch under both rules (PFLlib would skip it). Epochs are aligned
  across clients (a small client idles at the end of each epoch).
* ``step_plan``: a fixed number of steps; each step draws, per client, a uniform minibatch without
  replacement of size ``min(b_n, M_n)`` (``b_n`` may differ per client).

Permutations are vectorised: uniform keys ``[N, M_max]``, padding set to +inf, ``argsort``.
The generator is a CPU ``torch.Generator`` (use ``RngStreams.torch("data_order", key=round)`` so the
order depends only on (seed, round)); the plan is then moved to ``device``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class BatchPlan:
    positions: torch.Tensor  # [S, N, B] int64
    mask: torch.Tensor  # [S, N, B] bool
    active: torch.Tensor  # [S, N] bool

    @property
    def num_steps(self) -> int:
        return int(self.positions.shape[0])

    @property
    def batch_size(self) -> int:
        return int(self.positions.shape[2])

    def steps_per_client(self) -> torch.Tensor:
        return self.active.sum(0)

    def to(self, device) -> "BatchPlan":
        return BatchPlan(self.positions.to(device), self.mask.to(device), self.active.to(device))


def _check(sizes, batch_size):
    sizes = torch.as_tensor(sizes, dtype=torch.int64).cpu()
    if sizes.dim() != 1 or len(sizes) == 0 or int(sizes.min()) < 1:
        raise ValueError(f"sizes must be a non-empty 1-D list of positive client sizes, got {sizes.tolist()}")
    return sizes


def _permutations(sizes: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """``[N, M_max]``: row n starts with a uniform permutation of 0..M_n-1 (then padding positions)."""
    n, m = len(sizes), int(sizes.max())
    keys = torch.rand(n, m, generator=generator, dtype=torch.float64)
    keys.masked_fill_(torch.arange(m).unsqueeze(0) >= sizes.unsqueeze(1), 2.0)
    return torch.argsort(keys, dim=1, stable=True)


def _permutation_heads(sizes: torch.Tensor, k: int, generator: torch.Generator) -> torch.Tensor:
    """``_permutations(sizes, generator)[:, :k]`` from the same keys, by a partial sort (``topk``): a step plan reads
    only its first b_n positions of each permutation. Equal to the full ``argsort`` except where two of a row's
    float64 keys tie inside its first k (probability about k M 2^-53 per row); the padding keys that may enter a
    row shorter than k sit beyond b_n <= M_n and are masked."""
    n, m = len(sizes), int(sizes.max())
    keys = torch.rand(n, m, generator=generator, dtype=torch.float64)
    keys.masked_fill_(torch.arange(m).unsqueeze(0) >= sizes.unsqueeze(1), 2.0)
    return torch.topk(keys, k, dim=1, largest=False, sorted=True).indices


LAST_BATCH_RULES = ("partial", "drop")


def epoch_plan(sizes, batch_size: int, epochs: int, generator: torch.Generator, device="cpu",
               last_batch: str = "partial") -> BatchPlan:
    """``epochs`` passes over each client's data in minibatches of ``batch_size``; the samples left at the end of a
    pass form a last, smaller batch (``last_batch="partial"``) or sit out that pass (``"drop"``, PFLlib's
    ``drop_last=True``; a client smaller than one batch keeps one batch of its whole set)."""
    sizes = _check(sizes, batch_size)
    if int(batch_size) < 1 or int(epochs) < 1:
        raise ValueError(f"batch_size and epochs must be >= 1, got {batch_size}, {epochs}")
    if last_batch not in LAST_BATCH_RULES:
        raise ValueError(f"last_batch must be one of {LAST_BATCH_RULES}, got {last_batch!r}")
    b, n = int(batch_size), len(sizes)
    used = sizes if last_batch == "partial" else torch.where(sizes >= b, sizes // b * b, sizes)  # samples per pass
    steps = -(-int(used.max()) // b)
    slot = torch.arange(steps * b).view(1, steps, b)  # position of a slot within the epoch
    valid = (slot < used.view(n, 1, 1)).permute(1, 0, 2)  # [S_e, N, B]
    pos, masks = [], []
    for _ in range(int(epochs)):
        perm = _permutations(sizes, generator)[:, :steps * b]  # (drop: a pass may end before the largest client's data)
        perm = torch.nn.functional.pad(perm, (0, steps * b - perm.shape[1]))
        p = perm.view(n, steps, b).permute(1, 0, 2)
        pos.append(torch.where(valid, p, 0))
        masks.append(valid)
    positions, mask = torch.cat(pos), torch.cat(masks)
    return BatchPlan(positions.contiguous(), mask.contiguous(), mask[:, :, 0].contiguous()).to(device)


def step_plan(sizes, batch_size, steps: int, generator: torch.Generator, device="cpu") -> BatchPlan:
    """``steps`` minibatches per client, each uniform without replacement of size min(b_n, M_n).

    ``batch_size`` is an int or a per-client sequence ``b_n``.
    """
    sizes = _check(sizes, batch_size)
    b = torch.as_tensor(batch_size, dtype=torch.int64).cpu().expand(len(sizes)).clone()
    if int(b.min()) < 1 or int(steps) < 1:
        raise ValueError(f"batch sizes and steps must be >= 1, got {b.tolist()}, {steps}")
    b = torch.minimum(b, sizes)
    bmax = int(b.max())
    pos, masks = [], []
    slot = torch.arange(bmax).unsqueeze(0)
    for _ in range(int(steps)):
        perm = _permutation_heads(sizes, bmax, generator)
        valid = slot < b.unsqueeze(1)
        pos.append(torch.where(valid, perm, 0))
        masks.append(valid)
    positions, mask = torch.stack(pos), torch.stack(masks)
    return BatchPlan(positions, mask, mask[:, :, 0].clone()).to(device)
