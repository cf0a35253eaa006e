"""toy_data figures."""

from repro.experiment import Rendered, is_unavailable
from repro.plotting import mark_unavailable, subplots, suptitle
from repro.results import tidy_frame


def _fig1(fig, results, ctx) -> Rendered:
    f, axes = subplots(1, 1)
    rows = []
    for rid, res in results.items():
        if is_unavailable(res):
            mark_unavailable(axes[0, 0], res["reason"])
            continue
        rows += [dict(figure="fig1", series="mean pixel", x=int(d), metric="mean", value=v, seed=0, run_id=rid)
                 for d, v in res["mean"].items()]
        axes[0, 0].bar([int(d) for d in res["mean"]], list(res["mean"].values()))
    suptitle(f, fig.title, ctx.profile)
    return Rendered(tidy_frame(rows), f)


def _fig2(fig, results, ctx) -> Rendered:
    f, axes = subplots(1, 1)
    seed = {r.run_id: r.seed for r in fig.runs}
    rows = [dict(figure="fig2", series="coin", x=0, metric="heads", value=res["heads"], seed=seed[rid], run_id=rid)
            for rid, res in results.items()]
    axes[0, 0].bar(range(len(rows)), [r["value"] for r in rows])
    suptitle(f, fig.title, ctx.profile)
    return Rendered(tidy_frame(rows), f)


RENDERERS = {"fig1": _fig1, "fig2": _fig2}
