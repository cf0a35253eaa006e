"""toy_data: fig1 (needs MNIST) and fig2 (synthetic, no dataset)."""

from repro.experiment import FigureSpec, RunSpec, Task

SLUG = "toy_data"
TASKS = {"mean_pixel": Task("repro.papers.toy_data.runs:mean_pixel"),
         "coin": Task("repro.papers.toy_data.runs:coin")}


def figures(params: dict) -> list[FigureSpec]:
    pixel = [RunSpec(SLUG, "mean_pixel", {"digits": params["digits"]}, seed=0)]
    coin = [RunSpec(SLUG, "coin", {"pause_s": params["pause_s"]}, seed=int(s)) for s in params["seeds"]]
    return [FigureSpec(SLUG, "fig1", "Mean pixel per digit", runs=pixel, paper_ref="Fig. 1", datasets=("mnist",)),
            FigureSpec(SLUG, "fig2", "Fair coin", runs=coin, paper_ref="Fig. 2")]
