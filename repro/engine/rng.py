"""Named, independent random streams derived from one run seed.

Every source of randomness in a run (partition, init, data order, DP noise, channel, scheduling,
...) draws from its own stream, so changing how many numbers one purpose consumes never shifts
another purpose's numbers, and the same seed always gives the same run.

Example
-------
>>> streams = RngStreams(seed=7)
>>> g = streams.torch("dp_noise")          # torch.Generator on the CPU
>>> rng = streams.numpy("partition")       # numpy.random.Generator
>>> bool(streams.numpy("partition").integers(10) == RngStreams(7).numpy("partition").integers(10))
True
"""

from __future__ import annotations

import hashlib

import numpy as np

#: Purposes used across the package; any other name is allowed too.
PURPOSES = ("partition", "init", "data_order", "dp_noise", "channel", "scheduling", "eval", "quantize")


def _purpose_key(purpose: str) -> int:
    return int.from_bytes(hashlib.sha256(purpose.encode()).digest()[:8], "little")


def _key_tuple(key) -> tuple[int, ...]:
    if key is None:
        return ()
    keys = (key,) if isinstance(key, (int, np.integer)) else tuple(key)
    for k in keys:
        if not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"stream key must be non-negative integers, got {key!r}")
    # a marker separates keyed sub-streams from the un-keyed stream of the same purpose
    return (0x6B6579, *map(int, keys))


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

    def seed_sequence(self, purpose: str, key=None) -> np.random.SeedSequence:
        """``key`` (an int or a tuple of ints, e.g. a round index) selects an independent sub-stream
        of ``purpose``: ``numpy("data_order", key=t)`` depends only on (seed, purpose, t)."""
        return np.random.SeedSequence([self.seed, *self._path, _purpose_key(purpose), *_key_tuple(key)])

    def numpy(self, purpose: str, key=None) -> np.random.Generator:
        return np.random.default_rng(self.seed_sequence(purpose, key))

    def int_seed(self, purpose: str, key=None) -> int:
        """A 63-bit integer seed for libraries that want one."""
        return int(self.seed_sequence(purpose, key).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))

    def torch(self, purpose: str, device: str = "cpu", key=None):
        import torch

        g = torch.Generator(device=device)
        g.manual_seed(self.int_seed(purpose, key))
        return g

    def spawn(self, index: int) -> "RngStreams":
        return RngStreams(self.seed, (*self._path, int(index)))

    def __repr__(self) -> str:
        return f"RngStreams(seed={self.seed}, path={self._path})"


class RoundRng:
    """The generators of one round: ``generator(purpose)`` is a torch.Generator on ``device`` seeded
    from (run seed, purpose, round), created on first use and then kept, so transforms of one round
    that share a purpose draw consecutive numbers and the next round starts fresh.

    Upload transforms take one of these (or a bare ``torch.Generator``, used for every purpose).

    >>> rr = RoundRng(RngStreams(0), round_index=3)
    >>> g = rr.generator("dp_noise")
    """

    def __init__(self, streams: RngStreams, round_index: int, device: str = "cpu"):
        self.streams, self.round_index, self.device = streams, int(round_index), str(device)
        self._cache = {}

    def generator(self, purpose: str):
        if purpose not in self._cache:
            self._cache[purpose] = self.streams.torch(purpose, device=self.device, key=self.round_index)
        return self._cache[purpose]

    def numpy(self, purpose: str) -> np.random.Generator:
        key = ("numpy", purpose)
        if key not in self._cache:
            self._cache[key] = self.streams.numpy(purpose, key=self.round_index)
        return self._cache[key]


def generator_for(rng, purpose: str):
    """``rng.generator(purpose)`` for a ``RoundRng``; a bare ``torch.Generator`` is returned as is."""
    return rng.generator(purpose) if hasattr(rng, "generator") else rng
