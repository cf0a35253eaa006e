"""Mao, Yin, Yener, Liu: Providing Differential Privacy for Federated Learning Over Wireless (OTA-FL + CJ)."""

from repro.experiment import PaperInfo

PAPER = PaperInfo(
    slug='ota_jammer',
    title='Providing Differential Privacy for Federated Learning Over Wireless: A Cross-layer Framework',
    short_title='DP for over-the-air FL with a cooperative jammer',
    reference='Mao, Yin, Yener, Liu (ICC 2024, extended)',
    order=3,
)
