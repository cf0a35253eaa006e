"""Over-the-air (OTA) aggregation on a block-fading multiple-access channel, as stacked tensors.

The clients' analog signals superpose in the air (eq. 10)::

    y = sum_i h_i x_i + h_CJ x_CJ + z,        z ~ N(0, sigma_c^2 I_d)

and the server scales by ``1/alpha_u`` (eq. 16/19). With channel inversion and phase compensation
(``x_i = alpha_i e^{-j arg h_i} Delta_i``, ``alpha_i`` of eq. 14) every ``h_i alpha_i`` is the real
``alpha_u p_i/(tau s_i)``, so the received global update equals, in the model domain::

    sum_i p_i Delta_i / (tau s_i) + n,     n ~ N(0, sigma_m^2 I_d),
    sigma_m^2 = sigma_c^2/alpha_u^2 + (alpha_CJ |h_CJ| / alpha_u)^2

:func:`ota_aggregate` computes that (one batched reduction over the client dimension; the clipping of
Assumption 1 is the shared ``repro.privacy.clip_rows``);
:func:`receive_channel_domain` simulates the complex channel itself, for checking the equivalence.
"""

from __future__ import annotations

import torch

__all__ = ["ota_aggregate", "effective_noise_std", "receive_channel_domain"]


def effective_noise_std(alpha_u: float, noise_std: float = 1.0, jammer_amplitude: float = 0.0,
                        jammer_channel_abs: float = 0.0) -> float:
    """``sigma_m = sqrt(sigma_c^2/alpha_u^2 + (alpha_CJ |h_CJ|/alpha_u)^2)`` (Appendix A's effective noise)."""
    if alpha_u <= 0:
        raise ValueError(f"alpha_u must be > 0, got {alpha_u!r}")
    return ((noise_std / alpha_u) ** 2 + (jammer_amplitude * jammer_channel_abs / alpha_u) ** 2) ** 0.5


def ota_aggregate(updates: torch.Tensor, weights: torch.Tensor, tau: float, s: torch.Tensor,
                  noise: torch.Tensor | None = None, noise_std: float = 0.0) -> torch.Tensor:
    """Model-domain OTA global update ``sum_i p_i Delta_i/(tau s_i) + noise_std * noise`` (eqs. 16/19).

    ``updates``: ``[K, d]`` (already clipped to norm tau); ``weights`` p_i and ``s`` (>= 1): ``[K]``;
    ``noise``: a standard-normal ``[d]`` vector (drawn by the caller from its DP-noise stream, so
    methods can share common random numbers). ``noise_std = 0`` gives the noiseless aggregate.
    """
    if updates.ndim != 2:
        raise ValueError(f"updates must be [K, d], got shape {tuple(updates.shape)}")
    coef = (weights / (tau * s)).to(updates.dtype)
    out = coef @ updates
    if noise_std > 0:
        if noise is None or noise.shape != out.shape:
            raise ValueError(f"noise must be a standard-normal vector of shape {tuple(out.shape)}")
        out = out + noise_std * noise.to(out.dtype)
    return out


def receive_channel_domain(updates: torch.Tensor, h: torch.Tensor, amplitudes: torch.Tensor, alpha_u: float,
                           z: torch.Tensor | None = None, h_cj: complex = 0j, jammer: torch.Tensor | None = None
                           ) -> torch.Tensor:
    """Complex channel: ``(sum_i h_i x_i + h_CJ x_CJ + z)/alpha_u`` with ``x_i = alpha_i e^{-j arg h_i} Delta_i``.

    ``h``: complex ``[K]``; ``amplitudes`` alpha_i ``[K]``; ``z``: complex receiver noise ``[d]``;
    ``jammer``: the jammer's signal ``x_CJ`` ``[d]``. Returns the complex ``[d]`` estimate; its real
    part is the model-domain aggregate (for checking :func:`ota_aggregate`).
    """
    phase = torch.exp(-1j * torch.angle(h))
    x = (amplitudes.to(h.dtype) * phase)[:, None] * updates.to(h.dtype)  # eq. (13) with phase compensation
    y = (h[:, None] * x).sum(0)  # eq. (10)
    if jammer is not None:
        y = y + h_cj * jammer.to(h.dtype)
    if z is not None:
        y = y + z
    return y / alpha_u
