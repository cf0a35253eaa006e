"""The synthetic federated linear-regression problem of Section V (README: decisions).

Device i holds ``m`` i.i.d. samples: ``X^(i)`` entries U[-1, 1] (so assumption A1 holds),
``Y^(i) = X^(i) W_true`` with ``W_true`` entries U[0, 1/30] (noiseless, so W* = W_true and
f(W*) = 0), and the start point ``W0`` has entries U[0, 1/30] drawn from a separate stream
("independent of the true parameter matrix generation").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FederatedLinearRegression:
    """Per-device data of one seed; float64. Shapes: X (N, m, d), Y (N, m, o), W_true and W0 (d, o)."""

    X: np.ndarray
    Y: np.ndarray
    W_true: np.ndarray
    W0: np.ndarray

    @property
    def A_dev(self) -> np.ndarray:
        """X^(i)^T X^(i), stacked (N, d, d)."""
        return np.einsum("nmi,nmj->nij", self.X, self.X)

    @property
    def b_dev(self) -> np.ndarray:
        """X^(i)^T Y^(i), stacked (N, d, o)."""
        return np.einsum("nmi,nmk->nik", self.X, self.Y)

    @property
    def W_star(self) -> np.ndarray:
        """The minimiser of eq. (1), A^{-1} B (equals W_true for noiseless labels)."""
        return np.linalg.solve(self.A_dev.sum(0), self.b_dev.sum(0))

    def loss(self, W: np.ndarray) -> float:
        """f(W) = sum_i 1/2 ||X^(i) W - Y^(i)||_F^2, eq. (1), evaluated directly (a sum over devices)."""
        return 0.5 * float(np.sum((self.X @ W - self.Y) ** 2))


def linear_regression_federated(streams, N: int = 100, m: int = 100, d: int = 10, o: int = 10) -> FederatedLinearRegression:
    """Draw the Section-V problem from ``streams`` (a ``repro.engine.rng.RngStreams``):
    purpose ``data`` gives X and W_true, purpose ``init`` gives W0 (decision D6)."""
    for name, v in (("N", N), ("m", m), ("d", d), ("o", o)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if m <= d:
        raise ValueError(f"the paper assumes m_i > d (full column rank), got m={m}, d={d}")
    data = streams.numpy("data")
    X = data.uniform(-1.0, 1.0, size=(N, m, d))
    W_true = data.uniform(0.0, 1.0 / 30.0, size=(d, o))
    W0 = streams.numpy("init").uniform(0.0, 1.0 / 30.0, size=(d, o))
    return FederatedLinearRegression(X=X, Y=X @ W_true, W_true=W_true, W0=W0)
