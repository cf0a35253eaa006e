"""Quantisers for stacked uploads ``[N, P]``: deterministic uniform R-bit, unbiased stochastic
rounding, subtractive dithering.

Uniform R-bit grid over ``[-A, A]`` (WPFL eqs. (6)-(8)): ``Delta = 2A/(2^R - 1)``, levels
``chi_k = -A + k Delta``, ``k = 0 .. 2^R - 1``. ``A`` may be a float or per client ``[N]``.

* ``uniform_indices(x, A, R)``: nearest level, out-of-range values to the end levels (WPFL (43)):
  ``k = clip(round((x + A)/Delta), 0, 2^R - 1)``; the error is at most ``Delta/2`` inside the range.
* ``stochastic_indices(x, A, R, gen)``: ``k = floor(t) + Bernoulli(t - floor(t))``, ``t = (clip(x) + A)/Delta``:
  unbiased, ``E[Q(x)] = x`` for ``|x| <= A``, error below ``Delta``.
* ``subtractive_dither(x, step, gen)``: ``k = round((x + U)/step)``, reconstruction ``k step - U``,
  ``U ~ U(-step/2, step/2)`` shared with the receiver: the error is uniform on ``[-step/2, step/2]`` and
  independent of ``x`` (Schuchman's condition). ``step`` may be a tensor of per-coordinate steps;
  ``gaussian_dither_steps`` draws ``step_i = 2 sigma sqrt(2 G_i)``, ``G_i ~ Gamma(3/2, 1)``, which makes
  the error exactly N(0, sigma^2) (WPFL §6.2 S4).

Kernels work on large stacks in cache-sized chunks of rows x columns, so their several elementwise
passes cost about one pass over memory. ``*_transform`` wrap them as upload transforms
(``repro.privacy.chain``).
"""

from __future__ import annotations

import torch

from repro.privacy.chain import CHUNK_ELEMENTS, Transform, draw_device, generator_of, per_client, row_chunks as _chunks


def _check_bits(bits) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= 31:
        raise ValueError(f"bits R must be an integer in 1..31, got {bits!r}")
    return bits


def _check_range(a):
    if isinstance(a, float):
        if not a > 0:
            raise ValueError(f"quantiser range A must be > 0, got {a!r}")
    elif not bool((a > 0).all()):
        raise ValueError(f"quantiser range A must be > 0 for every client, got {a.flatten().tolist()[:8]}")
    return a


def step_size(range_a, bits: int):
    """``Delta = 2A/(2^R - 1)`` (float or tensor like ``range_a``)."""
    return 2.0 * range_a / (2 ** _check_bits(bits) - 1)


def _rowparam(v, rs):
    return v[rs] if isinstance(v, torch.Tensor) else v


def uniform_indices(x: torch.Tensor, range_a, bits: int) -> torch.Tensor:
    """Nearest-level indices (int32 ``[N, P]``) of ``x`` on the R-bit grid over ``[-A, A]``."""
    a = _check_range(per_client(range_a, x, "range_a"))
    top = float(2 ** _check_bits(bits) - 1)
    inv = (2 ** bits - 1) / (2.0 * a)
    out = torch.empty(x.shape, dtype=torch.int32, device=x.device)
    tbuf = torch.empty(CHUNK_ELEMENTS, dtype=x.dtype, device=x.device)
    for rs, cs in _chunks(x):
        t = tbuf[: (rs.stop - rs.start) * (cs.stop - cs.start)].view(rs.stop - rs.start, cs.stop - cs.start)
        torch.add(x[rs, cs], _rowparam(a, rs), out=t).mul_(_rowparam(inv, rs))  # (x + A)/Delta
        out[rs, cs] = t.round_().clamp_(0.0, top)
    return out


def dequantize_uniform(indices: torch.Tensor, range_a, bits: int, dtype=torch.float32) -> torch.Tensor:
    """Levels ``-A + k Delta`` of integer indices ``k`` ``[N, P]``."""
    a = _check_range(per_client(range_a, indices.to(dtype)[:, :1], "range_a"))
    delta = step_size(a, bits)
    out = torch.empty(indices.shape, dtype=dtype, device=indices.device)
    for rs, cs in _chunks(indices):
        out[rs, cs] = indices[rs, cs].to(dtype).mul_(_rowparam(delta, rs)).sub_(_rowparam(a, rs))
    return out


def quantize_uniform(x: torch.Tensor, range_a, bits: int) -> torch.Tensor:
    """``Q(x)``: nearest R-bit level over ``[-A, A]`` (values outside go to the end levels)."""
    a = _check_range(per_client(range_a, x, "range_a"))
    top = float(2 ** _check_bits(bits) - 1)
    delta = step_size(a, bits)
    inv = (2**bits - 1) / (2.0 * a)  # the same expression as uniform_indices (ties round alike)
    out = torch.empty_like(x)
    tbuf = torch.empty(CHUNK_ELEMENTS, dtype=x.dtype, device=x.device)
    for rs, cs in _chunks(x):
        ar, dr = _rowparam(a, rs), _rowparam(delta, rs)
        t = tbuf[: (rs.stop - rs.start) * (cs.stop - cs.start)].view(rs.stop - rs.start, cs.stop - cs.start)
        torch.add(x[rs, cs], ar, out=t).mul_(_rowparam(inv, rs)).round_().clamp_(0.0, top)
        torch.sub(t.mul_(dr), ar, out=out[rs, cs])
    return out


def _stochastic(x, range_a, bits, generator, out_dtype):
    """Stochastic rounding of every chunk: indices (``out_dtype`` int32) or levels (float ``out_dtype``)."""
    a = _check_range(per_client(range_a, x, "range_a"))
    top = float(2 ** _check_bits(bits) - 1)
    inv = (2 ** bits - 1) / (2.0 * a)
    delta = step_size(a, bits)
    out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    tbuf = torch.empty(CHUNK_ELEMENTS, dtype=x.dtype, device=x.device)
    ubuf = torch.empty(CHUNK_ELEMENTS, dtype=x.dtype, device=draw_device(generator, x))
    for rs, cs in _chunks(x):
        shape = (rs.stop - rs.start, cs.stop - cs.start)
        t, u = tbuf[: shape[0] * shape[1]].view(shape), ubuf[: shape[0] * shape[1]].view(shape)
        torch.add(x[rs, cs], _rowparam(a, rs), out=t).mul_(_rowparam(inv, rs)).clamp_(0.0, top)  # clip(x) to [-A, A]
        u.uniform_(generator=generator)
        t.add_(u.to(x.device)).floor_()  # floor(t + u) = floor(t) + Bernoulli(frac t); t <= top, u < 1: stays <= top
        if out_dtype.is_floating_point:
            torch.sub(t.mul_(_rowparam(delta, rs)), _rowparam(a, rs), out=out[rs, cs])
        else:
            out[rs, cs] = t
    return out


def stochastic_indices(x: torch.Tensor, range_a, bits: int, generator: torch.Generator) -> torch.Tensor:
    """Unbiased stochastic-rounding indices (int32) on the R-bit grid over ``[-A, A]``."""
    return _stochastic(x, range_a, bits, generator, torch.int32)


def quantize_stochastic(x: torch.Tensor, range_a, bits: int, generator: torch.Generator) -> torch.Tensor:
    """Unbiased stochastic rounding to the R-bit grid over ``[-A, A]`` (``E[Q(x)] = clip(x, -A, A)``);
    equals ``dequantize_uniform(stochastic_indices(x, ...))`` for the same generator state."""
    return _stochastic(x, range_a, bits, generator, x.dtype)


def gaussian_dither_steps(shape, sigma: float, generator: torch.Generator, dtype=torch.float32, device="cpu") -> torch.Tensor:
    """Per-coordinate steps ``2 sigma sqrt(2 G)``, ``G ~ Gamma(3/2, 1)``: with them the subtractive-dither
    error is exactly N(0, sigma^2) (a uniform scale mixture with chi_3 half-widths)."""
    if not sigma > 0:
        raise ValueError(f"sigma must be > 0, got {sigma!r}")
    # Gamma(3/2, 1) = chi^2_3 / 2, drawn as half the sum of three squared standard normals
    z = torch.randn((3, *shape), generator=generator, dtype=dtype, device=generator.device).to(device)
    g = z.square_().sum(0).mul_(0.5)
    return g.mul_(2.0).sqrt_().mul_(2.0 * sigma)


def subtractive_dither(x: torch.Tensor, step, generator: torch.Generator, with_indices: bool = True):
    """(indices int64 or None, reconstruction) of subtractive dithered quantisation with step ``step``
    (float, per client ``[N]``, or per coordinate ``[N, P]``): ``k = round((x + U)/step)``,
    reconstruction ``k step - U``, ``U ~ U(-step/2, step/2)`` drawn chunk by chunk from ``generator``.
    ``with_indices=False`` skips materialising the integer codes (the receiver's view only)."""
    coord = isinstance(step, torch.Tensor) and step.shape == x.shape
    s = step if coord else per_client(step, x, "step")
    if (isinstance(s, float) and not s > 0) or (isinstance(s, torch.Tensor) and not bool((s > 0).all())):
        raise ValueError("dither step must be > 0")
    if x.dim() != 2:
        raise ValueError(f"expects a stacked [N, P] tensor, got shape {tuple(x.shape)}")
    k_out = torch.empty(x.shape, dtype=torch.int64, device=x.device) if with_indices else None
    rec = torch.empty_like(x)
    ubuf = torch.empty(CHUNK_ELEMENTS, dtype=x.dtype, device=draw_device(generator, x))
    for rs, cs in _chunks(x):
        sc = s[rs, cs] if coord else _rowparam(s, rs)
        shape = (rs.stop - rs.start, cs.stop - cs.start)
        u = ubuf[: shape[0] * shape[1]].view(shape).uniform_(generator=generator).to(x.device)
        u = u.sub_(0.5).mul_(sc)  # U ~ U(-step/2, step/2)
        k = torch.add(x[rs, cs], u).div_(sc).round_()
        if with_indices:
            k_out[rs, cs] = k
        torch.sub(k.mul_(sc), u, out=rec[rs, cs])
    return k_out, rec


# ---- upload transforms --------------------------------------------------------------------------------
def uniform_quantizer(range_a, bits: int) -> Transform:
    """Upload transform: deterministic nearest-level R-bit quantisation over ``[-A, A]``."""
    _check_bits(bits)

    def apply(x, rng=None):
        return quantize_uniform(x, range_a, bits)

    apply.__name__ = f"uniform_quantizer(R={bits})"
    return apply


def stochastic_quantizer(range_a, bits: int, purpose: str = "quantize") -> Transform:
    """Upload transform: unbiased stochastic rounding to the R-bit grid over ``[-A, A]``."""
    _check_bits(bits)

    def apply(x, rng):
        return quantize_stochastic(x, range_a, bits, generator_of(rng, purpose))

    apply.__name__ = f"stochastic_quantizer(R={bits})"
    return apply


def dithered_quantizer(step, purpose: str = "quantize") -> Transform:
    """Upload transform: subtractive dithered quantisation (returns the receiver's reconstruction)."""

    def apply(x, rng):
        return subtractive_dither(x, step, generator_of(rng, purpose), with_indices=False)[1]

    apply.__name__ = "dithered_quantizer"
    return apply
