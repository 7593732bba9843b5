#!/usr/bin/env bash
# 2026-12-04, device call 3 (carry .whl): the cross-entropy report of seed 1217 with every
# implementation (Liger and torch.compile were not reached on 2026-12-03), then softmax's
# torch.compile workloads still without a result (`--missing`).
# Files back: runner.log, runs.tgz, random-cross-entropy-1217.{json,log}.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-575}
left() { echo $(( LIMIT - SECONDS )); }
touch /tmp/kr-mark3
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > "$OUT/runner.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
BUDGET=${CE_BUDGET:-300} timeout 420 bash lab/random_shapes/device_report.sh cross-entropy >> "$OUT/runner.log" 2>&1
echo "ce report exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
b=$(( $(left) - 40 ))
if [ "$b" -gt 40 ]; then
  timeout $(( b + 30 )) python3 -m site_builder.runner --family softmax --implementation softmax-torch-compile --missing \
    --timeout 60 --budget $b >> "$OUT/runner.log" 2>&1
  echo "softmax compile exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
fi
tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark3) 2>> "$OUT/runner.log"
grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├\|^┗\|^┣\|^┠" "$OUT/runner.log" | tail -n 30
