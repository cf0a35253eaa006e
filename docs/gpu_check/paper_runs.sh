#!/usr/bin/env bash
# Paper-profile runs on a lent GPU machine (issue 24): the runs of the named figures that have no result yet, WORKERS at
# once on the GPU, one CPU thread each, all stopped BUDGET seconds after the start; every finished run and the
# resumable parts of the unfinished ones come back in $OUT/results.tgz (extract it in the repository root and commit),
# the logs in $OUT/logs.tgz. Run from the repository root, e.g. through the device tool:
#
#   FIGS="dp_ditto:fig4,fig7,fig3_literal,fig4_literal,fig5_literal,fig7_literal" BUDGET=470 bash docs/gpu_check/paper_runs.sh
#
# carrying .whl/ (wheels of dp-accounting, dm-tree, jsonschema and its needs, for the machine's Python), the MNIST
# copy as .gpu/datasets/mnist/ (with ../shared/datasets/README.md as .gpu/datasets/README.md) and config/profiles/
# (the CPU overrides of docs/paper_cpu/, which select the panels: they keep the run ids the CPU plan uses).
# EXTRA_OVERRIDE (e.g. "wpfl_minmax:ber_snr: bit") appends one line to that paper's override on the device only.
set -uo pipefail
if [ -z "${SKIP_WHEELS:-}" ] && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH="$PWD:/tmp/site" MPLBACKEND=Agg PYTHONUNBUFFERED=1 REPRO_DATA_MIRROR=${REPRO_DATA_MIRROR:-$PWD/.gpu/datasets}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OUT=${OUT:-/tmp/paper_runs_out}
mkdir -p "$OUT" /tmp/logs config/profiles/paper; touch /tmp/start_marker
if [ -n "${EXTRA_OVERRIDE:-}" ]; then echo "${EXTRA_OVERRIDE#*:}" >> "config/profiles/paper/${EXTRA_OVERRIDE%%:*}.yaml"; fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc
python3 -m repro data fetch mnist 2>&1 | tail -n 1
# the queue: SLUG:RUN_ID of every run of the named figures without a result, in the order the figures are named
python3 - $FIGS > /tmp/queue.txt <<'PY'
import sys
from repro import experiment as ex, paths
seen = set()
for arg in sys.argv[1:]:
    slug, figs = arg.split(":")
    specs = {f.fig_id: f for f in ex.figure_specs(slug, "paper")}
    for fig in figs.split(","):
        for run in specs[fig].runs:
            if run.run_id not in seen and not paths.run_result_path("paper", slug, run.run_id).exists():
                seen.add(run.run_id)
                print(f"{slug}:{run.run_id}")
PY
echo "queue: $(wc -l < /tmp/queue.txt) runs"
export DEADLINE=$(($(date +%s) + ${BUDGET:-470}))  # epoch seconds: each worker is a new shell
run() {  # SLUG:RUN_ID
  local slug=${1%%:*} rid=${1#*:} left=$((DEADLINE - $(date +%s)))
  [ "$left" -lt 15 ] && { echo "$rid not started"; return; }
  timeout "$left" python3 -m repro run "$slug" "$rid" --profile paper --device "${DEVICE:-cuda}" > "/tmp/logs/$rid.log" 2>&1
  local rc=$?
  echo "[$(date +%T)] $slug $rid exit $rc $(tail -n 1 "/tmp/logs/$rid.log" | cut -c1-160)"
}
export -f run
xargs -P "${WORKERS:-10}" -I{} bash -c 'run {}' < /tmp/queue.txt
find results/paper -newer /tmp/start_marker -type f ! -name '*.lock' > /tmp/new_files
echo "new result files: $(wc -l < /tmp/new_files)"
tar czf "$OUT/results.tgz" -T /tmp/new_files
tar czf "$OUT/logs.tgz" -C /tmp logs
ls -la "$OUT"
