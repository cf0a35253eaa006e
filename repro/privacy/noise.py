"""Gaussian and Laplace noise on stacked uploads ``[N, P]`` with a per-client scale.

Noise is drawn *standard* (N(0, 1), or Laplace with unit scale b = 1) from an explicit generator and
then multiplied by the client's scale, so runs that differ only in sigma share noise directions
(common random numbers, DP-Ditto §2.4). A scale of 0 gives exactly ``x``.
"""

from __future__ import annotations

import torch

from repro.privacy.chain import CHUNK_ELEMENTS, Transform, draw_device, generator_of, per_client, row_chunks


def _check_scale(scale, name):
    if isinstance(scale, torch.Tensor):
        if bool((scale < 0).any()) or not bool(torch.isfinite(scale).all()):
            raise ValueError(f"{name} must be finite and >= 0 for every client, got {scale.flatten().tolist()[:8]}")
    elif not (scale >= 0 and scale < float("inf")):
        raise ValueError(f"{name} must be finite and >= 0, got {scale!r}")


def add_gaussian(x: torch.Tensor, sigma, generator: torch.Generator, *, row_scale=None, link=None) -> torch.Tensor:
    """``x + sigma_n * xi``, ``xi ~ N(0, I)`` per row; ``sigma`` a float, one value per row, or one per client
    of the population (picked by ``link.clients``).

    ``row_scale`` (float or ``[N]``, optional) multiplies ``x`` first: ``row_scale_n x_n + sigma_n xi``
    (used by the fused clip + noise kernel). The noise is drawn chunk by chunk (row-major order, so the
    result depends only on the generator state and the shape) and combined while the chunk is in cache.
    """
    s = per_client(sigma, x, "sigma", link)
    _check_scale(s, "sigma")
    f = per_client(1.0 if row_scale is None else row_scale, x, "row_scale", link)
    if x.dim() != 2:
        raise ValueError(f"expects a stacked [N, P] tensor, got shape {tuple(x.shape)}")
    out = torch.empty_like(x)
    s_rows = s.flatten().tolist() if isinstance(s, torch.Tensor) else [s] * x.shape[0]
    f_rows = f.flatten().tolist() if isinstance(f, torch.Tensor) else [f] * x.shape[0]
    flat_buf = torch.empty(CHUNK_ELEMENTS, dtype=x.dtype, device=draw_device(generator, x))
    for rs, cs in row_chunks(x):
        buf = flat_buf[: (rs.stop - rs.start) * (cs.stop - cs.start)].view(rs.stop - rs.start, cs.stop - cs.start)
        buf.normal_(generator=generator)
        buf = buf.to(x.device)
        o = out[rs, cs]
        if rs.stop - rs.start == 1:  # one row: scalars, two fused passes in cache
            torch.add(buf.mul_(s_rows[rs.start]), x[rs, cs], alpha=f_rows[rs.start], out=o)
        else:
            sc = s[rs] if isinstance(s, torch.Tensor) else s
            fc = f[rs] if isinstance(f, torch.Tensor) else f
            torch.add(buf.mul_(sc), x[rs, cs] * fc, out=o)
    return out


def add_population_gaussian(x: torch.Tensor, sigma, generator: torch.Generator, link) -> torch.Tensor:
    """``x + sigma_n * xi_n`` where the round's standard noise is drawn for the whole population ``[N, P]``
    at once (on the generator's device) and row k takes client ``link.clients[k]``'s row: a client's noise
    does not depend on who else takes part in the round (common random numbers across schedules and
    across runs that differ only in sigma, DP-Ditto's eq. (8) uploads)."""
    n = getattr(link, "population", None)
    if n is None:
        raise ValueError("population-wide noise needs a Link with clients and population")
    s = per_client(sigma, x, "sigma", link)
    _check_scale(s, "sigma")
    xi = torch.randn(n, x.shape[1], generator=generator, dtype=x.dtype, device=generator.device).to(x.device)
    return x + s * xi[torch.as_tensor(link.clients, dtype=torch.int64).to(x.device)]


def add_laplace(x: torch.Tensor, scale, generator: torch.Generator, link=None) -> torch.Tensor:
    """``x + b_n * L``, ``L`` standard Laplace (density exp(-|l|)/2) per element; ``scale`` b a float or ``[N]``.

    Drawn by inversion from one uniform per element: ``L = -sign(u) * log(1 - 2|u|)``, u ~ U(-1/2, 1/2).
    """
    b = per_client(scale, x, "scale", link)
    _check_scale(b, "scale")
    u = torch.rand(x.shape, generator=generator, dtype=x.dtype, device=generator.device).to(x.device) - 0.5
    lap = -torch.sign(u) * torch.log1p(-2.0 * u.abs())
    return x + lap * b


def gaussian_noise(sigma, purpose: str = "dp_noise", *, population: bool = False) -> Transform:
    """Transform adding N(0, sigma_n^2) to every coordinate of client n's row. With ``population=True``
    the round's noise is drawn for every client of the population and each row takes its client's
    (:func:`add_population_gaussian`); otherwise it is drawn for the rows, chunk by chunk."""

    def apply(x: torch.Tensor, link) -> torch.Tensor:
        g = generator_of(link, purpose)
        if population:
            return add_population_gaussian(x, sigma, g, link)
        return add_gaussian(x, sigma, g, link=link)

    apply.__name__ = "gaussian_noise"
    return apply


def laplace_noise(scale, purpose: str = "dp_noise") -> Transform:
    """Upload transform adding Laplace(0, b_n) to every coordinate of client n's row."""

    def apply(x: torch.Tensor, link) -> torch.Tensor:
        return add_laplace(x, scale, generator_of(link, purpose), link)

    apply.__name__ = "laplace_noise"
    return apply
