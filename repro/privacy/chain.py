"""Composable transforms of stacked client tensors, in the style of ``optax.chain``: the one convention
every algorithm and paper uses for what happens to a model or update on its way between client and server.

A *transform* is a function ``(x, link) -> x'``. ``x`` is ``[K, P]``: one flattened model or update per row,
row k belonging to client ``link.clients[k]``. ``link`` is a :class:`Link`: which clients the rows are, the
round, and the round's random streams (each transform draws from ``link.generator(purpose)`` for its own
purpose: ``dp_noise``, ``quantize``, ``channel``, ...). Transforms never modify ``x`` in place and hold no
state; their parameters (clip norm, per-client sigma for the whole population, bit width) are bound when
the transform is built, and per-client values are picked for the rows through ``link.clients``. A bare
``torch.Generator`` (or a ``repro.engine.rng.RoundRng``) may stand in for the link when the rows are all
the clients, in order.

Example (DP-Ditto's upload, eqs. (5) and (8): clip every model to norm C, add N(0, sigma_n^2)):

>>> import torch
>>> from repro.privacy import Link, chain, clip_l2, gaussian_noise
>>> upload = chain(clip_l2(20.0), gaussian_noise(torch.tensor([0.1, 0.2, 0.3]), population=3))
>>> link = Link(clients=torch.tensor([2, 0]), round=0, rng=torch.Generator().manual_seed(0), population=3)
>>> upload(torch.ones(2, 5), link).shape          # rows of clients 2 and 0: sigma 0.3 and 0.1
torch.Size([2, 5])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

# torch is imported inside the functions: ``repro.privacy`` must stay importable without torch
Transform = Callable[[Any, Any], Any]  # (x [K, P] tensor, link) -> tensor


@dataclass
class Link:
    """Who the rows of a stacked tensor are, in which round, with which random streams.

    ``clients`` ``[K]`` int64: the global id of each row's client; ``round``: the round index;
    ``rng``: anything with ``generator(purpose) -> torch.Generator`` (a ``repro.engine.rng.RoundRng``)
    or one ``torch.Generator`` used for every purpose; ``population``: the number of clients N (per-client
    parameters of length N are indexed by ``clients``; population-wide draws have N rows).
    """

    clients: Any
    round: int
    rng: Any
    population: int | None = None

    def generator(self, purpose: str):
        return generator_of(self.rng, purpose)


def draw_device(generator: torch.Generator, x: torch.Tensor) -> torch.device:
    """Where to draw ``x``'s random numbers: on the generator's device (a CPU generator with a GPU ``x`` draws
    on the CPU and the numbers are moved: the same seed gives the same numbers on every device)."""
    return generator.device if generator.device.type != x.device.type else x.device

def generator_of(rng, purpose: str):
    """The generator of ``purpose``: from a :class:`Link` or a ``RoundRng`` (``.generator(purpose)``), or a
    bare ``torch.Generator`` (returned as is, for every purpose)."""
    return rng.generator(purpose) if hasattr(rng, "generator") else rng


def rows_of(link):
    """The client ids of the rows (``link.clients``), or ``None`` when the link is a bare generator."""
    return getattr(link, "clients", None)


def identity() -> Transform:
    """The transform that returns its input unchanged (no privacy, perfect channel)."""

    def apply(x, link=None):
        return x

    apply.__name__ = "identity"
    return apply


def chain(*transforms: Transform) -> Transform:
    """Apply ``transforms`` left to right: ``chain(f, g)(x, link) == g(f(x, link), link)``."""
    for t in transforms:
        if not callable(t):
            raise TypeError(f"chain() takes transforms (callables (x, link) -> x), got {t!r}")

    def apply(x, link=None):
        for t in transforms:
            x = t(x, link)
        return x

    apply.__name__ = "chain(" + ", ".join(getattr(t, "__name__", type(t).__name__) for t in transforms) + ")"
    apply.transforms = transforms
    return apply


def per_client(value, x, name: str, link=None):
    """A float, or per-client values as ``[K, 1]`` for broadcasting against ``x`` ``[K, P]``: ``value`` has one
    entry per row, or one per client of the population (then the rows' clients ``link.clients`` pick them)."""
    import torch

    if isinstance(value, (int, float)):
        return float(value)
    t = torch.as_tensor(value, dtype=x.dtype).reshape(-1)
    if t.numel() == 1:
        return float(t)
    clients = rows_of(link)
    if clients is not None and (t.numel() != x.shape[0] or getattr(link, "population", None) == t.numel()):
        idx = torch.as_tensor(clients, dtype=torch.int64).reshape(-1).cpu()
        if int(idx.max()) >= t.numel():
            raise ValueError(f"{name} has {t.numel()} values but the rows are clients up to {int(idx.max())}")
        t = t[idx]
    if t.numel() != x.shape[0]:
        raise ValueError(f"{name} must be a scalar or one value per client ({x.shape[0]} rows), got {t.numel()} values")
    return t.to(x.device).unsqueeze(1)


#: elements per chunk of the streaming kernels (256 KiB of float32: a chunk's passes stay in cache)
CHUNK_ELEMENTS = 1 << 16


def row_chunks(x, chunk: int = CHUNK_ELEMENTS):
    """(row slice, column slice) blocks of about ``chunk`` elements covering ``x`` ``[N, P]`` in
    row-major order; each block is contiguous in a contiguous ``x`` (whole rows, or part of one row)."""
    n, p = x.shape
    cols = min(p, chunk)
    rows = max(1, chunk // cols) if cols == p else 1
    for r in range(0, n, rows):
        for c in range(0, p, cols):
            yield slice(r, min(r + rows, n)), slice(c, min(c + cols, p))
