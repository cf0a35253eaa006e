"""Write the README's figure gallery from the figure specs and the committed quick-profile PNGs.

    python -m repro.gallery            # rewrites the block between the gallery markers in README.md
"""

from __future__ import annotations

import sys

from repro import experiment as ex
from repro import paths
from repro.results import write_text

START, END = "<!-- gallery:start -->", "<!-- gallery:end -->"
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


def main(argv=None) -> int:
    readme = paths.project_root() / "README.md"
    text = readme.read_text()
    if START not in text or END not in text:
        print(f"README.md has no gallery markers {START} ... {END}", file=sys.stderr)
        return 2
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    write_text(readme, head + gallery_markdown() + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
