"""A table of independent configurations rendered from the runs that exist (``repro figure --no-run --partial``):
the missing runs are "not run at this scale", the table says so, and only such tables accept it."""


import pytest

from repro import experiment as ex
from repro import pipeline

SLUG = "ota_jammer"  # its privacy table has one row per configuration; fig9's synthetic runs are cheap in smoke




def test_only_tables_of_independent_configurations_render_partially(tmp_root):
    assert [f.fig_id for f in ex.figure_specs(SLUG, "smoke") if f.rows_per_configuration] == ["privacy"]
    with pytest.raises(ex.ConfigError, match=r"fig2.*\['privacy'\]"):
        pipeline.render_figure(SLUG, "fig2", "smoke", partial=True)
    with pytest.raises(ex.ConfigError, match="--no-run"):
        pipeline.render_figure(SLUG, "privacy", "smoke", run_missing=True, partial=True)


def test_missing_runs_are_an_error_unless_partial(tmp_root):
    fig = ex.figure_spec(SLUG, "privacy", "smoke")
    with pytest.raises(FileNotFoundError, match="has no intact result"):
        pipeline.load_results(SLUG, fig, "smoke")
    results = pipeline.load_results(SLUG, fig, "smoke", partial=True)
    assert set(results) == set(fig.run_ids)
    assert all(ex.is_unavailable(r) and r["reason"].startswith("not run at this scale") for r in results.values())


def test_partial_privacy_table_certifies_only_complete_configurations(tmp_root):
    from repro.results import read_tidy_csv

    fig9 = ex.figure_spec(SLUG, "fig9", "smoke")
    for jid in fig9.job_ids:
        pipeline.execute_run(SLUG, jid, "smoke")
    pipeline.render_figure(SLUG, "privacy", "smoke", partial=True)
    out = tmp_root / "figures" / "smoke" / SLUG
    df = read_tidy_csv(out / "privacy.csv")
    series = set(df["series"])
    assert series and all("synthetic i.i.d." in s for s in series)  # fig9's configurations, nothing else
    md = (out / "privacy.md").read_text()
    privacy_runs = set(ex.figure_spec(SLUG, "privacy", "smoke").run_ids)
    missing = len(privacy_runs - set(fig9.run_ids))
    assert missing > 0 and f"PARTIAL: {missing} of {len(privacy_runs)} runs not run at this scale" in md
    assert "Configurations not certified" in md and "no CJ" in md.split("Configurations not certified")[1]
    assert (out / "privacy.png").exists()
