"""Series drawn on top of each other are found and made visible, and the legend says which coincide;
a figure's corner states its verdicts."""

from __future__ import annotations

import doctest

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from repro import plotting, report  # noqa: E402

X = np.array([1.0, 2.0, 5.0, 10.0, 20.0])


def _fig(ncols=1):
    fig, axes = plotting.subplots(1, ncols, width=4.0, height=3.0)
    return fig, axes


def test_coinciding_series_are_restyled_and_named_in_the_legend():
    fig, axes = _fig()
    ax = axes[0, 0]
    a, = ax.plot(X, 0.5 + 0.02 * X, marker="o", label="A")
    b, = ax.plot(X, 0.5 + 0.02 * X + 1e-4, marker="s", label="B")  # under a pixel apart: hides A
    c, = ax.plot(X, 0.2 + 0.01 * X, marker="^", label="C")
    ax.legend()
    groups = plotting.mark_coinciding(fig)
    assert groups == [["A", "B"]]
    assert a.get_linestyle() == "-" and c.get_linestyle() == "-" and b.get_linestyle() != "-"
    assert b.get_markerfacecolor() == "none" and a.get_markerfacecolor() != "none"
    assert b.get_markersize() > a.get_markersize()
    texts = [t.get_text() for t in ax.get_legend().texts]
    assert texts == ["A", "B (≈ A)", "C"]
    plotting.close(fig)


def test_series_apart_on_the_page_are_left_alone():
    fig, axes = _fig()
    ax = axes[0, 0]
    ax.plot(X, 0.5 + 0.02 * X, label="A")
    ax.plot(X, 0.55 + 0.02 * X, label="B")  # 5 % of a 0.5-wide range: about 8 points apart
    ax.plot(X, 0.0 * X, label="_nolegend_")  # unlabelled lines are not series
    ax.plot(X, 0.0 * X + 1e-6, label="_child")
    ax.legend()
    assert plotting.mark_coinciding(fig) == []
    plotting.close(fig)


def test_log_axes_compare_on_the_page():
    fig, axes = _fig()
    ax = axes[0, 0]
    ax.set_yscale("log")
    ax.plot(X, [1.0, 1e-1, 1e-2, 1e-4, 1e-5], label="A")
    ax.plot(X, [1.0, 1e-1, 1e-2, 1e-4, 1.05e-5], label="B")  # 5 % at 1e-5: the same point on a log axis
    ax.plot(X, [1.0, 1e-1, 1e-2, 1e-4, 3e-5], label="C")  # a factor 3 apart at the end: visible
    ax.legend()
    assert plotting.mark_coinciding(fig) == [["A", "B"]]
    plotting.close(fig)


def test_three_series_each_get_their_own_dash_slot_and_a_note_without_a_legend():
    fig, axes = _fig(2)
    left, right = axes[0, 0], axes[0, 1]
    lines = [left.plot(X, 0.3 * X, marker="o", label=name)[0] for name in ("A", "B", "C")]
    left.text(0.02, 0.02, "a note", transform=left.transAxes)
    for name in ("A", "B", "C"):
        right.plot(X, X * (1 + "ABC".index(name)), label=name)
    right.legend()  # the legend of another axes does not name the left axes' coincidence
    assert plotting.mark_coinciding(fig) == [["A", "B", "C"]]
    dashes = [line._unscaled_dash_pattern for line in lines[1:]]
    assert dashes[0] != dashes[1]  # B and C in different slots: each shows between the other's dashes
    small = left.get_legend()
    assert small is not None and small.get_title().get_text() == "same curve"
    assert [t.get_text() for t in small.texts] == ["A", "B (≈ A)", "C (≈ A)"]
    assert [t.get_text() for t in right.get_legend().texts] == ["A", "B", "C"]
    fig.canvas.draw()
    note = left.texts[0].get_window_extent()
    assert not small.get_window_extent().overlaps(note)  # placed clear of the axes' own notes
    plotting.close(fig)


def test_an_existing_legend_is_kept_beside_the_same_curve_legend():
    fig, axes = _fig()
    ax = axes[0, 0]
    ax.plot(X, X, label="A")
    ax.plot(X, X, label="B")
    ax.legend(handles=ax.get_lines()[:1])  # lists A only
    first = ax.get_legend()
    plotting.mark_coinciding(fig)
    assert first in ax.artists and ax.get_legend() is not first


def test_no_same_curve_legend_where_the_figure_legend_already_says_it():
    """One legend for all panels (right): when it names B as on A's curve, the left panel needs no legend of its own."""
    fig, axes = _fig(2)
    for ax in axes.flat:
        ax.plot(X, X, label="A")
        ax.plot(X, X, label="B")
        ax.plot(X, 3 * X + 5, label="C")
    axes[0, 1].legend()
    assert plotting.mark_coinciding(fig) == [["A", "B"], ["A", "B"]]
    assert axes[0, 0].get_legend() is None
    assert [t.get_text() for t in axes[0, 1].get_legend().texts] == ["A", "B (≈ A)", "C"]
    plotting.close(fig)


def test_a_note_is_placed_where_it_covers_the_fewest_points():
    fig, axes = _fig()
    ax = axes[0, 0]
    xs = np.linspace(0, 1, 200)
    ax.plot(xs, xs, label="rising")  # the diagonal: the upper-left and lower-right corners are clear
    note = plotting.note_clear(ax, "a note\nof two lines")
    assert note in ax.artists and note.get_title().get_text() == "a note\nof two lines"
    fig.canvas.draw()
    box = note.get_window_extent()
    pts = ax.transData.transform(np.column_stack([xs, xs]))
    inside = (pts[:, 0] >= box.x0) & (pts[:, 0] <= box.x1) & (pts[:, 1] >= box.y0) & (pts[:, 1] <= box.y1)
    assert not inside.any()
    plotting.close(fig)


def test_shared_x_points_only_and_errorbars():
    fig, axes = _fig()
    ax = axes[0, 0]
    ax.plot(X, X, label="A")
    ax.plot(X[:3], X[:3], label="B")  # the shorter one lies on A at every point it has
    ax.plot(X + 0.5, X, label="C")  # no x in common with A: not "the same curve"
    ax.errorbar(X, X * 0 + 3, yerr=0.1, fmt="o", label="D")
    ax.errorbar(X, X * 0 + 3, yerr=0.1, fmt="s", label="E")
    ax.plot([5.0], [5.0], "*", label="minimum")  # one marked point on a curve is no hidden series
    ax.legend()
    assert plotting.mark_coinciding(fig) == [["A", "B"], ["D", "E"]]
    handle = ax.get_legend().legend_handles[1]  # B's: plain dashes that show its colour in a short handle
    assert handle.get_linestyle() != "-" and handle._unscaled_dash_pattern[1] == (3.0, 1.5)
    plotting.close(fig)


def test_verdict_stamp_text_and_corner():
    judged = [{"id": "C2", "verdict": "inconclusive"}, {"id": "C1", "verdict": "reproduced"}]
    elsewhere = [{"id": f"X{i}", "figures": ["fig1", "fig4"]} for i in range(9)]
    text = report.verdict_stamp("paper", "fig1", judged, elsewhere)
    assert text == ("Claims on this figure, paper profile: reproduced C1 · inconclusive C2 · "
                    "judged with fig4 (see claims.md): 9 claims")
    assert report.verdict_stamp("quick", "fig1", [], []) == ""
    fig, axes = _fig()
    axes[0, 0].plot(X, X)
    plotting.stamp_verdicts(fig, text + " " + "word " * 80)
    stamp = fig.texts[-1]
    assert stamp.get_text().split() == (text + " " + "word " * 80).split()  # wrapped, nothing dropped
    fig.canvas.draw()
    assert stamp.get_window_extent().width <= fig.get_figwidth() * fig.dpi
    assert stamp.get_position()[1] >= 1.0  # above the axes and the title
    plotting.close(fig)


def test_verdict_stamp_doctest():
    runner = doctest.DocTestRunner()
    for t in doctest.DocTestFinder().find(report.verdict_stamp, "verdict_stamp", globs={"verdict_stamp": report.verdict_stamp}):
        runner.run(t)
    assert runner.tries > 0 and runner.failures == 0


def test_a_long_label_in_a_same_curve_legend_is_abridged():
    """A variant's long label ("Name [constant ...] (≈ Other)") is cut to the first word of its bracket in the small
    legend, so the legend stays narrow inside its panel; a short label is kept whole."""
    fig, axes = _fig(1)
    ax = axes[0, 0]
    long = "DP-FedAMP [guide: alphaK 1e3, sigma 0.1, own upload]"
    for name in ("DP-FedAMP", long):
        ax.plot(X, 0.3 * X, marker="o", label=name)
    assert plotting.mark_coinciding(fig) == [["DP-FedAMP", long]]
    texts = [t.get_text() for t in ax.get_legend().texts]
    assert texts == ["DP-FedAMP", "DP-FedAMP [guide:…] (≈ DP-FedAMP)"]
    plotting.close(fig)


def test_a_tall_same_curve_legend_that_would_hide_curves_becomes_one_line_per_group():
    """Five series on one curve among curves across the whole panel: a five-row "same curve" legend covers points of
    the curves wherever it sits, so the panel gets a short note "A ≈ B ≈ ..." instead (bracketed qualifiers
    abridged)."""
    fig, axes = _fig()
    ax = axes[0, 0]
    xs = np.linspace(0, 1, 400)
    for y in (0.05, 0.2, 0.35, 0.65, 0.8, 0.95):  # curves across the whole panel: no clear corner
        ax.plot(xs, y + 0 * xs, label=f"level {y}")
    for name in ("A", "B [long qualifier one]", "C", "D", "E"):
        ax.plot(xs, 0.5 + 0 * xs, label=name)
    ax.plot(xs, xs, label="F")
    ax.legend(handles=ax.get_lines()[-1:])  # lists F only: the five on one curve are not named there
    assert plotting.mark_coinciding(fig) == [["A", "B [long qualifier one]", "C", "D", "E"]]
    notes = [a for a in ax.artists if type(a).__name__ == "Legend" and a.get_title().get_text().startswith("same curve:")]
    assert len(notes) == 1
    text = notes[0].get_title().get_text()
    assert text.replace("\n", " ") == "same curve: A ≈ B […] ≈ C ≈ D ≈ E".replace("[…]", "[long…]")
    assert ax.get_legend() is None or ax.get_legend().get_title().get_text() != "same curve"
    plotting.close(fig)


def test_a_short_same_curve_legend_stays_a_legend_with_handles():
    fig, axes = _fig()
    ax = axes[0, 0]
    ax.plot(X, X, label="A")
    ax.plot(X, X, label="B")
    ax.plot(X, 3 * X + 5, label="C")
    ax.legend(handles=ax.get_lines()[2:])
    plotting.mark_coinciding(fig)
    assert ax.get_legend().get_title().get_text() == "same curve"
    plotting.close(fig)


def test_a_note_covers_a_shaded_interval_rather_than_a_curve():
    fig, axes = _fig()
    ax = axes[0, 0]
    xs = np.linspace(0, 1, 200)
    for y in (0.5, 0.92):
        ax.plot(xs, y + 0 * xs)
    dense = np.linspace(0, 1, 4000)  # a band's edges: many more vertices than the curves have points, but no curve
    ax.fill_between(dense, 0.04 + 0 * dense, 0.08 + 0 * dense, alpha=0.2)
    ax.set_ylim(0, 1)
    note = plotting.note_clear(ax, "a note")
    assert note._loc in (3, 4, 8)  # lower left, lower right, lower center
    plotting.close(fig)
