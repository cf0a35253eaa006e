"""A toy paper: the private mean of bounded values with the Gaussian mechanism (the adding-a-paper example).

Its "paper" claims (1) that the squared error of the private mean falls as epsilon grows, (2) that the
classic Gaussian mechanism's noise std is sqrt(2 ln(1.25/delta)) / (n epsilon) for values in [0, 1], and
(3) that at epsilon = 1 the root-mean-square error is 0.05 for n = 100. numpy only.
"""

from repro.experiment import PaperInfo

PAPER = PaperInfo(
    slug="toy_mean",
    title="A toy paper: the private mean of bounded values",
    short_title="toy: private mean",
    reference="docs/adding_a_paper.md",
    order=999,
)
