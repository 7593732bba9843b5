#!/usr/bin/env bash
# Sweep 2 (NOTES.md, 2026-12-02: one-read long rows), one H200 call, <= 400 s in all:
# the GPU tests of both families (new: long rows vs float64, bits across row counts, 4096 x
# 262144 completes, CUDA-graph replays), then lab/softmax/sweep2.py under SWEEP_BUDGET (240 s)
# and a hard timeout. Outputs in $OUT: gpu.txt, gpu_tests.log, sweep2.log, sweep2.json, sweep2.md.
# Run from a copy of the worktree beside .whl (as device_run.sh):
#   run(carry=[".gpu-softmax", ".whl"], command="bash .gpu-softmax/lab/softmax/device_sweep2.sh", timeout_s=420)
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../.whl/*.whl \
  || echo "pip install failed"
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
start=$(date +%s)
timeout 100 python3 -m pytest -q --tb=short -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py > "$OUT/gpu_tests.log" 2>&1
echo "GPU tests: exit $? after $(( $(date +%s) - start )) s"; tail -n 15 "$OUT/gpu_tests.log"
left=$(( 385 - ($(date +%s) - start) ))
budget=${SWEEP_BUDGET:-240}
[ "$budget" -gt $(( left - 40 )) ] && budget=$(( left - 40 ))
echo "sweep: SWEEP_BUDGET $budget s, timeout $left s"
SWEEP_BUDGET=$budget timeout "$left" python3 lab/softmax/sweep2.py --out "$OUT" > "$OUT/sweep2.log" 2>&1
echo "sweep2: exit $? after $(( $(date +%s) - start )) s"
tail -n 45 "$OUT/sweep2.log"
echo "total $(( $(date +%s) - start )) s"
