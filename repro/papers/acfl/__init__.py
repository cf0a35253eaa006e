"""ACFL: Adaptive Coded Federated Learning (Li, Xiao, Skoglund, arXiv:2403.14905v1).

Federated linear regression on synthetic data with stragglers, coded local datasets with additive
Gaussian noise (eqs. 2-4), an adaptive aggregation weight (eqs. 36, 42-43), the non-adaptive NA and a
reconstructed SCFL baseline, the mutual-information DP map of Theorem 1 and the convergence bound of
Theorems 2-3.

Modules: ``privacy_mi`` (eq. 17 and its inverse), ``theory`` (Lemma 2, Theorems 2-3, Remark 1,
Fig. 1), ``problem`` (synthetic data, Section V), ``stragglers`` (eqs. 5-6), ``coding`` (Stage 1,
eqs. 2-4), ``policy`` (eqs. 42-43), ``scfl`` (SCFL stand-in), ``simulate`` (the shared update kernel,
eqs. 7-10), ``checks`` (Monte Carlo / analytic checks of the theory), ``experiments``, ``figures``,
``claims``.
"""

from repro.experiment import PaperInfo

PAPER = PaperInfo(
    slug='acfl',
    title='Adaptive Coded Federated Learning: Privacy Preservation and Straggler Mitigation',
    short_title='Adaptive coded FL: privacy and stragglers',
    reference='Li, Xiao, Skoglund, arXiv:2403.14905v1',
    order=5,
)
