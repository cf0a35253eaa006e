"""FL algorithms on the vectorised engine, all on one interface (:mod:`repro.algorithms.base`):
``FLAlgorithm(setup)`` with ``init`` / ``round(state, t, clients)`` / ``personalized``, on an ``FLSetup``
whose ``upload`` and ``download`` are transforms of :mod:`repro.privacy.chain`.

Global methods: FedAvg, FedProx (and Upcycled-FL's server-only step, ``repro.algorithms.upcycled``).
Personalised methods: Ditto / DP-Ditto, pFedMe, APPLE, FedAMP, FedALA.
"""

from importlib import import_module

from repro.algorithms.base import FLAlgorithm, FLSetup, aggregation_weights, dp_upload
from repro.algorithms.fedavg import FedAvg, FedProx

_LAZY = {"Ditto": "repro.algorithms.ditto", "PFedMe": "repro.algorithms.pfedme", "Apple": "repro.algorithms.apple",
         "FedAMP": "repro.algorithms.fedamp", "FedALA": "repro.algorithms.fedala"}

__all__ = ["FLAlgorithm", "FLSetup", "FedAvg", "FedProx", "aggregation_weights", "dp_upload", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'repro.algorithms' has no attribute {name!r}")
