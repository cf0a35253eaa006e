"""The steps the workflow (and the ``repro`` command) runs: run -> figure -> claims -> claims table."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from repro import experiment as ex
from repro import paths
from repro.results import read_json, read_tidy_csv, tidy_frame, write_csv, write_json, write_text


def _log(msg: str) -> None:
    print(f"[repro {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def set_threads(threads: int) -> None:
    """Pin intra-op threads so ``-j N`` jobs do not oversubscribe the cores."""
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    try:
        import torch

        torch.set_num_threads(max(1, threads))
    except ImportError:  # pragma: no cover - torch is a hard dependency
        pass


def execute_run(slug: str, run_id: str, profile: str, device: str = "cpu", threads: int = 1, force: bool = False) -> Path:
    """Do one run (unless its result exists) and write ``results/<profile>/<slug>/runs/<id>.json``."""
    specs = ex.run_specs(slug, profile)
    ex.check_choice(f"run id of {slug} under profile {profile}", run_id, sorted(specs))
    out = paths.run_result_path(profile, slug, run_id)
    if out.exists() and not force:
        _log(f"{slug}/{run_id}: result exists, skipped")
        return out
    spec = specs[run_id]
    set_threads(threads)
    ctx = ex.RunContext(profile=profile, run_id=run_id, device=device, threads=threads,
                        log=lambda m: _log(f"{slug}/{run_id}: {m}"))
    t0 = time.perf_counter()
    _log(f"{slug}/{run_id}: start ({spec.task}, seed {spec.seed})")
    result = ex.paper_module(slug, "experiments").execute(spec, ctx)
    elapsed = time.perf_counter() - t0
    write_json(out, {"spec": spec.to_dict(), "profile": profile, "device": device, "threads": threads,
                     "wall_s": elapsed, "result": result})
    _log(f"{slug}/{run_id}: done in {elapsed:.1f}s")
    return out


def load_results(slug: str, fig: ex.FigureSpec, profile: str) -> dict[str, dict]:
    out = {}
    for rid in fig.run_ids:
        p = paths.run_result_path(profile, slug, rid)
        if not p.exists():
            raise FileNotFoundError(f"{slug}/{fig.fig_id}: run {rid} has no result at {p}; run it first (repro run {slug} {rid} --profile {profile})")
        out[rid] = read_json(p)["result"]
    return out


def render_figure(slug: str, fig_id: str, profile: str, run_missing: bool = False, device: str = "cpu", threads: int = 1) -> list[Path]:
    """Render one figure / table from its runs' results into ``figures/<profile>/<slug>/``."""
    fig = ex.figure_spec(slug, fig_id, profile)
    if run_missing:
        for i, rid in enumerate(fig.run_ids, 1):
            _log(f"{slug}/{fig_id}: run {i}/{len(fig.run_ids)}")
            execute_run(slug, rid, profile, device=device, threads=threads)
    results = load_results(slug, fig, profile)
    params = ex.load_params(slug, profile)
    rendered = ex.paper_module(slug, "figures").render(fig, results, ex.RenderContext(profile=profile, params=params))
    base = paths.figures_dir(profile, slug) / fig_id
    written = []
    data = tidy_frame(rendered.data.to_dict("records")) if rendered.data is not None and len(rendered.data) else tidy_frame([])
    write_csv(base.with_suffix(".csv"), data)
    written.append(base.with_suffix(".csv"))
    if rendered.figure is not None:
        from repro.plotting import close
        from repro.results import save_figure

        written += save_figure(rendered.figure, base)
        close(rendered.figure)
    else:
        raise ValueError(f"{slug}/{fig_id}: renderer returned no figure (tables are drawn as a figure too)")
    if rendered.markdown is not None:
        write_text(base.with_suffix(".md"), rendered.markdown)
        written.append(base.with_suffix(".md"))
    _log(f"{slug}/{fig_id}: wrote {', '.join(p.name for p in written)}")
    return written


def evaluate_claims(slug: str, profile: str) -> Path:
    """Evaluate the paper's claims on its figures' CSVs -> ``results/<profile>/<slug>/claims.json``."""
    from repro.claims import Claim

    tables = {}
    for fig in ex.figure_specs(slug, profile):
        p = paths.figures_dir(profile, slug) / f"{fig.fig_id}.csv"
        if p.exists():
            tables[fig.fig_id] = read_tidy_csv(p)
    params = ex.load_params(slug, profile)
    claims = ex.paper_module(slug, "claims").evaluate(tables, params, profile)
    ids = [c.id for c in claims]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"{slug}: duplicate claim ids {dup}")
    for c in claims:
        if not isinstance(c, Claim) or c.paper != slug:
            raise ValueError(f"{slug}: claims.evaluate returned a bad claim {c!r}")
    out = paths.results_dir(profile, slug) / "claims.json"
    write_json(out, [c.to_dict() for c in claims])
    counts = {s: sum(c.status == s for c in claims) for s in ("pass", "fail", "not_evaluated")}
    _log(f"{slug}: claims {counts}")
    return out


def load_claims(profile: str, slugs=ex.PAPERS) -> list[dict]:
    rows = []
    for slug in slugs:
        p = paths.results_dir(profile, slug) / "claims.json"
        if p.exists():
            rows += read_json(p)
    return rows


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (dict, list)):
        return json.dumps(v, separators=(",", ":"))
    return str(v).replace("|", "\\|").replace("\n", " ")


def claims_markdown(profile: str, slugs=ex.PAPERS) -> str:
    rows = load_claims(profile, slugs)
    counts = {}
    for r in rows:
        counts.setdefault(r["paper"], {"pass": 0, "fail": 0, "not_evaluated": 0})[r["status"]] += 1
    lines = [f"# Paper claims, profile `{profile}`", "",
             "Kinds: `analytic` and `robust` must pass; `paper_number` compares a fragile paper number with the "
             "regenerated one and never fails the tests. `not_evaluated` says why.", "",
             "| paper | pass | fail | not evaluated |", "|---|---|---|---|"]
    for slug, c in counts.items():
        lines.append(f"| {slug} | {c['pass']} | {c['fail']} | {c['not_evaluated']} |")
    lines += ["", "| paper | id | figure | kind | status | paper value | regenerated | tolerance | statement | reason |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(k)) for k in
                     ("paper", "id", "figure", "kind", "status", "expected", "value", "tolerance", "statement", "reason")) + " |")
    return "\n".join(lines) + "\n"


def write_claims_table(profile: str) -> Path:
    out = paths.figures_dir(profile) / "claims.md"
    write_text(out, claims_markdown(profile))
    return out
