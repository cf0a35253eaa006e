"""Upload-side privacy and quantisation kernels on stacked client tensors ``[N, P]``.

Transforms compose with ``chain`` (optax style); every random one takes an explicit generator
(or a ``RoundRng``). Calibration of the Gaussian mechanism (classic, analytic, RDP) is in
``repro.privacy.calibration``; bit accounting in ``repro.privacy.bits``.

The names below are loaded lazily (PEP 562), so importing a torch-free submodule such as
``repro.privacy.calibration`` or a paper's closed forms does not import torch (Snakemake builds its
DAG from modules that must stay light).
"""

from importlib import import_module

# eager and torch-free; binds the name ``chain`` to the function (not the submodule of that name)
from repro.privacy.chain import Link, Transform, chain, generator_of, identity, per_client, row_chunks

_EXPORTS = {
    "repro.privacy.clip": ("clip_and_gaussian", "clip_factors", "clip_l2", "clip_rows", "clipped_gaussian", "row_norms"),
    "repro.privacy.noise": ("add_gaussian", "add_laplace", "add_population_gaussian", "gaussian_noise", "laplace_noise"),
    "repro.privacy.quantize": (
        "dequantize_uniform", "dithered_quantizer", "gaussian_dither_steps", "quantize_stochastic", "quantize_uniform",
        "stochastic_indices", "stochastic_quantizer", "subtractive_dither", "uniform_indices", "uniform_quantizer",
    ),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted([*_WHERE, "Link", "Transform", "chain", "generator_of", "identity", "per_client", "row_chunks"])


def __getattr__(name):
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'repro.privacy' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
