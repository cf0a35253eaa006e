"""DP-Ditto: Convergence-Privacy-Fairness Trade-Off in Personalized Federated Learning (Zhao et al.)."""

from repro.experiment import PaperInfo

PAPER = PaperInfo(
    slug='dp_ditto',
    title='Convergence-Privacy-Fairness Trade-Off in Personalized Federated Learning',
    short_title='DP-Ditto: privacy, convergence and fairness of personalised FL',
    reference='Zhao et al., IEEE TMLCN',
    order=1,
)
