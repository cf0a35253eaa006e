"""Cellular link budget: client placement, log-distance path loss, noise power and SNR.

Conventions (wpfl_minmax Table I, eqs. (11)-(12)): path loss in dB ``PL(d) = PL0 - 10 a log10(d / 1 m)``
(``PL0 = -30`` dB, ``a = 2.8``), channel power gain ``|h|^2 = 10^(PL/10) X`` with Rayleigh
``X ~ Exp(1)`` (:mod:`repro.wireless.fading`), noise power ``sigma0^2 = N0 B``, SNR
``gamma = P |h|^2 / sigma0^2``. Powers in watts unless the name says dBm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def dbm_to_watt(dbm):
    """``10^((dBm - 30)/10)`` watts."""
    return 10.0 ** ((np.asarray(dbm, dtype=np.float64) - 30.0) / 10.0)


def db_to_linear(db):
    return 10.0 ** (np.asarray(db, dtype=np.float64) / 10.0)


def linear_to_db(x):
    return 10.0 * np.log10(np.asarray(x, dtype=np.float64))


def path_loss_db(distance_m, pl0_db: float = -30.0, exponent: float = 2.8):
    """Log-distance path loss (a gain in dB, negative): ``pl0_db - 10 exponent log10(d)``."""
    d = np.asarray(distance_m, dtype=np.float64)
    if np.any(d <= 0):
        raise ValueError("distances must be > 0 m")
    return pl0_db - 10.0 * exponent * np.log10(d)


def uniform_distances(num_clients: int, rng: np.random.Generator, d_min: float = 10.0, d_max: float = 100.0) -> np.ndarray:
    """Client-BS distances ``d_n ~ U[d_min, d_max]`` metres (drawn once per run)."""
    if not 0 < d_min <= d_max:
        raise ValueError(f"need 0 < d_min <= d_max, got {d_min}, {d_max}")
    return rng.uniform(d_min, d_max, size=num_clients)


@dataclass(frozen=True)
class LinkBudget:
    """OFDMA link parameters; ``subchannel_bw_hz`` is ``B`` (total bandwidth / K)."""

    num_subchannels: int = 10
    total_bw_hz: float = 10e6
    noise_dbm_per_hz: float = -169.0
    client_power_dbm: float = 23.0
    bs_power_dbm: float = 30.0
    pl0_db: float = -30.0
    pl_exponent: float = 2.8
    dl_power_split: bool = True  # BS power split equally over the K subchannels (wpfl_minmax README, decisions)

    def __post_init__(self):
        if self.num_subchannels < 1:
            raise ValueError(f"num_subchannels must be >= 1, got {self.num_subchannels}")
        if self.total_bw_hz <= 0:
            raise ValueError(f"total_bw_hz must be > 0, got {self.total_bw_hz}")

    @property
    def subchannel_bw_hz(self) -> float:
        return self.total_bw_hz / self.num_subchannels

    @property
    def noise_power_w(self) -> float:
        """``sigma0^2 = N0 B`` (W)."""
        return float(dbm_to_watt(self.noise_dbm_per_hz) * self.subchannel_bw_hz)

    @property
    def dl_power_dbm(self) -> float:
        """BS transmit power per subchannel (dBm)."""
        return self.bs_power_dbm - (10.0 * np.log10(self.num_subchannels) if self.dl_power_split else 0.0)

    def mean_gain(self, distance_m) -> np.ndarray:
        """Large-scale power gain ``10^(PL(d)/10)`` per client."""
        return db_to_linear(path_loss_db(distance_m, self.pl0_db, self.pl_exponent))

    def snr(self, power_w, gain) -> np.ndarray:
        """Eq. (12): ``gamma = P |h|^2 / (N0 B)``."""
        return np.asarray(power_w, dtype=np.float64) * np.asarray(gain, dtype=np.float64) / self.noise_power_w

    def rate(self, snr) -> np.ndarray:
        """Eq. (11): Shannon rate ``B log2(1 + gamma)`` in bit/s."""
        return self.subchannel_bw_hz * np.log2(1.0 + np.asarray(snr, dtype=np.float64))


def min_rate(num_params: int, bits: int, max_delay_s: float) -> float:
    """Eq. (10): ``r_min = |w| R / tau_max`` (bit/s)."""
    if max_delay_s <= 0:
        raise ValueError(f"max_delay_s must be > 0, got {max_delay_s}")
    return num_params * bits / max_delay_s
