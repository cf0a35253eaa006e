"""Nominal versus certified epsilon of DP-Ditto's uploads (eqs. (5)-(8)); README, D26.

What is released: in every round t = 1..T each client n uploads u~_n = clip_C(u_n) + N(0, sigma_u,n^2 I)
(eq. (5), step 7 of Algorithm 1); the server (the adversary of Sec. 3.2) sees every upload. All clients
take part in every round and use all their data: T releases per client, no subsampling. (Eq. (8) plugs
q = 1/N into a subsampled-Gaussian bound, but no client's data is subsampled.)

Sensitivity. Eq. (7) derives Delta s = 2C/|D_n| for a local model that is the average over its |D_n|
samples of per-sample minimisers each of norm <= C. The model DP-Ditto uploads is one SGD trajectory
clipped once as a whole, so what bounds one sample's influence on it is the clipping alone: 2C. The
certificates therefore come in four readings (``VIEWS``):

* ``eq7``: per upload, Delta s = 2C/|D_n| with the paper profile's |D_n| (granting eq. (7); the reading
  eq. (8) was solved for, except that it composes T full releases);
* ``eq7_held``: the same with the samples the client actually trains on (differs in a profile that trains
  on a subsample while keeping the paper's noise);
* ``clip``: per upload, Delta s = 2C, the sensitivity the executed mechanism guarantees;
* ``sum``: only the sum of the N uploads is released (noise sigma_z = sqrt(sum_n sigma_u,n^2), Delta s of
  eq. (7)); this needs secure aggregation, which the paper's threat model does not have.

For a per-client reading the worst client (smallest noise multiplier) is certified. The RDP accountant gives an
upper bound; ``eq7_tight`` is the exact (eps, delta) of the same T Gaussian releases (what a PLD accountant
converges to; ``repro.privacy.certify.tight_gaussian_epsilon``).
"""

from __future__ import annotations

import math

import numpy as np

from repro.privacy.certify import Certificate, tight_gaussian_epsilon

VIEWS = {
    "eq7": "per upload, Delta s = 2C/|D_n| (eq. (7), the paper profile's |D_n|)",
    "eq7_held": "per upload, Delta s = 2C/|D_n| with the samples the client trains on",
    "clip": "per upload, Delta s = 2C (the clipped model: what the executed mechanism guarantees)",
    "eq7_tight": "as eq7, exact (eps, delta) of the T Gaussian releases (PLD value; the RDP column is an upper bound)",
    "sum": "sum of the N uploads only (secure aggregation; not in the paper's threat model), Delta s of eq. (7)",
}
PRIMARY = "eq7"


def job_certificates(epsilon: float, clip: float, rounds: int, delta: float, sigma: list[float], split: list[int],
                     held: list[int]) -> dict[str, Certificate]:
    """The four readings of ``VIEWS`` for one private training (per-client noise ``sigma``, training-split
    sizes ``split`` and samples held ``held``)."""
    sig = np.asarray(sigma, float)
    split_a, held_a = np.asarray(split, float), np.asarray(held, float)
    src = "eq. (8)"

    def worst(sens):
        z = sig / sens
        i = int(np.argmin(z))
        return float(sig[i]), float(sens[i])

    out = {}
    for view, sens in (("eq7", 2 * clip / split_a), ("eq7_held", 2 * clip / held_a), ("clip", np.full_like(sig, 2 * clip))):
        s, d = worst(sens)
        out[view] = Certificate(VIEWS[view], nominal_epsilon=float(epsilon), nominal_source=src, noise_std=s, sensitivity=d,
                                releases=int(rounds), delta=float(delta),
                                assumptions="every client uploads once per round for T rounds; no subsampling; worst client")
    e = out["eq7"]
    out["eq7_tight"] = Certificate(VIEWS["eq7_tight"], nominal_epsilon=float(epsilon), nominal_source=src, noise_std=e.noise_std,
                                   sensitivity=e.sensitivity, releases=int(rounds), delta=float(delta), accountant="pld",
                                   assumptions=e.assumptions,
                                   certified_epsilon=tight_gaussian_epsilon(e.noise_std / e.sensitivity, int(rounds), float(delta)))
    sens_sum = float(np.max(2 * clip / split_a))
    out["sum"] = Certificate(VIEWS["sum"], nominal_epsilon=float(epsilon), nominal_source=src,
                             noise_std=float(math.sqrt(float((sig**2).sum()))), sensitivity=sens_sum, releases=int(rounds),
                             delta=float(delta), assumptions="the server sees only the sum of the uploads; T releases")
    return out


def short(v: float) -> str:
    if math.isinf(v):
        return "inf"
    return f"{v:.3g}" if v < 1e4 else f"{v:.1e}"


def figure_note(certs_by_eps: dict[float, dict[str, Certificate]]) -> str:
    """One line for a figure: nominal eps and the certified eps where they differ by more than 2x."""
    parts = []
    for eps in sorted(certs_by_eps):
        c = certs_by_eps[eps]
        prim = c[PRIMARY]
        if not (prim.flagged or c["clip"].flagged):
            continue
        held = "" if abs(c["eq7_held"].certified_epsilon / prim.certified_epsilon - 1) < 1e-6 else \
            f", {short(c['eq7_held'].certified_epsilon)} at the samples held"
        parts.append(f"eps {eps:g} (paper's nominal): certified {short(c['eq7_tight'].certified_epsilon)} (RDP bound "
                     f"{short(prim.certified_epsilon)}) with eq. (7)'s Delta s{held}, "
                     f"{short(c['clip'].certified_epsilon)} with Delta s = 2C")
    if not parts:
        return ""
    return "Privacy (T uploads per client; tight Gaussian composition, RDP upper bound in brackets): " + ";\n".join(parts)
