"""Paper-profile defaults equal the stated settings (guide §5 schema test); figure specs; Upcycled step."""

import torch

from repro.algorithms.upcycled import even_step, even_step_coefficients
from repro.experiment import figure_specs, load_params


def test_paper_profile_defaults_are_the_papers_settings():
    p = load_params("ota_jammer", "paper")
    assert (p["num_clients"], p["snr_db"], p["local_epochs"], p["lr"], p["momentum"], p["mu"]) == (50, 1.0, 20, 0.05, 0.5, 0.1)
    assert p["lambda_schedule"] == [[1, 25, 0.15], [26, 50, 0.4], [51, 75, 0.9], [76, 80, 1.9]]
    assert p["rounds"] == 80 and len(p["seeds"]) == 10 and p["num_classes"] == 10 and p["classes_per_client"] == 5
    assert p["hidden"] == 196 and p["kappa"] == 7.0 and (p["eps0"], p["delta0"]) == (6.52, 1e-5)
    assert p["cj_epsilons"] == [1.0, 0.5, 0.1] and (p["iid_eps"], p["iid_delta"]) == (0.15, 0.01)


def test_figures_and_run_sharing():
    for profile in ("smoke", "quick", "paper"):
        figs = {f.fig_id: f for f in figure_specs("ota_jammer", profile)}
        assert list(figs) == [f"fig{i}" for i in range(1, 11)] and figs["fig1"].kind == "diagram"
        seeds = len(load_params("ota_jammer", profile)["seeds"])
        # proposed runs of Figs 2-5 are the same runs; per seed 15 MLP + 3 IID configurations
        assert set(figs["fig2"].run_ids) & set(figs["fig4"].run_ids) and len(figs["fig2"].run_ids) == 5 * seeds
        all_runs = set().union(*(f.run_ids for f in figs.values()))
        assert len(all_runs) == 18 * seeds
        assert all(f.est_paper_minutes for f in figs.values() if f.kind == "figure")


def test_upcycled_even_step_eq9():
    w_prev, w_odd = torch.zeros(3), torch.ones(3)
    assert torch.allclose(even_step(w_odd, w_prev, 0.4), torch.full((3,), 1.4))
    assert even_step_coefficients(0.1, [0.15, 0.4, 0.9, 1.9]).round(12).tolist() == [0.4, 0.2, 0.1, 0.05]
