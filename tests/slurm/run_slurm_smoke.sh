#!/usr/bin/env bash
# A real SLURM test: a one-node SLURM cluster on localhost from Debian's packages, the smoke profile run through
# profiles/slurm the way README.md tells a user (a clone of the project where only the partition is set), and its
# outputs (figure CSVs, claims.json, claims.md) compared byte for byte with a local run of the same targets.
#
#   tests/slurm/run_slurm_smoke.sh [PAPER ...]      default: acfl (the smoke profile's `all` of these papers)
#
# Needs root (it installs slurmctld / slurmd with apt-get when missing and runs the daemons) and the project's
# Python environment (snakemake and snakemake-executor-plugin-slurm from requirements.lock) on PATH.
# Env: SLURM_SMOKE_WORKDIR=DIR keeps the clones, logs and cluster files there (default: a temporary folder,
# removed at the end); SLURM_SMOKE_AUTH=munge uses munge even where auth/none exists.
# Exit status: 0 = the SLURM run completed and every compared output is identical to the local run's.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
PROFILE=smoke
PARTITION=debug            # deliberately not the profile's example names (cpu / gpu): the user's setting must win
PAPERS=("$@")
[ ${#PAPERS[@]} -gt 0 ] || PAPERS=(acfl)
PAPERS_CSV="$(IFS=,; echo "${PAPERS[*]}")"
T_START=$(date +%s)

die() { echo "slurm smoke test: error: $*" >&2; exit 1; }
# this machine cannot host the one-node cluster (no root, no apt, daemons that do not start): exit 77, the
# usual "skipped" code, which .ci/run reports as a skip; a failing workflow or differing outputs exit 1
cannot_host() { echo "slurm smoke test: cannot run here: $*" >&2; exit 77; }
stage() { echo "== $* ($(( $(date +%s) - T_START )) s)"; }

# ---- prerequisites ---------------------------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || cannot_host "must run as root (it installs Debian's slurm packages and starts slurmctld/slurmd)"
# srun inside a job reads slurm.conf from its default path only (the jobstep plugin drops SLURM_CONF from srun's
# environment), so the test's slurm.conf is bind-mounted over /etc/slurm in a private mount namespace: the host's
# /etc/slurm is never changed. Where namespaces are not allowed, it is written to /etc/slurm only if none is there.
if [ -z "${SLURM_SMOKE_IN_NS:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
  SLURM_SMOKE_IN_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
python -c "import snakemake, snakemake_executor_plugin_slurm" 2>/dev/null \
  || die "snakemake and snakemake-executor-plugin-slurm not importable by '$(command -v python)': activate the \
project's environment (pip install -r requirements.lock)"

missing=()
command -v slurmctld >/dev/null || missing+=(slurmctld)
command -v slurmd >/dev/null || missing+=(slurmd)
command -v sbatch >/dev/null || missing+=(slurm-client)
if [ ${#missing[@]} -gt 0 ]; then
  stage "installing ${missing[*]} with apt-get"
  command -v apt-get >/dev/null || cannot_host "slurm is not installed and apt-get is not available (install ${missing[*]})"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || cannot_host "apt-get update failed"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || cannot_host "apt-get install ${missing[*]} failed"
fi
SLURM_VERSION="$(slurmctld -V | awk '{print $2}')"
PLUGIN_DIR="$(dirname "$(find /usr/lib /usr/lib64 -name 'select_cons_tres.so' -path '*slurm*' 2>/dev/null | head -1)")"
[ -n "$PLUGIN_DIR" ] && [ "$PLUGIN_DIR" != . ] || cannot_host "no slurm plugin folder (select_cons_tres.so) found"

# ---- work folders ----------------------------------------------------------------------------------------------
if [ -n "${SLURM_SMOKE_WORKDIR:-}" ]; then
  W="$(mkdir -p "$SLURM_SMOKE_WORKDIR" && cd "$SLURM_SMOKE_WORKDIR" && pwd)"; KEEP=1
else
  W="$(mktemp -d /tmp/slurm-smoke.XXXXXX)"; KEEP=0
fi
C="$W/cluster"
rm -rf "$C" "$W/local" "$W/slurm" && mkdir -p "$C/state" "$C/spool" "$C/etc"
chmod 755 "$W"
PIDS=()
SYS_CONF=""   # /etc/slurm/slurm.conf when this test wrote it there (no namespace), removed at the end

cleanup() {
  local rc=$?
  if [ -n "${SLURM_CONF:-}" ] && [ ${#PIDS[@]} -gt 0 ]; then
    scancel --quiet --user "$(id -un)" 2>/dev/null || true   # only this cluster's jobs (SLURM_CONF is ours)
    for _ in 1 2 3 4 5; do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 1; done
  fi
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ -z "$SYS_CONF" ] || rm -f "$SYS_CONF"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    for f in "$C/slurmctld.log" "$C/slurmd.log"; do
      [ -s "$f" ] && { echo "--- last lines of $f"; tail -n 15 "$f"; } >&2
    done
    echo "slurm smoke test FAILED (exit $rc) after $(( $(date +%s) - T_START )) s; files: $W" >&2
  fi
  [ "$KEEP" -eq 1 ] || [ "$rc" -ne 0 ] || rm -rf "$W"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- a one-node cluster on localhost ---------------------------------------------------------------------------
stage "starting a one-node SLURM $SLURM_VERSION cluster in $C"
read -r PORT_CTLD PORT_SLURMD < <(python - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
EOF
)
MEM_MB=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 ))
AUTH="${SLURM_SMOKE_AUTH:-}"
if [ -z "$AUTH" ]; then
  if [ -e "$PLUGIN_DIR/auth_none.so" ] && [ -e "$PLUGIN_DIR/cred_none.so" ]; then AUTH=none; else AUTH=munge; fi
fi
if [ "$AUTH" = munge ]; then
  # munge with its own key and socket: nothing of a system munged is used or changed
  if ! command -v munged >/dev/null; then
    stage "installing munge with apt-get"
    command -v apt-get >/dev/null || cannot_host "auth/none is not available in slurm $SLURM_VERSION and munge is not installed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends munge >/dev/null \
      || cannot_host "apt-get install munge failed"
  fi
  mkdir -p "$C/munge" && chmod 700 "$C/munge"
  dd if=/dev/urandom of="$C/munge/munge.key" bs=1024 count=1 status=none && chmod 400 "$C/munge/munge.key"
  munged --foreground --force --key-file "$C/munge/munge.key" --socket "$C/munge/munge.socket" \
    --pid-file "$C/munge/munged.pid" --log-file "$C/munge/munged.log" --seed-file "$C/munge/seed" \
    > "$C/munge/munged.out" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 20); do [ -S "$C/munge/munge.socket" ] && break; sleep 0.5; done
  [ -S "$C/munge/munge.socket" ] || cannot_host "munged did not start (see $C/munge/munged.log)"
  AUTH_CONF="AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$C/munge/munge.socket"
else
  AUTH_CONF="AuthType=auth/none
CredType=cred/none"
fi

export SLURM_CONF="$C/etc/slurm.conf"
if [ -n "${SLURM_SMOKE_IN_NS:-}" ]; then
  mkdir -p /etc/slurm && mount --bind "$C/etc" /etc/slurm || cannot_host "cannot bind-mount $C/etc over /etc/slurm"
elif [ ! -e /etc/slurm/slurm.conf ]; then
  mkdir -p /etc/slurm && ln -s "$SLURM_CONF" /etc/slurm/slurm.conf && SYS_CONF=/etc/slurm/slurm.conf
else
  cannot_host "/etc/slurm/slurm.conf exists and no private mount namespace is allowed here (unshare --mount): this test \
does not overwrite a cluster's configuration; run it in a container or VM"
fi
cat > "$SLURM_CONF" <<EOF
# one node on localhost, no cgroups, no accounting database (jobs' times go to a job-completion file)
ClusterName=reprosmoke
SlurmctldHost=localhost
$AUTH_CONF
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT_CTLD
SlurmdPort=$PORT_SLURMD
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/slurmctld.log
SlurmdLogFile=$C/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$C/jobcomp.txt
MpiDefault=none
ReturnToService=2
MinJobAge=300
NodeName=localhost CPUs=2 RealMemory=$MEM_MB State=UNKNOWN
PartitionName=$PARTITION Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" > "$C/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" -N localhost > "$C/slurmd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 60); do
  state="$(sinfo -h -N -o %t 2>/dev/null || true)"
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || cannot_host "the node did not come up idle within 30 s (sinfo: '${state:-no answer}')"
echo "   node localhost: idle, partition $PARTITION, auth/$AUTH, ports $PORT_CTLD/$PORT_SLURMD"

# ---- two clones of the project: one runs locally, one through SLURM --------------------------------------------
clone() {  # the tracked and unignored files a user's clone has (workflow, config, profiles), no local overrides
  mkdir -p "$1"
  if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$REPO" ls-files -co --exclude-standard -- Snakefile workflow config profiles environment.yml \
      | tar -C "$REPO" -cf - -T - | tar -C "$1" -xf -
  else
    for item in Snakefile workflow config profiles environment.yml; do
      [ -e "$REPO/$item" ] && cp -a "$REPO/$item" "$1/"
    done
  fi
  rm -rf "$1/config/profiles"
}
clone "$W/local"
clone "$W/slurm"
# What the README tells a SLURM user to set: the partitions in config/config.yaml (this cluster needs no account,
# so profiles/slurm/config.yaml stays as it is).
grep -q '^slurm_partitions:' "$W/slurm/config/config.yaml" || die "config/config.yaml has no slurm_partitions line"
sed -i "s/^slurm_partitions:[^#]*/slurm_partitions: {cpu: $PARTITION, gpu: $PARTITION}   /" "$W/slurm/config/config.yaml"

export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg
unset REPRO_ROOT REPRO_DATA_DIR   # each clone keeps its own data/ cache, as a user's clone does

stage "local run: snakemake --cores all all --config profile=$PROFILE 'papers=[$PAPERS_CSV]'"
t0=$(date +%s)
(cd "$W/local" && snakemake --cores all all --config profile=$PROFILE "papers=[$PAPERS_CSV]") > "$W/local.log" 2>&1 \
  || { tail -n 30 "$W/local.log" >&2; die "the local run failed (log: $W/local.log)"; }
T_LOCAL=$(( $(date +%s) - t0 ))

# A job SLURM can never start (asks for more than the partition has, a partition or account it lacks) would keep
# snakemake waiting: the watchdog stops it with SLURM's reason; SLURM_SMOKE_TIMEOUT (s) bounds the whole run.
watchdog() {
  while sleep 5; do
    bad="$(squeue -h -t PD -o '%i %r' 2>/dev/null \
      | grep -E ' (PartitionConfig|PartitionNodeLimit|PartitionTimeLimit|BadConstraints|Invalid[A-Za-z]*)$' | head -3)"
    if [ -n "$bad" ]; then
      echo "$bad" > "$W/unstartable"; kill -INT "$1" 2>/dev/null; return
    fi
  done
}
# README: a cluster without job accounting (sacct: "accounting storage is disabled", as this one) needs
# --slurm-status-command squeue, else snakemake never learns that a job ended. The polling interval (40 s by
# default, at least once per DAG level) is shortened for the test only; it changes when snakemake asks, not what runs.
EXTRA=(--slurm-init-seconds-before-status-checks 5)
sacct -X -n >/dev/null 2>&1 || EXTRA+=(--slurm-status-command squeue)
stage "SLURM run: snakemake --profile profiles/slurm all --config profile=$PROFILE 'papers=[$PAPERS_CSV]' ${EXTRA[*]}"
t0=$(date +%s)
(cd "$W/slurm" && exec timeout --signal=INT "${SLURM_SMOKE_TIMEOUT:-900}" \
  snakemake --profile profiles/slurm all --config profile=$PROFILE "papers=[$PAPERS_CSV]" "${EXTRA[@]}") \
  > "$W/slurm.log" 2>&1 &
SMK=$!
watchdog "$SMK" &
PIDS=("$!" "${PIDS[@]}")
rc=0; wait "$SMK" || rc=$?
T_SLURM=$(( $(date +%s) - t0 ))
if [ -s "$W/unstartable" ]; then
  die "SLURM can never start these jobs (job id, reason): $(tr '\n' ';' < "$W/unstartable") e.g. more CPUs or \
memory than the node has, or a partition / account the cluster lacks; stopped the run (log: $W/slurm.log)"
fi
if [ "$rc" -ne 0 ]; then
  tail -n 40 "$W/slurm.log" >&2
  [ "$rc" -eq 124 ] && die "the SLURM run took longer than ${SLURM_SMOKE_TIMEOUT:-900} s (log: $W/slurm.log)"
  die "the SLURM run failed, exit $rc (log: $W/slurm.log)"
fi

stage "per-job times and outputs (papers: ${PAPERS[*]})"
rc=0
python "$REPO/tests/slurm/slurm_report.py" "$W/local" "$W/local.log" "$W/slurm" "$W/slurm.log" "$C/jobcomp.txt" \
  "$PROFILE" "${PAPERS[@]}" || rc=$?
echo "snakemake wall time: local $T_LOCAL s, SLURM $T_SLURM s; whole test $(( $(date +%s) - T_START )) s"
[ "$rc" -eq 0 ] || die "the SLURM run's outputs differ from the local run's (see above)"
echo "slurm smoke test passed"
