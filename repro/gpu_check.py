"""The GPU check of the paper profile: each training paper's paper-profile jobs, cut to a few rounds, on a device,
compared with the CPU's numbers for the same seed and timed per part (the costs tool's parts).

    python -m repro.gpu_check record  --out docs/gpu_check/cpu_reference.json   # on the CPU, once
    python -m repro.gpu_check compare --reference docs/gpu_check/cpu_reference.json --device cuda \
                                      --out docs/gpu_check/cuda.md                # on a CUDA machine

``record`` executes the short copy of every part (the jobs ``repro.costs`` probes: one job of each cost signature,
cut to ``--rounds`` rounds) on the CPU and stores its result numbers and CPU seconds. ``compare`` executes the
same short jobs on ``--device`` and writes a table: per part the CPU and device seconds, their ratio and the
largest difference between the two results' numbers (losses, accuracies, bits; the same seed draws the same
data order and noise on both devices, so they differ by float rounding, amplified by the rounds trained).
Parts whose dataset is missing are listed as such; ``--parts REGEX`` and ``--budget SECONDS`` keep a call short
(the parts are taken cheapest first, by the stored CPU time). The CPU path is tested
(tests/unit/test_gpu_check.py); on a machine without CUDA, ``compare --device cuda`` stops with a clear message.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path

from repro import experiment as ex
from repro import paths, registry
from repro.results import write_text

TRAINING_PAPERS = ("dp_ditto", "wpfl_minmax", "ota_jammer")
# Our tolerance for "the same numbers": |device - CPU| / max(|CPU|, 1) over every number of the result. One round
# of float32 training summed in another order moves losses and accuracies by ~1e-6..1e-4 (one test sample of 10,000
# is 1e-4); a different random stream or a wrong kernel moves them by 1e-2 and more.
REL_TOL = 1e-3


def short_jobs(slug: str, profile: str = "paper", rounds: int = 1, parts: str | None = None) -> dict[str, ex.RunSpec]:
    """key -> the short job of every distinct cost part of the paper's runs (first run that has it)."""
    hook = getattr(registry.module(slug, "experiments"), "cost_probe", None)
    if hook is None:
        return {}
    select = re.compile(parts).search if parts else None
    out: dict[str, ex.RunSpec] = {}
    for _, spec in sorted(ex.run_specs(slug, profile).items()):
        probe = hook(spec, rounds)
        for part in (probe.parts if probe else []):
            if part.key not in out and (select is None or select(part.key)):
                out[part.key] = part.short
    return out


def is_timing(key: str) -> bool:
    """Keys that hold times or run metadata, not results (``train_seconds``, ``cpu_s``, ...)."""
    return key in ("timing", "cpu_s", "wall_s", "elapsed_s", "progress", "env", "versions") or key.endswith("seconds")


def numbers(result, prefix: str = "") -> dict[str, float]:
    """Every finite number in a (nested) result, keyed by its path (timings and run metadata left out)."""
    out: dict[str, float] = {}
    if isinstance(result, dict):
        for k, v in result.items():
            if is_timing(str(k)):
                continue
            out.update(numbers(v, f"{prefix}/{k}"))
    elif isinstance(result, (list, tuple)):
        for i, v in enumerate(result):
            out.update(numbers(v, f"{prefix}[{i}]"))
    elif isinstance(result, (int, float)) and not isinstance(result, bool):
        f = float(result)
        if math.isfinite(f):
            out[prefix] = f
    return out


def execute(slug: str, spec: ex.RunSpec, profile: str, device: str) -> tuple[float, dict]:
    """(seconds, result) of one job on ``device`` (CPU seconds on the CPU, wall seconds with a sync on a GPU)."""
    import torch

    fn = ex.tasks(slug)[spec.task].resolve()
    ex.prepare_device(device)
    ctx = ex.RunContext(profile=profile, run_id=spec.run_id, device=device, threads=torch.get_num_threads(), log=lambda m: None)
    on_gpu = device.startswith("cuda")
    t0 = time.perf_counter() if on_gpu else time.process_time()
    result = fn(spec, ctx)
    if on_gpu:
        torch.cuda.synchronize()
    return (time.perf_counter() if on_gpu else time.process_time()) - t0, result


def warm_up(device: str) -> None:
    """Create the device's context (and its BLAS handle) before any part is timed."""
    import torch

    if device.startswith("cuda"):
        a = torch.ones(64, 64, device=device)
        (a @ a).sum().item()
        torch.cuda.synchronize()


def record(papers, profile: str, rounds: int, parts: str | None, budget: float, out: Path, device: str = "cpu", log=print) -> dict:
    """Execute every short job on ``device`` and store its numbers and seconds (resumable: parts already in
    ``out`` are kept)."""
    doc = json.loads(out.read_text()) if out.exists() else {}
    if doc and (doc.get("profile"), doc.get("rounds")) != (profile, rounds):
        raise SystemExit(f"repro: error: {out} holds profile {doc.get('profile')!r}, rounds {doc.get('rounds')}: "
                         f"not {profile!r}, {rounds} (use another --out)")
    doc.update({"profile": profile, "rounds": rounds, "device": device})
    entries = doc.setdefault("parts", {})
    spent = 0.0
    for slug in papers:
        for key, spec in short_jobs(slug, profile, rounds, parts).items():
            name = f"{slug} | {key}"
            if name in entries:
                continue
            if spent >= budget:
                log(f"[gpu_check] budget of {budget:g} s spent: {name} not recorded")
                continue
            seconds, result = execute(slug, spec, profile, device)
            spent += seconds
            entry = {"seconds": seconds, "run_id": spec.run_id}
            if ex.is_unavailable(result):
                entry["unavailable"] = result.get("reason", "unavailable")
            else:
                entry["numbers"] = numbers(result)
            entries[name] = entry
            write_text(out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
            log(f"[gpu_check] {name}: {seconds:.2f} s on {device}" + (" (unavailable)" if "unavailable" in entry else ""))
    return doc


def compare(reference: dict, profile: str, device: str, budget: float, parts: str | None, log=print,
            on_row=None) -> list[dict]:
    """Rows of the comparison table: the reference's parts re-executed on ``device``, cheapest first
    (``on_row(rows)`` after each row: the caller can write the table as it grows)."""
    rows = _Rows(on_row)
    spent = 0.0
    select = re.compile(parts).search if parts else None
    warm_up(device)
    todo = sorted(reference["parts"].items(), key=lambda kv: kv[1]["seconds"])
    for name, ref in todo:
        if select is not None and not select(name):
            continue
        slug, key = name.split(" | ", 1)
        if "unavailable" in ref:
            rows.append({"part": name, "status": f"not run: {ref['unavailable']}"})
            continue
        if spent >= budget:
            rows.append({"part": name, "status": "not run: budget spent"})
            continue
        spec = short_jobs(slug, reference["profile"], reference["rounds"], re.escape(key) + "$").get(key)
        if spec is None:
            rows.append({"part": name, "status": "not run: part no longer in the profile"})
            continue
        try:
            seconds, result = execute(slug, spec, profile, device)
        except Exception as e:  # one broken part must not hide the others' timings: listed with its error
            import traceback

            log(f"[gpu_check] {name}: failed on {device}\n{traceback.format_exc()}")
            rows.append({"part": name, "status": f"error: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"})
            continue
        spent += seconds
        got = numbers(result)
        want = {k: v for k, v in ref["numbers"].items() if not any(is_timing(c) for c in re.split(r"[/\[]", k))}
        common = sorted(set(got) & set(want))
        diff = max((abs(got[k] - want[k]) for k in common), default=float("nan"))
        rel = max((abs(got[k] - want[k]) / max(abs(want[k]), 1.0) for k in common), default=float("nan"))
        if set(got) != set(want):
            status = f"{len(set(got) ^ set(want))} numbers differ in presence"
        else:
            status = "ok" if rel <= REL_TOL else f"differs (rel. diff {rel:.2g} > {REL_TOL:g})"
        rows.append({"part": name, "status": status,
                     "cpu_s": ref["seconds"], "device_s": seconds, "speedup": ref["seconds"] / seconds if seconds > 0 else float("inf"),
                     "numbers": len(common), "max_abs_diff": diff, "max_rel_diff": rel})
        worst = max(common, key=lambda k: abs(got[k] - want[k]) / max(abs(want[k]), 1.0), default="")
        log(f"[gpu_check] {name}: {seconds:.2f} s on {device} (CPU {ref['seconds']:.2f} s), max |diff| {diff:.3g}"
            + (f"; largest relative at {worst}: {got[worst]!r} vs {want[worst]!r}" if worst else ""))
    return list(rows)


class _Rows(list):
    def __init__(self, on_row):
        super().__init__()
        self.on_row = on_row

    def append(self, row):
        super().append(row)
        if self.on_row is not None:
            self.on_row(list(self))


def table(rows: list[dict], device: str, reference: dict) -> str:
    lines = [f"# GPU check: paper-profile jobs, {reference['rounds']} round(s) each, `{device}` vs the CPU reference", "",
             f"Written by `python -m repro.gpu_check compare --device {device}`; the CPU numbers and seconds come from the "
             "stored reference (`python -m repro.gpu_check record`).", "",
             f"Status `ok`: every number of the result within {REL_TOL:g} of the CPU's (|diff| / max(|CPU|, 1)); times and "
             "seconds are not compared. Seconds include loading the part's data and its final evaluation.", "",
             "| part | status | CPU s | device s | CPU / device | numbers compared | max abs diff | max rel diff |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        part = r["part"].replace(" | ", ": ").replace("|", "/")
        if "cpu_s" not in r:
            lines.append(f"| {part} | {r['status']} | | | | | | |")
            continue
        lines.append(f"| {part} | {r['status']} | {r['cpu_s']:.3g} | {r['device_s']:.3g} | {r['speedup']:.3g} | "
                     f"{r['numbers']} | {r['max_abs_diff']:.3g} | {r['max_rel_diff']:.3g} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m repro.gpu_check", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("record", "compare"):
        sp = sub.add_parser(name)
        sp.add_argument("--profile", default="paper", choices=ex.PROFILES)
        sp.add_argument("--papers", nargs="+", default=list(TRAINING_PAPERS), choices=list(registry.slugs()))
        sp.add_argument("--parts", help="regular expression on '<slug> | <part key>' (record: on the part key)")
        sp.add_argument("--budget", type=float, default=480.0, help="seconds of execution to spend at most (default 480)")
        sp.add_argument("--out", required=name == "record", help="record: the reference JSON; compare: the markdown table")
    sub.choices["record"].add_argument("--rounds", type=int, default=1)
    sub.choices["record"].add_argument("--device", default="cpu")
    sub.choices["compare"].add_argument("--reference", required=True)
    sub.choices["compare"].add_argument("--device", default="cuda")
    args = p.parse_args(argv)
    if args.budget <= 0:
        p.error(f"--budget must be > 0 seconds, got {args.budget}")
    if args.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise SystemExit(f"repro: error: --device {args.device}: torch {torch.__version__} sees no CUDA device here")
    if args.cmd == "record":
        if args.rounds < 1:
            p.error(f"--rounds must be >= 1, got {args.rounds}")
        out = Path(args.out)
        out = out if out.is_absolute() else paths.project_root() / out
        record(args.papers, args.profile, args.rounds, args.parts, args.budget, out, args.device,
               log=lambda m: print(m, file=sys.stderr, flush=True))
        return 0
    ref_path = Path(args.reference)
    if not ref_path.exists():
        raise SystemExit(f"repro: error: --reference {ref_path} does not exist (make it with `python -m repro.gpu_check record`)")
    reference = json.loads(ref_path.read_text())
    wanted = tuple(args.papers)
    reference = {**reference, "parts": {k: v for k, v in reference["parts"].items() if k.split(" | ", 1)[0] in wanted}}
    save = (lambda rows: write_text(Path(args.out), table(rows, args.device, reference))) if args.out else None
    rows = compare(reference, args.profile, args.device, args.budget, args.parts,
                   log=lambda m: print(m, file=sys.stderr, flush=True), on_row=save)
    text = table(rows, args.device, reference)
    if args.out:
        write_text(Path(args.out), text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
