"""Reproducibility package for private and wireless federated learning.

Sub-packages (each usable on its own):

- ``repro.data``        dataset sources with checksums and mirrors, readers, partitioners, generators
- ``repro.engine``      vectorised multi-client training (clients are a tensor dimension), RNG streams
- ``repro.privacy``     clipping, noise mechanisms, calibration / accounting, quantizers
- ``repro.wireless``    channels, OFDMA rates, bit errors, over-the-air aggregation, schedulers
- ``repro.algorithms``  FedAvg, FedProx, Ditto / DP-Ditto, pFedMe, APPLE, FedAMP, FedALA, ...
- ``repro.papers``      one sub-package per paper: experiments, theory, figures, claims
"""

__version__ = "0.1.0"
