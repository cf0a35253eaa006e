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
    text = "\n".join(textwrap.wrap(reason, chars)[:8])
    ax.text(0.5, 0.5, "NOT REGENERATED\n" + text, transform=ax.transAxes, ha="center", va="center",
            fontsize=fontsize, color="#a00000", bbox=dict(boxstyle="round", facecolor="white", edgecolor="#a00000"))


def suptitle(fig, title: str, profile: str, note: str | None = None) -> None:
    """Figure title with the profile (and e.g. a dataset substitute) named."""
    text = f"{title}  [profile: {profile}]"
    if note:
        text += f"\n{note}"
    fig.suptitle(text, fontsize=10)
    fig.tight_layout()


def stamp_profile_note(fig, profile: str, note: str) -> None:
    """Footer naming the profile and what it reduces against the paper (every figure carries it)."""
    if not note:
        return
    width_chars = max(60, int(fig.get_figwidth() * 13))
    text = "\n".join(textwrap.wrap(f"Profile '{profile}' - {note}", width_chars)[:4])
    fig.text(0.01, -0.01, text, ha="left", va="top", fontsize=7, color="#444444", transform=fig.transFigure)


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
            ax.set_title(caption, fontsize=9, loc="left")
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
