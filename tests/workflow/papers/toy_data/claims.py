"""toy_data claims: one per figure."""

from repro.claims import ClaimSet, edit, need, number

CLAIMS = ClaimSet("toy_data")
ONE_BRIGHTER = 1.0  # "paper": the digit 0 has more ink than the digit 1 (ratio > 1)


@CLAIMS.claim("C1", figures="fig1", kind="number", paper_says="test fixture", tests="ratio of mean ink of 0 to 1",
              refute=lambda t, p: (edit(t, "fig1", lambda v: v * 0 + 1e-3, series="mean pixel", x=0), p),
              support=lambda t, p: (t, p))
def zero_has_more_ink(tables, params):
    m = need(tables, "fig1", series="mean pixel").set_index("x")["value"]
    return number(float(m[0] / m[1]), 2.0, rtol=0.5, deterministic=True)


@CLAIMS.claim("C2", figures="fig2", kind="number", paper_says="test fixture", tests="mean heads of 100 flips",
              refute=lambda t, p: (edit(t, "fig2", lambda v: v * 0, series="coin"), p), support=lambda t, p: (t, p))
def fair_coin(tables, params):
    return number(list(need(tables, "fig2", series="coin")["value"]), 50.0, rtol=0.3)
