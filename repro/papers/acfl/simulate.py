"""The one update kernel shared by ACFL, NA, SCFL and the alpha = 0 reference (eqs. 7-10).

Every method reduces to a global coded pair (HX, HY) with coded gradient G^S = HX W - HY (eq. 8)
and a weight rule (adaptive eq. 43, or a fixed alpha). The kernel trains S problems (seeds or
repetitions) x R configurations (method x straggler probability x noise level) at once: devices,
seeds and configurations are array dimensions, the only Python loop is over iterations.

Per iteration t = 1..T (float64 throughout):
    I = 1[U_t >= p]                                        (eqs. 5-6)
    G_i = A_i W - b_i                                      (eq. 7, never materialised per device:
                                                            sum_i I_i G_i = (sum_i I_i A_i) W - sum_i I_i b_i
                                                            and ||G_i||^2 via quadratic forms, below)
    alpha = eq. (43) (adaptive) or fixed
    G_all = alpha (HX W - HY) + (1 - alpha)/(1 - p) sum_i I_i G_i        (eqs. 8-9)
    W <- W - (eta0 / t) G_all                                            (eq. 10)

Writing E = W - W*, r_i = b_i - A_i W* (zero for noiseless labels) gives G_i = A_i E - r_i and
||G_i||^2 = <E E^T, A_i A_i> - 2 <E, A_i r_i> + ||r_i||^2, and the loss (eq. 1) as
f(W) = 1/2 <E, A E> + f(W*), which avoids cancellation as the loss falls over four decades.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repro.papers.acfl import policy


@dataclass(frozen=True)
class StackedProblem:
    """S linear-regression problems stacked: A_dev (S, N, d, d), b_dev (S, N, d, o), W0 (S, d, o), and
    f_star (S,) = f(W*), the residual loss at the optimum (0 for noiseless labels; it needs Y itself)."""

    A_dev: np.ndarray
    b_dev: np.ndarray
    W0: np.ndarray
    f_star: np.ndarray | None = None

    @classmethod
    def from_problems(cls, problems) -> "StackedProblem":
        return cls(np.stack([p.A_dev for p in problems]), np.stack([p.b_dev for p in problems]),
                   np.stack([p.W0 for p in problems]), np.array([p.loss(p.W_star) for p in problems]))

    @property
    def A(self) -> np.ndarray:
        return self.A_dev.sum(1)

    @property
    def B(self) -> np.ndarray:
        return self.b_dev.sum(1)

    @property
    def W_star(self) -> np.ndarray:
        return np.linalg.solve(self.A, self.B)


@dataclass
class TrainingTrace:
    """Kernel output. Arrays are (S, R, K) at the K recorded iterations ``record_at`` (t = 0 is W0),
    or (S, R) summaries over t = 1..T."""

    record_at: np.ndarray
    loss: np.ndarray  # f(W_t) of eq. (1)
    dist2: np.ndarray  # ||W_t - W*||_F^2
    alpha: np.ndarray  # alpha_t used in iteration t (NaN at t = 0)
    beta2_hat: np.ndarray  # beta_hat_t^2 of eq. (42) in iteration t (adaptive configurations; NaN otherwise)
    C2_hat: np.ndarray  # C_hat_t^2 = ||W_t||_F^2 entering eq. (43) in iteration t (adaptive configurations; NaN otherwise)
    alpha_first: np.ndarray  # alpha_1
    alpha_tail_mean: np.ndarray  # mean alpha_t over the last 10 % of iterations
    alpha_min: np.ndarray
    alpha_max: np.ndarray
    beta2_max: np.ndarray  # max over t and all devices of ||G_t^(i)||^2 (A2 estimate, for Thm 2)
    w2_max: np.ndarray  # max over t = 0..T of ||W_t||^2 (A3 estimate)


def record_iterations(T: int) -> np.ndarray:
    """t in {0, ..., 10} U {20, 30, ..., 100} U {150, 200, ..., T}, always including T (38 points for
    T = 1000): dense where the loss falls fastest, every 50 iterations later."""
    ts = set(range(0, min(10, T) + 1)) | set(range(20, min(100, T) + 1, 10)) | set(range(150, T + 1, 50)) | {T}
    return np.array(sorted(ts), dtype=int)


def train(problem: StackedProblem, HX, HY, p, fixed_alpha, sigma1_sq, sigma2_sq, uniforms, eta0, T: int,
          record_at=None, fresh_noise_rng: np.random.Generator | None = None) -> TrainingTrace:
    """Run eqs. (7)-(10) for S problems x R configurations.

    HX (S, R, d, d), HY (S, R, d, o): the global coded pair of each run (broadcastable).
    p, fixed_alpha, sigma1_sq, sigma2_sq: (R,) per configuration; ``fixed_alpha`` NaN = adaptive eq. (43)
    (sigma^2 enter only there and in the fresh-noise ablation). uniforms (S, T, N): straggler uniforms.
    eta0: scalar or (S,), the step is eta0 / t. ``fresh_noise_rng``: ablation (D13) -- redraw the
    summed Stage-1 noise every iteration (variance N sigma^2 per entry); then HX, HY must be noiseless.
    """
    A_dev, b_dev = problem.A_dev, problem.b_dev
    S, N, d, _ = A_dev.shape
    o = b_dev.shape[-1]
    p = np.asarray(p, float)
    R = p.shape[0]
    fixed_alpha = np.broadcast_to(np.asarray(fixed_alpha, float), (R,))
    s1 = np.broadcast_to(np.asarray(sigma1_sq, float), (R,))
    s2 = np.broadcast_to(np.asarray(sigma2_sq, float), (R,))
    if np.any((p < 0) | (p >= 1)):
        raise ValueError(f"straggler probabilities must lie in [0, 1), got {p}")
    if uniforms.shape != (S, T, N):
        raise ValueError(f"uniforms must have shape (S, T, N) = {(S, T, N)}, got {uniforms.shape}")
    adaptive = np.isnan(fixed_alpha)
    record_at = record_iterations(T) if record_at is None else np.asarray(record_at, int)
    slot = {int(t): k for k, t in enumerate(record_at)}
    eta0 = np.broadcast_to(np.asarray(eta0, float), (S,))[:, None, None, None]

    A = A_dev.sum(1)
    W_star = np.linalg.solve(A, b_dev.sum(1))  # (S, d, o)
    r_dev = b_dev - A_dev @ W_star[:, None]  # residuals b_i - A_i W*
    noiseless_labels = bool(np.all(np.abs(r_dev) <= 1e-12 * max(1.0, np.abs(b_dev).max())))
    A_flat = A_dev.reshape(S, N, d * d)
    Q_flatT = (A_dev @ A_dev).reshape(S, N, d * d).transpose(0, 2, 1)  # A_i^T A_i, (S, dd, N)
    r_flat = r_dev.reshape(S, N, d * o)
    Ar_flatT = (A_dev @ r_dev).reshape(S, N, d * o).transpose(0, 2, 1)
    rr = (r_dev**2).sum((2, 3))[:, None, :]  # (S, 1, N)
    f_star = np.zeros((S, 1)) if problem.f_star is None else np.asarray(problem.f_star, float).reshape(S, 1)
    HX = np.broadcast_to(HX, (S, R, d, d))
    HY = np.broadcast_to(HY, (S, R, d, o))

    E = np.broadcast_to((problem.W0 - W_star)[:, None], (S, R, d, o)).copy()
    K = len(record_at)
    loss = np.empty((S, R, K))
    dist2 = np.empty((S, R, K))
    alpha_rec = np.full((S, R, K), np.nan)
    beta2_rec = np.full((S, R, K), np.nan)
    C2_rec = np.full((S, R, K), np.nan)
    tail_start = T - max(1, int(np.ceil(0.1 * T))) + 1
    alpha_first = np.zeros((S, R))
    tail_sum = np.zeros((S, R))
    a_min = np.full((S, R), np.inf)
    a_max = np.full((S, R), -np.inf)
    beta2_max = np.zeros((S, R))
    w2_max = ((E + W_star[:, None]) ** 2).sum((2, 3))
    one_minus_p = (1.0 - p)[None, :]  # (1, R)

    def record(t: int, alpha=None, estimates=None):
        k = slot.get(t)
        if k is None:
            return
        loss[:, :, k] = 0.5 * np.einsum("srik,srik->sr", E, A[:, None] @ E) + f_star
        dist2[:, :, k] = (E**2).sum((2, 3))
        if alpha is not None:
            alpha_rec[:, :, k] = alpha
        if estimates is not None:
            beta2_rec[:, :, k] = np.where(adaptive[None, :], estimates[0], np.nan)
            C2_rec[:, :, k] = np.where(adaptive[None, :], estimates[1], np.nan)

    record(0)
    for t in range(1, T + 1):
        mask = (uniforms[:, t - 1, None, :] >= p[None, :, None]).astype(float)  # (S, R, N), eqs. (5)-(6)
        n_recv = mask.sum(-1)
        W = E + W_star[:, None]
        # sum_i I_i G_i = (sum_i I_i A_i) E - sum_i I_i r_i   (eq. 7 summed)
        dev_sum = (mask @ A_flat).reshape(S, R, d, d) @ E
        # ||G_i||^2 for every device: <E E^T, A_i A_i> - 2 <E, A_i r_i> + ||r_i||^2, (S, R, N)
        dev_sq = (E @ E.transpose(0, 1, 3, 2)).reshape(S, R, d * d) @ Q_flatT
        if not noiseless_labels:
            dev_sum = dev_sum - (mask @ r_flat).reshape(S, R, d, o)
            dev_sq = dev_sq - 2.0 * (E.reshape(S, R, d * o) @ Ar_flatT) + rr
        beta2_max = np.maximum(beta2_max, dev_sq.max(-1))
        alpha = np.broadcast_to(fixed_alpha[None, :], (S, R))
        estimates = None
        if adaptive.any():
            beta2_hat = policy.estimate_beta2((mask * dev_sq).sum(-1), n_recv)  # eq. (42), NaN if none arrived
            C2_hat = (W**2).sum((2, 3))
            a_adapt = policy.adaptive_weight(beta2_hat, C2_hat, p[None, :], d, o, s1[None, :], s2[None, :])  # eq. (43)
            alpha = np.where(adaptive[None, :], a_adapt, alpha)
            estimates = (beta2_hat, C2_hat)
        g_coded = HX @ W - HY  # eq. (8)
        if fresh_noise_rng is not None:
            z1 = fresh_noise_rng.standard_normal((S, R, d, d))
            z2 = fresh_noise_rng.standard_normal((S, R, d, o))
            g_coded = g_coded + np.sqrt(N * s1)[None, :, None, None] * (z1 @ W) - np.sqrt(N * s2)[None, :, None, None] * z2
        a4 = alpha[:, :, None, None]
        g_all = a4 * g_coded + ((1.0 - alpha) / one_minus_p)[:, :, None, None] * dev_sum  # eq. (9)
        E -= (eta0 / t) * g_all  # eq. (10)
        if t == 1:
            alpha_first = alpha.copy()
        if t >= tail_start:
            tail_sum += alpha
        a_min = np.minimum(a_min, alpha)
        a_max = np.maximum(a_max, alpha)
        w2_max = np.maximum(w2_max, ((E + W_star[:, None]) ** 2).sum((2, 3)))
        record(t, alpha, estimates)
    return TrainingTrace(record_at, loss, dist2, alpha_rec, beta2_rec, C2_rec, alpha_first, tail_sum / (T - tail_start + 1),
                         a_min, a_max, beta2_max, w2_max)


def bias_floor_point(A, B, noise_X_sum, noise_Y_sum, alpha: float):
    """Fixed point of a fixed weight alpha > 0 with fixed noise (README):
    W_NA = (A + alpha sum N1)^{-1} (B + alpha sum N2); batched over leading dimensions."""
    return np.linalg.solve(A + alpha * noise_X_sum, B + alpha * noise_Y_sum)
