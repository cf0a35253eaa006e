"""FL algorithms on the vectorised engine; hooks in ``repro.algorithms.base``."""

from repro.algorithms.base import FLAlgorithm, FLState, aggregation_weights
from repro.algorithms.fedavg import FedAvg, FedProx, round_plan

__all__ = ["FLAlgorithm", "FLState", "FedAvg", "FedProx", "aggregation_weights", "round_plan"]
