#!/usr/bin/env bash
# Paper-scale runs one after the other in the background of a shared machine, each resumable.
#
#   setsid nohup docs/paper_cpu/run_in_background.sh dp_ditto:baseline_batch-c269c2babc wpfl_minmax:train_group-990d516f85 \
#       > logs/background.log 2>&1 &
#
# Each SLUG:RUN_ID runs as `python -m repro run SLUG RUN_ID --profile paper` (one thread), its log in
# logs/run_RUN_ID.log; a finished run is skipped, an interrupted one resumes from its kept trainings
# (results/paper/SLUG/runs/RUN_ID.parts/). `nice` alone does not yield to foreground work started in another
# session (each session is its own scheduler autogroup), so the script also lowers its autogroup's priority.
# An item help:SLUG:RUN_ID runs `repro run SLUG RUN_ID --profile paper --helper`: it computes the sub-jobs of a run that
# another process executes (give a second core to one long run), and writes no result.
# Needs the CPU overrides in config/profiles/paper/ (copies of docs/paper_cpu/*.yaml) for the runs they select.
set -u
cd "$(dirname "$0")/../.."
[ -f .venv/bin/activate ] && . .venv/bin/activate
export MPLBACKEND=Agg OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
echo 19 > "/proc/$$/autogroup" 2>/dev/null || true  # Linux with CONFIG_SCHED_AUTOGROUP; harmless elsewhere
mkdir -p logs
for item in "$@"; do
  helper=()
  case $item in help:*) item=${item#help:}; helper=(--helper) ;; esac
  slug=${item%%:*}; rid=${item#*:}
  # a result is skipped by `repro run` itself, except one that says its dataset was unavailable (then it reruns)
  echo "[$(date +%T)] $slug $rid: start"
  log="logs/run_$rid${helper:+.helper}.log"
  nice -n 19 python -m repro run "$slug" "$rid" --profile paper "${helper[@]}" > "$log" 2>&1
  rc=$?
  if grep -q "is not available" "$log"; then
    echo "[$(date +%T)] $slug $rid: its dataset is not available ($log; set REPRO_DATA_MIRROR?); stopping"
    exit 3
  fi
  echo "[$(date +%T)] $slug $rid: exit $rc"
done
