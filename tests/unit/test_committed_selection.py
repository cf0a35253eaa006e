"""A redraw without training (``repro figure SLUG FIG --profile paper --no-run``) of a clone whose paper-profile runs
are the committed CPU selection (docs/paper_cpu/SLUG.yaml): drawn from those runs, as committed, and said so; never
with an override of the user's own in place, never when asked to train, and the full profile's error stands where
the selection cannot draw the figure either."""

import pytest

from repro import experiment as ex
from repro import pipeline


@pytest.fixture()
def selection_file(tmp_path, monkeypatch):
    chosen = tmp_path / "dp_ditto.yaml"
    chosen.write_text("fig34_panels: [dnn_mnist]\n")
    monkeypatch.setattr(ex, "committed_selection", lambda slug, profile: chosen if profile == "paper" else None)
    monkeypatch.setattr(ex, "user_profile_file", lambda slug, profile, _orig=ex.user_profile_file:
                        ex._SELECTION.get((slug, profile)) or tmp_path / "absent" / f"{slug}.yaml")
    return chosen


def _draw_only_with(chosen, calls):
    def draw(slug, fig_id, profile, *args):
        active = ex._SELECTION.get((slug, profile))
        calls.append(active)
        if active != chosen:
            raise FileNotFoundError(f"{slug}/{fig_id}: run X has no intact result")
        assert ex.load_params(slug, profile)["fig34_panels"] == ["dnn_mnist"]  # the selection's parameters
        return ["drawn"]
    return draw


def test_a_redraw_reads_the_committed_selection_where_the_full_profile_has_no_runs(selection_file, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(pipeline, "draw_figure", _draw_only_with(selection_file, calls))
    assert pipeline.render_figure("dp_ditto", "fig3", "paper") == ["drawn"]
    assert calls == [None, selection_file] and not ex._SELECTION  # the selection is used only inside the redraw
    assert "drawn from the committed runs of" in capsys.readouterr().err


def test_no_selection_when_training_is_asked_for_or_the_selection_cannot_draw_it(selection_file, monkeypatch):
    calls = []
    monkeypatch.setattr(pipeline, "draw_figure", _draw_only_with(selection_file, calls))
    with pytest.raises(FileNotFoundError, match="run X"):
        pipeline.render_figure("dp_ditto", "fig3", "quick")  # no selection for this profile
    with pytest.raises(FileNotFoundError, match="run X"):
        pipeline.render_figure("dp_ditto", "fig3", "paper", run_missing=True)
    assert calls == [None, None]

    def never(slug, fig_id, profile, *args):
        raise FileNotFoundError("full profile: run Y missing")
    monkeypatch.setattr(pipeline, "draw_figure", never)
    with pytest.raises(FileNotFoundError, match="full profile: run Y"):
        pipeline.render_figure("dp_ditto", "fig3", "paper")


def test_a_users_own_override_is_never_replaced(selection_file, tmp_path, monkeypatch):
    own = tmp_path / "own.yaml"
    own.write_text("{}\n")
    monkeypatch.setattr(ex, "user_profile_file", lambda slug, profile: ex._SELECTION.get((slug, profile)) or own)
    calls = []
    monkeypatch.setattr(pipeline, "draw_figure", _draw_only_with(selection_file, calls))
    with pytest.raises(FileNotFoundError, match="run X"):
        pipeline.render_figure("dp_ditto", "fig3", "paper")
    assert calls == [None]
