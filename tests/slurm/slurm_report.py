"""Per-job times and output comparison of the SLURM smoke test (tests/slurm/run_slurm_smoke.sh).

    python tests/slurm/slurm_report.py LOCAL_DIR LOCAL_LOG SLURM_DIR SLURM_LOG JOBCOMP PROFILE SLUG [SLUG ...]

LOCAL_LOG / SLURM_LOG: Snakemake's console output of the local and the SLURM run; JOBCOMP: slurmctld's
job-completion file (jobcomp/filetxt). Prints one line per job (local wall time; under SLURM the time the job ran
on the node, its wait in the queue, and the time Snakemake saw from submission to "Finished"), the totals, and
whether every figure CSV and claims file is byte-identical. Exit status 1 when an output differs or is missing,
or when a job of the SLURM run did not go through SLURM.
"""

from __future__ import annotations

import difflib
import re
import sys
from datetime import datetime
from pathlib import Path

STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
RULE = re.compile(r"^(?:local)?rule (\w+):$")
SUBMITTED = re.compile(r"Job (\d+) has been submitted with SLURM jobid (\d+)")
FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)")
RULES_WITH_ACTION = {"dataset_status", "run", "figure", "claims", "claims_report"}


def parse_log(text: str) -> dict[str, dict]:
    """Snakemake console log -> ``{jobid: {rule, key, start, end, slurm_id, local}}`` (times as datetimes)."""
    jobs: dict[str, dict] = {}
    stamp = cur = None
    for line in text.splitlines():
        s = line.strip()
        if m := STAMP.match(s):
            stamp = datetime.strptime(" ".join(m.group(1).split()), "%a %b %d %H:%M:%S %Y")
            cur = None
        elif m := RULE.match(s):
            cur = {"rule": m.group(1), "start": stamp, "local": s.startswith("localrule"), "wildcards": ""}
        elif cur is not None and s.startswith("jobid:"):
            jobs[s.split()[1]] = cur
        elif cur is not None and s.startswith("wildcards:"):
            cur["wildcards"] = s.split(":", 1)[1].strip()
        elif m := SUBMITTED.search(s):
            if m.group(1) in jobs:
                jobs[m.group(1)]["slurm_id"] = m.group(2)
        elif (m := FINISHED.match(s)) and m.group(1) in jobs:
            jobs[m.group(1)]["end"] = stamp
    for j in jobs.values():
        j["key"] = f"{j['rule']}({j['wildcards']})" if j["wildcards"] else j["rule"]
    return {k: j for k, j in jobs.items() if j["rule"] in RULES_WITH_ACTION}


def parse_jobcomp(path: Path) -> dict[str, dict]:
    """jobcomp/filetxt lines (``Key=Value ...``) -> ``{slurm_jobid: {state, queued_s, ran_s}}``."""
    out = {}
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        kv = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if "JobId" not in kv:
            continue

        def t(name):
            try:
                return datetime.fromisoformat(kv[name])
            except (KeyError, ValueError):
                return None

        start, end, sub = t("StartTime"), t("EndTime"), t("SubmitTime") or t("EligibleTime")
        out[kv["JobId"]] = {"state": kv.get("JobState", "?"),
                            "ran_s": (end - start).total_seconds() if start and end else None,
                            "queued_s": (start - sub).total_seconds() if start and sub else None}
    return out


def secs(j: dict) -> float | None:
    return (j["end"] - j["start"]).total_seconds() if j.get("start") and j.get("end") else None


def fmt(x) -> str:
    return "-" if x is None else f"{x:.0f}"


def span(jobs: dict) -> float | None:
    starts = [j["start"] for j in jobs.values() if j.get("start")]
    ends = [j["end"] for j in jobs.values() if j.get("end")]
    return (max(ends) - min(starts)).total_seconds() if starts and ends else None


def compare_outputs(local: Path, slurm: Path, profile: str, slugs: list[str]) -> list[str]:
    """Relative paths of the compared outputs that differ (or are missing) between the two runs."""
    rels = [f"figures/{profile}/claims.md"]
    for slug in slugs:
        rels += sorted(str(p.relative_to(local)) for p in (local / "figures" / profile / slug).glob("*.csv"))
        rels.append(f"results/{profile}/{slug}/claims.json")
    bad = []
    for rel in rels:
        a, b = local / rel, slurm / rel
        if not a.is_file() or not b.is_file():
            bad.append(f"{rel}: missing in the {'local' if not a.is_file() else 'SLURM'} run")
        elif a.read_bytes() != b.read_bytes():
            diff = difflib.unified_diff(a.read_text().splitlines(), b.read_text().splitlines(), "local", "slurm",
                                        lineterm="", n=0)
            bad.append(f"{rel}: differs\n    " + "\n    ".join(list(diff)[:12]))
    print(f"outputs compared: {len(rels)} files (figure CSVs, claims.json per paper, claims.md); "
          f"{len(rels) - len(bad)} byte-identical, {len(bad)} differ or missing")
    return bad


def main(argv: list[str]) -> int:
    if len(argv) < 7:
        print(__doc__, file=sys.stderr)
        return 2
    local_dir, local_log, slurm_dir, slurm_log, jobcomp = map(Path, argv[:5])
    profile, slugs = argv[5], argv[6:]
    loc = {j["key"]: j for j in parse_log(local_log.read_text()).values()}
    sl = {j["key"]: j for j in parse_log(slurm_log.read_text()).values()}
    comp = parse_jobcomp(jobcomp)
    print(f"{'job':58s} {'local s':>7s} | {'SLURM id':>8s} {'on node s':>9s} {'queued s':>8s} {'seen s':>6s}")
    not_via_slurm = []
    for key in sorted(set(loc) | set(sl), key=lambda k: (sl.get(k, loc.get(k))["start"] or datetime.min, k)):
        lj, sj = loc.get(key, {}), sl.get(key, {})
        sid = sj.get("slurm_id")
        c = comp.get(sid, {}) if sid else {}
        if sj and not sj.get("local") and not sid:
            not_via_slurm.append(key)
        where = sid or ("local" if sj.get("local") else "-")
        print(f"{key[:58]:58s} {fmt(secs(lj)):>7s} | {where:>8s} {fmt(c.get('ran_s')):>9s} "
              f"{fmt(c.get('queued_s')):>8s} {fmt(secs(sj)):>6s}")
    ran = [c["ran_s"] for c in comp.values() if c.get("ran_s") is not None]
    states = sorted({c["state"] for c in comp.values()})
    print(f"jobs: local {len(loc)}, SLURM run {len(sl)} ({sum(1 for j in sl.values() if j.get('slurm_id'))} "
          f"submitted with sbatch; SLURM states {', '.join(states) or 'none recorded'})")
    print(f"sum of per-job times: local {sum(filter(None, map(secs, loc.values()))):.0f} s; "
          f"on the SLURM node {sum(ran):.0f} s")
    print(f"wall time, first job start to last job end: local {fmt(span(loc))} s, SLURM {fmt(span(sl))} s")
    bad = compare_outputs(local_dir, slurm_dir, profile, slugs)
    for b in bad:
        print(f"  DIFFERS: {b}")
    if not_via_slurm:
        print(f"  NOT SUBMITTED TO SLURM: {', '.join(not_via_slurm)}")
    failed = [sid for sid, c in comp.items() if c["state"] != "COMPLETED"]
    if failed:
        print(f"  SLURM jobs not COMPLETED: {', '.join(failed)} (Snakemake retried them: profiles/slurm retries)")
    return 1 if bad or not_via_slurm or not sl else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
