"""Measured cost of a profile: every training run timed on short probes and scaled to its full length.

    python -m repro.costs --profile paper                      # all papers; writes docs/costs.md
    python -m repro.costs --profile paper --papers ota_jammer --device cuda --out docs/costs_gpu.md
    python -m repro.costs --profile paper --compare docs/costs_before/2026-11-24.json   # + speed-up per part

A paper's ``experiments.cost_probe(spec, rounds)`` splits a run into :class:`ProbePart` s: training jobs
whose cost is ``fixed + units x per_unit`` (a unit is one communication round of one job; ``fixed`` is
what a job pays once: its final evaluation, its set-up) with the same ``fixed`` and ``per_unit`` wherever
the part's ``key`` is the same (same data, model, method and batch shape; seeds, noise levels and privacy
budgets do not change the arithmetic). Each key is measured once, by two shortened copies of a job
(``rounds`` and ``2 x rounds`` rounds, after one untimed warm-up the first time a part's data is used,
so that loading data and first-call overheads are not counted as work), executed in this
process through the paper's ``TASKS`` exactly as the workflow runs them. A run's cost is the sum over its
parts of ``jobs x fixed + full units x per_unit``. Runs without a hook (closed forms, simulations of
seconds) are timed in full; runs already executed under the profile on this device count their recorded
CPU time. A probe whose dataset is missing offline is reported as not measured, never as zero; a run with
some parts not measured is a lower bound and says so. ``--flops`` also counts each part's FLOPs (torch's
FlopCounterMode, two more untimed executions). Measurements are stored beside the table (``docs/costs.json``)
after each part and reused: an interrupted call resumes, ``--parts REGEX`` measures a subset. Each run is
counted once per paper, however many figures share it; the figure rows list the runs they read, so their sum
can exceed the paper's total.
"""

from __future__ import annotations

import argparse
import os
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
    flops: float | None = None  # counted FLOPs per unit and per job (torch's FlopCounterMode), when counted
    fixed_flops: float | None = None

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
    partly: str = ""  # why some of its parts were not measured (its cost is then a lower bound)
    recorded: bool = False
    figures: list = field(default_factory=list)


def _recorded(slug: str, spec: ex.RunSpec, profile: str, device: str) -> tuple[float, float] | None:
    """(wall, CPU seconds) recorded by a finished run of this profile on this kind of device, if any."""
    from repro.results import read_json_or_none

    rec = read_json_or_none(paths.run_result_path(profile, slug, spec.run_id))
    if not isinstance(rec, dict):
        return None
    if ex.is_unavailable(rec.get("result", {})) or "cpu_s" not in rec or str(rec.get("device", "cpu")) != device:
        return None
    return float(rec.get("wall_s", 0.0)), float(rec["cpu_s"])


def _execute(slug: str, spec: ex.RunSpec, profile: str, device: str) -> tuple[float, float, dict]:
    import torch

    fn = ex.tasks(slug)[spec.task].resolve()
    ex.prepare_device(device)
    ctx = ex.RunContext(profile=profile, run_id=spec.run_id, device=device, threads=torch.get_num_threads(),
                        log=lambda m: None)
    t0, c0 = time.perf_counter(), time.process_time()
    result = fn(spec, ctx)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - t0, time.process_time() - c0, result


_WARM: set = set()  # data already loaded in this process (see ProbePart.data)


def _count_flops(slug: str, spec: ex.RunSpec, profile: str, device: str) -> float:
    """FLOPs of one execution (matrix products and convolutions, forward and backward), counted by
    torch's FlopCounterMode in a separate, untimed execution (counting slows small operations down)."""
    with flop_counter() as counter:
        _execute(slug, spec, profile, device)
    return float(counter.get_total_flops())


def _inplace_baddbmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    """FLOPs of ``C.baddbmm_(A, B)``: the batched product ``[b, m, k] x [b, k, n]``, 2 b m k n."""
    b, m, k = a_shape
    return 2 * b * m * k * b_shape[-1]


def _conv_backward_flop(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed,
                        _output_padding, _groups, output_mask, out_shape=None, **kwargs) -> int:
    """FLOPs of a convolution's backward: the input gradient and the weight gradient each cost what the forward
    costs. torch's own formula builds the weight gradient as a convolution of the transposed shapes, which ignores
    ``groups`` and counts a grouped convolution's weight gradient once per group (the engine stacks the clients' model
    rows as groups: 12x the true FLOPs of a 12-row CNN round)."""
    from torch.utils.flop_counter import conv_flop_count

    fwd = conv_flop_count(x_shape, w_shape, grad_out_shape, transposed=transposed)
    return fwd * (int(bool(output_mask[0])) + int(bool(output_mask[1])))


def flop_counter():
    """torch's FlopCounterMode, also counting the in-place ``baddbmm_`` that the engine's fused step accumulates
    its weight gradients with (torch counts only the out-of-place matrix products: without this, the largest
    product of every fused Linear step, the weight gradient, went uncounted), and a grouped convolution's weight
    gradient once (:func:`_conv_backward_flop`)."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    return FlopCounterMode(display=False, custom_mapping={torch.ops.aten.baddbmm_: _inplace_baddbmm_flop,
                                                          torch.ops.aten.convolution_backward: _conv_backward_flop})


def add_flops(slug: str, part: ProbePart, unit: UnitCost, profile: str, device: str, log) -> None:
    """Count the part's FLOPs per job and per unit (short and long copy, as for the time)."""
    f1, f2 = _count_flops(slug, part.short, profile, device), _count_flops(slug, part.long, profile, device)
    unit.fixed_flops, unit.flops = fit_line(part.short_units, part.long_units, f1, f2)
    log(f"{slug} [{part.key}]: {unit.fixed_flops / 1e9:.3g} GFLOP per job + {unit.flops / 1e9:.3g} GFLOP per unit")


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
                cache: dict | None = None, select=None, on_new=None, flops: bool = False,
                probed_only: bool = False, usage: dict | None = None) -> RunCost:
    """Cost of one run; ``cache`` (key -> :class:`UnitCost`) shares measurements between runs (and between
    invocations when it was loaded from a store); ``select(key)`` says which parts missing from it to measure;
    ``on_new()`` is called after each new measurement (to store it); ``flops``: also count the FLOPs of the
    selected parts (two more, untimed executions per part); ``probed_only``: a run without probe parts is
    reported as not measured instead of being timed in full. A run already executed under this
    profile (its result file records its CPU time on this device) is not probed: its record is its cost.
    ``usage`` (key -> [jobs, rounds]) accumulates how much of each measured part this run contains."""
    cache = {} if cache is None else cache
    recorded = _recorded(slug, spec, profile, device)
    if recorded is not None:
        log(f"{slug}/{spec.run_id}: already run, recorded {recorded[1]:.1f} s CPU")
        return RunCost(spec.run_id, spec.task, 0, recorded[1], recorded[0], probed=False, recorded=True)
    hook = getattr(registry.module(slug, "experiments"), "cost_probe", None)
    probe = hook(spec, rounds) if hook else None
    if probe is None and probed_only:
        return RunCost(spec.run_id, spec.task, 0, 0.0, 0.0, probed=False,
                       unavailable="not measured: no probe parts (--probed-only)")
    if probe is None:
        wall, cpu, result = _execute(slug, spec, profile, device)
        why = result.get("reason", "unavailable") if ex.is_unavailable(result) else ""
        log(f"{slug}/{spec.run_id}: timed in full, {wall:.1f} s wall, {cpu:.1f} s CPU")
        return RunCost(spec.run_id, spec.task, 0, cpu, wall, probed=False, unavailable=why)
    cpu = wall = 0.0
    counted, missing = [], []
    for part in probe.parts:
        if part.key not in cache:
            if select is not None and not select(part.key):
                missing.append("not selected by --parts")
                continue
            cache[part.key] = _measure_part(slug, part, profile, device, log)
            if on_new is not None:
                on_new()
        if flops and cache[part.key].flops is None and not cache[part.key].unavailable \
                and (select is None or select(part.key)):
            add_flops(slug, part, cache[part.key], profile, device, log)
            if on_new is not None:
                on_new()
        unit = cache[part.key]
        if unit.unavailable:
            missing.append(unit.unavailable)
            continue
        c, w = unit.of(part.jobs, part.full_units)
        cpu, wall = cpu + c, wall + w
        if usage is not None:
            used = usage.setdefault(part.key, [0, 0])
            used[0], used[1] = used[0] + part.jobs, used[1] + part.full_units
        counted.append(None if unit.flops is None else part.jobs * unit.fixed_flops + part.full_units * unit.flops)
    total_flops = None if not counted or None in counted else sum(counted)
    whole = len(missing) == len(probe.parts)  # nothing measured: the run is 'not measured'; else a lower bound
    return RunCost(spec.run_id, spec.task, probe.rounds, cpu, wall, total_flops,
                   unavailable="; ".join(sorted(set(missing))) if whole else "",
                   partly="; ".join(sorted(set(missing))) if missing and not whole else "")


def paper_costs(slug: str, profile: str, rounds: int, device: str, log=print, cache: dict | None = None,
                select=None, on_new=None, flops: bool = False, probed_only: bool = False,
                usage: dict | None = None) -> tuple[dict, list, dict]:
    """(run id -> RunCost, [(figure, its run ids)], key -> UnitCost) for one paper; ``cache``: measurements
    already made (key -> UnitCost), extended in place; ``usage``: filled with each part's jobs and rounds in the
    probed runs (key -> [jobs, rounds])."""
    figs = ex.figure_specs(slug, profile)
    specs = ex.run_specs(slug, profile)
    costs, cache = {}, ({} if cache is None else cache)
    for rid, spec in sorted(specs.items()):
        costs[rid] = measure_run(slug, spec, profile, rounds, device, log, cache, select, on_new, flops, probed_only,
                                 usage)
    per_fig = [(f, f.run_ids) for f in figs]
    for f, rids in per_fig:
        for r in rids:
            costs[r].figures.append(f.fig_id)
    return costs, per_fig, cache


def _hours(s: float) -> str:
    return f"{s / 3600:.2f}" if s >= 36 else f"{s / 3600:.4f}"


def _reasons(cs: list) -> str:
    """'k not measured (why)' for the runs of ``cs`` that were not measured, grouped by reason."""
    why: dict[tuple, int] = {}
    for c in cs:
        for kind, text in (("not measured", c.unavailable), ("partly measured, lower bound", c.partly)):
            if text:
                short = "dataset not available offline" if "not available" in text else text
                why[(kind, short)] = why.get((kind, short), 0) + 1
    return "; ".join(f"{n} {kind} ({w})" for (kind, w), n in sorted(why.items()))


def _row(label: str, fig: str, cs: list, bold: bool = False) -> str:
    """One table row over runs ``cs`` (runs not measured are excluded from the sums and named)."""
    measured = [c for c in cs if not c.unavailable]
    probed = [c for c in measured if c.probed]
    cpu, wall = sum(c.cpu_s for c in measured), sum(c.wall_s for c in measured)
    counted = [c.flops for c in probed if c.flops is not None]
    tflop = (f"{sum(counted) / 1e12:,.1f}" + ("" if len(counted) == len(probed) else f" ({len(counted)} of {len(probed)} runs)")
             if counted else "")
    b = "**" if bold else ""
    return (f"| {label} | {fig} | {len(cs)} | {sum(c.rounds for c in measured):,} | {tflop} | {b}{_hours(cpu)}{b} | "
            f"{b}{_hours(wall)}{b} | {_reasons(cs)} |")


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        return ""


def machine_line(device: str) -> str:
    """This machine as the cost table names it: CPU, logical CPUs, torch threads, GPU."""
    import platform

    import torch

    gpu = ("GPU " + torch.cuda.get_device_name()) if device.startswith("cuda") and torch.cuda.is_available() else (
        "GPU not present here" if device.startswith("cuda") else "CPU only")
    return (f"{_cpu_name() or platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, "
            f"{torch.get_num_threads()} torch thread(s) per run; {gpu}")


def cost_markdown(results: dict, profile: str, device: str, rounds: int, machine: str | None = None,
                  compare: list | None = None, usage: dict | None = None) -> str:
    """The cost table; each of ``compare`` = (label, ``{slug: {key: UnitCost}}`` measured earlier) adds a
    before/after section (:func:`compare_markdown`, with ``usage`` from :func:`paper_costs`)."""
    lines = [f"# Measured cost of the `{profile}` profile on `{device}`", "",
             f"Machine: {machine or machine_line(device)}. Written by "
             f"`python -m repro.costs --profile {profile}` (rerun it to measure your machine; `--device cuda` for a GPU). "
             "Every training run is split into parts whose jobs cost `fixed + rounds x per round` with the same two "
             f"constants (same data, model, method and batch shape); each part was timed on one job cut to {rounds} and "
             f"{2 * rounds} rounds, at the paper profile's data and model sizes, and scaled to the run's job-rounds. Runs "
             "already executed under this profile count their recorded CPU time; closed forms and simulations were timed "
             "in full. CPU-hours: process CPU time; wall-hours: elapsed time here (the machine was shared, so repeated "
             "probes of one part differ by up to 2x). TFLOP: matrix products and convolutions counted by torch's "
             "FlopCounterMode (`--flops`), where counted. Each run is counted once per paper; a run read by several "
             "figures appears in each figure's row.", "",
             "| paper | figure | runs | job-rounds | TFLOP | CPU-hours | wall-hours | not measured |",
             "|---|---|---|---|---|---|---|---|"]
    for slug, (costs, per_fig, _) in results.items():
        for f, rids in per_fig:
            lines.append(_row(f"`{slug}`", f.fig_id, [costs[r] for r in rids]))
        lines.append(_row(f"**`{slug}` total (each run once)**", "", list(costs.values()), bold=True))
    lines += ["", "Measured constants per part (a job costs fixed + rounds x per round):", "",
              "| paper | part | fixed CPU-s per job | CPU-s per round | GFLOP per round | GFLOP/s |", "|---|---|---|---|---|---|"]
    for slug, (_, _, units) in results.items():
        for key, u in sorted(units.items()):
            if u.unavailable:
                lines.append(f"| `{slug}` | {key} | not measured: {u.unavailable[:120]} | | | |")
                continue
            gf = "" if u.flops is None else f"{u.flops / 1e9:,.1f}"
            rate = "" if u.flops is None or u.cpu_s <= 0 else f"{u.flops / u.cpu_s / 1e9:.1f}"
            lines.append(f"| `{slug}` | {key} | {u.fixed_cpu_s:.2f} | {u.cpu_s:.3g} | {gf} | {rate} |")
    for label, before in compare or []:
        lines += compare_markdown({slug: r[2] for slug, r in results.items()}, before, usage or {}, label)
    return "\n".join(lines) + "\n"


def _part_hours(u: UnitCost, jobs: int, rounds: int) -> float:
    return (jobs * u.fixed_cpu_s + rounds * u.cpu_s) / 3600


def compare_markdown(after: dict, before: dict, usage: dict, label: str) -> list[str]:
    """Lines of a before/after section: per part (``{slug: {key: UnitCost}}`` measured now and in ``before``) its
    CPU-s per round both times and the ratio, and the CPU-hours it costs in this profile (``usage``: ``{slug: {key:
    [jobs, rounds]}}``, the same job counts priced with either set of constants). The sums are over the parts
    measured both times, split into CNN parts and the rest (MLR, DNN, MLP)."""
    lines = ["", f"## Before and after: against {label}", "",
             "Each part's constants against the same part's in the earlier measurement, and what the part costs in this "
             "profile priced with either (the same jobs and rounds). A ratio mixes the code's speed-up with any difference "
             "between the two days' machine load.", "",
             "| paper | part | CPU-s per round before | after | speed-up per round | CPU-hours in the profile, before -> after |",
             "|---|---|---|---|---|---|"]
    sums: dict = {"CNN": {}, "MLR / DNN / MLP": {}}  # class -> slug -> [before, after] CPU-hours
    for slug, units in after.items():
        for key, u in sorted(units.items()):
            b = before.get(slug, {}).get(key)
            if u.unavailable or b is None or b.unavailable or b.cpu_s <= 0:
                continue
            jobs, rounds = usage.get(slug, {}).get(key, (0, 0))
            hb, ha = _part_hours(b, jobs, rounds), _part_hours(u, jobs, rounds)
            cls = "CNN" if "cnn" in key.lower() else "MLR / DNN / MLP"
            if jobs or rounds:
                pair = sums[cls].setdefault(slug, [0.0, 0.0])
                pair[0], pair[1] = pair[0] + hb, pair[1] + ha
            speed = f"{b.cpu_s / u.cpu_s:.2f}x" if u.cpu_s > 0 else ""
            used = f"{_hours(hb * 3600)} -> {_hours(ha * 3600)}" if jobs or rounds else "not in this profile's runs"
            lines.append(f"| `{slug}` | {key} | {b.cpu_s:.3g} | {u.cpu_s:.3g} | {speed} | {used} |")
    lines.append("")
    for cls, per_slug in sums.items():
        hb, ha = sum(v[0] for v in per_slug.values()), sum(v[1] for v in per_slug.values())
        if hb > 0 and ha > 0:
            each = "; ".join(f"{slug} {b:,.1f} -> {a:,.1f} ({b / a:.2f}x)" for slug, (b, a) in per_slug.items() if a > 0)
            lines.append(f"- **{cls} parts, in total:** {hb:,.1f} -> {ha:,.1f} CPU-hours ({hb / ha:.2f}x): {each}.")
    return lines


# ---- what a figure costs before it can be drawn (``repro figure`` prints it before training) ------------------

#: Recorded CPU seconds of every job that was run, per profile and paper (``python -m repro.costs --ledger``).
LEDGER = "docs/run_costs.json"
STORE = "docs/costs.json"  # the probe measurements of ``python -m repro.costs`` (per part)


def seed_price(slug: str, profile: str, figures, seeds_needed: int, ledger: dict | None = None) -> str | None:
    """What ``seeds_needed`` seeds of a claim would cost (judging rule g), from the recorded CPU time of the runs of its
    ``figures`` (the ledger, ``LEDGER``) divided by the seeds the profile ran: a floor, since a run resumed after an
    interruption records the CPU time of its last part only. None where nothing is recorded or no seed is missing."""
    import json

    if ledger is None:
        path = paths.project_root() / LEDGER
        ledger = json.loads(path.read_text()) if path.is_file() else {}
    rec = (ledger.get(profile) or {}).get(slug) or {}
    params = ex.load_params(slug, profile)
    have = len(params.get("seeds") or []) or 1
    more = int(seeds_needed) - have
    jobs = set()
    for f in ex.figure_specs(slug, profile):
        if f.fig_id in set(figures):
            jobs.update(f.job_ids)
    cpu = [rec[j] for j in jobs if rec.get(j) is not None]
    if more <= 0 or not cpu:
        return None
    per_seed = sum(cpu) / have / 3600.0
    return (f"the {more} more seed(s) would cost at least {more * per_seed:.2g} CPU-hours ({per_seed:.2g} per seed: "
            f"the recorded CPU time of the {len(cpu)} runs of {', '.join(sorted(set(figures)))} over {have} seeds, {LEDGER})")


def recorded_ledger(profiles=None) -> dict:
    """``{profile: {slug: {job id: CPU seconds}}}`` from the result files under ``results/`` (jobs run on a CPU);
    ``None`` for a job whose dataset was unavailable when it ran (what it costs with the data is not known)."""
    from repro.results import read_json_or_none

    out: dict = {}
    for profile in profiles or ex.PROFILES:
        for slug in registry.slugs():
            runs = paths.results_dir(profile, slug) / "runs"
            for f in sorted(runs.glob("*.json")) if runs.is_dir() else []:
                rec = read_json_or_none(f)
                if not isinstance(rec, dict):
                    continue
                if "cpu_s" in rec and str(rec.get("device", "cpu")) == "cpu":
                    from repro.experiment import any_unavailable

                    cpu = None if any_unavailable(rec.get("result", {})) else round(float(rec["cpu_s"]), 2)
                    out.setdefault(profile, {}).setdefault(slug, {})[f.stem] = cpu
    return out


def _read_json_file(path: Path) -> dict:
    from repro.results import read_json_or_none

    doc = read_json_or_none(path)
    return doc if isinstance(doc, dict) else {}


@dataclass
class Estimate:
    """What the missing jobs of a figure cost: ``cpu_s`` over the runs that could be estimated."""

    jobs: int = 0
    runs: int = 0
    cpu_s: float = 0.0
    recorded: int = 0  # runs whose job's CPU time was recorded when it ran before (the ledger)
    probed: int = 0  # runs estimated from the probe measurements (per part)
    unavailable: int = 0  # runs whose dataset was not available when they last ran
    unknown: int = 0  # runs with neither

    def message(self, slug: str, fig_id: str, profile: str) -> str:
        if self.cpu_s >= 3600:
            cost = f"about {self.cpu_s / 3600:,.1f} CPU-hours ({self.cpu_s:,.0f} CPU-s)"
        else:
            cost = f"about {self.cpu_s:,.0f} CPU-s"
        basis = [f"{n} {what}" for n, what in ((self.recorded, "as recorded when they last ran"),
                                                (self.probed, "from the probe measurements in docs/costs.json")) if n]
        text = (f"{slug}/{fig_id} needs {self.runs} runs ({self.jobs} jobs) trained, {cost}, before it can be drawn"
                + (f" ({'; '.join(basis)})" if basis else ""))
        if self.unavailable:
            text += f"; {self.unavailable} runs found their dataset unavailable when they last ran (cost not known)"
        if self.unknown:
            text += (f"; {self.unknown} of the runs have no cost estimate (measure them with "
                     f"`python -m repro.costs --profile {profile} --papers {slug}`)")
        return text


def estimate_jobs(slug: str, profile: str, jobs: list, ledger: dict | None = None, store: dict | None = None) -> Estimate:
    """Estimated CPU cost of executing ``jobs`` (RunSpecs of ``slug`` under ``profile``): a job's recorded CPU time
    (``ledger``, :func:`recorded_ledger`), else the sum over its runs of the probe measurements of their parts
    (``store``: ``docs/costs.json``'s units, for the same profile on a CPU with 1-round probes); what has neither is
    counted as unknown. Nothing is executed."""
    recorded = ((ledger or {}).get(profile) or {}).get(slug) or {}
    units = {}
    if store and (store.get("profile"), store.get("device"), store.get("rounds")) == (profile, "cpu", 1):
        units = store.get("units", {}).get(slug, {})
    hook = getattr(registry.module(slug, "experiments"), "cost_probe", None)
    est = Estimate(jobs=len(jobs))
    for job in jobs:
        members = ex.batch_members(job)
        est.runs += len(members)
        if job.run_id in recorded:
            if recorded[job.run_id] is None:
                est.unavailable += len(members)
            else:
                est.cpu_s += float(recorded[job.run_id])
                est.recorded += len(members)
            continue
        for spec in members:
            probe = hook(spec, 1) if hook else None
            parts = [units.get(p.key) for p in probe.parts] if probe else []
            if not parts or any(u is None or u.get("unavailable") for u in parts):
                est.unknown += 1
                continue
            est.cpu_s += sum(p.jobs * u["fixed_cpu_s"] + p.full_units * u["cpu_s"] for p, u in zip(probe.parts, parts))
            est.probed += 1
    return est


def figure_cost(slug: str, fig_id: str, profile: str) -> Estimate | None:
    """The estimate of the jobs of a figure whose results are missing (None when none is), from the ledger and
    the probe store of the project (:data:`LEDGER`, :data:`STORE`)."""
    fig = ex.figure_spec(slug, fig_id, profile)
    missing = [j for j in fig.job_specs if not paths.run_result_path(profile, slug, j.run_id).exists()]
    if not missing:
        return None
    root = paths.project_root()
    return estimate_jobs(slug, profile, missing, _read_json_file(root / LEDGER), _read_json_file(root / STORE))


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
    p.add_argument("--flops", action="store_true", help="also count FLOPs per part (two more, untimed executions each)")
    p.add_argument("--probed-only", action="store_true",
                   help="skip the runs without probe parts (they would be timed in full): listed as not measured")
    p.add_argument("--compare", metavar="STORE.json", action="append", help="an earlier store of measurements (e.g. "
                   "`git show REV:docs/costs.json`): adds each part's speed-up and the profile's CPU-hours before and "
                   "after; repeat it for several")
    p.add_argument("--ledger", action="store_true", help=f"only write {LEDGER}: the CPU seconds recorded by every job "
                   "that was run, per profile (read by `repro figure` to say what a missing run costs)")
    args = p.parse_args(argv)
    if args.ledger:
        import json

        from repro.results import write_text

        write_text(paths.project_root() / LEDGER, json.dumps(recorded_ledger(), indent=1, sort_keys=True) + "\n")
        return 0
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
    # the machine that measured: this one, unless the stored measurements were made on a GPU that is not here
    import torch

    machine = machine_line(args.device)
    if args.device.startswith("cuda") and not torch.cuda.is_available() and store.exists() and not args.remeasure:
        machine = _read_json_file(store).get("machine") or machine
    compare = []
    for c in args.compare or []:
        cpath = Path(c)
        if not cpath.is_file():
            p.error(f"--compare {c!r}: no such file (a JSON store written by python -m repro.costs)")
        before = load_store(cpath, args.profile, args.device, args.rounds)
        if not before:
            p.error(f"--compare {c!r}: holds no measurements of profile {args.profile!r} on {args.device!r} "
                    f"with {args.rounds}-round probes")
        doc = _read_json_file(cpath)
        compare.append((f"`{cpath.name}`" + (f" ({doc['label']})" if doc.get("label") else ""), before))
    results, usage = {}, {}
    for slug in args.papers or registry.slugs():
        cache = stored.setdefault(slug, {})
        results[slug] = paper_costs(slug, args.profile, args.rounds, args.device,
                                    log=lambda m: print(f"[costs] {m}", file=sys.stderr, flush=True), cache=cache,
                                    select=select,  # every measurement is stored at once: an interrupted call resumes
                                    on_new=lambda: save_store(store, args.profile, args.device, args.rounds, stored, machine),
                                    flops=args.flops, probed_only=args.probed_only, usage=usage.setdefault(slug, {}))
    text = cost_markdown(results, args.profile, args.device, args.rounds, machine, compare, usage)
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


def save_store(path: Path, profile: str, device: str, rounds: int, units: dict, machine: str | None = None) -> None:
    import json
    from dataclasses import asdict

    from repro.results import write_text

    doc = {"profile": profile, "device": device, "rounds": rounds, **({"machine": machine} if machine else {}),
           "units": {slug: {k: asdict(u) for k, u in sorted(us.items())} for slug, us in sorted(units.items())}}
    write_text(path, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
