"""Write the README's figure gallery from the figure specs and the committed quick-profile PNGs.

    python -m repro.gallery            # rewrites the block between the gallery markers in README.md
"""

from __future__ import annotations

import sys

from repro import experiment as ex
from repro import paths
from repro.results import write_text

START, END = "<!-- gallery:start -->", "<!-- gallery:end -->"
TIMING_START, TIMING_END = "<!-- timing:start -->", "<!-- timing:end -->"
TITLES = {
    "dp_ditto": "Convergence-Privacy-Fairness Trade-Off in Personalized FL (DP-Ditto)",
    "wpfl_minmax": "Wireless PFL: Quantization-Assisted Min-Max Fair Scheduling",
    "ota_jammer": "DP for FL over wireless: over-the-air FL with a cooperative jammer",
    "age_dp": "Age Aware Scheduling for Differentially-Private FL",
    "acfl": "Adaptive Coded FL: Privacy Preservation and Straggler Mitigation",
}


def gallery_markdown(profile: str = "quick") -> str:
    lines = [START, ""]
    for slug in ex.PAPERS:
        lines += [f"### `{slug}`: {TITLES[slug]}", ""]
        for fig in ex.figure_specs(slug, profile):
            png = paths.figures_dir(profile, slug) / f"{fig.fig_id}.png"
            rel = png.relative_to(paths.project_root())
            ref = fig.paper_ref or fig.fig_id
            lines.append(f"**{ref}** (`{fig.fig_id}`, {fig.kind}): {fig.claim}")
            lines.append("")
            if png.exists():
                lines.append(f'<img src="{rel.as_posix()}" width="560" alt="{slug} {fig.fig_id}">')
            else:
                lines.append(f"_(not rendered yet: `snakemake {rel.with_suffix('.pdf').as_posix()}`)_")
            lines.append("")
    lines.append(END)
    return "\n".join(lines)


def timing_markdown(profile: str = "quick") -> str:
    """Per paper: quick-profile compute time (sum of the runs' wall_s) and the paper-profile estimate."""
    from repro.results import read_json

    lines = [TIMING_START, "",
             f"Measured on the 2-core CPU (`{profile}` profile: sum of the runs' single-thread wall times; "
             "`snakemake -j2` runs two at a time), and the estimated `paper` profile cost:", "",
             "| paper | figures | runs | quick compute (s) | paper profile, estimated CPU-hours |", "|---|---|---|---|---|"]
    for slug in ex.PAPERS:
        figs = ex.figure_specs(slug, profile)
        run_ids = sorted({r for f in figs for r in f.run_ids})
        walls = [read_json(p)["wall_s"] for r in run_ids if (p := paths.run_result_path(profile, slug, r)).exists()]
        est = [f.est_paper_minutes for f in ex.figure_specs(slug, "paper") if f.est_paper_minutes]
        est_txt = f"{sum(est) / 60:.1f}" if est else "n/a"
        wall_txt = f"{sum(walls):.0f}" + ("" if len(walls) == len(run_ids) else f" ({len(walls)}/{len(run_ids)} runs found)")
        lines.append(f"| `{slug}` | {len(figs)} | {len(run_ids)} | {wall_txt} | {est_txt} |")
    lines += ["", TIMING_END]
    return "\n".join(lines)


def _replace_block(text: str, start: str, end: str, block: str) -> str:
    if start not in text or end not in text:
        raise SystemExit(f"README.md has no markers {start} ... {end}")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return head + block + tail


def main(argv=None) -> int:
    readme = paths.project_root() / "README.md"
    text = _replace_block(readme.read_text(), START, END, gallery_markdown())
    text = _replace_block(text, TIMING_START, TIMING_END, timing_markdown())
    write_text(readme, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
