"""Round-loop invariants of wpfl_minmax's training on a tiny MLR environment (real MNIST subset)."""

import numpy as np
import pytest
import torch

from repro import experiment as ex
from repro.data import DatasetUnavailableError

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _env(**over):
    from repro.papers.wpfl_minmax.environment import build_environment
    from repro.papers.wpfl_minmax.experiments import _settings

    p = ex.load_params("wpfl_minmax", "smoke")
    s = _settings(p)
    s["sigma_table"] = {m: {int(k): v for k, v in t.items()} for m, t in s["sigma_table"].items()}
    s.update(over)
    try:
        return build_environment("mlr_mnist", s, 0)
    except DatasetUnavailableError:
        pytest.skip("MNIST not available")


def test_same_run_twice_same_numbers():
    from repro.papers.wpfl_minmax.training import run_series

    env = _env()
    a = run_series(env, "S1", 2, log=lambda m: None)
    b = run_series(env, "S1", 2, log=lambda m: None)
    assert a["accuracy"] == b["accuracy"] and a["max_test_loss"] == b["max_test_loss"]


def test_c7_cap_every_client_uploads_t0_times():
    from repro.papers.wpfl_minmax.training import rounds

    env = _env()
    for policy in ("km", "rr", "random"):
        counts = np.zeros(env.num_clients, int)
        for r in rounds(env, policy, 3):
            assert len(set(r.clients)) == len(r.clients) and len(set(r.subs)) == len(r.subs)
            counts[r.clients] += 1
        assert np.all(counts == 3), policy


def test_error_free_series_schedules_on_the_true_channel():
    """S7 uses KM on the true rho (the same clients and subchannels as S1), only its transmissions are error-free."""
    from repro.papers.wpfl_minmax.training import SERIES, rounds

    env = _env()
    assert SERIES["S7"].policy == SERIES["S1"].policy == "km"
    a = [(tuple(r.clients), tuple(r.subs)) for r in rounds(env, SERIES["S1"].policy, 3)]
    b = [(tuple(r.clients), tuple(r.subs)) for r in rounds(env, SERIES["S7"].policy, 3)]
    assert a == b


def test_corrupted_downlink_words_stay_in_the_quantizer_range():
    from repro.papers.wpfl_minmax.uplink import downlink, quantize_global

    w = quantize_global(torch.randn(5000) * 0.1, 3.0, 16)
    copies, n_err = downlink(w, 3.0, 16, np.array([0.0, 0.05, 0.5]), np.random.default_rng(0))
    assert n_err[0] == 0 and n_err[2] > n_err[1] > 0
    assert torch.equal(copies[0], w)
    assert float(copies.abs().max()) <= 3.0 + 1e-6
    assert int((copies[1] != w).sum()) == n_err[1]


def test_pfl_baselines_train_every_client_but_aggregate_only_the_scheduled():
    """Equal training opportunities: every client's personalised model changes every round; the server's
    model is the mean of the scheduled uploads only."""
    from repro.engine.rng import RngStreams
    from repro.papers.wpfl_minmax import pfl_baselines as pb
    from repro.papers.wpfl_minmax.training import SERIES, rounds

    env = _env()
    link = pb.RoundLink(env, 0.0, RngStreams(0))
    setup = pb.WirelessPFLSetup(model=env.model, train=env.train, streams=RngStreams(0), lr=0.05, batch_size=8,
                                upload=link.upload, download=link.download, env=env, radio=link)
    algo = pb.build_algorithm(env, SERIES["S14"], setup, link, 2)
    state = algo.init(env.theta0)
    r = next(rounds(env, "km", 2))
    link.begin(r)
    link.dl_ber = np.zeros(env.num_clients)
    link.ul_ber[:] = 0.0
    new = algo.round(state, r.t)
    moved = (new.personal - state.personal).norm(dim=1)
    assert bool((moved > 0).all())
    sel = torch.as_tensor(np.sort(r.clients))
    expect = pb.clip_rows(new.personal[sel], link.clip)
    from repro.papers.wpfl_minmax import codec
    amp = link.clip
    expect = codec.decode(codec.encode(expect, amp, link.bits), amp, link.bits, expect.dtype).mean(0)
    assert torch.allclose(new.global_params, expect, atol=1e-6)


def test_diverged_models_are_counted_not_hidden():
    from repro.papers.wpfl_minmax.training import final_metrics

    env = _env()
    pers = env.theta0.unsqueeze(0).repeat(env.num_clients, 1)
    pers[3, 0] = float("nan")
    m = final_metrics(env, pers)
    assert m["nonfinite_clients"] == 1 and m["max_test_loss"] == float("inf") and np.isnan(m["jain"])
    assert m["test_accuracy_per_client"][3] == 0.0


def test_missing_dataset_gives_unavailable_result(tmp_path, monkeypatch):
    from repro.papers.wpfl_minmax import experiments as E, runs

    monkeypatch.setenv("REPRO_DATA_MIRROR", str(tmp_path / "empty"))
    monkeypatch.setenv("REPRO_DATA_DIR", str(tmp_path / "cache"))
    (tmp_path / "empty").mkdir()
    p = ex.load_params("wpfl_minmax", "smoke")
    spec = E.group_runs(p, "proposed")[0]
    out = runs.train_group(spec, ex.RunContext(profile="smoke", run_id="x", log=lambda m: None))
    assert ex.is_unavailable(out)


def test_fading_quadrature_integrates_exponential_moments_and_deep_fades():
    """The link budget's exact mean over Rayleigh fading: E[1] = 1, E[x] = 1, and E[exp(-a x)] = 1/(1 + a),
    which for large a is carried by the deep fades a small Monte Carlo sample misses."""
    from repro.papers.wpfl_minmax.runs import fading_quadrature

    x, w_one, w_best = fading_quadrature(4000, 10)
    assert abs(w_one.sum() - 1) < 1e-6 and abs(w_best.sum() - 1) < 1e-6
    assert abs((x * w_one).sum() - 1) < 1e-6
    assert abs((x * w_best).sum() - sum(1 / k for k in range(1, 11))) < 1e-5  # E[max of 10 Exp(1)] = H_10
    for a in (1e2, 1e4, 1e6):
        assert abs((np.exp(-a * x) * w_one).sum() / (1 / (1 + a)) - 1) < 1e-3


def test_fedamp_anchor_variant_keeps_own_model_as_start():
    """S15 trains from the client's own model and uses the cloud model only as the anchor; S13 (the shared
    FedAMP) restarts from the cloud model: different runs, both finite."""
    from repro.papers.wpfl_minmax.training import run_series

    env = _env()
    a = run_series(env, "S13", 2, lr=0.03, log=lambda m: None)
    b = run_series(env, "S15", 2, lr=0.03, log=lambda m: None)
    assert a["nonfinite_clients"] == 0 and b["nonfinite_clients"] == 0
    assert a["accuracy"] != b["accuracy"]


def test_missing_dataset_regime_run_is_unavailable(tmp_path, monkeypatch):
    from repro.papers.wpfl_minmax import experiments as E, runs

    monkeypatch.setenv("REPRO_DATA_MIRROR", str(tmp_path / "empty"))
    monkeypatch.setenv("REPRO_DATA_DIR", str(tmp_path / "cache"))
    (tmp_path / "empty").mkdir()
    p = ex.load_params("wpfl_minmax", "smoke")
    spec = next(r for f in E.figures(p) if f.fig_id == "regime" for r in f.runs)
    assert ex.is_unavailable(runs.regime(spec, ex.RunContext(profile="smoke", run_id="x", log=lambda m: None)))


def test_the_literal_tau_groups_are_costed_apart():
    """A group at tau = 1 local step (literal_tau) does a hundredth of the tau = 100 group's local work: its cost-probe
    parts carry their own keys, so the costs tool never prices one with the other's measurement."""
    from repro.papers.wpfl_minmax.experiments import cost_probe, literal_runs, literal_tau_runs
    params = ex.load_params("wpfl_minmax", "paper")
    lit = literal_tau_runs(params)
    lit_ids = {r.run_id for r in lit + literal_runs(params)}  # the literal figure's groups are at tau = 1 too
    d1 = [s for rid, s in ex.job_specs("wpfl_minmax", "paper").items() if s.task == "train_group" and rid not in lit_ids]
    keys = lambda runs: {p.key for r in runs for p in cost_probe(r, 1).parts}  # noqa: E731
    assert lit and d1 and not keys(lit) & keys(d1)
    assert all(k.endswith(f"tau={params['literal_tau']}") for k in keys(lit))


def test_resumed_group_keeps_its_learning_rate_sweep(tmp_path, monkeypatch):
    """An interrupted paper-scale group resumes without sweeping the learning rates again (the sweep of a DNN
    PFL group is minutes of CPU) and without training again: the second call computes nothing."""
    from repro.papers.wpfl_minmax import experiments as E, runs, training, tuning

    p = ex.load_params("wpfl_minmax", "smoke")
    spec = next((s for s in E.group_runs(p, "pfl") if s.params["config"] == "mlr_mnist"), None)
    if spec is None:
        pytest.skip("no MLR PFL group in the smoke profile")
    ctx = lambda: ex.RunContext(profile="smoke", run_id="g", log=lambda m: None, parts_dir=tmp_path)  # noqa: E731
    first = runs.train_group(spec, ctx())
    if ex.is_unavailable(first):
        pytest.skip("MNIST not available")
    assert first["tuning"], "the smoke PFL group sweeps at least one series"

    def must_not_run(*a, **k):
        raise AssertionError("recomputed on resume")

    monkeypatch.setattr(tuning, "tune_learning_rate", must_not_run)
    monkeypatch.setattr(training, "run_series", must_not_run)
    second = runs.train_group(spec, ctx())
    assert second["tuning"] == first["tuning"]
    assert second["per_seed"] == first["per_seed"]


@pytest.mark.parametrize("p_grad", ["inner", "tensor_mean"])
def test_apple_sparse_downlink_equals_the_stacked_downloads(monkeypatch, p_grad):
    """APPLE under DL bit errors: the shared view plus the flipped entries (``sparse_downloads``) gives the numbers
    of the [K, N, P] stack of every receiver's downloads (the reference), to float rounding; bit errors do occur."""
    from repro.algorithms.apple import Apple
    from repro.papers.wpfl_minmax import pfl_baselines as pb
    from repro.papers.wpfl_minmax.training import run_series

    env = _env(local_steps=3)
    flips = []
    draw = pb.bit_error_pattern
    monkeypatch.setattr(pb, "bit_error_pattern", lambda *a: flips.append(draw(*a)) or flips[-1])
    monkeypatch.setattr(Apple, "__init__", _with_p_grad(Apple.__init__, p_grad))
    states, personalized = [], Apple.personalized
    monkeypatch.setattr(Apple, "personalized", lambda self, st: states.append(st) or personalized(self, st))
    runs, final = {}, {}
    for fast in (True, False):
        monkeypatch.setattr(Apple, "fast", fast)
        runs[fast] = run_series(env, "S12", 3, lr=0.1, log=lambda m: None)
        final[fast] = states[-1]
    assert sum(len(f[0]) for f in flips) > 0, "no DL bit error drawn: the test would not exercise the flips"
    # the relationship weights p move from 1/N by the p-gradient alone: compare their moves, then the cores
    p0 = 1.0 / env.num_clients
    move = (final[False].p - p0).abs().max()
    assert move > 0 and (final[True].p - final[False].p).abs().max() <= 1e-2 * move
    torch.testing.assert_close(final[True].cores, final[False].cores, rtol=1e-4, atol=1e-6)
    a, b = runs[True], runs[False]
    assert a["rounds"] == b["rounds"]
    np.testing.assert_allclose(a["test_accuracy_per_client"], b["test_accuracy_per_client"], atol=1e-12)
    for key in ("max_test_loss", "jain"):  # continuous in the models: a missed flip moves them
        np.testing.assert_allclose(a[key], b[key], rtol=1e-4, err_msg=key)


def _with_p_grad(init, p_grad):
    def wrapped(self, *a, **k):
        init(self, *a, **{**k, "p_grad": p_grad})
    return wrapped
