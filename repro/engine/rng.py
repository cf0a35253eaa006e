"""Named, independent random streams derived from one run seed.

Every source of randomness in a run (partition, init, data order, DP noise, channel, scheduling,
...) draws from its own stream, so changing how many numbers one purpose consumes never shifts
another purpose's numbers, and the same seed always gives the same run.

Example
-------
>>> streams = RngStreams(seed=7)
>>> g = streams.torch("dp_noise")          # torch.Generator on the CPU
>>> rng = streams.numpy("partition")       # numpy.random.Generator
>>> streams.numpy("partition").integers(10) == RngStreams(7).numpy("partition").integers(10)
True
"""

from __future__ import annotations

import hashlib

import numpy as np

#: Purposes used across the package; any other name is allowed too.
PURPOSES = ("partition", "init", "data_order", "dp_noise", "channel", "scheduling", "eval", "quantize")


def _purpose_key(purpose: str) -> int:
    return int.from_bytes(hashlib.sha256(purpose.encode()).digest()[:8], "little")


class RngStreams:
    """Factory of per-purpose generators for one run seed.

    Each call returns a *fresh* generator positioned at the start of that purpose's stream, so
    ask once per purpose and keep the generator. ``spawn(i)`` gives the streams of sub-run ``i``
    (a trial or a client group) without overlapping the parent's.
    """

    def __init__(self, seed: int, _path: tuple[int, ...] = ()):
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = int(seed)
        self._path = tuple(_path)

    def seed_sequence(self, purpose: str) -> np.random.SeedSequence:
        return np.random.SeedSequence([self.seed, *self._path, _purpose_key(purpose)])

    def numpy(self, purpose: str) -> np.random.Generator:
        return np.random.default_rng(self.seed_sequence(purpose))

    def int_seed(self, purpose: str) -> int:
        """A 63-bit integer seed for libraries that want one."""
        return int(self.seed_sequence(purpose).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))

    def torch(self, purpose: str, device: str = "cpu"):
        import torch

        g = torch.Generator(device=device)
        g.manual_seed(self.int_seed(purpose))
        return g

    def spawn(self, index: int) -> "RngStreams":
        return RngStreams(self.seed, (*self._path, int(index)))

    def __repr__(self) -> str:
        return f"RngStreams(seed={self.seed}, path={self._path})"
