#!/usr/bin/env bash
# The GPU check (issue 24, item 4) as one command for a lent CUDA machine whose python3 holds torch with CUDA.
# Run from the repository root. Carried beside the checkout: .whl/ (wheels of dp-accounting, dm-tree, jsonschema
# and its needs, for Python 3.12) and .gpu/datasets/ (a copy of ../shared/datasets). Writes under $OUT:
#   device.txt   the GPU, driver and torch version
#   cuda.md      the comparison table (python -m repro.gpu_check compare), written after every part
#   compare.log  per-part log lines, tracebacks of parts that failed
#   costs_gpu.md/.json, costs.log   the costs tool's probes on the GPU (runs with probe parts only), if time is left
set -uo pipefail
OUT=${OUT:-/tmp/gpu_check_out}
mkdir -p "$OUT"
if [ -z "${SKIP_WHEELS:-}" ] && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg PYTHONUNBUFFERED=1
export REPRO_DATA_MIRROR=${REPRO_DATA_MIRROR:-$PWD/.gpu/datasets}
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  nproc
  python3 -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else 'no CUDA')"
} 2>&1 | tee "$OUT/device.txt"
for d in mnist fashion_mnist; do python3 -m repro data fetch "$d" 2>&1 | tail -n 2; done
# ota_jammer's training runs on the CPU whatever --device says (numpy channel draws per client): left out by default
python3 -m repro.gpu_check compare --reference docs/gpu_check/cpu_reference.json --device "${DEVICE:-cuda}" \
  --papers ${PAPERS:-dp_ditto wpfl_minmax} ${PARTS:+--parts "$PARTS"} --budget "${COMPARE_BUDGET:-200}" --out "$OUT/cuda.md" > "$OUT/compare.log" 2>&1
echo "compare exit $?"
tail -n 5 "$OUT/compare.log"
if [ "${COSTS_TIMEOUT:-0}" -gt 0 ]; then
  timeout "$COSTS_TIMEOUT" python3 -m repro.costs --profile paper --device "${DEVICE:-cuda}" --papers ${COST_PAPERS:-dp_ditto wpfl_minmax} \
    --probed-only --out "$OUT/costs_gpu.md" > "$OUT/costs.log" 2>&1
  echo "costs exit $?"
fi
cat "$OUT/cuda.md"
