"""Wireless substrate: fading, path loss, OFDMA rates, bit errors, over-the-air aggregation, jammer, schedulers."""
