"""Upload-side privacy and quantisation kernels on stacked client tensors ``[N, P]``.

Transforms compose with ``chain`` (optax style); every random one takes an explicit generator
(or a ``RoundRng``). Calibration of the Gaussian mechanism (classic, analytic, RDP) is in
``repro.privacy.calibration``; bit accounting in ``repro.privacy.bits``.
"""

from repro.privacy.chain import Transform, chain, identity, per_client
from repro.privacy.clip import clip_and_gaussian, clip_factors, clip_l2, clip_rows, clipped_gaussian, row_norms
from repro.privacy.noise import add_gaussian, add_laplace, gaussian_noise, laplace_noise
from repro.privacy.quantize import (
    dequantize_uniform, dithered_quantizer, gaussian_dither_steps, quantize_stochastic, quantize_uniform,
    stochastic_indices, stochastic_quantizer, subtractive_dither, uniform_indices, uniform_quantizer,
)

__all__ = [
    "Transform", "add_gaussian", "clip_and_gaussian", "clip_factors", "clipped_gaussian", "add_laplace", "chain", "clip_l2", "clip_rows", "dequantize_uniform",
    "dithered_quantizer", "gaussian_dither_steps", "gaussian_noise", "identity", "laplace_noise", "per_client",
    "quantize_stochastic", "quantize_uniform", "row_norms", "stochastic_indices", "stochastic_quantizer",
    "subtractive_dither", "uniform_indices", "uniform_quantizer",
]
