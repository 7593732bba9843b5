#!/usr/bin/env bash
# One device call: softmax backward checked with and without the element-wise allowance
# (kernels/softmax/reference.py) for every backward workload of the record and every backward
# implementation but torch.compile (lab/softmax/bwd_tolerance.py). From the repository root:
#   PYTHONPATH=/tmp/site:$PWD bash lab/softmax/bwd_tolerance.sh
# Writes $OUT/bwd_tolerance.json, $OUT/bwd_tolerance.log (≤ 400 s: the script stops starting
# workloads after KR_LIMIT_S, 330 s by default). CPU dry run: KR_TINY=1 OUT=/tmp/x bash ...
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
OUT=${OUT:-.}
if [ ! -d /tmp/site/liger_kernel ]; then
  for d in .whl ../.whl; do
    if ls "$d"/*.whl > /dev/null 2>&1; then
      python3 -m pip install -q --no-index --no-deps --target /tmp/site "$d"/*.whl || echo "pip install failed"
      break
    fi
  done
fi
export PYTHONPATH=/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}
PY=${PYTHON:-python3}
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv
start=$(date +%s)
timeout 390 "$PY" lab/softmax/bwd_tolerance.py 2>&1 | tee "$OUT/bwd_tolerance.log"
echo "exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
