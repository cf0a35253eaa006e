"""Shared matplotlib style and helpers for the papers' figures.

Importing this module does not choose a matplotlib backend (the workflow's ``repro figure`` selects the
file-only Agg backend itself; in a notebook the user's backend stays).
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt

STYLE = {
    "figure.dpi": 100,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "lines.linewidth": 1.5,
    "lines.markersize": 4,
}


def subplots(nrows: int = 1, ncols: int = 1, width: float = 4.2, height: float = 3.2, **kw):
    """Figure with ``nrows x ncols`` panels of the given size (inches) in the package style."""
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kw)
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
        ax.spines["top"].set_visible(False)
        ax.spines["right"].set_visible(False)
    return fig, axes


def mark_unavailable(ax, reason: str, fontsize: float = 7.5) -> None:
    """Mark a panel that could not be regenerated (e.g. CIFAR-10 not available offline).

    The reason is wrapped to the panel's width and the empty panel's 0..1 tick labels are hidden.
    """
    ax.set_facecolor("#f3f3f3")
    ax.set_xticklabels([])
    ax.set_yticklabels([])
    fig = ax.get_figure()
    width_pt = ax.get_position().width * fig.get_figwidth() * 72
    chars = max(18, int(0.85 * width_pt / (0.55 * fontsize)))
    lines = textwrap.wrap(reason, chars)
    if len(lines) > 8:  # a long reason is set smaller, never cut
        fontsize = max(5.0, fontsize * 8 / len(lines))
        lines = textwrap.wrap(reason, max(18, int(0.85 * width_pt / (0.55 * fontsize))))
    text = "\n".join(lines)
    ax.text(0.5, 0.5, "NOT REGENERATED\n" + text, transform=ax.transAxes, ha="center", va="center",
            fontsize=fontsize, color="#a00000", bbox=dict(boxstyle="round", facecolor="white", edgecolor="#a00000"))


def _renderer(fig):
    try:
        return fig.canvas.get_renderer()
    except AttributeError:  # a backend without one (rare): fall back to an estimate from the font size
        return None


def _text_width_px(fig, text_artist) -> float:
    renderer = _renderer(fig)
    if renderer is not None:
        return text_artist.get_window_extent(renderer).width
    lines = text_artist.get_text().split("\n")
    return max(len(line) for line in lines) * 0.6 * text_artist.get_fontsize() * fig.dpi / 72


_KEEP = "\x00"  # stands for a space inside $...$ (mathtext is never split across lines)


def _protect_math(line: str) -> str:
    parts = line.split("$")
    if len(parts) % 2 == 0:  # an odd number of "$": not mathtext, leave it
        return line
    return "$".join(p.replace(" ", _KEEP) if i % 2 else p for i, p in enumerate(parts))


def wrap_lines(text: str, chars: int) -> str:
    """``text`` wrapped to ``chars`` characters a line; explicit line breaks are kept, nothing is dropped,
    and a ``$...$`` math expression is never split."""
    out = []
    for line in text.split("\n"):
        out += textwrap.wrap(_protect_math(line), max(8, chars), break_long_words=False, break_on_hyphens=False) or [""]
    return "\n".join(out).replace(_KEEP, " ")


def fit_text(fig, text_artist, width_px: float) -> bool:
    """Re-wrap ``text_artist`` (every word kept) until it is at most ``width_px`` wide (display pixels of
    ``fig``). Returns True if the text changed. A single word wider than ``width_px`` stays on its own line."""
    original = text_artist.get_text()
    if not original.strip():
        return False
    words = original.split()
    chars = max(len(line) for line in original.split("\n"))
    for _ in range(12):
        measured = _text_width_px(fig, text_artist)
        if measured <= width_px or chars <= 8:
            break
        chars = max(8, min(chars - 1, int(chars * width_px / measured * 0.97)))
        text_artist.set_text(wrap_lines(original, chars))
    if text_artist.get_text().split() != words:  # pragma: no cover - wrapping only moves line breaks
        text_artist.set_text(original)
    return text_artist.get_text() != original


def _figure_width_px(fig) -> float:
    return fig.get_figwidth() * fig.dpi


def suptitle(fig, title: str, profile: str, note: str | None = None) -> None:
    """Figure title with the profile (and e.g. a dataset substitute) named, wrapped to the figure's width
    (a one-line title or note no longer sets the width of the saved image)."""
    text = f"{title}  [profile: {profile}]"
    if note:
        text += f"\n{note}"
    t = fig.suptitle(text, fontsize=10)
    if fit_text(fig, t, 0.98 * _figure_width_px(fig)):
        extra = t.get_text().count("\n") - text.count("\n")  # lines the wrapping added: the figure grows by them
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, h + extra * 1.25 * t.get_fontsize() / 72)
    fig.tight_layout()


def fit_titles(fig) -> bool:
    """Wrap every axes title to its axes' width and the figure title to the figure's width (no word
    dropped); re-run the tight layout when a title changed and the figure uses no other layout engine.
    Returns True if anything changed."""
    changed = False
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        width = ax.get_position().width * _figure_width_px(fig)
        for loc in ("center", "left", "right"):
            t = getattr(ax, {"center": "title", "left": "_left_title", "right": "_right_title"}[loc])
            changed |= fit_text(fig, t, max(width, 0.3 * _figure_width_px(fig)))
    if fig._suptitle is not None:
        changed |= fit_text(fig, fig._suptitle, 0.98 * _figure_width_px(fig))
    engine = fig.get_layout_engine() if hasattr(fig, "get_layout_engine") else None
    if changed and (engine is None or type(engine).__name__ == "TightLayoutEngine"):
        try:
            fig.tight_layout()
        except Exception:  # pragma: no cover - a layout tight_layout cannot handle keeps its positions
            pass
    return changed


def stamp_profile_note(fig, profile: str, note: str) -> None:
    """Footer naming the profile and what it reduces against the paper (every figure carries it), wrapped
    into as many lines as it needs (never cut: the saved image grows downward). Titles are fitted first
    (:func:`fit_titles`)."""
    fit_titles(fig)
    if not note:
        return
    t = fig.text(0.01, -0.01, f"Profile '{profile}' - {note}", ha="left", va="top", fontsize=7, color="#444444",
                 transform=fig.transFigure)
    fit_text(fig, t, 0.98 * _figure_width_px(fig))


def close(fig) -> None:
    plt.close(fig)


# A table block is (caption, header, rows): rows are lists of already formatted strings.


def draw_tables(blocks, title: str, profile: str, note: str | None = None, width: float = 8.5,
                col_widths=None, cell_colour=None, fontsize: float = 7.5, cell_loc: str = "center"):
    """Draw one or more tables (one block per axis) as a figure; the header row is shaded.

    ``blocks`` is a list of ``(caption | None, header, rows)``. ``col_widths`` is a list of fractions or
    ``"auto"`` (each column as wide as its longest cell). ``cell_colour(block_index, row, col) -> colour |
    None`` may shade body cells (rows from 1).
    """
    heights = [0.45 + 0.24 * (len(rows) + 1) for _, _, rows in blocks]
    fig, axes = subplots(len(blocks), 1, width=width, height=1.0, gridspec_kw={"height_ratios": heights})
    fig.set_size_inches(width, sum(heights) + 0.7)
    for b, (ax, (caption, header, rows)) in enumerate(zip(axes.flat, blocks)):
        ax.axis("off")
        ax.grid(False)
        if caption:
            t = ax.set_title(caption, fontsize=9, loc="left")
            if fit_text(fig, t, 0.98 * _figure_width_px(fig)):  # a long caption wraps (never cut, never widens the image)
                heights[b] += (t.get_text().count("\n") - caption.count("\n")) * 1.25 * 9 / 72
        auto = isinstance(col_widths, str) and col_widths == "auto"
        widths = col_widths if not auto and col_widths is not None and len(col_widths) == len(header) else None
        tab = ax.table(cellText=[[str(c) for c in r] for r in rows], colLabels=[str(h) for h in header],
                       cellLoc=cell_loc, colWidths=widths, bbox=[0, 0, 1, 1])
        tab.auto_set_font_size(False)
        tab.set_fontsize(fontsize)
        if auto:
            tab.auto_set_column_width(list(range(len(header))))
        for (r, c), cell in tab.get_celld().items():
            if r == 0:
                cell.set_facecolor("#e8eef7")
            elif cell_colour is not None and (colour := cell_colour(b, r, c)):
                cell.set_facecolor(colour)
    if len(blocks) > 1:
        axes.flat[0].get_gridspec().set_height_ratios(heights)
    fig.set_size_inches(width, sum(heights) + 0.7)
    suptitle(fig, title, profile, note)
    return fig


def markdown_tables(blocks, title: str | None = None, note: str | None = None) -> str:
    """The same blocks as markdown (a ``# title``, an optional note, one table per block)."""
    out = [f"# {title}", ""] if title else []
    if note:
        out += [note, ""]
    for caption, header, rows in blocks:
        if caption:
            out += [f"**{caption}**", ""]
        clean = lambda v: str(v).replace("\n", " ").replace("|", "\\|")  # noqa: E731
        out += ["| " + " | ".join(clean(h) for h in header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(clean(c) for c in r) + " |" for r in rows]
        out.append("")
    return "\n".join(out)
