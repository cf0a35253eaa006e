"""Zhao et al.: Wireless PFL with quantization-assisted DP and min-max fair scheduling (OFDMA, 256-QAM)."""

from repro.experiment import PaperInfo

PAPER = PaperInfo(
    slug='wpfl_minmax',
    title='Enhancing Convergence, Privacy and Fairness for Wireless Personalized Federated Learning: Quantization-Assisted Min-Max Fair Scheduling',
    short_title='Wireless PFL: quantization-assisted min-max fair scheduling',
    reference='Zhao, Cui, Du, Ni, Li, Yu, Zhang, Tao, Zhang',
    order=2,
)
