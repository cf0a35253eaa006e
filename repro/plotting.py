"""Shared matplotlib style and helpers for the papers' figures.

Importing this module does not choose a matplotlib backend (the workflow's ``repro figure`` selects the
file-only Agg backend itself; in a notebook the user's backend stays).
"""

from __future__ import annotations

import re

import textwrap

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

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
    fig._repro_unavailable = [*getattr(fig, "_repro_unavailable", []), reason]  # for the figure's .md
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


#: the longest note a figure's title carries; a longer one is cut there on the figure and kept whole in its .md
TITLE_NOTE_CHARS = 160


def short_note(note: str, limit: int = TITLE_NOTE_CHARS) -> str:
    """``note`` as the title shows it: whole if short, else its first words up to ``limit`` characters and a pointer
    to the figure's .md (which holds it whole: ``repro.pipeline.draw_figure``)."""
    one = " ".join(str(note).split())
    if len(one) <= limit:
        return one
    return one[:limit].rsplit(" ", 1)[0].rstrip(",;:.( ") + " ... (in full in the figure's .md)"


def suptitle(fig, title: str, profile: str, note: str | None = None) -> None:
    """Figure title with the profile (and e.g. a dataset substitute) named, wrapped to the figure's width
    (a one-line title or note no longer sets the width of the saved image). A long ``note`` is cut on the figure
    (``short_note``) and kept whole on the figure object (``fig._repro_title_note``) for its .md."""
    text = f"{title}  [profile: {profile}]"
    if note:
        fig._repro_title_note = " ".join(str(note).split())
        text += f"\n{short_note(note)}"
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


#: Two series whose curves stay within this many points of each other (on the page) at every x of the shorter
#: one are drawn on top of each other: the upper ones are restyled and the coincidence is named.
COINCIDE_PT = 2.5
_SLOT = 3.0  # dash length (in line widths) of each series of a coinciding group


def _series_lines(ax) -> list:
    """``(line, label)`` of every visible plotted series of ``ax`` (lines with a legend label, and the data line
    of a labelled errorbar), in drawing order (z-order, then the order they were added)."""
    from matplotlib.container import ErrorbarContainer

    errorbar = {id(c.lines[0]): c.get_label() for c in ax.containers
                if isinstance(c, ErrorbarContainer) and c.lines[0] is not None}
    out = []
    for i, line in enumerate(ax.get_lines()):
        label = errorbar.get(id(line), line.get_label())
        if line.get_visible() and label and not str(label).startswith("_"):
            out.append((line.get_zorder(), i, line, str(label)))
    return [(line, label) for _, _, line, label in sorted(out, key=lambda t: t[:2])]


def _display_points(line) -> tuple:
    """(data x, display y in pixels) of the line's finite points."""
    import numpy as np

    x = np.asarray(line.get_xdata(orig=False), dtype=float).reshape(-1)
    y = np.asarray(line.get_ydata(orig=False), dtype=float).reshape(-1)
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.any():
        return x[:0], y[:0]
    pts = line.get_transform().transform(np.column_stack([x[ok], y[ok]]))
    return x[ok], pts[:, 1]


def curves_coincide(a, b, tol_px: float) -> bool:
    """True when line ``b`` lies on line ``a``: at every x of the one with fewer points the other has a point,
    and the two are at most ``tol_px`` display pixels apart there. A single point on a curve (a marked optimum)
    is not a hidden series; two single points at one place are."""
    import numpy as np

    (xa, ya), (xb, yb) = _display_points(a), _display_points(b)
    if len(xa) == 0 or len(xb) == 0 or (min(len(xa), len(xb)) == 1 and max(len(xa), len(xb)) > 1):
        return False
    if len(xa) > len(xb):
        xa, ya, xb, yb = xb, yb, xa, ya
    for x, y in zip(xa, ya):
        hit = np.isclose(xb, x, rtol=1e-9, atol=1e-12)
        if not hit.any() or np.abs(yb[hit] - y).min() > tol_px:
            return False
    return True


def _has_line(line) -> bool:
    return line.get_linestyle() not in ("None", "none", "", " ")  # a markers-only series stays without a line


def _restyle_upper(line, k: int, m: int) -> None:
    """Series ``k`` (1..m-1) of ``m`` coinciding ones: dashes in its own slot of the pattern (the lowest series,
    solid, shows in slot 0), hollow markers a little larger (up to 2.35x), so each series stays visible."""
    if _has_line(line):
        line.set_linestyle((_SLOT * (m - k), (_SLOT, _SLOT * (m - 1))))
    if line.get_marker() not in (None, "None", "none", "", " "):
        line.set_markerfacecolor("none")
        line.set_markersize(line.get_markersize() * (1 + 0.45 * min(k, 3)))  # capped: 7 coinciding series stay legible
        line.set_markeredgewidth(max(1.0, line.get_markeredgewidth()))


def _place_clear(ax, legend, keep_clear=()) -> int:
    """Put ``legend`` at the location inside ``ax`` that covers the fewest of the axes' notes (texts) and other
    legends, then the fewest points of the curves, then of the shaded intervals (matplotlib's "best" does not look at
    texts). Returns how many points of the curves it covers there (0 where no renderer is available)."""
    import numpy as np

    renderer = _renderer(ax.get_figure())
    if renderer is None:
        legend.set_loc("best")
        return 0
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_visible() and t.get_text().strip()]
    boxes += [other.get_window_extent(renderer) for other in keep_clear]
    boxes += [a.get_window_extent(renderer) for a in ax.artists  # notes placed before (note_clear)
              if a is not legend and a not in keep_clear and type(a).__name__ == "Legend"]
    lines = [line.get_transform().transform(np.column_stack([np.asarray(v, dtype=float) for v in line.get_data(orig=False)]))
             for line in ax.get_lines() if len(line.get_xdata())]
    bands = [coll.get_transform().transform(path.vertices)  # bands (fill_between), scatter points
             for coll in ax.collections for path in coll.get_paths() if len(path.vertices)]
    lines, bands = (np.concatenate(p) if p else np.zeros((0, 2)) for p in (lines, bands))

    def inside(pts, bb) -> int:
        return int(np.sum((pts[:, 0] >= bb.x0) & (pts[:, 0] <= bb.x1) & (pts[:, 1] >= bb.y0) & (pts[:, 1] <= bb.y1)))

    best = None
    for loc in ("upper left", "upper right", "lower left", "lower right", "center left", "center right",
                "upper center", "lower center", "center"):
        legend.set_loc(loc)
        bb = legend.get_window_extent(renderer)
        # notes first, then the curves' own points, then the shaded intervals' edges
        score = (sum(bb.overlaps(b) for b in boxes), inside(lines, bb), inside(bands, bb))
        if best is None or score < best[0]:
            best = (score, loc)
    legend.set_loc(best[1])
    return best[0][1]  # the curves' points it covers there


def _handle_dashes(handle) -> None:
    """A legend handle of a restyled series: plain short dashes (its slot pattern could leave the short handle
    blank), so that its colour shows."""
    if isinstance(handle, Line2D) and _has_line(handle):
        handle.set_linestyle((0, (_SLOT, _SLOT / 2)))


def mark_coinciding(fig, tol_pt: float = COINCIDE_PT) -> list[list[str]]:
    """Find, in each axes of ``fig``, series drawn on top of each other (within ``tol_pt`` points at every x of
    the shorter one) and make each visible: the lowest stays as drawn, each one above it is dashed in its own
    slot with hollow, larger markers. The legend of that axes says which coincide (``B (≈ A)``); an axes whose
    legend does not list them gets a small "same curve" legend of them, unless another legend of the figure
    already says the same (a figure with one legend for all its panels). Returns the groups of labels."""
    tol_px = tol_pt * fig.dpi / 72
    groups_all, pending = [], []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        ax.get_xlim(), ax.get_ylim()  # settle autoscaled limits: the data -> pixel transform is final
        groups: list[list] = []
        for line, label in _series_lines(ax):
            for g in groups:
                if curves_coincide(g[0][0], line, tol_px):
                    g.append((line, label))
                    break
            else:
                groups.append([(line, label)])
        groups = [g for g in groups if len(g) > 1]
        if not groups:
            continue
        legend = ax.get_legend()
        entries = {t.get_text(): (t, h) for t, h in zip(legend.texts, legend.legend_handles)} if legend else {}
        unnamed = []  # series of a group that the axes' legend does not list
        for g in groups:
            base = g[0][1]
            for k, (line, label) in enumerate(g[1:], 1):
                _restyle_upper(line, k, len(g))
                if label in entries:
                    text, handle = entries[label]
                    text.set_text(f"{label} (≈ {base})")
                    if isinstance(handle, Line2D):
                        _restyle_upper(handle, k, len(g))
                        _handle_dashes(handle)
            if not all(label in entries for _, label in g[1:]):
                unnamed += [(line, label if k == 0 else f"{label} (≈ {base})", k > 0) for k, (line, label) in enumerate(g)]
            groups_all.append([label for _, label in g])
        if unnamed:
            pending.append((ax, legend, unnamed))
    said = {t.get_text() for a in fig.axes if a.get_legend() is not None for t in a.get_legend().texts}
    for ax, legend, unnamed in pending:
        if all(text in said for _, text, upper in unnamed if upper):
            continue  # another panel's legend already names each of these series as on the same curve
        if legend is not None:  # a small legend of its own, placed where it hides the least; the axes' legend stays
            ax.add_artist(legend)
        narrow = [_abridged(t) for _, t, _ in unnamed]
        small = ax.legend([h for h, _, _ in unnamed], narrow, fontsize=6, title="same curve",
                          title_fontsize=6, framealpha=0.85, handlelength=3.0)
        for handle, (_, _, upper) in zip(small.legend_handles, unnamed):
            if upper:
                _handle_dashes(handle)
        covered = _place_clear(ax, small, [legend] if legend is not None else [])
        if covered and len(unnamed) > SAME_CURVE_ROWS:  # too tall to sit clear of the curves: one line per group
            small.remove()  # the axes' own legend stays (an artist since above)
            note_clear(ax, "\n".join(["same curve:", *_same_curve_lines(unnamed)]), fontsize=6)
    return groups_all


#: a "same curve" legend of more entries than this that covers plotted points wherever it sits becomes a text note
SAME_CURVE_ROWS = 3


def _same_curve_lines(unnamed, width: int = 34) -> list[str]:
    """The groups of ``unnamed`` [(handle, label, upper)] as "A ≈ B ≈ C" lines (labels abridged), wrapped at ``width``."""
    import textwrap

    groups: list[list[str]] = []
    for _, label, upper in unnamed:
        name = _abridged(re.sub(r" \(≈ .*\)$", "", label), longest=0)
        if upper and groups:
            groups[-1].append(name)
        else:
            groups.append([name])
    return [line for g in groups for line in textwrap.wrap(" ≈ ".join(g), width, break_long_words=False)]


def _abridged(label: str, longest: int = 32) -> str:
    """A long label for a small legend: each bracketed qualifier cut to its first word ("DP-FedAMP [guide: alphaK
    1e3, ...]" -> "DP-FedAMP [guide:…]"); the figure's own legend keeps the full label."""
    return re.sub(r"\[(\S*)[^\]]*\]", lambda m: f"[{m.group(1).rstrip(',')}…]", label) if len(label) > longest else label


def note_clear(ax, text: str, fontsize: float = 6.5, color: str = "#444444"):
    """A note inside ``ax``, boxed, at the corner or side that covers the fewest plotted points and other notes
    (a fixed position can land on a curve). Returns the artist."""
    from matplotlib.legend import Legend

    note = Legend(ax, [], [], title=text, title_fontsize=fontsize, framealpha=0.85, borderpad=0.3)
    note.get_title().set_color(color)
    note.get_title().set_multialignment("left")
    ax.add_artist(note)
    ax.get_xlim(), ax.get_ylim()  # settle autoscaled limits before looking for the clear spot
    legend = ax.get_legend()
    _place_clear(ax, note, [legend] if legend is not None else [])
    return note


def stamp_verdicts(fig, text: str, fontsize: float = 7.5) -> None:
    """The verdicts of the claims a figure carries, in a box in its top-left corner (above the title), wrapped
    to the figure's width (never cut)."""
    if not text:
        return
    t = fig.text(0.01, 1.005, text, ha="left", va="bottom", fontsize=fontsize, color="#222222",
                 transform=fig.transFigure,
                 bbox=dict(boxstyle="round,pad=0.35", facecolor="#fff6dc", edgecolor="#b08800", linewidth=0.8))
    fit_text(fig, t, 0.96 * _figure_width_px(fig))


def stack_on_top(fig, text_artist, gap: float = 0.004) -> None:
    """Move a note anchored at the top edge (``va="bottom"``, y >= 0.99 in figure coordinates) above the other notes
    anchored there (the verdict stamp, another note), so that none covers another."""
    renderer = fig.canvas.get_renderer()
    height = fig.get_figheight() * fig.dpi
    top = None
    for other in fig.texts:
        if other is text_artist or other.get_va() != "bottom" or other.get_position()[1] < 0.99:
            continue
        box = other.get_window_extent(renderer)  # the text itself; a boxed one (the verdict stamp) adds its padding
        pad = other.get_fontsize() * fig.dpi / 72.0 * 0.6 if other.get_bbox_patch() is not None else 0.0
        top = max(top or 0.0, (box.y1 + pad) / height)
    if top is not None:
        text_artist.set_y(top + gap)


def close(fig) -> None:
    plt.close(fig)


# A table block is (caption, header, rows): rows are lists of already formatted strings.


#: table layout: the widest a wrapped header / body line may be (characters), and the inches one character and one
#: line take at font size 1 (DejaVu Sans; a little generous, so that a cell never cuts its text)
HEADER_WRAP, CELL_WRAP = 16, 44
CHAR_IN, LINE_IN = 0.62 / 72, 1.45 / 72


def _wrap_cell(text, width: int) -> str:
    """``text`` wrapped to ``width`` characters per line, at ", " and spaces (a long number list breaks after a comma);
    a word longer than the width keeps its own line."""
    import textwrap

    lines = []
    for part in str(text).split("\n"):
        lines += textwrap.wrap(part, width=width, break_long_words=False, break_on_hyphens=False) or [""]
    return "\n".join(lines)


def table_layout(header, rows, wrap_header: int = HEADER_WRAP, wrap_cell: int = CELL_WRAP):
    """(wrapped header, wrapped rows, column widths in characters, lines per row incl. the header): what a table
    needs so that no header or cell is cut (``draw_tables``)."""
    head = [_wrap_cell(h, max(wrap_header, max((len(w) for w in str(h).split()), default=1))) for h in header]
    body = [[_wrap_cell(c, wrap_cell) for c in r] for r in rows]
    cols = [max(len(line) for cell in [head[j]] + [r[j] for r in body] for line in cell.split("\n"))
            for j in range(len(header))]
    lines = [max(c.count("\n") + 1 for c in row) for row in [head] + body]
    return head, body, cols, lines


def draw_tables(blocks, title: str, profile: str, note: str | None = None, width: float = 8.5,
                col_widths=None, cell_colour=None, fontsize: float = 7.5, cell_loc: str = "center"):
    """Draw one or more tables (one block per axis) as a figure; the header row is shaded.

    ``blocks`` is a list of ``(caption | None, header, rows)``. Headers and cells are wrapped (``table_layout``), each
    column is as wide as its widest line and each row as tall as its tallest cell, and the figure is as wide as the
    widest table needs (at least ``width``), so no text is cut. ``col_widths``: a list of fractions of the table's
    width (kept where the content fits in them), ``"auto"`` or None (from the content). ``cell_colour(block_index,
    row, col) -> colour | None`` may shade body cells (rows from 1).
    """
    laid = [table_layout(header, rows) for _, header, rows in blocks]
    pad = 2  # characters of padding per column
    need_in = max((sum(c + pad for c in cols) * CHAR_IN * fontsize for _, _, cols, _ in laid), default=width)
    width = max(width, need_in + 0.3)
    line_in = LINE_IN * fontsize
    heights = [0.45 + line_in * sum(lines) + 0.04 * len(lines) for _, _, _, lines in laid]
    fig, axes = subplots(len(blocks), 1, width=width, height=1.0, gridspec_kw={"height_ratios": heights})
    fig.set_size_inches(width, sum(heights) + 0.7)
    for b, (ax, (caption, header, rows), (head, body, cols, lines)) in enumerate(zip(axes.flat, blocks, laid)):
        ax.axis("off")
        ax.grid(False)
        if caption:
            t = ax.set_title(caption, fontsize=9, loc="left")
            if fit_text(fig, t, 0.98 * _figure_width_px(fig)):  # a long caption wraps (never cut, never widens the image)
                heights[b] += (t.get_text().count("\n") - caption.count("\n")) * 1.25 * 9 / 72
        content = [c + pad for c in cols]
        fit = (isinstance(col_widths, (list, tuple)) and len(col_widths) == len(header)
               and all(w * sum(content) >= c for w, c in zip(col_widths, content)))
        widths = list(col_widths) if fit else [c / sum(content) for c in content]
        used = sum(content) * CHAR_IN * fontsize / width  # the table's share of the figure's width
        tab = ax.table(cellText=body, colLabels=head, cellLoc=cell_loc, colWidths=widths,
                       bbox=[0, 0, min(1.0, max(used, 0.6)) if not fit else 1.0, 1])
        tab.auto_set_font_size(False)
        tab.set_fontsize(fontsize)
        for (r, c), cell in tab.get_celld().items():
            cell.set_height(lines[r] + 0.5)  # relative: the bbox scales the rows, keeping their proportions
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
