"""FedProx synthetic generators."""

from __future__ import annotations

import numpy as np
import pytest

from repro.data.synthetic import covariance_diagonal, fedprox_sizes, fedprox_synthetic, split_train_test


def test_shapes_dtypes_and_determinism():
    a = fedprox_synthetic(0.5, 0.5, num_clients=4, sizes=[10, 20, 30, 40], seed=3)
    b = fedprox_synthetic(0.5, 0.5, num_clients=4, sizes=[10, 20, 30, 40], seed=3)
    assert [x.shape for x, _ in a] == [(10, 60), (20, 60), (30, 60), (40, 60)]
    assert all(y.dtype == np.int64 and y.min() >= 0 and y.max() < 10 for _, y in a)
    assert all(np.array_equal(x1, x2) and np.array_equal(y1, y2) for (x1, y1), (x2, y2) in zip(a, b))
    c = fedprox_synthetic(0.5, 0.5, num_clients=4, sizes=[10, 20, 30, 40], seed=4)
    assert not np.array_equal(a[0][0], c[0][0])


def test_client_data_independent_of_other_sizes():
    a = fedprox_synthetic(1, 1, 3, [50, 5, 5], seed=0)
    b = fedprox_synthetic(1, 1, 3, [50, 500, 7], seed=0)
    assert np.array_equal(a[0][0], b[0][0])


def test_iid_shares_model_and_input_distribution():
    data = fedprox_synthetic(0, 0, num_clients=2, sizes=[20000, 20000], seed=0, iid=True)
    x0, x1 = data[0][0], data[1][0]
    assert np.abs(x0.mean(0)).max() < 0.05  # x ~ N(0, Sigma)
    np.testing.assert_allclose(x0.var(0), covariance_diagonal(60), rtol=0.05)
    # the same (W, b) for both clients: label frequencies agree
    f0, f1 = (np.bincount(y, minlength=10) / len(y) for _, y in data)
    assert np.abs(f0 - f1).max() < 0.02


def test_non_iid_clients_differ_in_inputs():
    data = fedprox_synthetic(1, 1, num_clients=5, sizes=[4000] * 5, seed=0)
    means = np.array([x.mean(0) for x, _ in data])
    # v_k ~ N(B_k, 1): each client has its own input mean (spread ~1 per coordinate)
    assert means.std(0).mean() > 0.5


def test_fedprox_sizes_and_split():
    s = fedprox_sizes(1000, seed=0)
    assert s.min() >= 50 and s.dtype == np.int64
    assert 80 < np.median(s) < 130  # floor(lognormal(4, 2)) + 50: median e^4 + 50 ~ 105
    train, test = split_train_test(fedprox_synthetic(0, 0, 2, [10, 21], 0, iid=True), 0.9)
    assert [len(y) for _, y in train] == [9, 18] and [len(y) for _, y in test] == [1, 3]


def test_validation():
    with pytest.raises(ValueError, match="alpha must be a number >= 0"):
        fedprox_synthetic(-1, 0, 2, [5, 5], 0)
    with pytest.raises(ValueError, match="num_clients=3 positive integers"):
        fedprox_synthetic(0, 0, 3, [5, 5], 0)
