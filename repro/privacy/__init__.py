"""Upload-side privacy and quantisation kernels on stacked client tensors ``[N, P]``.

Transforms compose with ``chain`` (optax style); every random one takes an explicit generator.
"""

from repro.privacy.chain import Transform, chain, identity, per_client
from repro.privacy.clip import clip_l2, clip_rows, row_norms
from repro.privacy.noise import add_gaussian, add_laplace, gaussian_noise, laplace_noise

__all__ = [
    "Transform", "add_gaussian", "add_laplace", "chain", "clip_l2", "clip_rows", "gaussian_noise", "identity",
    "laplace_noise", "per_client", "row_norms",
]
