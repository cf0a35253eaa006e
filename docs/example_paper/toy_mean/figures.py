"""toy_mean figures: RENDERERS = {fig_id: fn(fig, results, ctx) -> Rendered}."""

from __future__ import annotations

from repro.experiment import Rendered
from repro.plotting import subplots, suptitle
from repro.results import tidy_frame


def _fig1(fig, results, ctx) -> Rendered:
    rows = []
    for rid, res in sorted(results.items()):
        seed = next(r.seed for r in fig.runs if r.run_id == rid)
        for pt in res["curve"]:
            rows.append(dict(figure="fig1", panel="a", series="measured", x=pt["epsilon"], metric="rmse", value=pt["rmse"],
                             seed=seed, run_id=rid))
            rows.append(dict(figure="fig1", panel="a", series="closed form", x=pt["epsilon"], metric="sigma",
                             value=pt["sigma"], seed=-1, run_id=rid))
    df = tidy_frame(rows).drop_duplicates(subset=["series", "x", "metric", "seed"])
    f, axes = subplots(1, 1)
    ax = axes[0, 0]
    m = df[df.series == "measured"].groupby("x")["value"]
    ax.errorbar(m.mean().index, m.mean(), yerr=m.std(), marker="o", label="measured RMSE (mean +- s.d. over seeds)")
    c = df[df.series == "closed form"].set_index("x")["value"].sort_index()
    ax.plot(c.index, c.values, "--", label="sigma (closed form)")
    ax.set(xscale="log", yscale="log", xlabel="epsilon", ylabel="error of the mean")
    ax.legend()
    suptitle(f, f"{fig.paper_ref}: {fig.title}", ctx.profile)
    return Rendered(df, f)


RENDERERS = {"fig1": _fig1}
