"""Stored expected numbers for the regenerated figures, so a change that moves results is noticed.

``tests/reference/<profile>/<slug>/<fig>.csv`` holds a copy of each figure's tidy CSV as last accepted;
``tests/reference/<profile>/claims_expected.json`` holds every claim id with whether it was evaluable.
Tolerances: ``tests/reference/tolerances.yaml`` (per paper and figure, ``rtol``/``atol``; defaults below).

Refresh deliberately, after checking that a change of numbers is intended:

    python -m repro.reference refresh --profile quick     # prints what changed, then stores the new numbers
    python -m repro.reference diff --profile quick        # prints what changed, stores nothing
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from repro import experiment as ex
from repro import paths
from repro.results import read_tidy_csv, write_json

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9
KEY = ["figure", "panel", "series", "x", "metric", "seed"]


def reference_dir(profile: str) -> Path:
    return paths.project_root() / "tests" / "reference" / profile


def tolerances(slug: str, fig: str) -> tuple[float, float]:
    path = paths.project_root() / "tests" / "reference" / "tolerances.yaml"
    tol = yaml.safe_load(path.read_text()) if path.exists() else {}
    tol = tol or {}
    entry = {**(tol.get("default") or {}), **((tol.get(slug) or {}).get("default") or {}), **((tol.get(slug) or {}).get(fig) or {})}
    return float(entry.get("rtol", DEFAULT_RTOL)), float(entry.get("atol", DEFAULT_ATOL))


def _keyed(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    for c in KEY:
        df[c] = df[c].astype(str)
    return df.groupby(KEY, dropna=False, sort=True)["value"].mean()


def compare(current: pd.DataFrame, reference: pd.DataFrame, rtol: float, atol: float) -> list[str]:
    """Differences between two tidy tables: missing/extra rows and values outside tolerance."""
    cur, ref = _keyed(current), _keyed(reference)
    problems = []
    missing = ref.index.difference(cur.index)
    extra = cur.index.difference(ref.index)
    if len(missing):
        problems.append(f"{len(missing)} reference rows missing, e.g. {list(missing[:3])}")
    if len(extra):
        problems.append(f"{len(extra)} new rows, e.g. {list(extra[:3])}")
    common = ref.index.intersection(cur.index)
    a, b = cur.loc[common].to_numpy(float), ref.loc[common].to_numpy(float)
    both_nan = np.isnan(a) & np.isnan(b)
    bad = ~both_nan & ~(np.abs(a - b) <= atol + rtol * np.abs(b))
    for idx in np.flatnonzero(bad)[:5]:
        problems.append(f"{common[idx]}: {a[idx]!r} vs reference {b[idx]!r} (rtol {rtol}, atol {atol})")
    if bad.sum() > 5:
        problems.append(f"... {int(bad.sum())} values outside tolerance in all")
    return problems


def diff(profile: str) -> dict[str, list[str]]:
    out = {}
    for slug in ex.PAPERS:
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


def refresh(profile: str) -> None:
    from repro.pipeline import load_claims

    for slug in ex.PAPERS:
        for fig in ex.figure_specs(slug, profile):
            src = paths.figures_dir(profile, slug) / f"{fig.fig_id}.csv"
            if src.exists():
                dst = reference_dir(profile) / slug / f"{fig.fig_id}.csv"
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
    claims = {f"{c['paper']}/{c['id']}": {"kind": c["kind"], "evaluable": c["status"] != "not_evaluated", "reason": c["reason"]}
              for c in load_claims(profile)}
    write_json(reference_dir(profile) / "claims_expected.json", claims)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m repro.reference", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=["diff", "refresh"])
    p.add_argument("--profile", default="quick", choices=ex.PROFILES)
    args = p.parse_args(argv)
    changes = diff(args.profile)
    for name, probs in changes.items():
        print(f"{name}:")
        for line in probs:
            print(f"  {line}")
    if not changes:
        print(f"all figures of profile {args.profile} match the stored reference")
    if args.action == "refresh":
        refresh(args.profile)
        print(f"stored the current numbers as the reference in {reference_dir(args.profile)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
