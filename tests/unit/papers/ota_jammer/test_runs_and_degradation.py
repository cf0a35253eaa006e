"""ota_jammer runs end to end on the smoke profile: determinism, and graceful degradation without MNIST."""

import pytest

from repro import experiment as ex
from repro.experiment import RenderContext, RunContext, is_unavailable


def _specs(profile="smoke"):
    return ex.run_specs("ota_jammer", profile)


def _pick(specs, **want):
    for s in specs.values():
        p = s.params
        if all((p.get(k) if not isinstance(v, dict) else p.get(k, {})) == v for k, v in want.items()):
            return s
    raise KeyError(want)


def _run(spec):
    from repro.papers.ota_jammer import runs

    return runs.train(spec, RunContext("smoke", spec.run_id, log=lambda m: None))


def test_same_run_twice_gives_the_same_numbers():
    spec = _pick(_specs(), data="femnist", algorithm="upcycled", mode="proposed", local_rule="epochs", cj_epsilon=None)
    a, b = _run(spec), _run(spec)
    assert a["test_acc"] == b["test_acc"] and a["train_loss"] == b["train_loss"]
    assert a["epsilon"] == pytest.approx(6.52, abs=1e-9)
    assert a["max_power_ratio"] <= 1 + 1e-5 and a["min_s"] >= 1.0  # (11) up to float32 rounding


def test_one_step_run_certifies_the_papers_epsilon():
    from repro.papers.ota_jammer import privacy

    spec = _pick(_specs(), data="femnist", algorithm="fedavg", mode="proposed", local_rule="one_step")
    res = _run(spec)
    cfg = privacy.configuration(spec.params, ex.load_params("ota_jammer", "smoke"))
    cert = privacy.certificate(cfg, [res])
    assert cert.certified_epsilon < res["epsilon"] and not cert.flagged
    assert res["mu2_one_step"] <= res["num_transmissions"] / (res["dataset_size"] * res["noise_std_eff"]) ** 2 * (1 + 1e-9)


def test_missing_mnist_degrades_to_unavailable(tmp_path, monkeypatch):
    from repro.papers.ota_jammer import claims, figures

    empty = tmp_path / "mirror"
    empty.mkdir()
    monkeypatch.setenv("REPRO_DATA_MIRROR", str(empty))
    monkeypatch.setenv("REPRO_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("REPRO_OFFLINE", "1")
    monkeypatch.delenv("REPRO_FEMNIST_DIR", raising=False)
    monkeypatch.delenv("REPRO_FEMNIST_PATH", raising=False)
    params = ex.load_params("ota_jammer", "smoke")
    figs = {f.fig_id: f for f in ex.figure_specs("ota_jammer", "smoke")}
    results = {}
    from repro.papers.ota_jammer import runs

    for fid in ("fig2", "fig9", "privacy", "table91", "table92", "fig92"):
        for r in figs[fid].runs:
            if r.run_id in results:
                continue
            if r.task == "regime":
                results[r.run_id] = runs.regime(r, RunContext("smoke", r.run_id, log=lambda m: None))
            else:
                results[r.run_id] = _run(r) if r.params["data"] == "femnist" else {"status": "unavailable", "reason": "skipped"}
    assert all(is_unavailable(results[r.run_id]) for r in figs["fig2"].runs + figs["fig92"].runs)
    ctx = RenderContext("smoke", params)
    tables = {}
    for fid in ("fig2", "privacy", "table91", "table92", "fig92"):
        out = figures.RENDERERS[fid](figs[fid], {r: results[r] for r in figs[fid].run_ids}, ctx)
        assert out.figure is not None
        tables[fid] = out.data
    assert not len(tables["fig2"])
    verdicts = {c.id: c.verdict for c in claims.CLAIMS.evaluate(tables, params)}
    assert set(verdicts.values()) == {"not_evaluated"}, verdicts


def test_smoke_claims_evaluate_without_errors():
    """Every claim runs on smoke-shaped tables; with one seed no ordering can be established."""
    from repro.papers.ota_jammer import claims, figures

    params = ex.load_params("ota_jammer", "smoke")
    figs = {f.fig_id: f for f in ex.figure_specs("ota_jammer", "smoke")}
    cache, tables = {}, {}
    ctx = RenderContext("smoke", params)
    for fid in ("fig2", "fig4", "fig3", "fig6", "fig7", "fig8", "fig9", "fig10", "fig91", "privacy"):
        res = {}
        for r in figs[fid].runs:
            if r.run_id not in cache:
                cache[r.run_id] = _run(r)
            res[r.run_id] = cache[r.run_id]
        tables[fid] = figures.RENDERERS[fid](figs[fid], res, ctx).data
    got = {c.id: c for c in claims.CLAIMS.evaluate(tables, params)}
    assert got["C1"].verdict == "reproduced" and got["C6"].verdict == "reproduced" and got["C7"].verdict == "reproduced"
    # the jammer runs are at 7x the bound, as the paper says; their eq. (21) (0.142 / 0.071 / 0.014) is an observation
    assert got["C5"].verdict == "reproduced"
    assert got["C5"].details["operating_points"]["1"]["eq21_as_run"] == pytest.approx(0.14232, abs=1e-4)
    # E local epochs: the certified epsilon of what was trained is far above the stated 6.52
    assert got["C21"].verdict == "not_reproduced" and got["C12p"].verdict == "not_reproduced"
    # one smoke seed decides no ordering; a comparison the smoke regime cannot hold (E = 1) is not evaluated, with
    # its named reason (judging rules 1 and 9)
    from repro.claims import not_evaluated_category

    directions = {k: c for k, c in got.items() if c.kind == "direction"}
    assert all(c.verdict == "inconclusive" or (c.verdict == "not_evaluated" and not_evaluated_category(c.reason) != "other")
               for c in directions.values()), {k: (c.verdict, c.reason[:80]) for k, c in directions.items()}
    # the FEMNIST figures trained on its MNIST surrogate: their learning claims are not the paper's experiment; read
    # as real data, the same tables give orderings that one seed leaves inconclusive
    assert any(not_evaluated_category(c.reason) == "offline" for c in directions.values())
    real = {c.id: c for c in claims.CLAIMS.evaluate(*claims._as_real_data(lambda t, p: (t, p))(tables, params))}
    assert any(c.verdict == "inconclusive" for k, c in real.items() if c.kind == "direction")
