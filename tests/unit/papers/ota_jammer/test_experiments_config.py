"""Paper-profile defaults equal the stated settings; figure specs and run sharing; bad parameters refused."""

import pytest
import torch

from repro.algorithms.upcycled import even_step, even_step_coefficients
from repro.experiment import ConfigError, figure_specs, load_params, run_specs

FIGS = [f"fig{i}" for i in range(1, 11)] + ["fig91", "fig92", "theory", "table91", "table92", "privacy"]


def test_paper_profile_defaults_are_the_papers_settings():
    p = load_params("ota_jammer", "paper")
    assert (p["num_clients"], p["snr_db"], p["local_epochs"], p["lr"], p["momentum"], p["mu"]) == (50, 1.0, 20, 0.05, 0.5, 0.1)
    assert p["lambda_schedule"] == [[1, 25, 0.15], [26, 50, 0.4], [51, 75, 0.9], [76, 80, 1.9]]
    assert p["rounds"] == 80 and len(p["seeds"]) == 10 and p["num_classes"] == 10 and p["classes_per_client"] == 5
    assert p["hidden"] == 196 and p["kappa"] == 7.0 and (p["eps0"], p["delta0"]) == (6.52, 1e-5)
    assert p["cj_epsilons"] == [1.0, 0.5, 0.1] and (p["iid_eps"], p["iid_delta"]) == (0.15, 0.01)


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper"])
def test_figures_and_run_sharing(profile):
    figs = {f.fig_id: f for f in figure_specs("ota_jammer", profile)}
    p = load_params("ota_jammer", profile)
    n = len(p["seeds"])
    assert list(figs) == FIGS and figs["fig1"].kind == "diagram"
    assert figs["privacy"].kind == "table" and figs["table91"].kind == "table"
    # the closed forms of claims C3, C4, C18 need no training: judged in every profile without a run
    assert figs["theory"].kind == "table" and not figs["theory"].run_ids
    # the proposed runs of Figs 2-5 are the same runs; under one accountant so is [13]
    assert set(figs["fig2"].run_ids) & set(figs["fig4"].run_ids)
    ma_only = p["baseline_accountants"] == ["ma"]
    assert (figs["fig2"].run_ids == figs["fig4"].run_ids) == ma_only
    assert len(figs["fig2"].run_ids) == (5 if ma_only else 6) * n
    # fig6: 7x-bound targets, bound runs, no jammer; fig8 also the channel-only ablation
    per_algo = len(p["cj_epsilons"]) + len(p["bound_cj_epsilons"]) + 1
    assert len(figs["fig6"].run_ids) == per_algo * n
    assert len(figs["fig8"].run_ids) == (per_algo + len(p["channel_only_epsilons"])) * n
    assert len(figs["fig91"].run_ids) == (2 + len(p["one_step_baseline_accountants"])) * n
    # table92: every baseline (3 with E epochs, 2 one-step, 2 i.i.d.) on the same server-step grid, tuning seed only
    assert len(figs["table92"].run_ids) == 7 * len(p["server_step_grid"])
    assert {r.seed for r in figs["table92"].runs} == {p["tuning_seed"]}
    # a tuning grid never holds the method itself: FedProx at 1 + c_m is Upcycled-FL (eq. 9)
    assert "even_step" not in p["server_step_grid"] and figs["fig92"].kind == "table"
    # the figures run every baseline as the paper did: server step 1
    assert set(p["server_step"].values()) == {1.0}
    tuning = [r for r in figs["table91"].runs if r.seed == p["tuning_seed"]]
    assert len(tuning) == len(p["tuning_datasets"]) * len(p["tuning_gammas"])
    assert all(r.params["mode"] == "baseline13" for r in figs["table91"].runs)
    assert all(r.params["mode"] != "nonprivate" for r in figs["privacy"].runs)


def test_quick_profile_keeps_the_papers_privacy_levels_and_seeds():
    q, paper = load_params("ota_jammer", "quick"), load_params("ota_jammer", "paper")
    for k in ("eps0", "delta0", "cj_epsilons", "cj_delta", "kappa", "iid_eps", "iid_delta", "snr_db", "tau", "iid_tau",
              "hidden", "lr", "batch_size", "mu"):
        assert q[k] == paper[k], k
    assert len(q["seeds"]) >= 3 and q["profile_note"]
    # the regime: alpha_u = |D| sqrt(2 S*/M) is the paper's when |D| scales with sqrt(M) (fig92)
    assert abs(q["size_scale"] ** 2 * paper["rounds"] / q["rounds"] - 1) < 1e-12


@pytest.mark.parametrize("override,match", [
    ({"tau": 0.0}, "tau"),
    ({"delta0": 1.0}, "delta0"),
    ({"eps0": -1.0}, "eps0"),
    ({"momentum": 1.0}, "momentum"),
    ({"baseline_accountants": ["rdp"]}, "baseline_accountants"),
    ({"baseline_gamma": 0.5}, "baseline_gamma"),
    ({"tuning_seed": 0}, "tuning_seed"),
    ({"lambda_schedule": [[1, 25, 0.15], [27, 80, 0.4]]}, "lambda_schedule"),
    ({"num_clients": 10}, "num_clients"),
    ({"seeds": [0, 0]}, "seeds"),
    ({"server_step_grid": [1.0, 0.0]}, "server_step_grid"),
    ({"server_step_grid": [1.0, "even_step"]}, "server_step_grid"),
    ({"server_step": {"fedavg": 2.5}}, "server_step"),
    ({"bound_cj_epsilons": [7.0]}, "bound_cj_epsilons"),
])
def test_bad_parameters_are_refused_with_the_key_named(override, match):
    with pytest.raises(ConfigError, match=match):
        load_params("ota_jammer", "quick", override)


def test_upcycled_even_step_eq9():
    w_prev, w_odd = torch.zeros(3), torch.ones(3)
    assert torch.allclose(even_step(w_odd, w_prev, 0.4), torch.full((3,), 1.4))
    assert even_step_coefficients(0.1, [0.15, 0.4, 0.9, 1.9]).round(12).tolist() == [0.4, 0.2, 0.1, 0.05]
