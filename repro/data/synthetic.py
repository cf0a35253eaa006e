"""FedProx synthetic federated data: Synthetic(alpha, beta) and Synthetic-IID.

Li et al., "Federated Optimization in Heterogeneous Networks" (FedProx, MLSys 2020), §5.1 and their
generators (``data/synthetic_*/generate_*.py``). Client k draws a softmax-regression model and
inputs, and labels are ``y = argmax(x W_k + b_k)``:

* Synthetic(alpha, beta):  u_k ~ N(0, alpha), W_k ~ N(u_k, 1)^{d x C}, b_k ~ N(u_k, 1)^C;
  B_k ~ N(0, beta), v_k ~ N(B_k, 1)^d, x ~ N(v_k, Sigma), Sigma = diag(j^-1.2), j = 1..d.
  alpha controls how much the local models differ, beta how much the local inputs differ.
* Synthetic-IID: one W ~ N(0, 1)^{d x C}, b ~ N(0, 1)^C shared by all clients, x ~ N(0, Sigma)
  (the FedProx paper's Synthetic-IID recipe; ota_jammer README).

As in FedProx's code, the second argument of N(., .) for alpha and beta is a *standard deviation*
(``np.random.normal(0, alpha)``); for the common Synthetic(0,0), (0.5,0.5), (1,1) this is the same
as a variance only at 0 and 1. Client sizes default to FedProx's ``floor(lognormal(4, 2)) + 50``.
Numbers differ from FedProx's files (different generator), the distributions are the same.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def _check(name, value, cond, allowed):
    if not cond:
        raise ValueError(f"{name} must be {allowed}; got {value!r}")


def fedprox_sizes(num_clients: int, seed) -> np.ndarray:
    """FedProx's client sizes: ``floor(lognormal(mean=4, sigma=2)) + 50`` per client (int64)."""
    _check("num_clients", num_clients, isinstance(num_clients, (int, np.integer)) and num_clients >= 1, "an integer >= 1")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x5153]))
    return rng.lognormal(4.0, 2.0, size=int(num_clients)).astype(np.int64) + 50


def covariance_diagonal(dim: int) -> np.ndarray:
    """Sigma's diagonal j^-1.2, j = 1..dim."""
    return np.arange(1, dim + 1, dtype=np.float64) ** -1.2


def fedprox_synthetic(
    alpha: float,
    beta: float,
    num_clients: int,
    sizes: Sequence[int] | None,
    seed: int,
    iid: bool = False,
    dim: int = 60,
    classes: int = 10,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per-client ``(x float64 [n_k, dim], y int64 [n_k])`` of FedProx Synthetic(alpha, beta) or Synthetic-IID.

    ``sizes=None`` draws FedProx's lognormal sizes (:func:`fedprox_sizes`). With ``iid=True``
    alpha and beta are ignored (pass 0). Each client uses its own sub-stream of ``seed``, so the
    same arguments give the same data and client k's data does not depend on other clients' sizes.

    Example::

        >>> data = fedprox_synthetic(1.0, 1.0, num_clients=3, sizes=[5, 8, 4], seed=0)
        >>> [(x.shape, y.shape) for x, y in data][1], data[0][1].dtype
        (((8, 60), (8,)), dtype('int64'))
    """
    _check("alpha", alpha, isinstance(alpha, (int, float, np.floating)) and alpha >= 0, "a number >= 0")
    _check("beta", beta, isinstance(beta, (int, float, np.floating)) and beta >= 0, "a number >= 0")
    _check("num_clients", num_clients, isinstance(num_clients, (int, np.integer)) and num_clients >= 1, "an integer >= 1")
    _check("dim", dim, isinstance(dim, (int, np.integer)) and dim >= 1, "an integer >= 1")
    _check("classes", classes, isinstance(classes, (int, np.integer)) and classes >= 2, "an integer >= 2")
    _check("seed", seed, isinstance(seed, (int, np.integer)) and seed >= 0, "a non-negative integer")
    if sizes is None:
        sizes = fedprox_sizes(num_clients, seed)
    sizes = [int(s) for s in sizes]
    if len(sizes) != num_clients or min(sizes) < 1:
        raise ValueError(f"sizes must hold num_clients={num_clients} positive integers; got {len(sizes)} values, min {min(sizes, default=None)}")

    root = np.random.SeedSequence([int(seed), 0x5157])
    prior_ss, *client_ss = root.spawn(num_clients + 1)
    prior = np.random.default_rng(prior_ss)
    sd_x = np.sqrt(covariance_diagonal(dim))
    if iid:
        w_shared = prior.normal(0.0, 1.0, size=(dim, classes))
        b_shared = prior.normal(0.0, 1.0, size=classes)
    else:
        u = prior.normal(0.0, alpha, size=num_clients)  # u_k: mean of client k's model
        big_b = prior.normal(0.0, beta, size=num_clients)  # B_k: mean of client k's input mean

    out = []
    for k, (n, ss) in enumerate(zip(sizes, client_ss)):
        rng = np.random.default_rng(ss)
        if iid:
            w, b, v = w_shared, b_shared, np.zeros(dim)
        else:
            v = rng.normal(big_b[k], 1.0, size=dim)
            w = rng.normal(u[k], 1.0, size=(dim, classes))
            b = rng.normal(u[k], 1.0, size=classes)
        x = v + sd_x * rng.standard_normal((n, dim))  # x ~ N(v_k, diag(j^-1.2))
        y = np.argmax(x @ w + b, axis=1).astype(np.int64)  # argmax of softmax = argmax of logits
        out.append((x, y))
    return out


def split_train_test(clients: Sequence[tuple[np.ndarray, np.ndarray]], train_fraction: float = 0.9):
    """FedProx's per-client split: the first ``int(train_fraction * n)`` samples train, the rest test.

    Samples within a client are i.i.d., so no shuffle is needed. Returns ``(train, test)`` lists of
    ``(x, y)``.
    """
    _check("train_fraction", train_fraction, 0.0 < train_fraction <= 1.0, "in (0, 1]")
    train, test = [], []
    for x, y in clients:
        m = int(np.floor(train_fraction * len(y) + 1e-9))
        train.append((x[:m], y[:m]))
        test.append((x[m:], y[m:]))
    return train, test
