"""The epsilon a standard accountant certifies for the mechanism a run actually executed.

Papers state a *nominal* epsilon (the value their own formula was solved for). This module computes,
beside it, the epsilon that dp-accounting certifies for what was run: the Gaussian mechanism with
noise std ``noise_std`` on a query of L2 sensitivity ``sensitivity`` (the sensitivity of what was
really released: a clipped model, E local epochs, ...), composed ``releases`` times, optionally with
Poisson subsampling at ``sampling_rate``.

Guarantee: ``certified_epsilon`` is an upper bound on the epsilon at ``delta`` of that composition,
from dp-accounting's RDP accountant (default; Mironov 2017 with the conversion of Balle et al. 2020)
or its PLD accountant (``accountant="pld"``, tighter, slower). When the paper's noise certifies a
larger epsilon than it states, the report shows both, and figures mark it where they differ by more
than a factor of :data:`MARK_RATIO`.

>>> round(certified_gaussian_epsilon(noise_std=4.0, sensitivity=1.0, releases=1, delta=1e-5), 3)   # RDP bound
1.013
>>> round(certified_gaussian_epsilon(4.0, 1.0, 1, 1e-5, accountant="pld"), 3)   # exact for one release: 0.926
0.926
>>> c = Certificate("Gaussian upload", nominal_epsilon=1.0, nominal_source="eq. (8)", noise_std=4.0,
...                 sensitivity=1.0, releases=100, delta=1e-5)
>>> c.certified_epsilon > c.nominal_epsilon and c.flagged
True
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from repro.privacy.calibration import _check_delta, _check_positive, _check_rate, _check_steps, rdp_epsilon

#: nominal and certified epsilon that differ by more than this factor are marked on figures
MARK_RATIO = 2.0
ACCOUNTANTS = ("rdp", "pld")


def certified_gaussian_epsilon(noise_std: float, sensitivity: float, releases: int, delta: float,
                               sampling_rate: float = 1.0, accountant: str = "rdp") -> float:
    """Epsilon at ``delta`` of ``releases`` Gaussian releases (noise std / sensitivity = noise multiplier),
    Poisson-subsampled at ``sampling_rate``; ``inf`` when ``noise_std`` is 0.

    Raises ``ValueError`` naming the bad value (sensitivity <= 0, delta outside (0, 1), releases < 1, ...).
    """
    s = _check_positive("sensitivity", sensitivity)
    d = _check_delta(delta)
    t = _check_steps(releases)
    q = _check_rate(sampling_rate)
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"unknown accountant {accountant!r}; allowed: {', '.join(ACCOUNTANTS)}")
    sd = float(noise_std)
    if not sd >= 0 or math.isnan(sd):
        raise ValueError(f"noise_std must be >= 0, got {noise_std!r}")
    if sd == 0:
        return math.inf
    z = sd / s
    if accountant == "rdp":
        return rdp_epsilon(z, d, t, q)
    return _pld_epsilon(z, d, t, q)


def tight_gaussian_epsilon(z: float, releases: int, delta: float) -> float:
    """The exact eps at ``delta`` of ``releases`` Gaussian releases with noise multiplier ``z``, no subsampling.

    Their composition is one Gaussian mechanism with mu = sqrt(T) / z, whose privacy curve is
    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Balle & Wang 2018, Thm. 8); solved for eps
    (log-space, so large eps do not overflow). dp-accounting's PLD accountant gives the same value up to its
    discretisation, but is too slow for z < 0.05. Where the sensitivity is attained this is the mechanism's
    epsilon itself, not a bound: an RDP certificate above a stated level shows only that the level is not
    certified, this value above it that the level does not hold."""
    from scipy.optimize import brentq
    from scipy.special import log_ndtr  # log of the standard normal CDF (scipy.stats is slow to import)

    if z <= 0:
        return math.inf
    mu = math.sqrt(int(releases)) / float(z)

    def excess(e):
        return math.exp(log_ndtr(-e / mu + mu / 2)) - math.exp(e + log_ndtr(-e / mu - mu / 2)) - float(delta)

    if excess(0.0) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2
    return float(brentq(excess, 0.0, hi, xtol=1e-10, rtol=1e-12))


def _pld_epsilon(z: float, delta: float, steps: int, q: float) -> float:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    event = dp_accounting.GaussianDpEvent(z)
    if q < 1:
        event = dp_accounting.PoissonSampledDpEvent(q, event)
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    acc.compose(event, steps)
    return float(acc.get_epsilon(delta))


@dataclass
class Certificate:
    """Nominal versus certified privacy of one private configuration that was run.

    ``mechanism`` says in words what was released (what is clipped, who adds noise, how often);
    ``nominal_source`` where the paper's value comes from; ``assumptions`` what the accountant takes
    as given (e.g. "every client's upload is one release per round; sensitivity 2C/|D_n| of one sample").
    """

    mechanism: str
    nominal_epsilon: float
    nominal_source: str
    noise_std: float
    sensitivity: float
    releases: int
    delta: float
    sampling_rate: float = 1.0
    accountant: str = "rdp"
    assumptions: str = ""
    certified_epsilon: float = field(default=float("nan"))

    def __post_init__(self):
        if math.isnan(self.certified_epsilon):
            self.certified_epsilon = certified_gaussian_epsilon(self.noise_std, self.sensitivity, self.releases, self.delta,
                                                                self.sampling_rate, self.accountant)

    @property
    def ratio(self) -> float:
        """certified / nominal (> 1: the run is less private than the paper says)."""
        if not (self.nominal_epsilon > 0) or math.isinf(self.nominal_epsilon):
            return math.nan
        return self.certified_epsilon / self.nominal_epsilon

    @property
    def flagged(self) -> bool:
        """Nominal and certified differ by more than :data:`MARK_RATIO` (either way)."""
        r = self.ratio
        return math.isfinite(r) and (r > MARK_RATIO or r < 1 / MARK_RATIO) or math.isinf(self.certified_epsilon)

    def label(self) -> str:
        """Short text for a legend or subtitle: 'eps 10 (paper) / 13.97 certified (RDP)'."""
        return f"eps {self.nominal_epsilon:g} (paper) / {_fmt(self.certified_epsilon)} certified ({self.accountant.upper()})"

    def tidy_rows(self, figure: str, panel: str, series: str, x=None, seed: int = -1, run_id: str = "") -> list[dict]:
        """Rows for a paper's ``privacy`` table (tidy columns; metric = nominal_epsilon, certified_epsilon, ...)."""
        x = self.nominal_epsilon if x is None else x
        vals = {"nominal_epsilon": self.nominal_epsilon, "certified_epsilon": self.certified_epsilon, "delta": self.delta,
                "noise_multiplier": self.noise_std / self.sensitivity, "releases": self.releases,
                "sampling_rate": self.sampling_rate, "ratio": self.ratio}
        return [dict(figure=figure, panel=panel, series=series, x=x, metric=k, value=float(v), seed=seed, run_id=run_id)
                for k, v in vals.items()]

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ratio"] = self.ratio
        return d


def _fmt(v: float) -> str:
    if math.isinf(v):
        return "inf"
    return f"{v:.3g}" if v < 1e4 else f"{v:.2e}"
