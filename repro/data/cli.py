"""``repro data``: status, fetch and partition (registered into the ``repro`` command).

    repro data status
    repro data fetch NAME|all [--allow-missing] [--status-json PATH]
    repro data partition DATASET --scheme {iid,pathological,dirichlet} --clients N
                         [--classes-per-client K] [--alpha A] --seed S [--plot out.png]
"""

from __future__ import annotations

import sys

from repro.data.registry import NAMES


def _cmd_status(args) -> int:
    from repro.data.status import all_readonly_status, status_table

    print(status_table(all_readonly_status()))
    return 0


def _cmd_fetch(args) -> int:
    from repro.data.status import dataset_status, write_status_file
    from repro.results import write_json

    names = list(NAMES) if args.name == "all" else [args.name]
    rows = []
    for name in names:
        try:
            st = dataset_status(name, download=True)
        except ValueError as e:
            print(f"repro data fetch: {e}", file=sys.stderr)
            return 2
        rows.append(st)
        if st.available:
            print(f"{st.dataset}: available from {st.where}: {st.path} (verified: {'yes' if st.verified else 'no'}; {st.size})")
        else:
            print(f"{st.dataset}: not available ({st.reason})\n{st.instructions}", file=sys.stderr)
    if args.status_json:
        if len(rows) == 1:  # the workflow's status file (and the fingerprint of the places beside it)
            write_status_file(args.status_json, rows[0])
        else:
            write_json(args.status_json, [r.record() for r in rows])
    if all(r.available for r in rows) or args.allow_missing:
        return 0
    return 1


def _cmd_partition(args) -> int:
    import numpy as np

    from repro.data.errors import DatasetUnavailableError
    from repro.data.federated import federated_dataset
    from repro.data.partition import PartitionError

    if args.plot:
        problem = _plot_path_problem(args.plot)
        if problem:
            print(f"repro data partition: --plot {args.plot}: {problem}", file=sys.stderr)
            return 2
    spec = {"scheme": args.scheme, "num_clients": args.clients, "test_fraction": args.test_fraction}
    if args.scheme == "pathological":
        if args.classes_per_client is None:
            print("repro data partition: --scheme pathological needs --classes-per-client", file=sys.stderr)
            return 2
        spec["classes_per_client"] = args.classes_per_client
    if args.scheme == "dirichlet":
        if args.alpha is None:
            print("repro data partition: --scheme dirichlet needs --alpha", file=sys.stderr)
            return 2
        spec.update(alpha=args.alpha, min_size=args.min_size)
    try:
        fd = federated_dataset(args.dataset, spec, seed=args.seed)
    except DatasetUnavailableError as e:
        print(f"repro data partition: {e}", file=sys.stderr)
        return 1
    except (PartitionError, ValueError) as e:
        print(f"repro data partition: {e}", file=sys.stderr)
        return 2
    counts = fd.label_counts("train")
    sizes = counts.sum(1)
    held = (counts > 0).sum(1)
    print(f"{fd.key}: {fd.num_clients} clients, train sizes min {sizes.min()} / median {int(np.median(sizes))} / max {sizes.max()}, "
          f"test total {sum(fd.manifest['test_sizes'])}, classes per client {held.min()}-{held.max()}")
    print(f"saved in {fd.path}")
    if args.plot:
        plot_label_counts(counts, args.plot, f"{args.dataset}, {args.scheme} ({_spec_text(spec)}), seed {args.seed}")
        print(f"heat map: {args.plot}")
    return 0


PLOT_FORMATS = ("png", "pdf", "svg")


def _plot_path_problem(path) -> str | None:
    """Why ``path`` cannot take the heat map (a folder that does not exist is never created), or None."""
    from pathlib import Path

    p = Path(path)
    if p.suffix.lower().lstrip(".") not in PLOT_FORMATS:
        return f"the file name must end in {', '.join('.' + f for f in PLOT_FORMATS)}"
    if not p.parent.is_dir():
        return f"folder {p.parent} does not exist (create it first)"
    return None


def _spec_text(spec: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in spec.items() if k not in ("scheme",))


def plot_label_counts(counts, path, title: str) -> None:
    """Clients-by-classes heat map of training sample counts (PNG or PDF by ``path``'s suffix)."""
    import numpy as np
    from matplotlib.figure import Figure  # no pyplot: draws to a file whatever the backend

    from repro.results import atomic_path

    n, c = counts.shape
    fig = Figure(figsize=(max(4.0, 0.45 * c + 2.0), max(3.0, 0.22 * n + 1.5)), constrained_layout=True)
    ax = fig.subplots()
    im = ax.imshow(counts, aspect="auto", cmap="viridis", interpolation="nearest")
    ax.set_xlabel("class")
    ax.set_ylabel("client")
    ax.set_xticks(np.arange(c))
    step = max(1, n // 25)
    ax.set_yticks(np.arange(0, n, step))
    ax.set_title(title, fontsize=8)
    fig.colorbar(im, ax=ax, label="training samples")
    suffix = "." + str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else ".png"
    with atomic_path(path, suffix=suffix, make_parents=False) as tmp:
        fig.savefig(tmp, dpi=150, format=suffix[1:])


def register(subparsers) -> None:
    p = subparsers.add_parser("data", help="datasets: status, fetch, partition")
    sub = p.add_subparsers(dest="data_command", required=True)

    sp = sub.add_parser("status", help="table of datasets: where found, verified, size. Copies, decodes and downloads nothing "
                        "(a missing dataset costs one HEAD request to its URL; a corrupt copy in the project cache is "
                        "renamed *.corrupt, as every lookup does)")
    sp.set_defaults(func=_cmd_status)

    sp = sub.add_parser("fetch", help="obtain and verify a dataset (cache, mirror, system copy, download)")
    sp.add_argument("name", choices=[*NAMES, "all"])
    sp.add_argument("--allow-missing", action="store_true", help="exit 0 even if the dataset cannot be had")
    sp.add_argument("--status-json", metavar="PATH", help="write {dataset, available, path, verified, reason} here (atomically)")
    sp.set_defaults(func=_cmd_fetch)

    sp = sub.add_parser("partition", help="partition a dataset over clients, save it, optionally plot it")
    sp.add_argument("dataset", choices=[n for n in NAMES])
    sp.add_argument("--scheme", required=True, choices=("iid", "pathological", "dirichlet"))
    sp.add_argument("--clients", type=int, required=True, help="number of clients")
    sp.add_argument("--classes-per-client", type=int, help="pathological: classes per client")
    sp.add_argument("--alpha", type=float, help="dirichlet: concentration (smaller = more skew)")
    sp.add_argument("--min-size", type=int, default=10, help="dirichlet: smallest client size (default 10)")
    sp.add_argument("--test-fraction", type=float, default=0.25, help="per-client test share (default 0.25)")
    sp.add_argument("--seed", type=int, required=True, help="partition seed")
    sp.add_argument("--plot", metavar="OUT.png", help="write a clients-by-classes heat map")
    sp.set_defaults(func=_cmd_partition)
