"""A run whose data cannot be split as it asks (a user's copy too small) records one line naming the dataset."""

from repro import experiment as ex
from repro import pipeline
from repro.data.partition import PartitionError


class _TooSmall:
    gpu = True

    def resolve(self):
        def task(spec, ctx):
            raise PartitionError("min_size=40 x num_clients=20 exceeds the 750 samples; lower min_size")
        return task


def test_a_partition_fault_is_an_unavailable_result_naming_the_dataset(monkeypatch):
    monkeypatch.setattr(ex, "tasks", lambda slug: {"train_group": _TooSmall()})
    spec = ex.RunSpec("wpfl_minmax", "train_group", {"config": "cnn_cifar10"})
    ctx = ex.RunContext(profile="smoke", run_id=spec.run_id, log=lambda m: None)
    res = pipeline._execute_task("wpfl_minmax", spec, ctx)
    assert ex.is_unavailable(res)
    assert res["reason"].startswith("dataset cifar10: the copy provided is too small") and "750 samples" in res["reason"]
