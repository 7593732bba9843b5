#!/usr/bin/env bash
# 2026-12-04, device call 6 (carry .whl), after the seed-2718 report: the load hint's threshold
# (hint-first / hint-none against the size rule) and the small-grid tile growth (no-grow,
# grow-4k, grow-min6: kr_triton constants set by the sweep, the kernel source unchanged, so the
# committed records stay current) on tune seed 41, 9 shapes per family between 8 and 400 MB.
# Files back: runner.log, swiglu-sweep.{md,json}.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > "$OUT/runner.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
SWEEP_BUDGET=${SWEEP_BUDGET:-150} timeout 200 python3 lab/swiglu/sweep.py --out "$OUT" --tune 9 --report 0 --records 0 \
  --min-mb 8 --max-mb 400 --pool 200 --cands model,hint-first,hint-none,no-grow,grow-4k,grow-min6 >> "$OUT/runner.log" 2>&1
echo "swiglu sweep exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├\|^┗\|^┣\|^┠" "$OUT/runner.log" | tail -n 16
