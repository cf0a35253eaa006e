"""A test-only paper whose first figure needs MNIST and whose second needs no dataset.

It exists to test the workflow's data handling (tests/workflow/test_data_availability.py): a run whose
dataset is missing records "unavailable", its panel is marked, its claim is not evaluated; once the
data is provided, exactly that run (and what is built on it) reruns.
"""

from repro.experiment import PaperInfo

PAPER = PaperInfo(slug="toy_data", title="A test paper: mean pixel of MNIST digits", short_title="toy: data", order=998)
