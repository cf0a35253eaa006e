"""The constants of Theorem 1 (Assumption 1 and Lemmas 1-2) measured on a model the package trains.

The paper draws Fig. 2 from "the simulation parameters ... for the MLR model trained on the MNIST
dataset" but prints none of L, mu, G_0, M, Psi_1, Psi_2. They are measured here along a non-private
Ditto training of the panel's model on the panel's clients (the profile's data and learning rate),
with lambda = 0 (local models: the proxies of u_n*) and the Fig. 2 lambda (personalised models) in one
run, for ``rounds`` rounds (README, D30):

* F_n: mean cross-entropy of client n's training samples; F = (1/N) sum_n F_n (p_n = 1/N, Sec. 3.1).
* L (smoothness): the largest Hessian eigenvalue of any F_n, by power iteration with Hessian-vector
  products (central differences of full-batch gradients in float64), at omega^0 and at omega^R.
* mu: Assumption 1 is written in the Polyak-Lojasiewicz form F(w) - F(w*) <= ||grad F(w)||^2 / (2 mu);
  mu is the smallest ratio ||grad F||^2 / (2 (F - F*)) seen along the global trajectory and along every
  client's local trajectory (F_n, its local model), over the points whose gap F - F* is at least
  ``gap_floor`` of the initial gap (F* = the lowest value reached). For these unregularised
  cross-entropy models the strong-convexity modulus itself is 0 (MLR: the softmax is invariant to a
  shift common to all classes), so the PL reading is the only one that can give mu > 0.
* G_0^2 = max_t (1/N) sum_n ||grad F_n(omega^t)||^2 (E ||grad F_n(omega^t)||^2 <= G_0^2).
* M = max_n ||u_n^R - omega^R|| (||u_n* - omega*|| <= M, trained models as the optima's proxies).
* Psi_1 = F(omega^0) - F(omega^R); Psi_2 = (1/N) sum_n ||varpi_n^0 - varpi_n^R||^2 at the Fig. 2 lambda.
"""

from __future__ import annotations

import math

import numpy as np
import torch


def full_gradients(model, theta: torch.Tensor, data) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-client full-batch loss ``[N]`` and gradient ``[N, P]`` of F_n at row n of ``theta`` ``[N, P]``."""
    from repro.engine.train import batch_grad

    x, y, mask = data.padded()
    g, loss = batch_grad(model, theta, x.to(theta.dtype), y, mask)
    return loss, g


def largest_hessian_eigenvalue(model, theta: torch.Tensor, data, iterations: int, generator: torch.Generator) -> torch.Tensor:
    """Per row n: the largest eigenvalue of the Hessian of F_n at ``theta[n]`` (power iteration on
    Hessian-vector products by central differences of the gradient, float64) -> ``[N]``."""
    th64 = theta.double()
    v = torch.randn(th64.shape, generator=generator, dtype=torch.float64)
    v = v / v.norm(dim=1, keepdim=True)
    lam = torch.zeros(th64.shape[0], dtype=torch.float64)
    h = 1e-4
    for _ in range(int(iterations)):
        gp = full_gradients(model, th64 + h * v, data)[1]
        gm = full_gradients(model, th64 - h * v, data)[1]
        hv = (gp - gm) / (2 * h)
        lam = (hv * v).sum(1)
        v = hv / hv.norm(dim=1, keepdim=True).clamp(min=1e-300)
    return lam


def pl_constant(values, grad_sq, gap_floor: float) -> float:
    """min over the trajectory of ||grad||^2 / (2 (f - f*)), f* = min(values), on the points whose gap is at
    least ``gap_floor`` times the initial gap; ``nan`` if no point qualifies."""
    v, g = np.asarray(values, float), np.asarray(grad_sq, float)
    fstar = float(np.min(v))
    gap = v - fstar
    keep = gap >= gap_floor * max(gap[0], 1e-300)
    keep &= gap > 0
    if not keep.any():
        return float("nan")
    return float(np.min(g[keep] / (2 * gap[keep])))


def estimate_constants(model, train, theta0: torch.Tensor, lam: float, lr: float, rounds: int, batch_size: int,
                       epochs: int, streams, power_iterations: int = 20, gap_floor: float = 0.05, log=print) -> dict:
    """Measure L, mu, G_0, M, Psi_1, Psi_2 along ``rounds`` rounds of non-private Ditto (module docstring)."""
    from repro.algorithms.base import FLSetup
    from repro.algorithms.ditto import Ditto

    setup = FLSetup(model=model, train=train, streams=streams, lr=lr, batch_size=batch_size, local_epochs=epochs)
    algo = Ditto(setup, [0.0, lam])
    state = algo.init(theta0)
    N = train.num_clients
    f_glob, gsq_glob, gn_sq = [], [], []
    f_loc, gsq_loc = [], []

    def record(st):
        omega = st.global_params.unsqueeze(0).expand(N, -1).double()
        loss, g = full_gradients(model, omega, train)
        f_glob.append(float(loss.mean()))
        gsq_glob.append(float(g.mean(0).pow(2).sum()))
        gn_sq.append(float(g.pow(2).sum(1).mean()))
        lloss, lg = full_gradients(model, st.personal[0].double(), train)
        f_loc.append(lloss.cpu().numpy())
        gsq_loc.append(lg.pow(2).sum(1).cpu().numpy())

    record(state)
    omega0 = state.global_params.clone()
    for t in range(int(rounds)):
        state = algo.round(state, t)
        record(state)
    log(f"constants: {rounds} rounds, F(omega) {f_glob[0]:.4f} -> {f_glob[-1]:.4f}")
    gen = streams.torch("power_iteration")
    L_start = largest_hessian_eigenvalue(model, omega0.unsqueeze(0).expand(N, -1), train, power_iterations, gen)
    L_end = largest_hessian_eigenvalue(model, state.global_params.unsqueeze(0).expand(N, -1), train, power_iterations, gen)
    L = float(torch.cat([L_start, L_end]).max())
    mu_glob = pl_constant(f_glob, gsq_glob, gap_floor)
    f_loc, gsq_loc = np.stack(f_loc), np.stack(gsq_loc)  # [R+1, N]
    mu_loc = [pl_constant(f_loc[:, n], gsq_loc[:, n], gap_floor) for n in range(N)]
    mu_all = [m for m in [mu_glob, *mu_loc] if math.isfinite(m)]
    local = state.personal[0]
    pers = state.personal[1]
    return {
        "smooth": L,
        "mu": float(min(mu_all)) if mu_all else float("nan"),
        "mu_global": mu_glob,
        "mu_local_min": float(np.nanmin(mu_loc)) if np.isfinite(mu_loc).any() else float("nan"),
        "g0": math.sqrt(max(gn_sq)),
        "m_gap": float((local - state.global_params.unsqueeze(0)).norm(dim=1).max()),
        "psi1": f_glob[0] - f_glob[-1],
        "psi2": float((pers - omega0.unsqueeze(0)).pow(2).sum(1).mean()),
        "dim": int(theta0.numel()),
        "F_start": f_glob[0],
        "F_end": f_glob[-1],
        "rounds": int(rounds),
    }
