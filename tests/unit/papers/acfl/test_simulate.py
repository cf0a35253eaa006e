"""The shared update kernel (eqs. 7-10) against a plain per-device loop, plus data and coding checks."""

import numpy as np
import pytest

from repro.engine.rng import RngStreams
from repro.papers.acfl import coding, scfl, simulate, stragglers
from repro.papers.acfl.problem import linear_regression_federated


def naive_train(X, Y, W0, HX, HY, p, alpha_rule, s1, s2, U, eta0, T):
    """Algorithm 1 written literally, one device at a time (one device at a time, as in Algorithm 1)."""
    N, _, d = X.shape
    o = Y.shape[-1]
    W = W0.copy()
    A = sum(X[i].T @ X[i] for i in range(N))
    Wstar = np.linalg.solve(A, sum(X[i].T @ Y[i] for i in range(N)))
    losses, alphas, estimates = [0.5 * np.sum((X @ W - Y) ** 2)], [], []
    for t in range(1, T + 1):
        I = U[t - 1] >= p
        G = [X[i].T @ (X[i] @ W - Y[i]) for i in range(N)]
        if alpha_rule == "adaptive":
            if I.sum() == 0:
                a = 1.0
            else:
                b2 = sum(np.sum(G[i] ** 2) for i in range(N) if I[i]) / I.sum()
                c2 = np.sum(W**2)
                estimates.append((b2, c2))
                den = p * b2 + (1 - p) * (d * s1 * c2 + s2 * o * d)
                a = p * b2 / den if den > 0 else 1.0
        else:
            a = alpha_rule
        g_all = a * (HX @ W - HY) + (1 - a) / (1 - p) * sum(G[i] for i in range(N) if I[i])
        W = W - eta0 / t * g_all
        losses.append(0.5 * np.sum((X @ W - Y) ** 2))
        alphas.append(a)
    naive_train.estimates = np.array(estimates)   # (beta_hat^2, C_hat^2) per iteration of the adaptive rule
    return np.array(losses), np.array(alphas), Wstar


@pytest.fixture(scope="module")
def small():
    probs = [linear_regression_federated(RngStreams(s), N=6, m=15, d=3, o=2) for s in (3, 4)]
    return probs


def test_loss_quadratic_form_equals_eq1(small):
    pr = small[0]
    sp = simulate.StackedProblem.from_problems([pr])
    tr = simulate.train(sp, sp.A[:, None], sp.B[:, None], [0.2], [0.5], [0.0], [0.0], np.ones((1, 1, 6)), 1e-3, 1)
    assert tr.loss[0, 0, 0] == pytest.approx(pr.loss(pr.W0), rel=1e-9)
    np.testing.assert_allclose(pr.W_star, pr.W_true, rtol=1e-9)


def test_kernel_matches_literal_algorithm(small):
    T, p, eta0 = 40, 0.3, 2e-3
    sp = simulate.StackedProblem.from_problems(small)
    sig = np.array([0.5, 0.5, 2.0, 0.0])
    rules = [np.nan, 0.5, np.nan, 0.0]
    U = np.stack([stragglers.straggler_uniforms(RngStreams(s).numpy("straggler"), T, 6) for s in (3, 4)])
    HX, HY = [], []
    for s, pr in zip((3, 4), small):
        z1, z2 = coding.draw_stage1_normals(RngStreams(s).numpy("dp_noise"), 6, 3, 2)
        hx, hy = coding.global_coded_dataset_for_levels(pr.A_dev, pr.b_dev, z1, z2, sig, sig)
        HX.append(hx)
        HY.append(hy)
    HX, HY = np.stack(HX), np.stack(HY)
    tr = simulate.train(sp, HX, HY, np.full(4, p), rules, sig, sig, U, eta0, T, record_at=np.arange(T + 1))
    for si, pr in enumerate(small):
        for r in range(4):
            rule = "adaptive" if np.isnan(rules[r]) else rules[r]
            losses, alphas, _ = naive_train(pr.X, pr.Y, pr.W0, HX[si, r], HY[si, r], p, rule, sig[r], sig[r], U[si], eta0, T)
            np.testing.assert_allclose(tr.loss[si, r], losses, rtol=1e-9)
            np.testing.assert_allclose(tr.alpha[si, r, 1:], alphas, rtol=1e-9)
            if rule == "adaptive":   # the recorded estimates of eq. (42) are the ones eq. (43) used
                np.testing.assert_allclose(tr.beta2_hat[si, r, 1:], naive_train.estimates[:, 0], rtol=1e-9)
                np.testing.assert_allclose(tr.C2_hat[si, r, 1:], naive_train.estimates[:, 1], rtol=1e-9)
            else:
                assert np.isnan(tr.beta2_hat[si, r]).all() and np.isnan(tr.C2_hat[si, r]).all()
            assert tr.alpha_first[si, r] == pytest.approx(alphas[0], rel=1e-12)
            assert tr.alpha_tail_mean[si, r] == pytest.approx(alphas[-4:].mean(), rel=1e-9)


def test_kernel_handles_noisy_labels_and_all_stragglers():
    pr = linear_regression_federated(RngStreams(1), N=4, m=12, d=3, o=2)
    Y = pr.Y + 0.1 * np.random.default_rng(0).normal(size=pr.Y.shape)
    noisy = type(pr)(X=pr.X, Y=Y, W_true=pr.W_true, W0=pr.W0)
    sp = simulate.StackedProblem.from_problems([noisy])
    U = np.random.default_rng(1).random((1, 15, 4))
    U[0, 3] = 0.0  # every device straggles in iteration 4
    tr = simulate.train(sp, sp.A[:, None], sp.B[:, None], [0.25, 0.25], [np.nan, 0.5], [0.1, 0.1], [0.1, 0.1], U, 5e-3, 15,
                        record_at=np.arange(16))
    for r, rule in enumerate(("adaptive", 0.5)):
        losses, alphas, _ = naive_train(noisy.X, noisy.Y, noisy.W0, sp.A[0], sp.B[0], 0.25, rule, 0.1, 0.1, U[0], 5e-3, 15)
        np.testing.assert_allclose(tr.loss[0, r], losses, rtol=1e-9)
        np.testing.assert_allclose(tr.alpha[0, r, 1:], alphas, rtol=1e-12)
    assert tr.alpha[0, 0, 4] == 1.0 and tr.alpha[0, 1, 4] == 0.5  # D15 guard


def test_full_gradient_descent_reaches_optimum_without_noise():
    pr = linear_regression_federated(RngStreams(2), N=5, m=20, d=3, o=2)
    sp = simulate.StackedProblem.from_problems([pr])
    eta = 1.0 / np.linalg.eigvalsh(sp.A[0]).max()
    tr = simulate.train(sp, sp.A[:, None], sp.B[:, None], [0.0], [0.0], [0.0], [0.0], np.ones((1, 400, 5)),
                        np.full(1, eta), 400, record_at=[0, 400])
    # eta_t = eta/t on a well-conditioned problem: the error shrinks by orders of magnitude
    assert tr.dist2[0, 0, -1] < 1e-3 * tr.dist2[0, 0, 0]


def test_bias_floor_point_is_stationary_for_fixed_alpha():
    """W_NA = (A + a sum N1)^-1 (B + a sum N2) is the fixed point of eq. (9)-(10) with p = 0 and fixed noise."""
    pr = linear_regression_federated(RngStreams(5), N=5, m=20, d=3, o=2)
    sp = simulate.StackedProblem.from_problems([pr])
    z1, z2 = coding.draw_stage1_normals(RngStreams(5).numpy("dp_noise"), 5, 3, 2)
    HX, HY = coding.global_coded_dataset_for_levels(pr.A_dev, pr.b_dev, z1, z2, [4.0], [4.0])
    W_fp = simulate.bias_floor_point(sp.A[0], sp.B[0], HX[0] - sp.A[0], HY[0] - sp.B[0], 0.5)
    assert np.abs(W_fp - pr.W_star).max() > 1e-3  # a genuine bias
    at_fp = simulate.StackedProblem(sp.A_dev, sp.b_dev, W_fp[None], sp.f_star)
    tr = simulate.train(at_fp, HX[None], HY[None], [0.0], [0.5], [4.0], [4.0], np.ones((1, 50, 5)), 1e-3, 50,
                        record_at=[0, 50])
    assert tr.dist2[0, 0, -1] == pytest.approx(tr.dist2[0, 0, 0], rel=1e-9)


def test_record_grid_and_validation():
    ts = simulate.record_iterations(1000)
    assert len(ts) == 38 and ts[0] == 0 and ts[-1] == 1000 and {1, 10, 100, 150, 950} <= set(ts.tolist())
    assert list(simulate.record_iterations(50)) == list(range(11)) + [20, 30, 40, 50]
    pr = linear_regression_federated(RngStreams(0), N=3, m=10, d=2, o=2)
    sp = simulate.StackedProblem.from_problems([pr])
    with pytest.raises(ValueError, match="uniforms must have shape"):
        simulate.train(sp, sp.A[:, None], sp.B[:, None], [0.2], [0.5], [0.0], [0.0], np.ones((1, 5, 3)), 1e-3, 4)
    with pytest.raises(ValueError, match="straggler probabilities"):
        simulate.train(sp, sp.A[:, None], sp.B[:, None], [1.0], [0.5], [0.0], [0.0], np.ones((1, 4, 3)), 1e-3, 4)


def test_generator_is_seeded_and_follows_section_v():
    a = linear_regression_federated(RngStreams(7))
    b = linear_regression_federated(RngStreams(7))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.W0, b.W0)
    assert a.X.shape == (100, 100, 10) and np.abs(a.X).max() <= 1 and np.abs(a.Y).max() < 1
    assert 0 <= a.W_true.min() and a.W_true.max() <= 1 / 30 and 0 <= a.W0.min() and a.W0.max() <= 1 / 30
    assert not np.allclose(a.W0, a.W_true)
    assert 20 < a.loss(a.W0) < 45  # f(W0) is about 27-36 for this generator
    with pytest.raises(ValueError, match="m_i > d"):
        linear_regression_federated(RngStreams(0), m=5, d=10)


def test_stage1_noise_is_not_symmetrised_and_sums():
    rng = np.random.default_rng(0)
    A_dev = rng.normal(size=(4, 3, 3))
    b_dev = rng.normal(size=(4, 3, 2))
    z1, z2 = coding.draw_stage1_normals(rng, 4, 3, 2)
    hx_dev, hy_dev = coding.local_coded_datasets(A_dev, b_dev, z1, z2, 2.0, 0.5)
    HX, HY = coding.global_coded_dataset(hx_dev, hy_dev)
    HXl, HYl = coding.global_coded_dataset_for_levels(A_dev, b_dev, z1, z2, [2.0], [0.5])
    np.testing.assert_allclose(HX, HXl[0], rtol=1e-12)
    np.testing.assert_allclose(HY, HYl[0], rtol=1e-12)
    assert not np.allclose(HX - A_dev.sum(0), (HX - A_dev.sum(0)).T)


def test_scfl_debiased_coded_pair_is_unbiased():
    pr = linear_regression_federated(RngStreams(0), N=3, m=8, d=2, o=2)
    rng = np.random.default_rng(1)
    hx, hy = np.zeros((2, 2)), np.zeros((2, 2))
    K = 4000
    for _ in range(K):
        proj, zx, zy = scfl.draw_scfl_code(rng, 3, 8, 2, 2, c=4)
        a, b = scfl.scfl_coded_pair(pr.X, pr.Y, proj, zx, zy, [0.3])
        hx += a[0] / K
        hy += b[0] / K
    A = pr.A_dev.sum(0)
    assert np.abs(hx - A).max() < 0.05 * np.abs(A).max()
    assert np.abs(hy - pr.b_dev.sum(0)).max() < 0.05 * np.abs(A).max() * np.abs(pr.W_true).max() * 3 + 0.2
