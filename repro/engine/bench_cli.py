"""``repro bench engine|kernels``: the command-line side of :mod:`repro.engine.bench`.

Kept apart so that registering the sub-command does not import torch: every ``repro`` call (a figure, the
claims) parses the full command line, and only a benchmark needs torch.
"""

from __future__ import annotations

import json


def register(subparsers) -> None:
    p = subparsers.add_parser("bench", help="benchmarks: engine round vs sequential reference, privacy kernels")
    sub = p.add_subparsers(dest="bench_command", required=True)
    e = sub.add_parser("engine", help="one FedAvg round, vectorised vs sequential")
    e.add_argument("--model", choices=("mlr", "dnn", "cnn"), default="mlr")
    e.add_argument("--clients", type=int, default=20)
    e.add_argument("--samples", type=int, default=2625, help="training samples per client (default 2625)")
    e.add_argument("--test-samples", type=int, default=875, help="test samples per client (default 875)")
    e.add_argument("--repeats", type=int, default=5)
    e.add_argument("--threads", type=int, default=1)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.set_defaults(func=_cmd_engine)
    k = sub.add_parser("kernels", help="clip+noise and quantisers on a [clients, params] stack")
    k.add_argument("--clients", type=int, default=20)
    k.add_argument("--params", type=int, default=1_000_000)
    k.add_argument("--repeats", type=int, default=3)
    k.add_argument("--threads", type=int, default=1)
    k.add_argument("--json", action="store_true")
    k.set_defaults(func=_cmd_kernels)
    r = sub.add_parser("roofline", help="the papers' stacked MLP steps: GEMM rates, memory bandwidth, GFLOP/s ceilings")
    r.add_argument("--repeats", type=int, default=3)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--shape", nargs=3, metavar=("ROWS", "BATCH", "WIDTHS"),
                   help="one shape instead of the papers', e.g. 200 10 784,100,10")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_cmd_roofline)


def _cmd_engine(args) -> int:
    import torch

    from repro.engine.bench import bench_engine

    torch.set_num_threads(args.threads)
    r = bench_engine(args.model, args.clients, args.samples, args.test_samples, args.repeats)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"{r['model']}: {r['clients']} clients x {r['samples_per_client']} samples: vectorised "
              f"{r['vectorized_s_per_round']:.3f} s/round, sequential {r['sequential_s_per_round']:.3f} s/round, "
              f"speedup {r['speedup']:.2f}x, {r['gflops']:.1f} GFLOP/s")
    return 0


def _cmd_kernels(args) -> int:
    import torch

    from repro.engine.bench import bench_kernels

    torch.set_num_threads(args.threads)
    rows = bench_kernels(args.clients, args.params, args.repeats)
    if args.json:
        print(json.dumps(rows))
    else:
        for r in rows:
            extra = f"  vec/rng-fill {r['vectorized_over_rng_fill']:5.2f}" if "rng_fill_s" in r else ""
            print(f"{r['kernel']:<22} {r['vectorized_s']*1e3:8.1f} ms  loop/vec {r['loop_over_vectorized']:5.2f}  "
                  f"vec/copy {r['vectorized_over_copy']:5.2f}{extra}")
    return 0


def _cmd_roofline(args) -> int:
    import torch

    from repro.engine.bench import PAPER_SHAPES, roofline

    torch.set_num_threads(args.threads)
    if args.shape:
        try:
            rows, batch, widths = int(args.shape[0]), int(args.shape[1]), tuple(int(w) for w in args.shape[2].split(","))
        except ValueError:
            raise SystemExit(f"repro bench roofline: --shape takes ROWS BATCH WIDTHS (integers, widths comma-separated, "
                             f"e.g. 200 10 784,100,10), got {' '.join(args.shape)}")
        if rows < 1 or batch < 1 or len(widths) < 2 or min(widths) < 1:
            raise SystemExit(f"repro bench roofline: --shape needs ROWS, BATCH >= 1 and at least two widths >= 1, got "
                             f"{' '.join(args.shape)}")
        shapes = {f"{rows} rows, batch {batch}, {args.shape[2]}": (rows, batch, widths)}
    else:
        shapes = PAPER_SHAPES
    out = {name: roofline(*shape, repeats=args.repeats) for name, shape in shapes.items()}
    if args.json:
        print(json.dumps(out))
        return 0
    for name, r in out.items():
        gemm = ", ".join(f"{l['layer']} forward {l['forward_gflops']:.1f} / weight gradient {l['weight_grad_gflops']:.1f}"
                         for l in r["layers"])
        print(f"{name}: {r['step_gflop']:.3f} GFLOP per step; products (GFLOP/s) {gemm}; one pass over the "
              f"{r['stack_mb']:.0f} MB stack {r['pass_s'] * 1e3:.1f} ms ({r['bandwidth_gb_s']:.1f} GB/s); ceiling "
              f"{r['ceiling_products_gflops']:.1f} GFLOP/s (products only), {r['ceiling_1_passes_gflops']:.1f} (+1 pass), "
              f"{r['ceiling_3_passes_gflops']:.1f} (+3 passes)")
    return 0
