"""Figure text is never cut and never sets the width: footers wrap into as many lines as they need,
titles and notes wrap to the figure (a one-line title made tables 4,000-4,650 px wide)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from PIL import Image  # noqa: E402

from repro import plotting  # noqa: E402
from repro.results import save_figure  # noqa: E402

DPI = 130  # save_figure's PNG resolution
WORDS = [f"word{i:03d}" for i in range(400)]  # every word distinct: a dropped one is found
LONG = " ".join(WORDS)


def all_words(fig) -> list[str]:
    texts = [t.get_text() for t in fig.texts]
    if fig._suptitle is not None:
        texts.append(fig._suptitle.get_text())
    for ax in fig.axes:
        texts += [ax.title.get_text(), ax._left_title.get_text(), ax._right_title.get_text()]
        texts += [t.get_text() for t in ax.texts]
    return " ".join(texts).split()


def png_size(fig, tmp_path, name):
    save_figure(fig, tmp_path / name, formats=("png",))
    with Image.open(tmp_path / f"{name}.png") as im:
        return im.size


def test_long_footer_is_kept_entire_and_width_bounded(tmp_path):
    fig, axes = plotting.subplots(1, 2, width=3.0, height=2.5)
    axes[0, 0].plot([0, 1], [0, 1])
    plotting.suptitle(fig, "A short title", "quick")
    plotting.stamp_profile_note(fig, "quick", LONG)
    words = all_words(fig)
    assert all(w in words for w in WORDS)  # nothing cut (it used to keep 4 lines)
    footer = next(t for t in fig.texts if "word000" in t.get_text())
    assert footer.get_text().count("\n") >= 5  # as many lines as it needs
    w, h = png_size(fig, tmp_path, "footer")
    assert w <= 6.0 * DPI * 1.05, w
    assert h > 2.5 * DPI  # the image grew downward to hold the footer
    plotting.close(fig)


def test_long_table_title_and_note_wrap_to_the_figure(tmp_path):
    blocks = [("a caption " + " ".join(WORDS[:60]), ["config", "value"], [["a", "1"], ["b", "2"]])]
    fig = plotting.draw_tables(blocks, "Title " + " ".join(WORDS[:80]), "quick", note=" ".join(WORDS[80:300]),
                               width=8.0, col_widths="auto")
    plotting.stamp_profile_note(fig, "quick", " ".join(WORDS[300:]))
    words = all_words(fig)
    # the title, the caption and the footer whole on the figure; the long note cut there, kept whole for the .md
    assert all(w in words for w in WORDS[:80] + WORDS[300:])
    assert fig._repro_title_note == " ".join(WORDS[80:300])
    w, _ = png_size(fig, tmp_path, "table")
    assert w <= 8.0 * DPI * 1.05, w  # a one-line title used to set the width (thousands of pixels)
    plotting.close(fig)


def test_axes_titles_wrap_to_their_panel_and_mathtext_stays_whole(tmp_path):
    fig, axes = plotting.subplots(1, 3, width=2.5, height=2.0)
    for ax in axes.flat:
        ax.set_title("panel " + " ".join(["$\\lambda = 0.5$ and", *WORDS[:30]]))
    plotting.suptitle(fig, "Figure", "quick", note="$\\epsilon = 1$, " + " ".join(WORDS[:50]))
    plotting.stamp_profile_note(fig, "quick", "short note")
    for ax in axes.flat:
        assert ax.title.get_text().count("\n") >= 2
        assert all(line.count("$") % 2 == 0 for line in ax.title.get_text().split("\n"))  # never split inside $...$
    w, _ = png_size(fig, tmp_path, "axes")  # draws: every line is valid mathtext
    assert w <= 7.5 * DPI * 1.05, w
    plotting.close(fig)


def test_unavailable_reason_is_never_cut(tmp_path):
    fig, axes = plotting.subplots(1, 1)
    plotting.mark_unavailable(axes[0, 0], LONG)
    assert all(w in all_words(fig) for w in WORDS)
    png_size(fig, tmp_path, "unavailable")
    plotting.close(fig)


def test_a_note_at_the_top_is_stacked_above_the_verdict_stamp():
    """The divergence / partial note and the verdict box are both anchored at the figure's top edge: the note is
    moved above the box, so neither covers the other."""
    import matplotlib.pyplot as plt

    from repro.plotting import stack_on_top, stamp_verdicts

    fig, ax = plt.subplots(figsize=(8, 3))
    stamp_verdicts(fig, "Claims on this figure: C1 reproduced; C2 not evaluated")
    box = fig.texts[-1]
    note = fig.text(0.01, 1.0, "TRAINING DIVERGED: run x", ha="left", va="bottom", fontsize=7, transform=fig.transFigure)
    stack_on_top(fig, note)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    assert note.get_window_extent(r).y0 >= box.get_bbox_patch().get_window_extent(r).y1 - 0.5
    plt.close(fig)


def test_a_long_title_note_is_cut_on_the_figure_and_kept_whole_for_its_md():
    """One short title: a note over TITLE_NOTE_CHARS shows its first words and a pointer; the figure keeps it whole
    (``_repro_title_note``) for the .md that ``repro.pipeline.draw_figure`` writes beside it."""
    import matplotlib.pyplot as plt

    from repro.plotting import TITLE_NOTE_CHARS, short_note, suptitle

    long = "solid ACFL, dashed SCFL (the package's reconstruction: projection and privacy map) " * 4
    assert short_note("short note") == "short note"
    cut = short_note(long)
    assert len(cut) <= TITLE_NOTE_CHARS + 40 and cut.endswith("(in full in the figure's .md)")
    fig = plt.figure()
    try:
        suptitle(fig, "Fig. 4", "paper", long)
        assert fig._repro_title_note == " ".join(long.split())
        assert "in full in the figure's .md" in fig._suptitle.get_text().replace("\n", " ")
    finally:
        plt.close(fig)
