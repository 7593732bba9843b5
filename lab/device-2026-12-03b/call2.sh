#!/usr/bin/env bash
# 2026-12-03 (second session), device call 2 (carry .whl): the records after call 1's findings.
#  1. the runner on cross-entropy --missing (ours: the aligned layout now only where rows are
#     misaligned) and on swiglu + swiglu-fused --missing (the eviction hint by size; swiglu's
#     separate-layout workloads never ran: every implementation);
#  2. the random-shape reports (seed 1217) of cross-entropy and swiglu, on what is left.
# Files back: runner.log, runs.tgz, random-<family>-1217.{json,log} (<= 6).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-585}
left() { echo $(( LIMIT - SECONDS )); }
touch /tmp/kr-mark
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > "$OUT/runner.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$OUT/runner.log"
timeout 120 python3 -m site_builder.runner --family cross-entropy --missing --timeout 60 --budget 80 >> "$OUT/runner.log" 2>&1
echo "ce runner exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
timeout 260 python3 -m site_builder.runner --family swiglu --family swiglu-fused --missing --timeout 60 --budget 220 \
  >> "$OUT/runner.log" 2>&1
echo "swiglu runner exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark) 2>> "$OUT/runner.log"
b=$(( ($(left) - 140) / 2 ))
if [ "$b" -gt 40 ]; then
  BUDGET=$b timeout $(( b + 70 )) bash lab/random_shapes/device_report.sh cross-entropy >> "$OUT/runner.log" 2>&1
  echo "ce report exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
fi
b=$(( $(left) - 75 ))
if [ "$b" -gt 40 ]; then
  BUDGET=$b timeout $(( b + 65 )) bash lab/random_shapes/device_report.sh swiglu >> "$OUT/runner.log" 2>&1
  echo "swiglu report exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
fi
grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├\|^┗\|^┣\|^┠" "$OUT/runner.log" | tail -n 25
