"""The ``repro`` command.

    repro list [SLUG] [--runs]                 papers, figures (and their runs), claim verdicts
    repro run SLUG RUN_ID [--profile P]        one run -> results/<P>/<SLUG>/runs/<RUN_ID>.json
    repro figure SLUG FIG [--profile P]        runs what is missing, renders figures/<P>/<SLUG>/<FIG>.*
    repro evaluate SLUG [--profile P]          judges the paper's claims -> results/<P>/<SLUG>/claims.json
    repro claims [--profile P] [--write]       the reproduction report (figures/<P>/claims.md with --write)
    repro data status|fetch|partition ...      datasets (see ``repro data -h``)
    repro bench engine|kernels|roofline ...    benchmarks (see ``repro bench -h``)
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path

from repro import __version__, registry
from repro import experiment as ex

# sub-command groups contributed by sub-packages: module -> function(subparsers)
PLUGINS = ("repro.data.cli", "repro.engine.bench_cli")


def _describe_run(spec: ex.RunSpec) -> str:
    """A short human description of a run: task, seed and its scalar parameters."""
    scalars = [f"{k}={v}" for k, v in sorted(spec.params.items()) if isinstance(v, (int, float, str, bool)) and len(str(v)) < 24]
    if spec.task == ex.BATCH_TASK:
        return f"batch of {len(spec.params['members'])} runs: " + ", ".join(m["run_id"] for m in spec.params["members"])
    jobs = spec.params.get("jobs")
    extra = f", {len(jobs)} jobs" if isinstance(jobs, list) else ""
    return f"{spec.task} seed={spec.seed}{extra}: " + ", ".join(scalars[:8])


def _cmd_list(args) -> int:
    from repro import pipeline
    from repro.claims import verdict_counts

    for slug in [args.slug] if args.slug else registry.slugs():
        info = registry.paper(slug)
        figs = ex.figure_specs(slug, args.profile)
        n_runs = len({r for f in figs for r in f.run_ids})
        n_jobs = len({j for f in figs for j in f.job_ids})
        packed = f" in {n_jobs} jobs" if n_jobs != n_runs else ""
        print(f"{slug}: {info.title}\n  {len(figs)} figures/tables, {n_runs} runs{packed} under profile {args.profile}")
        for f in figs:
            print(f"  {f.fig_id:<9} {f.kind:<7} {f.paper_ref:<14} {len(f.run_ids):>4} runs  {f.title}")
            if args.runs:  # the ids `repro run` takes: runs, or the batch jobs that hold them
                for j in sorted({j.run_id: j for j in f.job_specs}.values(), key=lambda j: j.run_id):
                    print(f"      {j.run_id}  {_describe_run(j)}")
        claims = pipeline.load_claims(args.profile, [slug])
        if claims:
            counts = verdict_counts(claims)
            print("  verdicts: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n))
            print("  " + ", ".join(f"{c['id']}={c['verdict']}" for c in claims))
    return 0


def _cmd_run(args) -> int:
    from repro import pipeline

    if args.release_stale:
        if args.helper or args.force:
            raise ex.ConfigError("--release-stale cannot be combined with --helper or --force (it only releases the "
                                 "stale claims on the run's sub-jobs, and computes nothing)")
        pipeline.release_stale(args.slug, args.run_id, args.profile,
                               older_than=None if args.release_stale is True else args.release_stale)
        return 0
    if args.helper:
        if args.force:
            raise ex.ConfigError("--helper cannot be combined with --force (a helper never discards finished sub-jobs)")
        pipeline.help_run(args.slug, args.run_id, args.profile, device=args.device, threads=args.threads)
        return 0
    pipeline.execute_run(args.slug, args.run_id, args.profile, device=args.device, threads=args.threads, force=args.force)
    return 0


def _cmd_figure(args) -> int:
    from repro import pipeline

    pipeline.render_figure(args.slug, args.fig, args.profile, run_missing=not args.no_run, device=args.device, threads=args.threads,
                           partial=args.partial)
    return 0


def missing_figure_csvs(slug: str, profile: str) -> tuple[list[str], int]:
    """(the figure CSVs of ``slug`` in ``profile`` that do not exist, relative to the project; how many it has)."""
    from repro import experiment as ex
    from repro import paths

    figs = ex.figure_specs(slug, profile)
    missing = []
    for fig in figs:
        p = paths.figures_dir(profile, slug) / f"{fig.fig_id}.csv"
        if not p.exists():
            try:
                missing.append(str(p.relative_to(paths.project_root())))
            except ValueError:
                missing.append(str(p))
    return missing, len(figs)


def missing_figures_message(slug: str, profile: str, missing: list[str], total: int) -> str:
    """One paragraph: which figure CSVs are missing and the commands that build them."""
    which = f"none of its {total} figure CSVs exists" if len(missing) == total else \
        f"{len(missing)} of its {total} figure CSVs are missing"
    return (f"cannot judge the claims of {slug} in profile {profile!r}: {which}: {', '.join(missing)}. Claims are judged on these "
            f"tables, so nothing was written. Build them with `snakemake --cores all results/{profile}/{slug}/claims.json` "
            f"(trains the missing runs, draws every figure, then judges the claims), or one figure at a time with "
            f"`repro figure {slug} FIG --profile {profile}` (FIG: {', '.join(Path(m).stem for m in missing)})"
            + ("." if len(missing) == total else f"; `repro evaluate {slug} --profile {profile} --partial` judges what "
               f"exists and marks the claims of the missing figures not evaluated."))


def _cmd_evaluate(args) -> int:
    from repro import pipeline

    missing, total = missing_figure_csvs(args.slug, args.profile)
    if missing and not (args.partial and len(missing) < total):
        print(f"repro: error: {missing_figures_message(args.slug, args.profile, missing, total)}", file=sys.stderr)
        return 2
    pipeline.evaluate_claims(args.slug, args.profile)
    return 0


def _cmd_claims(args) -> int:
    from repro import pipeline, report

    if args.evaluate:
        for slug in registry.slugs():
            pipeline.evaluate_claims(slug, args.profile)
    from repro import paths

    if not any((paths.results_dir(args.profile, slug) / "claims.json").exists() for slug in registry.slugs()):
        print(f"repro: error: no claims.json under results/{args.profile}/: run the workflow first "
              f"(snakemake --cores all)", file=sys.stderr)
        return 2
    if args.write:
        report.write_report(args.profile)
    print(report.report_markdown(args.profile))
    return 0


def check_device(device: str) -> str:
    """``cpu``, ``cuda``, ``cuda:N`` or ``mps``; a CUDA device must exist."""
    import re

    if not re.fullmatch(r"cpu|cuda(:[0-9]+)?|mps", device):
        raise ex.ConfigError(f"unknown device {device!r}; allowed: cpu, cuda, cuda:N, mps")
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ex.ConfigError(f"device {device!r} asked for, but torch sees no CUDA device here; use --device cpu")
        idx = int(device.split(":")[1]) if ":" in device else 0
        if idx >= torch.cuda.device_count():
            raise ex.ConfigError(f"device {device!r}: only {torch.cuda.device_count()} CUDA device(s) here")
    return device


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {v}")
    return v


def _positive_seconds(text: str) -> float:
    import math

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, a number > 0, got {text!r}") from None
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"expected seconds, a number > 0, got {text!r}")
    return v


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="repro", description="Regenerate the figures and judge the claims of private / wireless FL papers.")
    p.add_argument("--version", action="version", version=f"repro {__version__}")
    p.add_argument("--data-mirror", metavar="DIR", help="folder(s) with offline dataset copies (':'-separated); "
                   "default: $REPRO_DATA_MIRROR, else data_mirror in config/config.yaml")
    sub = p.add_subparsers(dest="command", required=True)
    slugs = list(registry.slugs())

    def common(sp, device=False):
        sp.add_argument("--profile", default="quick", choices=ex.PROFILES, help="parameter profile (default: quick)")
        if device:
            sp.add_argument("--device", default="cpu", help="torch device for training runs (cpu, cuda, cuda:1, mps)")
            sp.add_argument("--threads", type=_positive_int, default=1, help="intra-op threads for this run")

    sp = sub.add_parser("list", help="papers, figures, runs and claim verdicts")
    sp.add_argument("slug", nargs="?", choices=slugs)
    sp.add_argument("--runs", action="store_true", help="also list every figure's runs (id and what the run is)")
    common(sp)
    sp.set_defaults(func=_cmd_list)

    sp = sub.add_parser("run", help="do one run of a paper")
    sp.add_argument("slug", choices=slugs)
    sp.add_argument("run_id")
    sp.add_argument("--force", action="store_true",
                    help="re-run even if the result exists, discarding the finished parts kept under <run>.parts/ "
                         "(start over; without it an interrupted run resumes from them)")
    sp.add_argument("--helper", action="store_true",
                    help="help the process that executes this run: compute the sub-jobs nobody has claimed, write "
                         "no result (start one per extra core, beside `repro run SLUG RUN_ID`)")
    sp.add_argument("--release-stale", nargs="?", const=True, default=False, type=_positive_seconds,
                    metavar="SECONDS",
                    help="release the stale claims on this run's sub-jobs and compute nothing: a helper that died "
                         "(its heartbeat is older than its lease, $REPRO_CLAIM_LEASE_S, default 300 s, or than "
                         "SECONDS if given: at least 60 s keeps every live helper's claim)")
    common(sp, device=True)
    sp.set_defaults(func=_cmd_run)

    sp = sub.add_parser("figure", help="render one figure or table (running what is missing)")
    sp.add_argument("slug", choices=slugs)
    sp.add_argument("fig")
    sp.add_argument("--no-run", action="store_true", help="only render from existing results")
    sp.add_argument("--partial", action="store_true",
                    help="with --no-run, for a table of independent configurations (privacy tables): render the rows whose "
                         "runs exist, the others 'not run at this scale'")
    common(sp, device=True)
    sp.set_defaults(func=_cmd_figure)

    sp = sub.add_parser("evaluate", help="judge one paper's claims on its figure CSVs")
    sp.add_argument("slug", choices=slugs)
    common(sp)
    sp.add_argument("--partial", action="store_true",
                    help="judge the claims although some (not all) figure CSVs are missing; their claims are not evaluated")
    sp.set_defaults(func=_cmd_evaluate)

    sp = sub.add_parser("claims", help="print the reproduction report (verdict of every claim)")
    sp.add_argument("--evaluate", action="store_true", help="re-judge every paper's claims first")
    sp.add_argument("--write", action="store_true", help="also write figures/<profile>/claims.md")
    common(sp)
    sp.set_defaults(func=_cmd_claims)

    for mod in PLUGINS:
        if importlib.util.find_spec(mod) is not None:
            importlib.import_module(mod).register(sub)
    return p


#: errors caused by the user's input or environment (a bad value or name, a missing or damaged file,
#: a full disk, a dataset that cannot be had): printed as one paragraph, no traceback
def _user_errors():
    from repro.data.errors import DatasetError

    return (ex.ConfigError, DatasetError, OSError)


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.data_mirror:
            from repro.data.sources import use_mirrors

            use_mirrors(args.data_mirror)
        if getattr(args, "device", None) is not None:
            check_device(args.device)
        return int(args.func(args) or 0)
    except _user_errors() as e:
        print(f"repro: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("repro: interrupted (finished runs are kept; run again to resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
