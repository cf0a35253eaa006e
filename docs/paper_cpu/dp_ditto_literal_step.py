"""dp_ditto: Algorithm 1 as printed (one gradient step on the whole local loss per round, lines 5 and 10) in the
paper's Fig. 6 setting, against the package's reading (guide decision D1: one local epoch of minibatch SGD at
batch 10, about 130 steps per round).

D1's premise is that "one step at eta = 0.005 cannot train"; judging rule 4 scans a reading only over the range the
paper's own experiment allows, so this probe measures what the literal reading trains, and judges the claims of
Fig. 6(a)-(b) (10.a, 10.b, 11.a, 11.b, 12) on it with the package's own claim checks. It runs the Fig. 6 job
(DNN, MNIST, eps = 10, C = 20, T = 30, the nine lambdas, per-round metrics for lambda in {0, 0.1, 0.5, 1, 2}) of
each seed's committed paper-profile batch with batch_size = the largest client's training set, so that every
client takes one full-gradient step per round for u_n and varpi_n. About 5-7 CPU-minutes per seed:

    python docs/paper_cpu/dp_ditto_literal_step.py [SEED ...] > docs/paper_cpu/dp_ditto_literal_step.md

The per-round numbers go to docs/paper_cpu/dp_ditto_literal_step.csv (the columns of figures/*/dp_ditto/fig6.csv).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from repro import experiment as ex
from repro import paths
from repro.papers.dp_ditto.claims import CLAIMS
from repro.papers.dp_ditto.runs import load_clients, run_training

JOB = "eps=10|C=20|T=30"
SHOWN = (1, 10, 20, 30)
CLAIM_IDS = ("10.a", "10.b", "11.a", "11.b", "12")
OUT_CSV = Path(__file__).with_suffix(".csv")


def _batch_of_seed(specs: dict, seed: int) -> str:
    """The paper-profile DP-Ditto batch of ``seed`` that holds the Fig. 6 job."""
    return next(rid for rid, s in sorted(specs.items()) if s.task == "ditto_batch" and s.seed == seed
                and any(j["key"] == JOB and j.get("per_round") for j in s.params["jobs"]))


def _rows(series: dict, seed: int, run_id: str) -> list[dict]:
    out = []
    for lam, ser in series.items():
        if len(ser["round"]) < 2:  # only the lambdas tracked per round are plotted
            continue
        for panel, metrics in (("a", ("accuracy",)), ("b", ("fairness", "fairness_std", "loss"))):
            for m in metrics:
                out += [dict(figure="fig6", panel=panel, series=f"lambda={lam}", x=t, metric=m, value=v, seed=seed,
                             run_id=run_id) for t, v in zip(ser["round"], ser[m])]
    return out


def main(argv: list[str]) -> int:
    seeds = [int(s) for s in argv] or [0, 1, 2]
    specs = ex.job_specs("dp_ditto", "paper")
    ctx = ex.RunContext(profile="paper", run_id="literal-step", log=lambda m: print(f"[probe] {m}", file=sys.stderr))
    literal, package = [], []
    for seed in seeds:
        rid = _batch_of_seed(specs, seed)
        spec = specs[rid]
        job = next(j for j in spec.params["jobs"] if j["key"] == JOB)
        base = {**{k: v for k, v in spec.params.items() if k != "jobs"}, **{k: v for k, v in job.items() if k != "key"}}
        full_batch = int(load_clients(base)[0].sizes.max())  # the largest client's training set: one batch each
        res = run_training("ditto", {**base, "batch_size": full_batch}, ctx.streams(spec), ctx)
        literal += _rows(res["series"], seed, f"{rid} (literal: batch {full_batch})")
        committed = json.loads(paths.run_result_path("paper", "dp_ditto", rid).read_text())["result"]["jobs"][JOB]
        package += _rows(committed["series"], seed, rid)
    lit, pkg = pd.DataFrame(literal), pd.DataFrame(package)
    lit.to_csv(OUT_CSV, index=False)
    params = ex.load_params("dp_ditto", "paper")
    print("# dp_ditto Fig. 6 (DNN, MNIST, eps = 10, T = 30): Algorithm 1 as printed vs the package's reading\n")
    print(f"Seeds {', '.join(map(str, seeds))}. Literal reading: one full-gradient step per round for u_n and varpi_n "
          "(Algorithm 1, lines 5 and 10). Package reading (guide D1): one epoch of minibatch SGD at batch 10. "
          "Personalised test accuracy, mean over clients and seeds, at round t.\n")
    print("| lambda | reading | " + " | ".join(f"t = {t}" for t in SHOWN) + " |")
    print("|---|---|" + "---|" * len(SHOWN))
    for lam in sorted(lit["series"].unique(), key=lambda s: float(s.split("=")[1])):
        for name, t in (("package (batch 10, 1 epoch)", pkg), ("literal (1 full-gradient step)", lit)):
            a = t[(t["series"] == lam) & (t["metric"] == "accuracy")].groupby("x")["value"].mean()
            print(f"| {lam.split('=')[1]} | {name} | " + " | ".join(f"{a[x]:.3f}" if x in a.index else "-" for x in SHOWN) + " |")
    print("\nThe claims of Fig. 6(a)-(b) judged by the package's checks on each reading (DNN panel only):\n")
    print("| claim | package reading | literal reading |")
    print("|---|---|---|")
    for cid in CLAIM_IDS:
        got = []
        for t in (pkg, lit):
            c = CLAIMS[cid].evaluate({"fig6": t}, params)
            got.append(c.verdict.replace("_", " ") + (f" ({c.reason[:160]})" if c.verdict == "not_evaluated" else ""))
        print(f"| {cid} | {got[0]} | {got[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
