"""Shared matplotlib style and helpers for the papers' figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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


def mark_unavailable(ax, reason: str) -> None:
    """Mark a panel that could not be regenerated (e.g. CIFAR-10 not available offline)."""
    ax.set_facecolor("#f3f3f3")
    ax.text(0.5, 0.5, "NOT REGENERATED\n" + reason, transform=ax.transAxes, ha="center", va="center",
            fontsize=8, color="#a00000", wrap=True,
            bbox=dict(boxstyle="round", facecolor="white", edgecolor="#a00000"))


def suptitle(fig, title: str, profile: str, note: str | None = None) -> None:
    """Figure title with the profile (and e.g. a dataset substitute) named."""
    text = f"{title}  [profile: {profile}]"
    if note:
        text += f"\n{note}"
    fig.suptitle(text, fontsize=10)
    fig.tight_layout()


def close(fig) -> None:
    plt.close(fig)
