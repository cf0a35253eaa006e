"""Closed-form quantities of the ota_jammer paper: constants, calibration, jammer, Thm 5 terms.

Everything here is cheap numpy/math (no torch), so experiments, claims and tests can all use it.
Equation numbers are the paper's; decisions the paper leaves open are listed in this paper's README.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from repro.privacy.ota_accounting import ma_budget, ma_epsilon, ma_epsilon_for_noise
from repro.wireless.jammer import jammer_model_std, jammer_needed, required_noise_variance
from repro.wireless.power_control import power_budget_from_snr, server_factor_for_target

#: Per-client training / test sizes of the paper's FEMNIST split (50 clients, from the index of the
#: authors' released split, osu-srml/Upcycled-FL). Sums: 16,421 / 1,924.
FEMNIST_TRAIN_SIZES = (
    209, 390, 289, 319, 152, 254, 198, 142, 186, 265, 128, 179, 121, 578, 79, 1950, 586, 474, 506, 414, 336, 460,
    360, 314, 395, 447, 211, 216, 127, 376, 793, 255, 117, 270, 285, 190, 143, 109, 341, 285, 468, 493, 133, 229,
    266, 288, 196, 292, 257, 350)
FEMNIST_TEST_SIZES = (
    25, 45, 35, 38, 19, 31, 24, 17, 24, 32, 16, 22, 14, 67, 11, 219, 68, 54, 58, 48, 39, 53, 42, 37, 46, 51, 26, 27,
    17, 44, 89, 30, 15, 33, 33, 23, 19, 14, 40, 33, 54, 56, 17, 26, 31, 33, 23, 35, 31, 40)


def mlp_num_params(inputs: int = 784, hidden: int = 196, outputs: int = 10) -> int:
    """d of the two-layer MLP (weights + biases): 155,830 for 784-196-10."""
    return inputs * hidden + hidden + hidden * outputs + outputs


def even_step_coefficient(mu: float, lam: float) -> float:
    """Eq. (9): ``mu/(mu + lambda_m)``, the server-only extrapolation coefficient of Upcycled-FL."""
    if mu <= 0 or lam < 0:
        raise ValueError(f"need mu > 0 and lambda >= 0, got {mu!r}, {lam!r}")
    return mu / (mu + lam)


#: grid value of the server step that Upcycled-FL's even step implies (eq. 9: w + (1 + c_m) * aggregate)
EVEN_STEP = "even_step"


def server_step_schedule(step, num_rounds: int, mu: float, schedule) -> np.ndarray:
    """Server step per transmission ``[M]``: ``w <- w + step_m * aggregate``.

    ``step`` is a number (constant step; 1 = plain FedAvg/FedProx) or :data:`EVEN_STEP`, the step that
    Upcycled-FL's even iteration implies: eq. (9) gives ``w_{2m+1} = w_odd + c_m (w_odd - w_{2m-1})``
    with ``w_odd = w_{2m-1} + aggregate``, i.e. ``w_{2m-1} + (1 + c_m) aggregate``, ``c_m = mu/(mu + lambda_m)``.
    So Upcycled-FL is FedProx with the server step ``1 + c_m`` (1.4 / 1.2 / 1.1 / 1.05 for the paper's lambda_m).
    """
    if step == EVEN_STEP:
        lam = lambda_schedule(num_rounds, schedule)
        return 1.0 + np.array([even_step_coefficient(mu, float(x)) for x in lam])
    v = float(step)
    if not v > 0:
        raise ValueError(f"server step must be > 0 or {EVEN_STEP!r}, got {step!r}")
    return np.full(num_rounds, v)


def step_label(step) -> str:
    """Text of a server-step grid value for tables and legends."""
    return "1 + c_m (Upcycled's even step)" if step == EVEN_STEP else f"{float(step):g}"


def lambda_schedule(num_rounds: int, schedule) -> np.ndarray:
    """lambda_m for m = 1..M from the paper's ranges for M = 80 (D15: m' = ceil(80 m / M)).

    ``schedule``: list of ``[first, last, lambda]`` rows over 1..80 (the paper: 0.15, 0.4, 0.9, 1.9).
    """
    if num_rounds <= 0:
        raise ValueError(f"num_rounds must be > 0, got {num_rounds!r}")
    span = max(int(row[1]) for row in schedule)
    out = np.empty(num_rounds)
    for m in range(1, num_rounds + 1):
        mp = math.ceil(span * m / num_rounds)
        for first, last, lam in schedule:
            if int(first) <= mp <= int(last):
                out[m - 1] = float(lam)
                break
        else:
            raise ValueError(f"lambda schedule {schedule!r} does not cover m'={mp}")
    return out


@dataclass(frozen=True)
class NoiseCalibration:
    """Per-transmission noise of one privacy configuration (constant over rounds, sigma_c = 1 units)."""

    alpha_u: float  # server factor (eq. 14), calibrated for (eps0, delta0) with M transmissions
    channel_std: float  # sigma_c / alpha_u (model domain)
    jammer_std: float  # model-domain jammer std (kappa x the eq. 22 bound); 0 without jammer
    total_std: float  # sigma_m
    required_var: float  # sigma_req^2 of the jammer target (nan without jammer)
    jammer_active: bool
    epsilon: float  # the paper's bound (21) at the run's delta, from the realised sigma_m
    delta: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def calibrate(num_transmissions: int, dataset_size: int, eps0: float, delta0: float,
              cj_epsilon: float | None = None, cj_delta: float = 1e-5, kappa: float = 7.0,
              noise_std: float = 1.0) -> NoiseCalibration:
    """alpha_u from (eps0, delta0) by eq. (21) (constant over rounds, also in jammer runs), plus the
    jammer of eqs. (22)-(23) at ``kappa`` x its amplitude bound if ``cj_epsilon``."""
    alpha_u = server_factor_for_target(eps0, delta0, num_transmissions, dataset_size, noise_std)
    ch = noise_std / alpha_u
    if cj_epsilon is None:
        jam, req, active, delta = 0.0, float("nan"), False, delta0
    else:
        req = required_noise_variance(cj_epsilon, cj_delta, num_transmissions, dataset_size)
        active = jammer_needed(req, ch * ch)
        jam = jammer_model_std(req, ch * ch, kappa)
        delta = cj_delta
    total = math.sqrt(ch * ch + jam * jam)
    eps = ma_epsilon_for_noise([total] * num_transmissions, dataset_size, delta)
    return NoiseCalibration(alpha_u, ch, jam, total, req, active, eps, delta)


def achieved_epsilon_kappa(cj_epsilon: float, delta: float, kappa: float, variance_reading: bool = False,
                           num_transmissions: int = 80, dataset_size: int = 16421, eps0: float = 6.52,
                           delta0: float = 1e-5) -> float:
    """Epsilon achieved when the jammer is kappa x its bound (kappa x the amplitude bound (22), or x the variance)."""
    cal = calibrate(num_transmissions, dataset_size, eps0, delta0)
    req = required_noise_variance(cj_epsilon, delta, num_transmissions, dataset_size)
    extra = max(req - cal.channel_std ** 2, 0.0)
    var = cal.channel_std ** 2 + (kappa * extra if variance_reading else kappa ** 2 * extra)
    return ma_epsilon_for_noise([math.sqrt(var)] * num_transmissions, dataset_size, delta)


def power_control_stats(num_transmissions: int, eps0: float = 6.52, delta0: float = 1e-5,
                        sizes=FEMNIST_TRAIN_SIZES, snr_db: float = 1.0, num_params: int | None = None,
                        draws: int = 100_000, seed: int = 0) -> dict:
    """Monte-Carlo statistics of s_i (eq. 14 with 11) over |h|^2 ~ Exp(1)."""
    sizes = np.asarray(sizes, float)
    p = sizes / sizes.sum()
    d = num_params or mlp_num_params()
    alpha_u = server_factor_for_target(eps0, delta0, num_transmissions, int(sizes.sum()))
    P = power_budget_from_snr(snr_db, d)
    rng = np.random.default_rng(seed)
    h = np.sqrt(rng.exponential(1.0, size=(draws, p.size)))
    s = np.maximum(1.0, alpha_u * p / (h * math.sqrt(P)))
    return {"coef": alpha_u / math.sqrt(P), "p_shrink": float(np.mean(s > 1)),
            "p_shrink_largest": float(np.mean(s[:, np.argmax(p)] > 1)),
            "clients_shrunk_per_round": float(np.mean(np.sum(s > 1, axis=1))),
            "mean_sum_p_over_s": float(np.mean(np.sum(p / s, axis=1)))}


def convergence_terms(epsilon_cj: float, *, smoothness: float, num_params: int, num_transmissions: int,
                      dataset_size: int, eps0: float = 6.52, delta0: float = 1e-5, cj_delta: float = 1e-5,
                      kappa: float = 1.0, noise_std: float = 1.0, h_cj_abs: float = 1.0) -> dict:
    """Thm 5's noise terms for a jammer target ``epsilon_cj`` (eqs. 33-34), with user constants.

    C5 = (L_s d/2)(h_CJ alpha_CJ/alpha_u)^2 (artificial noise), C6 = L_s sigma_c^2 d/(2 alpha_u^2) (channel).
    With the calibration of eqs. (22)-(23), C5 + C6 = (L_s d/2) sigma_m^2, which grows as epsilon_cj falls (claim C18).
    """
    cal = calibrate(num_transmissions, dataset_size, eps0, delta0, epsilon_cj, cj_delta, kappa, noise_std)
    alpha_cj = cal.jammer_std * cal.alpha_u / h_cj_abs
    c5 = smoothness * num_params / 2.0 * (h_cj_abs * alpha_cj / cal.alpha_u) ** 2
    c6 = smoothness * noise_std ** 2 * num_params / (2.0 * cal.alpha_u ** 2)
    return {"C5": c5, "C6": c6, "total": c5 + c6, "alpha_cj": alpha_cj, "alpha_u": cal.alpha_u}


def calibration_table(eps_delta_pairs, num_transmissions: int, dataset_size: int) -> list[dict]:
    """Calibration rows: L, S*, a, sigma_req |D| and sigma_req for each (epsilon, delta)."""
    from repro.wireless.jammer import eq23_a

    rows = []
    for eps, delta in eps_delta_pairs:
        L = math.log(1 / delta)
        req = required_noise_variance(eps, delta, num_transmissions, dataset_size)
        rows.append({"epsilon": eps, "delta": delta, "L": L, "S_star": ma_budget(eps, delta),
                     "a": eq23_a(eps, delta), "sigma_req_times_D": math.sqrt(req) * dataset_size,
                     "sigma_req": math.sqrt(req), "eps_check": ma_epsilon(ma_budget(eps, delta), delta)})
    return rows
