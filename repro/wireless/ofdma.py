"""One OFDMA round: per-(client, subchannel) uplink and per-client downlink SNR, bit errors and rates.

Stacked over clients: uplink arrays are ``[N, K]``, downlink arrays ``[N]``. Small-scale fading is
Rayleigh (:func:`repro.wireless.fading.rayleigh_power_gains`), i.i.d. over rounds, clients,
subchannels and directions; the large-scale gain is fixed by the client distances.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from repro.wireless.channel import LinkBudget, dbm_to_watt
from repro.wireless.fading import rayleigh_power_gains
from repro.wireless.qam import qam_ber, word_error_probability


@dataclass
class LinkState:
    """Quantities of one direction of one round (arrays of equal shape)."""

    snr: np.ndarray
    ber: np.ndarray  # eq. (13)
    word_error: np.ndarray  # rho, eq. (14)
    rate: np.ndarray  # eq. (11), bit/s


@dataclass
class OfdmaChannel:
    """The uplink/downlink channel of N clients at fixed distances (wpfl_minmax Sec. II-C).

    ``bits`` is the quantizer word length R (for rho), ``qam_order`` the constellation size,
    ``snr_per`` how eq. (13) reads the SNR of eq. (12) (:func:`repro.wireless.qam.qam_ber`: ``"symbol"``,
    the receive SNR is ``Es/N0``; ``"bit"``, as printed). ``error_free=True`` reports zero BER but keeps
    the rates.
    """

    budget: LinkBudget
    distances_m: np.ndarray
    bits: int = 16
    qam_order: int = 256
    error_free: bool = False
    snr_per: str = "symbol"

    def __post_init__(self):
        self.distances_m = np.asarray(self.distances_m, dtype=np.float64)
        self._mean_gain = self.budget.mean_gain(self.distances_m)

    @property
    def num_clients(self) -> int:
        return int(self.distances_m.shape[0])

    def _link(self, power_w, small_scale: np.ndarray) -> LinkState:
        gain = small_scale * self._mean_gain.reshape((-1,) + (1,) * (small_scale.ndim - 1))
        snr = self.budget.snr(power_w, gain)
        ber = np.zeros_like(snr) if self.error_free else qam_ber(snr, self.qam_order, self.snr_per)
        return LinkState(snr=snr, ber=ber, word_error=word_error_probability(ber, self.bits), rate=self.budget.rate(snr))

    def uplink(self, generator: torch.Generator, power_dbm: float | np.ndarray | None = None) -> LinkState:
        """Draw one round's uplink: arrays ``[N, K]`` (client power ``P_n``, default full power)."""
        p = dbm_to_watt(self.budget.client_power_dbm if power_dbm is None else power_dbm)
        p = np.asarray(p, dtype=np.float64)
        if p.ndim == 1:
            p = p[:, None]
        x = rayleigh_power_gains((self.num_clients, self.budget.num_subchannels), generator).numpy()
        return self._link(p, x)

    def downlink(self, generator: torch.Generator) -> LinkState:
        """Draw one round's downlink: arrays ``[N]`` (BS power per subchannel, one draw per client)."""
        x = rayleigh_power_gains((self.num_clients,), generator).numpy()
        return self._link(dbm_to_watt(self.budget.dl_power_dbm), x)
