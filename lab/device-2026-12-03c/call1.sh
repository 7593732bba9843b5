#!/usr/bin/env bash
# 2026-12-03 (third session), device call 1 (carry .whl):
#  1. swiglu + swiglu-fused --missing: ours only is stale (plan's WASTE_OK: a collapsed row no
#     full tile divides keeps full tiles; the family's workloads keep their launch);
#  2. the swiglu random-shape report of seed 1217 (the shapes where the old plan lost 1.5-1.7x);
#  3. the RoPE launch sweep (lab/rope/sweep.py) on what is left.
# Files back: runner.log, runs.tgz, random-swiglu-1217.{json,log}, rope-sweep.{md,json}.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-585}
left() { echo $(( LIMIT - SECONDS )); }
touch /tmp/kr-mark
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > "$OUT/runner.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$OUT/runner.log"
timeout 150 python3 -m site_builder.runner --family swiglu --family swiglu-fused --missing --timeout 60 --budget 120 \
  >> "$OUT/runner.log" 2>&1
echo "swiglu runner exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark) 2>> "$OUT/runner.log"
BUDGET=150 timeout 230 bash lab/random_shapes/device_report.sh swiglu >> "$OUT/runner.log" 2>&1
echo "swiglu report exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
b=$(( $(left) - 45 ))
if [ "$b" -gt 60 ]; then
  SWEEP_BUDGET=$b timeout $(( b + 35 )) python3 lab/rope/sweep.py --out "$OUT" >> "$OUT/runner.log" 2>&1
  echo "rope sweep exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
fi
grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├\|^┗\|^┣\|^┠" "$OUT/runner.log" | tail -n 25
