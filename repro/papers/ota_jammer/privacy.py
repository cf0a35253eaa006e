"""Nominal versus certified privacy of every private configuration the ota_jammer runs train.

The paper's accountant (eqs. 20/21) takes one sample's effect on the aggregate (16) to be
``1/(s_i |D|)``: a client's update treated as an average of per-sample terms of norm <= tau (one
gradient step, Appendix A). That is what a run with ``local_rule = one_step`` executes (per-sample
clipping, :mod:`repro.papers.ota_jammer.one_step`). With E local epochs of minibatch SGD and the update
clipped to tau, one sample can move the clipped update anywhere in the tau-ball: sensitivity
``2 p_i/s_i`` in the aggregate, ``2 |D_i|`` times the paper's (about 3,900 x for the largest client).

Each run logs the worst client's Gaussian-DP ``mu^2 = sum_m (sensitivity_i^m / sigma_m)^2`` under both
sensitivities (``mu2_update``, ``mu2_one_step``) and the equivalent noise std ``sigma_eff`` (M releases
at ``sigma_eff`` compose exactly as the M releases actually made). A :class:`Certificate` is built from
those: noise ``sigma_eff``, sensitivity ``sigma_eff sqrt(mu^2/M)``, M releases, no subsampling
(every client transmits every round), dp-accounting's RDP accountant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from repro.privacy.certify import Certificate

#: neighbouring datasets: ``zero_out`` = one sample replaced by a null sample that contributes nothing, |D_i| public
#: (what the paper's Appendix A bound 1/(s_i |D|) needs); ``replace_one`` = one sample altered (Sec. II-C's words),
#: which also covers add/remove with the realised normaliser 1/|D_i|.
ADJACENCIES = ("zero_out", "replace_one")
ADJACENCY_TEXT = {"zero_out": "zero-out adjacency (|D_i| public)", "replace_one": "replace-one adjacency"}
UPDATE_ASSUMPTION = ("E local epochs, update clipped to tau: one sample (zero-out or replace-one) can move a client's "
                     "clipped update anywhere in the tau-ball, so the aggregate moves by up to 2 p_i/s_i (worst client "
                     "and rounds)")
ONE_STEP_ASSUMPTION = {
    "zero_out": ("one gradient step per round with per-sample clipping C and lr tau/C: zeroing out one sample (the "
                 "paper's fixed, public 1/|D_i| normalisation) moves the aggregate by at most 1/(s_i |D|)"),
    "replace_one": ("one gradient step per round with per-sample clipping C and lr tau/C: replacing one sample moves "
                    "the clipped-gradient sum by up to 2C, the aggregate by up to 2/(s_i |D|)")}


#: configuration names (the privacy table's series; claims select on them)
NO_CJ_NAME = "Upcycled-FL / FedProx / FedAvg + proposed PC, no CJ"
ONE_STEP_NAME = "Upcycled-FL / FedAvg + proposed PC, one step"


def cj_name(eps: float, kappa: float | None = None) -> str:
    """Name of a jammer configuration: the paper's runs (``kappa`` None: its 7x) or the jammer at ``kappa`` x its bound."""
    return f"proposed PC + CJ, target eps {eps:g}" if kappa is None else f"proposed PC + CJ at {kappa:g}x its bound, target eps {eps:g}"


@dataclass(frozen=True)
class Configuration:
    """A private configuration of the runs (all seeds): how it is named and what the paper says of it."""

    key: tuple
    name: str
    short: str  # a few words, for figure subtitles
    panel: str  # the figures it appears in
    nominal_epsilon: float
    nominal_source: str
    delta: float
    one_step: bool


def configuration(p: dict, params: dict) -> Configuration:
    """The configuration of a private run's spec params ``p``."""
    one = p.get("local_rule") == "one_step"
    if p["data"] != "femnist":
        if p["mode"] == "baseline13":
            acc = p["baseline"]["accountant"]
            return Configuration(("iid", "b13", acc), f"[13] ({acc} accountant), synthetic i.i.d.", f"[13] {acc}", "fig9-10",
                                 p["baseline"]["epsilon"], "Sec. V-B: the same (0.15, 0.01) applied to [13]",
                                 p["baseline"]["delta"], False)
        return Configuration(("iid", "proposed"), "FedAvg + proposed PC, synthetic i.i.d.", "proposed", "fig9-10", p["eps0"],
                             "Sec. V-B: 'achieve a privacy budget eps = 0.15'", p["delta0"], False)
    if p["mode"] == "baseline13":
        b = p["baseline"]
        rule = "one step" if one else "E epochs"
        fig = "fig91" if one else ("fig2-5" if b["accountant"] == "ma" else ("fig2-3" if b["epsilon"] == p["eps0"] else "fig4-5"))
        return Configuration(("femnist", "b13", b["accountant"], b["epsilon"], b["delta"], one),
                             f"[13] ({b['accountant']} accountant, eps {b['epsilon']:g}, delta {b['delta']:g}), {rule}",
                             f"[13] {b['accountant']}", fig,
                             b["epsilon"], "Sec. V-A: 'we apply the same DP settings to the algorithm in [13]'", b["delta"], one)
    if one:
        return Configuration(("femnist", "proposed", None, True), ONE_STEP_NAME, "proposed", "fig91",
                             p["eps0"], "eq. (21) at the paper's no-CJ level", p["delta0"], True)
    if p.get("cj_epsilon") is None and p["eps0"] != params["eps0"]:
        e = p["eps0"]
        return Configuration(("femnist", "channel_only", e, False), f"FedAvg + proposed PC, receiver noise only, alpha_u for eps {e:g}",
                             f"channel only, eps {e:g}", "fig8", e, "package ablation: eq. (21) at this level without the jammer",
                             p["delta0"], False)
    if p.get("cj_epsilon") is None:
        return Configuration(("femnist", "proposed", None, False), NO_CJ_NAME,
                             "proposed, no CJ", "fig2-5", p["eps0"], "Sec. V-A: 'our designs achieve privacy level eps = 6.52' (eq. 21)",
                             p["delta0"], False)
    e, k = p["cj_epsilon"], p["kappa"]
    if k == params["kappa"]:
        return Configuration(("femnist", "cj", e, k, False), cj_name(e), f"CJ target {e:g}", "fig6-8", e,
                             f"Figs 6-8 legend 'eps = {e:g}' (jammer at {k:g}x the bound (22))", p["cj_delta"], False)
    return Configuration(("femnist", "cj", e, k, False), cj_name(e, k),
                         f"CJ {k:g}x bound, {e:g}", "fig6-8", e, f"eq. (22)-(23): the jammer at {k:g}x its bound for eps = {e:g}",
                         p["cj_delta"], False)


def certificate(cfg: Configuration, results: list[dict], one_step_sensitivity: bool | None = None,
                adjacency: str = "zero_out", delta: float | None = None) -> Certificate:
    """The certificate of ``cfg`` over its runs' results (the least private seed), under the sensitivity
    of what was run (default) or, with ``one_step_sensitivity=True``, under the paper's assumption;
    ``adjacency`` in :data:`ADJACENCIES` (it matters for the one-step sensitivity only); ``delta``: the
    delta to certify at (default: the configuration's)."""
    if adjacency not in ADJACENCIES:
        raise ValueError(f"adjacency {adjacency!r} not in {ADJACENCIES}")
    use_one = cfg.one_step if one_step_sensitivity is None else one_step_sensitivity
    key = "mu2_one_step" if use_one else "mu2_update"
    worst = max(results, key=lambda r: r[key])  # largest mu^2 = least private seed
    M = int(worst["num_transmissions"])
    sigma = float(worst["noise_std_eff"])
    factor = 2.0 if use_one and adjacency == "replace_one" else 1.0
    sens = factor * sigma * math.sqrt(float(worst[key]) / M)
    words = ONE_STEP_ASSUMPTION[adjacency] if use_one else UPDATE_ASSUMPTION
    if use_one and not cfg.one_step:
        words = "what the paper's accountant assumes (not what was run): " + words
    mech = (f"{cfg.name}: Gaussian receiver (+ jammer) noise on the over-the-air aggregate, {M} releases (every client "
            f"transmits every round, no subsampling), {ADJACENCY_TEXT[adjacency]}")
    return Certificate(mech, cfg.nominal_epsilon, cfg.nominal_source, sigma, sens, M, cfg.delta if delta is None else delta,
                       assumptions=words + f"; worst client, least private of {len(results)} run(s)")


def paper_epsilon(results: list[dict]) -> float:
    """Eq. (21) of the noise actually run (largest over seeds; the paper's s_i = 1 bound)."""
    return max(float(r["epsilon"]) for r in results)
