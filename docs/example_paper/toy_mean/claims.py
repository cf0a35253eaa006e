"""toy_mean claims: each a small named function with its thresholds as named constants."""

from __future__ import annotations

import math

from repro.claims import ClaimSet, curves_by_seed, direction, edit, exact, need, number, per_seed, unchanged
from repro.stats import spearman

CLAIMS = ClaimSet("toy_mean")
PAPER_RMSE_AT_EPS1 = 0.05      # "paper" value (Sec. 4)
RMSE_RTOL = 0.10               # the paper prints one significant digit
SIGMA_RTOL = 1e-12             # closed form: rounding only


def _rmse(tables):
    return need(tables, "fig1", series="measured", metric="rmse")


@CLAIMS.claim("C1", figures="fig1", kind="direction",
              paper_says="'the error falls as epsilon grows' (Sec. 4)",
              tests="per seed, Spearman correlation of RMSE with epsilon; the paper's direction is negative",
              refute=lambda t, p: (edit(t, "fig1", lambda v: 1.0 / v, series="measured"), p),
              support=lambda t, p: (edit(t, "fig1", lambda r: 1.0 / r["x"].astype(float), rows=True, series="measured"), p))
def error_falls_with_epsilon(tables, params):
    rho = {s: spearman(c.index, c.values) for s, c in curves_by_seed(_rmse(tables)).items()}
    return direction(list(rho.values()), expect="negative", details={"spearman_per_seed": rho})


@CLAIMS.claim("C2", figures="fig1", kind="exact",
              paper_says="sigma = sqrt(2 ln(1.25/delta)) / (n eps) (eq. (3))",
              tests="the plotted closed-form sigma at eps = 1 against the formula",
              refute=lambda t, p: (edit(t, "fig1", lambda v: v * 1.01, series="closed form"), p),
              support=unchanged)
def sigma_closed_form(tables, params):
    got = need(tables, "fig1", series="closed form", x=1.0)["value"].iloc[0]
    want = math.sqrt(2 * math.log(1.25 / params["delta"])) / params["n"]
    return exact(got, want, rtol=SIGMA_RTOL)


@CLAIMS.claim("C3", figures="fig1", kind="number",
              paper_says="'at eps = 1 the RMSE is 0.05' (Table 1)",
              tests="seed-mean RMSE at eps = 1 against 0.05 +- 10 %",
              refute=lambda t, p: (edit(t, "fig1", lambda v: v * 3, series="measured", x=1.0), p),
              support=lambda t, p: (edit(t, "fig1", lambda v: v * 0 + PAPER_RMSE_AT_EPS1, series="measured", x=1.0), p))
def rmse_at_eps1(tables, params):
    return number(per_seed(_rmse(tables), x=1.0), PAPER_RMSE_AT_EPS1, rtol=RMSE_RTOL)
