import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from repro.papers.wpfl_minmax import theory as th
from repro.privacy.quantized_gaussian import quantizer_max_error

CONFIGS = {  # |w|, C, sigma(T0 = 20) of Table II
    "dnn_mnist": (79510, 7, 0.016, 0.03874, 0.996766, 0.981957, (0.00906, 0.12150, 0.14850), 0.06942, 0.06858),
    "mlr_mnist": (7850, 3, 0.006, 0.17577, 0.990564, 0.995817, (0.00209, 0.05850, 0.07150), 0.03276, 0.03255),
    "cnn_fmnist": (582026, 20, 0.009, 0.14863, 0.998281, 0.999381, (0.00031, 0.02250, 0.02750), 0.01246, 0.01242),
    "cnn_cifar10": (878538, 20, 0.009, 0.20661, 0.992694, 0.997995, (0.00100, 0.04050, 0.04950), 0.02256, 0.02244),
}


def _inputs(cfg, theta=0.0):
    w, c, s = CONFIGS[cfg][:3]
    m = th.ModelBoundInputs(w, c, s, quantizer_max_error(c, s), c / (2**16 - 1))
    return m, th.gamma2(theta, m), th.gamma3(theta, m)


@pytest.mark.parametrize("cfg", list(CONFIGS))
def test_coefficients_table(cfg):
    _, _, _, eta_f, eps_f, eps_p, etas, eta_p, lam = CONFIGS[cfg]
    L, mu = th.lipschitz_and_convexity(cfg)
    assert mu < 2  # claim 25
    assert th.eta_fl_optimal(mu, L) == pytest.approx(eta_f, abs=1e-5)
    assert th.eps_fl(th.eta_fl_optimal(mu, L), mu, L) == pytest.approx(eps_f, abs=1e-6)
    assert th.eps_pl_target(mu) == pytest.approx(eps_p, abs=1e-6)
    iv = th.feasible_intervals(mu, th.eps_pl_target(mu))
    assert len(iv) == 2
    assert [iv[0][0], iv[0][1], iv[1][0]] == pytest.approx(list(etas), abs=1e-5)
    m, g2, g3 = _inputs(cfg)
    for g0 in (1.0, 10.0):
        e, l, _ = th.solve_p7(np.array([0.0, 1e-3]), g0=g0, mu=mu, eps_p=th.eps_pl_target(mu),
                              eps_f=th.eps_fl(th.eta_fl_optimal(mu, L), mu, L), gam2=g2, gam3=g3)
        assert e == pytest.approx([eta_p] * 2, abs=1e-5) and l == pytest.approx([lam] * 2, abs=1e-5)


@pytest.mark.parametrize("cfg", list(CONFIGS))
def test_eta_f_is_grid_argmin(cfg):  # claim 21
    L, mu = th.lipschitz_and_convexity(cfg)
    grid = np.linspace(1e-6, 1, 2_000_001)
    assert grid[np.argmin(th.eps_fl(grid, mu, L))] == pytest.approx(th.eta_fl_optimal(mu, L), abs=1e-6)


@pytest.mark.parametrize("cfg", list(CONFIGS))
def test_lambda_identities(cfg):  # (37)-(38), claim 21
    _, mu = th.lipschitz_and_convexity(cfg)
    ep = th.eps_pl_target(mu)
    (e1, e2), (e3, _) = th.feasible_intervals(mu, ep)
    assert th.lambda_of_eta(e1, mu, ep) == pytest.approx(2, abs=1e-12)
    assert th.lambda_of_eta(e2, mu, ep) == pytest.approx(0, abs=1e-12)
    assert th.lambda_of_eta(e3, mu, ep) == pytest.approx(0, abs=1e-12)
    eta = np.linspace(e1, 1, 1000)[1:-1]
    assert np.allclose(th.eps_pl(eta, th.lambda_of_eta(eta, mu, ep), mu), ep, atol=1e-12)
    inside = np.linspace(e1, e2, 100)[1:-1]
    lam = th.lambda_of_eta(inside, mu, ep)
    assert np.all((lam > 0) & (lam < 2))


def test_h1_gamma_identity():
    m, _, _ = _inputs("dnn_mnist")
    for theta in (0.0, 0.3, 12.0):
        for rho in (0.0, 1e-4, 0.2):
            lhs = th.h1(rho) * theta + th.gamma0(m) * rho + th.gamma1(m)
            rhs = th.gamma2(theta, m) * rho + th.gamma3(theta, m)
            assert lhs == pytest.approx(rhs, rel=1e-12)


def test_monotonicity_sec_vb():  # claim 19
    eta = np.linspace(0.001, 0.5, 200)
    lam = np.linspace(0.01, 1.99, 200)
    E, Lm = np.meshgrid(eta, lam, indexing="ij")
    mu = 0.27
    # eps_P decreases in lambda (d/dlam = -eta(1 - mu/2) < 0) and is convex in eta
    assert np.all(np.diff(th.eps_pl(E, Lm, mu), axis=1) < 0)
    # Psi increases in eta
    assert np.all(np.diff(th.psi_pl(E, Lm), axis=0) > 0)
    # Psi vs lambda: first decreases then increases (erratum), derivative 2(eta^2+1)lam - eta^3/lam^2
    lam_f = np.geomspace(1e-4, 2, 4000)
    for e in (0.01, 0.1, 0.5):
        d = np.diff(th.psi_pl(e, lam_f))
        turn = np.argmax(d > 0)
        assert turn > 0 and np.all(d[:turn] < 0) and np.all(d[turn:] > 0)
        assert lam_f[turn] == pytest.approx((e**3 / (2 * (e**2 + 1))) ** (1 / 3), rel=5e-3)


@pytest.mark.parametrize("f", [0.1, 0.5, 0.9, 0.99, 0.999])
def test_phi_convex_on_feasible_intervals(f):  # claim 20, Theorem 5
    m, _, _ = _inputs("dnn_mnist")
    L, mu = th.lipschitz_and_convexity("dnn_mnist")
    ep = th.eps_pl_target(mu, f)
    ef = th.eps_fl(th.eta_fl_optimal(mu, L), mu, L)
    for g0 in (0.1, 1.0, 10.0):
        for rho in (0.0, 1e-4, 1e-3):
            for lo, hi in th.feasible_intervals(mu, ep):
                x = np.linspace(lo, hi, 2002)[1:-1]
                v = th.phi_pl(x, th.lambda_of_eta(x, mu, ep), rho, g0=g0, mu=mu, eps_f=ef,
                              gam2=th.gamma2(0.0, m), gam3=th.gamma3(0.0, m))
                d2 = v[2:] - 2 * v[1:-1] + v[:-2]
                assert np.all(d2 >= -1e-9 * np.abs(v[1:-1]))


def test_p7_matches_scipy_bounded():
    m, g2, g3 = _inputs("mlr_mnist", theta=5.0)
    L, mu = th.lipschitz_and_convexity("mlr_mnist")
    ep, ef = th.eps_pl_target(mu, 0.5), th.eps_fl(th.eta_fl_optimal(mu, L), mu, L)
    rho = np.array([0.0, 1e-4, 1e-2, 0.3])
    eta, lam, val = th.solve_p7(rho, g0=2.0, mu=mu, eps_p=ep, eps_f=ef, gam2=g2, gam3=g3)
    for i, r in enumerate(rho):
        best = np.inf
        for lo, hi in th.feasible_intervals(mu, ep):
            res = minimize_scalar(lambda x: float(th.phi_pl(x, th.lambda_of_eta(x, mu, ep), r, g0=2.0, mu=mu,
                                                             eps_f=ef, gam2=g2, gam3=g3)),
                                  bounds=(lo * (1 + 1e-9), hi * (1 - 1e-9)), method="bounded",
                                  options={"xatol": 1e-12})
            best = min(best, res.fun)
        assert val[i] == pytest.approx(best, rel=1e-6)


def test_bad_inputs():
    with pytest.raises(ValueError, match="mu"):
        th.feasible_intervals(2.5, 0.9)
    with pytest.raises(ValueError, match="eps_P"):
        th.feasible_intervals(0.27, 0.5)
    with pytest.raises(ValueError, match="unknown configuration"):
        th.lipschitz_and_convexity("resnet")


def test_phi_terms_split_phi():
    m, g2, g3 = _inputs("dnn_mnist", theta=3.0)
    L, mu = th.lipschitz_and_convexity("dnn_mnist")
    kb = th.BoundConstants(M=7.0)
    ef = float(th.eps_fl(th.eta_fl_optimal(mu, L, kb), mu, L, kb))
    eta, lam, rho = np.array([0.02, 0.07]), np.array([0.3, 0.05]), np.array([0.0, 1e-3])
    a, psi, x = th.phi_terms(eta, lam, rho, g0=2.0, mu=mu, eps_f=ef, gam2=g2, gam3=g3, k=kb)
    assert a + psi * x == pytest.approx(th.phi_pl(eta, lam, rho, g0=2.0, mu=mu, eps_f=ef, gam2=g2, gam3=g3, k=kb), rel=1e-12)


def test_constants_from_gradients():
    g = np.array([[3.0, 4.0], [0.0, 0.0], [0.0, 2.0]])
    g0, m = th.constants_from_gradients(g, mu=0.5)
    assert g0 == pytest.approx(5.0)
    # heterogeneity: max_n ||g_n - mean|| / mu
    mean = g.mean(0)
    assert m == pytest.approx(np.linalg.norm(g - mean, axis=1).max() / 0.5)
    with pytest.raises(ValueError, match="mu"):
        th.constants_from_gradients(g, mu=0.0)


@pytest.mark.parametrize("cfg", ["dnn_mnist", "mlr_mnist", "cnn_fmnist"])
def test_p7_moves_between_its_two_limits(cfg):
    """P7's solution is monotone in the noise weight X of (34): from the gradient-term minimiser (X -> 0) to
    argmin Psi (X -> infinity); at the noise weights of training (X >> G0^2) it sits at argmin Psi."""
    _, mu = th.lipschitz_and_convexity(cfg)
    ep = th.eps_pl_target(mu)
    xs = np.geomspace(1e-4, 1e8, 25)
    eta = np.array([th.solve_p7(np.zeros(1), g0=3.0, mu=mu, eps_p=ep, eps_f=0.0, gam2=0.0, gam3=x)[0][0] for x in xs])
    d = np.diff(eta)
    assert np.all(d >= -1e-9) or np.all(d <= 1e-9)
    e_inf = th.solve_p7(np.zeros(1), g0=3.0, mu=mu, eps_p=ep, eps_f=0.0, gam2=0.0, gam3=1e12)[0][0]
    grid = np.geomspace(*th.feasible_intervals(mu, ep)[0], 200001)[1:-1]
    assert e_inf == pytest.approx(grid[np.argmin(th.psi_pl(grid, th.lambda_of_eta(grid, mu, ep)))], rel=1e-3)
