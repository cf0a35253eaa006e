"""Measured cost of a profile: every training run timed on short probes and scaled to its full length.

    python -m repro.costs --profile paper                      # all papers; writes docs/costs.md
    python -m repro.costs --profile paper --papers ota_jammer --device cuda --out docs/costs_gpu.md

A paper's ``experiments.cost_probe(spec, rounds)`` splits a run into :class:`ProbePart` s: training jobs
whose cost is ``fixed + units x per_unit`` (a unit is one communication round of one job; ``fixed`` is
what a job pays once: its final evaluation, its set-up) with the same ``fixed`` and ``per_unit`` wherever
the part's ``key`` is the same (same data, model, method and batch shape; seeds, noise levels and privacy
budgets do not change the arithmetic). Each key is measured once, by two shortened copies of a job
(``rounds`` and ``2 x rounds`` rounds, after one untimed warm-up the first time a part's data is used,
so that loading data and first-call overheads are not counted as work), executed in this
process through the paper's ``TASKS`` exactly as the workflow runs them. A run's cost is the sum over its
parts of ``jobs x fixed + full units x per_unit``. Runs without a hook (closed forms, simulations of
seconds) are timed in full. A probe whose dataset is missing offline is
reported as not measured, never as zero. Each run is counted once per paper, however many figures share
it; the figure rows list the runs they read, so their sum can exceed the paper's total.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from repro import experiment as ex
from repro import paths, registry


@dataclass
class ProbePart:
    """``jobs`` jobs of ``full_units`` units in all, costing ``jobs x fixed + full_units x per_unit``;
    ``short`` and ``long`` are one such job shortened to ``short_units`` < ``long_units`` units. Parts
    with equal ``key`` (within one paper) share one measurement."""

    key: str
    short: ex.RunSpec
    long: ex.RunSpec
    short_units: float
    long_units: float
    full_units: float
    jobs: int = 1
    flops_per_unit: float | None = None
    data: str = ""  # parts with the same data share what the first one loaded (it gets a warm-up run)


@dataclass
class Probe:
    """How to measure one run: its parts and its number of communication rounds (all jobs)."""

    parts: list
    rounds: int = 0

    def __post_init__(self):
        if not self.parts:
            raise ValueError("a probe needs at least one part")
        for p in self.parts:
            if not 0 < p.short_units < p.long_units or p.full_units < 0 or p.jobs < 0:
                raise ValueError(f"probe part {p.key!r}: need 0 < short_units < long_units, full_units >= 0 and "
                                 f"jobs >= 0, got {p.short_units}, {p.long_units}, {p.full_units}, {p.jobs}")


@dataclass
class UnitCost:
    """Measured cost of a key (seconds): per job (``fixed_*``) and per unit, or why it was not measured."""

    cpu_s: float = 0.0
    wall_s: float = 0.0
    fixed_cpu_s: float = 0.0
    fixed_wall_s: float = 0.0
    unavailable: str = ""

    def of(self, jobs: int, units: float) -> tuple[float, float]:
        return jobs * self.fixed_cpu_s + units * self.cpu_s, jobs * self.fixed_wall_s + units * self.wall_s


def fit_line(short_units: float, long_units: float, t_short: float, t_long: float) -> tuple[float, float]:
    """(fixed, per_unit) of ``t = fixed + units x per_unit`` through two timings, both clamped at >= 0."""
    per = max(0.0, (t_long - t_short) / (long_units - short_units))
    return max(0.0, t_short - short_units * per), per


@dataclass
class RunCost:
    run_id: str
    task: str
    rounds: int
    cpu_s: float
    wall_s: float
    flops: float | None = None
    probed: bool = True
    unavailable: str = ""
    recorded: bool = False
    figures: list = field(default_factory=list)


def _recorded(slug: str, spec: ex.RunSpec, profile: str, device: str) -> tuple[float, float] | None:
    """(wall, CPU seconds) recorded by a finished run of this profile on this kind of device, if any."""
    from repro.results import read_json

    path = paths.run_result_path(profile, slug, spec.run_id)
    if not path.exists():
        return None
    try:
        rec = read_json(path)
    except (OSError, ValueError):
        return None
    if ex.is_unavailable(rec.get("result", {})) or "cpu_s" not in rec or str(rec.get("device", "cpu")) != device:
        return None
    return float(rec.get("wall_s", 0.0)), float(rec["cpu_s"])


def _execute(slug: str, spec: ex.RunSpec, profile: str, device: str) -> tuple[float, float, dict]:
    import torch

    fn = ex.tasks(slug)[spec.task].resolve()
    ctx = ex.RunContext(profile=profile, run_id=spec.run_id, device=device, threads=torch.get_num_threads(),
                        log=lambda m: None)
    t0, c0 = time.perf_counter(), time.process_time()
    result = fn(spec, ctx)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - t0, time.process_time() - c0, result


_WARM: set = set()  # data already loaded in this process (see ProbePart.data)


def _measure_part(slug: str, part: ProbePart, profile: str, device: str, log) -> UnitCost:
    """Short job, long job (after a warm-up short job the first time the part's data is used)."""
    if (slug, part.data) not in _WARM:
        _, _, result = _execute(slug, part.short, profile, device)
        if ex.is_unavailable(result):
            log(f"{slug} [{part.key}]: not measured ({result.get('reason', 'unavailable')})")
            return UnitCost(unavailable=result.get("reason", "unavailable"))
        _WARM.add((slug, part.data))
    w1, c1, result = _execute(slug, part.short, profile, device)
    if ex.is_unavailable(result):
        return UnitCost(unavailable=result.get("reason", "unavailable"))
    w2, c2, _ = _execute(slug, part.long, profile, device)
    fc, pc = fit_line(part.short_units, part.long_units, c1, c2)
    fw, pw = fit_line(part.short_units, part.long_units, w1, w2)
    log(f"{slug} [{part.key}]: {part.short_units:g} units {c1:.2f} s CPU, {part.long_units:g} units "
        f"{c2:.2f} s CPU -> {fc:.2f} s per job + {pc:.3g} s per unit")
    return UnitCost(pc, pw, fc, fw)


def measure_run(slug: str, spec: ex.RunSpec, profile: str, rounds: int, device: str, log,
                cache: dict | None = None, select=None, on_new=None) -> RunCost:
    """Cost of one run; ``cache`` (key -> :class:`UnitCost`) shares measurements between runs (and between
    invocations when it was loaded from a store); ``select(key)`` says which parts missing from it to measure;
    ``on_new()`` is called after each new measurement (to store it). A run already executed under this
    profile (its result file records its CPU time on this device) is not probed: its record is its cost."""
    cache = {} if cache is None else cache
    recorded = _recorded(slug, spec, profile, device)
    if recorded is not None:
        log(f"{slug}/{spec.run_id}: already run, recorded {recorded[1]:.1f} s CPU")
        return RunCost(spec.run_id, spec.task, 0, recorded[1], recorded[0], probed=False, recorded=True)
    hook = getattr(registry.module(slug, "experiments"), "cost_probe", None)
    probe = hook(spec, rounds) if hook else None
    if probe is None:
        wall, cpu, result = _execute(slug, spec, profile, device)
        why = result.get("reason", "unavailable") if ex.is_unavailable(result) else ""
        log(f"{slug}/{spec.run_id}: timed in full, {wall:.1f} s wall, {cpu:.1f} s CPU")
        return RunCost(spec.run_id, spec.task, 0, cpu, wall, probed=False, unavailable=why)
    cpu = wall = 0.0
    flops, missing = [], []
    for part in probe.parts:
        if part.key not in cache:
            if select is not None and not select(part.key):
                missing.append("not selected for measurement (--parts)")
                continue
            cache[part.key] = _measure_part(slug, part, profile, device, log)
            if on_new is not None:
                on_new()
        unit = cache[part.key]
        if unit.unavailable:
            missing.append(unit.unavailable)
            continue
        c, w = unit.of(part.jobs, part.full_units)
        cpu, wall = cpu + c, wall + w
        if part.flops_per_unit:
            flops.append(part.flops_per_unit * part.full_units)
    return RunCost(spec.run_id, spec.task, probe.rounds, cpu, wall, sum(flops) if flops else None,
                   unavailable="; ".join(sorted(set(missing))))


def paper_costs(slug: str, profile: str, rounds: int, device: str, log=print, cache: dict | None = None,
                select=None, on_new=None) -> tuple[dict, list, dict]:
    """(run id -> RunCost, [(figure, its run ids)], key -> UnitCost) for one paper; ``cache``: measurements
    already made (key -> UnitCost), extended in place."""
    figs = ex.figure_specs(slug, profile)
    specs = ex.run_specs(slug, profile)
    costs, cache = {}, ({} if cache is None else cache)
    for rid, spec in sorted(specs.items()):
        costs[rid] = measure_run(slug, spec, profile, rounds, device, log, cache, select, on_new)
    per_fig = [(f, f.run_ids) for f in figs]
    for f, rids in per_fig:
        for r in rids:
            costs[r].figures.append(f.fig_id)
    return costs, per_fig, cache


def _hours(s: float) -> str:
    return f"{s / 3600:.2f}" if s >= 36 else f"{s / 3600:.4f}"


def _row(label: str, fig: str, cs: list, bold: bool = False) -> str:
    """One table row over runs ``cs``: runs not measured (dataset missing) are counted and named."""
    measured = [c for c in cs if not c.unavailable]
    fl = [c.flops for c in measured if c.flops]
    cpu, wall = sum(c.cpu_s for c in measured), sum(c.wall_s for c in measured)
    b = "**" if bold else ""
    missing = len(cs) - len(measured)
    note = f"{missing} not measured" if missing else ""
    return (f"| {label} | {fig} | {len(cs)} | {sum(c.rounds for c in cs)} | {sum(fl) / 1e12:.1f} | " if fl else
            f"| {label} | {fig} | {len(cs)} | {sum(c.rounds for c in cs)} | | ") + \
        f"{b}{_hours(cpu)}{b} | {b}{_hours(wall)}{b} | {note} |"


def cost_markdown(results: dict, profile: str, device: str, rounds: int) -> str:
    import platform

    import torch

    lines = [f"# Measured cost of the `{profile}` profile on `{device}`", "",
             f"Machine: {platform.processor() or platform.machine()}, {torch.get_num_threads()} torch thread(s); "
             f"{'GPU ' + torch.cuda.get_device_name() if device.startswith('cuda') else 'CPU only'}. Every training "
             f"run was split into parts of equal cost per job-round; each distinct part was timed on a probe of "
             f"{rounds} round(s) per job and scaled to the run's full number of job-rounds "
             "(`python -m repro.costs`); closed forms and simulations were timed in full. CPU-hours are process "
             "CPU time (all threads); wall-hours are elapsed time on this machine. Rows with runs 'not measured' "
             "exclude those runs (their dataset is not available offline).", "",
             "| paper | figure | runs | rounds | est. TFLOP | CPU-hours | wall-hours | |", "|---|---|---|---|---|---|---|---|"]
    for slug, (costs, per_fig, _) in results.items():
        for f, rids in per_fig:
            lines.append(_row(f"`{slug}`", f.fig_id, [costs[r] for r in rids]))
        lines.append(_row(f"**`{slug}` total (each run once)**", "", list(costs.values()), bold=True))
    lines += ["", "Measured costs per part (CPU seconds; a job costs fixed + rounds x per round):", "",
              "| paper | part | fixed per job | per round | |", "|---|---|---|---|---|"]
    for slug, (_, _, units) in results.items():
        for key, u in sorted(units.items()):
            lines.append(f"| `{slug}` | {key} | | | not measured: {u.unavailable} |" if u.unavailable else
                         f"| `{slug}` | {key} | {u.fixed_cpu_s:.2f} | {u.cpu_s:.3g} | |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m repro.costs", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", default="paper", choices=ex.PROFILES)
    p.add_argument("--papers", nargs="+", choices=list(registry.slugs()))
    p.add_argument("--rounds", type=int, default=1, help="rounds per training job in a probe (default 1)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--out", default="docs/costs.md", help="markdown file to write (relative to the project root); "
                   "the measurements are stored beside it as JSON and reused by the next call")
    p.add_argument("--parts", help="regular expression: measure only the parts whose key matches (stored ones are reused)")
    p.add_argument("--remeasure", action="store_true", help="ignore stored measurements")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error(f"--rounds must be >= 1, got {args.rounds}")
    import re

    try:
        select = re.compile(args.parts).search if args.parts else None
    except re.error as e:
        p.error(f"--parts {args.parts!r} is not a regular expression: {e}")
    out = Path(args.out)
    out = out if out.is_absolute() else paths.project_root() / out
    store = out.with_suffix(".json")
    stored = {} if args.remeasure else load_store(store, args.profile, args.device, args.rounds)
    results = {}
    for slug in args.papers or registry.slugs():
        cache = stored.setdefault(slug, {})
        results[slug] = paper_costs(slug, args.profile, args.rounds, args.device,
                                    log=lambda m: print(f"[costs] {m}", file=sys.stderr, flush=True), cache=cache,
                                    select=select,  # every measurement is stored at once: an interrupted call resumes
                                    on_new=lambda: save_store(store, args.profile, args.device, args.rounds, stored))
    text = cost_markdown(results, args.profile, args.device, args.rounds)
    from repro.results import write_text

    write_text(out, text)
    print(text)
    return 0


def load_store(path: Path, profile: str, device: str, rounds: int) -> dict:
    """Stored measurements ``{slug: {key: UnitCost}}`` made with the same profile, device and probe length."""
    import json

    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"repro: error: cannot read stored cost measurements {path}: {e} (delete it or pass --remeasure)")
    if (doc.get("profile"), doc.get("device"), doc.get("rounds")) != (profile, device, rounds):
        return {}
    return {slug: {k: UnitCost(**u) for k, u in units.items()} for slug, units in doc.get("units", {}).items()}


def save_store(path: Path, profile: str, device: str, rounds: int, units: dict) -> None:
    import json
    from dataclasses import asdict

    from repro.results import write_text

    doc = {"profile": profile, "device": device, "rounds": rounds,
           "units": {slug: {k: asdict(u) for k, u in sorted(us.items())} for slug, us in sorted(units.items())}}
    write_text(path, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
