"""Mao, Yin, Yener, Liu: Providing Differential Privacy for Federated Learning Over Wireless (OTA-FL + CJ)."""
