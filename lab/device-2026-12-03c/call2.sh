#!/usr/bin/env bash
# 2026-12-03 (third session), device calls 2 and 3 (carry .whl; call 3: LIMIT=300, after the
# row-stride fix). After call 1 showed the full-tile plan
# 2x slower in the backward where the collapsed length is not a multiple of 16 (masked accesses
# cannot be vectorised), interior tiles now go unmasked.
#  1. the GPU tests of the element-wise families (swiglu and rope);
#  2. swiglu + swiglu-fused --missing (ours stale), rope --missing (ours stale since the knobs);
#  3. the swiglu random-shape report of seed 1217 on what is left.
# Files back: gpu-tests.log, runner.log, runs.tgz, random-swiglu-1217.{json,log}.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-570}
left() { echo $(( LIMIT - SECONDS )); }
touch /tmp/kr-mark2
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > "$OUT/runner.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
timeout 110 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_elementwise_gpu.py > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tail -n 3 "$OUT/gpu-tests.log" >> "$OUT/runner.log"
timeout 130 python3 -m site_builder.runner --family swiglu --family swiglu-fused --missing --timeout 60 --budget 100 \
  >> "$OUT/runner.log" 2>&1
echo "swiglu runner exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
timeout 120 python3 -m site_builder.runner --family rope --missing --timeout 60 --budget 90 >> "$OUT/runner.log" 2>&1
echo "rope runner exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark2) 2>> "$OUT/runner.log"
b=$(( $(left) - 70 ))
if [ "$b" -gt 40 ]; then
  BUDGET=$b timeout $(( b + 65 )) bash lab/random_shapes/device_report.sh swiglu >> "$OUT/runner.log" 2>&1
  echo "swiglu report exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
fi
grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├\|^┗\|^┣\|^┠" "$OUT/runner.log" | tail -n 25
