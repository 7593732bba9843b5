#!/usr/bin/env bash
# 2026-12-04, device call 2 (carry .whl), after the size-class sweep of call 1 set the plan:
#  1. the element-wise GPU tests;
#  2. swiglu + swiglu-fused --missing (ours stale: the kernel changed);
#  3. the random-shape reports of seed 2718 (never looked at) for swiglu and swiglu-fused;
#  4. if time is left, swiglu's seed-1217 report again (the shapes that found the edge-tile cost).
# Files back: gpu-tests.log, runner.log, runs.tgz, random-<family>-<seed>.{json,log}.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-575}
left() { echo $(( LIMIT - SECONDS )); }
touch /tmp/kr-mark
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > "$OUT/runner.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_elementwise_gpu.py > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tail -n 3 "$OUT/gpu-tests.log" >> "$OUT/runner.log"
timeout 130 python3 -m site_builder.runner --family swiglu --family swiglu-fused --missing --timeout 60 --budget 100 \
  >> "$OUT/runner.log" 2>&1
echo "swiglu runner exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark) 2>> "$OUT/runner.log"
b=$(( ($(left) - 150) / 2 ))
[ "$b" -gt 140 ] && b=140
REPORT_SEED=2718 BUDGET=$b timeout $(( 2 * b + 120 )) bash lab/random_shapes/device_report.sh swiglu swiglu-fused \
  >> "$OUT/runner.log" 2>&1
echo "2718 reports exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
b=$(( $(left) - 60 ))
if [ "$b" -gt 60 ]; then
  REPORT_SEED=1217 BUDGET=$b timeout $(( b + 55 )) bash lab/random_shapes/device_report.sh swiglu >> "$OUT/runner.log" 2>&1
  echo "1217 report exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
fi
grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├\|^┗\|^┣\|^┠" "$OUT/runner.log" | tail -n 30
