"""Measured cost of a profile: every run timed on a short probe and scaled to its full length.

    python -m repro.costs --profile paper                      # all papers; writes docs/costs.md
    python -m repro.costs --profile paper --papers ota_jammer --device cuda --out docs/costs_gpu.md

A paper's ``experiments.cost_probe(spec, rounds)`` returns a :class:`Probe`: a shortened copy of a run
(the same data, model and method, only ``rounds`` rounds per training job) and the factor that scales
its time to the full run (e.g. full rounds / probe rounds). Runs without a probe (closed forms,
simulations of seconds) are timed in full. The probe is executed in this process through the paper's
``TASKS`` exactly as the workflow would run it (its data preparation is timed too, so the estimate is an
upper bound for long runs). Each run is counted once per paper, however many figures share it; the
figure rows list the runs they read, so their sum can exceed the paper's total.
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
class Probe:
    """A shortened run and how to scale its cost: ``full_seconds = probe_seconds * scale``.

    ``rounds`` is the number of communication rounds of the full run (all its jobs), ``flops`` an
    estimate of its training FLOPs when the paper can give one."""

    spec: ex.RunSpec
    scale: float
    rounds: int = 0
    flops: float | None = None


@dataclass
class RunCost:
    run_id: str
    task: str
    rounds: int
    cpu_s: float
    wall_s: float
    flops: float | None = None
    probed: bool = True
    figures: list = field(default_factory=list)


def measure_run(slug: str, spec: ex.RunSpec, profile: str, rounds: int, device: str, log) -> RunCost:
    import torch

    hook = getattr(registry.module(slug, "experiments"), "cost_probe", None)
    probe = hook(spec, rounds) if hook else None
    target = probe.spec if probe else spec
    fn = ex.tasks(slug)[target.task].resolve()
    ctx = ex.RunContext(profile=profile, run_id=target.run_id, device=device, threads=torch.get_num_threads(),
                        log=lambda m: None)
    t0, c0 = time.perf_counter(), time.process_time()
    fn(target, ctx)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    scale = probe.scale if probe else 1.0
    log(f"{slug}/{spec.run_id}: probe {wall:.1f} s wall, {cpu:.1f} s CPU, x{scale:g}")
    return RunCost(spec.run_id, spec.task, probe.rounds if probe else 0, cpu * scale, wall * scale,
                   probe.flops if probe else None, probed=probe is not None)


def paper_costs(slug: str, profile: str, rounds: int, device: str, log=print) -> tuple[dict, list]:
    """(run id -> RunCost, [(figure, its run ids)]) for one paper."""
    figs = ex.figure_specs(slug, profile)
    specs = ex.run_specs(slug, profile)
    costs = {}
    for rid, spec in sorted(specs.items()):
        costs[rid] = measure_run(slug, spec, profile, rounds, device, log)
    per_fig = [(f, f.run_ids) for f in figs]
    for f, rids in per_fig:
        for r in rids:
            costs[r].figures.append(f.fig_id)
    return costs, per_fig


def _hours(s: float) -> str:
    return f"{s / 3600:.2f}" if s >= 36 else f"{s / 3600:.4f}"


def _tflop(flops: list) -> str:
    """Sum of the runs' FLOP estimates in TFLOP, or blank when no run of the row gave one."""
    return f"{sum(flops) / 1e12:.1f}" if flops else ""


def cost_markdown(results: dict, profile: str, device: str, rounds: int) -> str:
    import platform

    import torch

    lines = [f"# Measured cost of the `{profile}` profile on `{device}`", "",
             f"Machine: {platform.processor() or platform.machine()}, {torch.get_num_threads()} torch thread(s); "
             f"{'GPU ' + torch.cuda.get_device_name() if device.startswith('cuda') else 'CPU only'}. Each training run "
             f"was timed on a probe of {rounds} round(s) per job and scaled to its full number of rounds "
             "(`python -m repro.costs`); closed forms and simulations were timed in full.", "",
             "| paper | figure | runs | rounds | est. TFLOP | CPU-hours | wall-hours |", "|---|---|---|---|---|---|---|"]
    for slug, (costs, per_fig) in results.items():
        for f, rids in per_fig:
            cs = [costs[r] for r in rids]
            fl = [c.flops for c in cs if c.flops]
            lines.append(f"| `{slug}` | {f.fig_id} | {len(rids)} | {sum(c.rounds for c in cs)} | "
                         f"{_tflop(fl)} | {_hours(sum(c.cpu_s for c in cs))} | {_hours(sum(c.wall_s for c in cs))} |"
                         if cs else f"| `{slug}` | {f.fig_id} | 0 | 0 | | 0 | 0 |")
        allc = list(costs.values())
        fl = [c.flops for c in allc if c.flops]
        lines.append(f"| **`{slug}` total (each run once)** | | {len(allc)} | {sum(c.rounds for c in allc)} | "
                     f"{_tflop(fl)} | **{_hours(sum(c.cpu_s for c in allc))}** | **{_hours(sum(c.wall_s for c in allc))}** |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m repro.costs", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", default="paper", choices=ex.PROFILES)
    p.add_argument("--papers", nargs="+", choices=list(registry.slugs()))
    p.add_argument("--rounds", type=int, default=2, help="rounds per training job in a probe (default 2)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--out", default="docs/costs.md", help="markdown file to write (relative to the project root)")
    args = p.parse_args(argv)
    results = {}
    for slug in args.papers or registry.slugs():
        results[slug] = paper_costs(slug, args.profile, args.rounds, args.device,
                                    log=lambda m: print(f"[costs] {m}", file=sys.stderr, flush=True))
    text = cost_markdown(results, args.profile, args.device, args.rounds)
    from repro.results import write_text

    out = Path(args.out)
    write_text(out if out.is_absolute() else paths.project_root() / out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
