#!/usr/bin/env bash
# 2026-12-03 (second session), device call 3 (carry .whl; branch sweep-rope merged): issue 17's
# RoPE launch sweep (lab/rope/sweep.py, knobs of kernels/rope/kr_triton.py), then the runner on
# rope --missing (ours: the kernel file changed, its default launch did not; the peers' missing).
# Files back: rope-sweep.{md,json}, runner.log, runs.tgz.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-585}
left() { echo $(( LIMIT - SECONDS )); }
touch /tmp/kr-mark3
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > "$OUT/runner.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
SWEEP_BUDGET=${RS_BUDGET:-200} timeout 280 python3 lab/rope/sweep.py --out "$OUT" >> "$OUT/runner.log" 2>&1
echo "rope sweep exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
b=$(( $(left) - 40 ))
timeout $(( b + 30 )) python3 -m site_builder.runner --family rope --missing --timeout 60 --budget "$b" >> "$OUT/runner.log" 2>&1
echo "rope runner exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark3) 2>> "$OUT/runner.log"
grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├" "$OUT/runner.log" | tail -n 25
