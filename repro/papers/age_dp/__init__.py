"""Lin, Lin, Hsu, Huang, *Age Aware Scheduling for Differentially-Private Federated Learning* (ISIT 2024).

A 3-client toy: each client's energy records evolve as a Markov chain; the server schedules when each
client collects data, stale data buy age-dependent privacy, and the proposed protocol picks the
schedule minimising the Theorem-1 bound with adaptive Laplace noise (eq. (5)). Everything is exact
(closed forms (G1), (G2)); a vectorised Monte-Carlo simulator validates them. numpy only, no torch.

Modules: ``markov_database`` (data model), ``theory`` (closed forms), ``scheduler`` (search, schemes),
``simulation`` (Monte Carlo), ``checks`` (the rules behind the claims), ``runs`` (run computations),
``experiments`` / ``figures`` / ``claims`` (the package contract). Reusable parts live in
``repro.privacy.age_dependent`` and ``repro.privacy.laplace_mechanism``. README.md: decisions and verdicts.
"""

from repro.experiment import PaperInfo

PAPER = PaperInfo(
    slug='age_dp',
    title='Age Aware Scheduling for Differentially-Private Federated Learning',
    short_title='Age-aware scheduling for DP FL',
    reference='Lin, Lin, Hsu, Huang, ISIT 2024',
    order=4,
)
