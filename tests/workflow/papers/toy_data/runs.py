"""toy_data run tasks."""

import time

from repro.data import DatasetUnavailableError, load_dataset
from repro.experiment import unavailable_result


def mean_pixel(spec, ctx) -> dict:
    try:
        ds = load_dataset("mnist")
    except DatasetUnavailableError as e:
        return unavailable_result(e.reason)
    return {"mean": {int(d): float(ds.test_x[ds.test_y == d].mean()) for d in spec.params["digits"]}}


def coin(spec, ctx) -> dict:
    time.sleep(spec.params["pause_s"])
    return {"heads": int(ctx.streams(spec).numpy("coin").integers(0, 2, 100).sum())}
