"""The ``repro`` command.

    repro list                                 papers, figures, claims
    repro run SLUG RUN_ID [--profile P]        one run -> results/<P>/<SLUG>/runs/<RUN_ID>.json
    repro figure SLUG FIG [--profile P]        runs what is missing, renders figures/<P>/<SLUG>/<FIG>.*
    repro claims [--profile P] [--evaluate]    prints the claims table; exit 1 if an analytic/robust claim fails
    repro data status|fetch|partition ...      datasets (see ``repro data -h``)
    repro bench engine|kernels ...             benchmarks (see ``repro bench -h``)
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys

from repro import experiment as ex

# sub-command groups contributed by sub-packages: module -> function(subparsers)
PLUGINS = ("repro.data.cli", "repro.engine.bench")


def _cmd_list(args) -> int:
    from repro import pipeline

    slugs = [args.slug] if args.slug else ex.PAPERS
    for slug in slugs:
        figs = ex.figure_specs(slug, args.profile)
        n_runs = len({r for f in figs for r in f.run_ids})
        print(f"{slug}  ({len(figs)} figures/tables, {n_runs} runs under profile {args.profile})")
        for f in figs:
            print(f"  {f.fig_id:<8} {f.kind:<7} {f.paper_ref:<10} {len(f.run_ids):>4} runs  {f.title}")
        claims = [c for c in pipeline.load_claims(args.profile, [slug])]
        if claims:
            print(f"  claims ({len(claims)}): " + ", ".join(f"{c['id']}={c['status']}" for c in claims))
    return 0


def _cmd_run(args) -> int:
    from repro import pipeline

    pipeline.execute_run(args.slug, args.run_id, args.profile, device=args.device, threads=args.threads, force=args.force)
    return 0


def _cmd_figure(args) -> int:
    from repro import pipeline

    pipeline.render_figure(args.slug, args.fig, args.profile, run_missing=not args.no_run, device=args.device, threads=args.threads)
    return 0


def _cmd_evaluate(args) -> int:
    from repro import pipeline

    pipeline.evaluate_claims(args.slug, args.profile)
    return 0


def _cmd_claims(args) -> int:
    from repro import pipeline
    from repro.claims import blocking_failures

    if args.evaluate:
        for slug in ex.PAPERS:
            pipeline.evaluate_claims(slug, args.profile)
    if args.write:
        pipeline.write_claims_table(args.profile)
    print(pipeline.claims_markdown(args.profile))
    rows = pipeline.load_claims(args.profile)
    if not rows:
        print(f"no claims.json under results/{args.profile}/: run the workflow first (snakemake -j8 all)", file=sys.stderr)
        return 2
    bad = blocking_failures(rows)
    for c in bad:
        print(f"FAILED {c['paper']}/{c['id']}: {c['statement']} (value {c['value']}, expected {c['expected']})", file=sys.stderr)
    return 1 if bad else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="repro", description="Regenerate the figures and claims of five private / wireless FL papers.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp, device=False):
        sp.add_argument("--profile", default="quick", choices=ex.PROFILES, help="parameter profile (default: quick)")
        if device:
            sp.add_argument("--device", default="cpu", help="torch device for training runs (cpu, cuda, cuda:1, ...)")
            sp.add_argument("--threads", type=int, default=1, help="intra-op threads for this run")

    sp = sub.add_parser("list", help="papers, figures and claims")
    sp.add_argument("slug", nargs="?", choices=ex.PAPERS)
    common(sp)
    sp.set_defaults(func=_cmd_list)

    sp = sub.add_parser("run", help="do one run of a paper")
    sp.add_argument("slug", choices=ex.PAPERS)
    sp.add_argument("run_id")
    sp.add_argument("--force", action="store_true", help="re-run even if the result exists")
    common(sp, device=True)
    sp.set_defaults(func=_cmd_run)

    sp = sub.add_parser("figure", help="render one figure or table (running what is missing)")
    sp.add_argument("slug", choices=ex.PAPERS)
    sp.add_argument("fig")
    sp.add_argument("--no-run", action="store_true", help="only render from existing results")
    common(sp, device=True)
    sp.set_defaults(func=_cmd_figure)

    sp = sub.add_parser("evaluate", help="evaluate one paper's claims on its figure CSVs")
    sp.add_argument("slug", choices=ex.PAPERS)
    common(sp)
    sp.set_defaults(func=_cmd_evaluate)

    sp = sub.add_parser("claims", help="print the claims table; exit 1 if an analytic or robust claim fails")
    sp.add_argument("--evaluate", action="store_true", help="re-evaluate every paper's claims first")
    sp.add_argument("--write", action="store_true", help="also write figures/<profile>/claims.md")
    common(sp)
    sp.set_defaults(func=_cmd_claims)

    for mod in PLUGINS:
        if importlib.util.find_spec(mod) is not None:
            importlib.import_module(mod).register(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ex.ConfigError as e:
        print(f"repro: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
