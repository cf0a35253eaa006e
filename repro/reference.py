"""Stored expected numbers and verdicts, so a change that moves results is noticed.

``tests/reference/<profile>/<slug>/<fig>.csv`` holds each figure's tidy CSV as last accepted, and
``tests/reference/<profile>/<slug>/verdicts.json`` every claim's verdict. A regenerated figure matches its
reference when the same (figure, panel, series, x, metric) cells exist (x compared as a number, to 1e-9
relative) and every cell's seed-mean lies within its tolerance:

* cells with two or more seeds: ``K_SE`` standard errors of the difference of the two seed-means
  (from the seed spread of the reference and of the new numbers), but at least the figure's
  ``rtol``/``atol``;
* single-value cells (closed forms, one seed): the figure's ``rtol``/``atol`` from
  ``tests/reference/tolerances.yaml`` (tight by default: these are deterministic).

Refresh deliberately, after checking that a change of numbers is intended:

    python -m repro.reference diff --profile quick        # prints what changed; exit 1 if anything did
    python -m repro.reference refresh --profile quick     # prints what changed, then stores the new numbers
    python -m repro.reference refresh --papers dp_ditto   # only these papers
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from repro import experiment as ex
from repro import paths, registry
from repro.config_files import load_yaml_file
from repro.results import read_json, read_tidy_csv, write_json

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9
#: standard errors of the difference of two seed-means a cell may move before it counts as changed
K_SE = 4.0
KEY = ["figure", "panel", "series", "x", "metric"]


def reference_dir(profile: str) -> Path:
    return paths.project_root() / "tests" / "reference" / profile


def tolerances(slug: str, fig: str) -> tuple[float, float]:
    path = paths.project_root() / "tests" / "reference" / "tolerances.yaml"
    tol = (load_yaml_file(path, "tolerance file") if path.exists() else {}) or {}
    entry = {**(tol.get("default") or {}), **((tol.get(slug) or {}).get("default") or {}), **((tol.get(slug) or {}).get(fig) or {})}
    return float(entry.get("rtol", DEFAULT_RTOL)), float(entry.get("atol", DEFAULT_ATOL))


def _x_key(x) -> str:
    """x as a canonical number (10 significant digits) when it is one, else its text."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return repr(float(f"{f:.10g}"))


def cell_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Per cell (KEY): seed-mean, seed sd, number of seeds (seed -1 counts as one deterministic value)."""
    d = df.copy()
    for c in ("figure", "panel", "series", "metric"):
        d[c] = d[c].astype(object).where(d[c].notna(), "").astype(str)
    d["x"] = d["x"].map(_x_key)
    d["value"] = pd.to_numeric(d["value"], errors="coerce")
    per_seed = d.groupby(KEY + ["seed"], dropna=False, sort=True)["value"].mean().reset_index()
    g = per_seed.groupby(KEY, dropna=False, sort=True)["value"]
    return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.count(), "n_rows": g.size(),
                         "any_nan": g.apply(lambda v: bool(v.isna().any()))})


def _same_nonfinite(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (math.isinf(a) and math.isinf(b) and (a > 0) == (b > 0))


def compare(current: pd.DataFrame, reference: pd.DataFrame, rtol: float, atol: float) -> list[str]:
    """Differences between two tidy tables: missing/extra cells and seed-means outside tolerance."""
    cur, ref = cell_stats(current), cell_stats(reference)
    problems = []
    missing, extra = ref.index.difference(cur.index), cur.index.difference(ref.index)
    if len(missing):
        problems.append(f"{len(missing)} reference cells missing, e.g. {[tuple(m) for m in missing[:3]]}")
    if len(extra):
        problems.append(f"{len(extra)} new cells, e.g. {[tuple(m) for m in extra[:3]]}")
    common = ref.index.intersection(cur.index)
    bad = []
    for idx in common:
        r, c = ref.loc[idx], cur.loc[idx]
        a, b = float(c["mean"]), float(r["mean"])
        if not (math.isfinite(a) and math.isfinite(b)):
            if not _same_nonfinite(a, b) or bool(c["any_nan"]) != bool(r["any_nan"]):
                bad.append((idx, a, b, "non-finite"))
            continue
        tol = atol + rtol * abs(b)
        if r["n"] >= 2 and c["n"] >= 2:
            se = math.sqrt((float(r["sd"]) ** 2) / r["n"] + (float(c["sd"]) ** 2) / c["n"])
            tol = max(tol, K_SE * se)
        if abs(a - b) > tol:
            bad.append((idx, a, b, f"tol {tol:.3g}"))
    for idx, a, b, why in bad[:5]:
        problems.append(f"{tuple(idx)}: seed-mean {a!r} vs reference {b!r} ({why})")
    if len(bad) > 5:
        problems.append(f"... {len(bad)} cells outside tolerance in all")
    return problems


def diff_figures(profile: str, slugs=None) -> dict[str, list[str]]:
    out = {}
    for slug in slugs or registry.slugs():
        for fig in ex.figure_specs(slug, profile):
            cur_p = paths.figures_dir(profile, slug) / f"{fig.fig_id}.csv"
            ref_p = reference_dir(profile) / slug / f"{fig.fig_id}.csv"
            name = f"{slug}/{fig.fig_id}"
            if not cur_p.exists():
                out[name] = ["not regenerated yet"]
            elif not ref_p.exists():
                out[name] = ["no stored reference"]
            else:
                rtol, atol = tolerances(slug, fig.fig_id)
                probs = compare(read_tidy_csv(cur_p), read_tidy_csv(ref_p), rtol, atol)
                if probs:
                    out[name] = probs
    return out


def current_verdicts(profile: str, slugs=None) -> dict[str, str]:
    from repro.pipeline import load_claims

    return {f"{c['paper']}/{c['id']}": c["verdict"] for c in load_claims(profile, slugs)}


def stored_verdicts(profile: str, slugs=None) -> dict[str, str]:
    out = {}
    for slug in slugs or registry.slugs():
        p = reference_dir(profile) / slug / "verdicts.json"
        if p.exists():
            out.update({f"{slug}/{k}": v["verdict"] for k, v in read_json(p).items()})
    return out


def diff_verdicts(profile: str, slugs=None) -> list[str]:
    cur, ref = current_verdicts(profile, slugs), stored_verdicts(profile, slugs)
    out = []
    for k in sorted(set(cur) | set(ref)):
        if k not in cur:
            out.append(f"{k}: stored verdict {ref[k]!r} but the claim is gone")
        elif k not in ref:
            out.append(f"{k}: new claim with verdict {cur[k]!r} (no stored verdict)")
        elif cur[k] != ref[k]:
            out.append(f"{k}: verdict {cur[k]!r}, stored {ref[k]!r}")
    return out


def refresh(profile: str, slugs=None) -> None:
    from repro.pipeline import load_claims

    for slug in slugs or registry.slugs():
        for fig in ex.figure_specs(slug, profile):
            src = paths.figures_dir(profile, slug) / f"{fig.fig_id}.csv"
            if src.exists():
                dst = reference_dir(profile) / slug / f"{fig.fig_id}.csv"
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
        claims = load_claims(profile, [slug])
        if claims:
            write_json(reference_dir(profile) / slug / "verdicts.json",
                       {c["id"]: {"verdict": c["verdict"], "effect": c.get("effect"), "interval": c.get("interval"),
                                  "reason": c.get("reason", "")} for c in claims})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m repro.reference", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=["diff", "refresh"])
    p.add_argument("--profile", default="quick", choices=ex.PROFILES)
    p.add_argument("--papers", nargs="+", choices=list(registry.slugs()), help="only these papers (default: all)")
    args = p.parse_args(argv)
    changes = diff_figures(args.profile, args.papers)
    for name, probs in changes.items():
        print(f"{name}:")
        for line in probs:
            print(f"  {line}")
    vchanges = diff_verdicts(args.profile, args.papers)
    for line in vchanges:
        print(f"verdict {line}")
    if not changes and not vchanges:
        print(f"every figure and verdict of profile {args.profile} matches the stored reference")
    if args.action == "refresh":
        refresh(args.profile, args.papers)
        print(f"stored the current numbers and verdicts as the reference in {reference_dir(args.profile)}")
        return 0
    return 1 if (changes or vchanges) else 0


if __name__ == "__main__":
    sys.exit(main())
