"""Composable upload transforms on stacked client tensors, in the style of ``optax.chain``.

A *transform* is a function ``(x, rng) -> x'`` where ``x`` is the stacked uploads ``[N, P]`` (one
flattened model or update per client) and ``rng`` is a ``repro.engine.rng.RoundRng`` (each
transform asks ``rng.generator(purpose)`` for its own stream: ``dp_noise``, ``quantize``,
``channel``, ...) or a bare ``torch.Generator`` used for every purpose. Transforms never modify
``x`` in place and hold no state; their parameters (clip norm, per-client sigma, bit width) are bound
when the transform is built.

Example (DP-Ditto's upload: clip the model to norm C, add N(0, sigma_u^2)):

>>> import torch
>>> from repro.privacy import chain, clip_l2, gaussian_noise
>>> upload = chain(clip_l2(20.0), gaussian_noise(torch.tensor([0.1, 0.2])))
>>> y = upload(torch.ones(2, 5), torch.Generator().manual_seed(0))
>>> y.shape
torch.Size([2, 5])
"""

from __future__ import annotations

from typing import Any, Callable

# torch is imported inside the functions: ``repro.privacy`` must stay importable without torch
Transform = Callable[[Any, Any], Any]  # (x [N, P] tensor, rng) -> tensor


def identity() -> Transform:
    """The transform that returns its input unchanged (no privacy, perfect channel)."""

    def apply(x, rng=None):
        return x

    apply.__name__ = "identity"
    return apply


def chain(*transforms: Transform) -> Transform:
    """Apply ``transforms`` left to right: ``chain(f, g)(x, rng) == g(f(x, rng), rng)``."""
    for t in transforms:
        if not callable(t):
            raise TypeError(f"chain() takes transforms (callables (x, rng) -> x), got {t!r}")

    def apply(x, rng=None):
        for t in transforms:
            x = t(x, rng)
        return x

    apply.__name__ = "chain(" + ", ".join(getattr(t, "__name__", type(t).__name__) for t in transforms) + ")"
    apply.transforms = transforms
    return apply


def per_client(value, x, name: str):
    """A float, or a per-client value ``[N]`` reshaped to ``[N, 1]`` (tensor) for broadcasting against ``x`` ``[N, P]``."""
    import torch

    if isinstance(value, (int, float)):
        return float(value)
    t = torch.as_tensor(value, dtype=x.dtype, device=x.device).reshape(-1)
    if t.numel() == 1:
        return float(t)
    if t.numel() != x.shape[0]:
        raise ValueError(f"{name} must be a scalar or one value per client ({x.shape[0]}), got {t.numel()} values")
    return t.unsqueeze(1)


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
