#!/usr/bin/env bash
# 2026-12-03 (second session), device call 1 (carry .whl): issue 16's aligned-row question, then
# the cross-entropy records, then issue 17's SwiGLU launch sweep.
#  1. lab/cross_entropy/device_sweep.sh: the CE GPU tests, then `rule` (aligned rows) beside
#     `rule-plain` (KR_CE_ALIGN=0) and Liger on the bf16 tune shapes (seed 16, 10 drawn: four odd
#     vocabularies, four aligned).
#  2. the runner on cross-entropy --missing (our results are stale: the kernel changed).
#  3. lab/swiglu/sweep.py on what is left of the call.
# Files back (<= 8): ce-sweep.{md,json}, ce-sweep-log.txt, runner.log, runs.tgz, swiglu-sweep.{md,json}.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-585}
left() { echo $(( LIMIT - SECONDS )); }
touch /tmp/kr-mark
TESTS=1 CALL_LIMIT=${CE_LIMIT:-215} TUNE=10 SELECT='tune-.*bf16' CANDS=rule,rule-plain \
  bash lab/cross_entropy/device_sweep.sh > /dev/null 2>&1
echo "ce sweep done at ${SECONDS}s" | tee "$OUT/runner.log"
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
b=$(( $(left) - 150 < ${CE_RUN:-170} ? $(left) - 150 : ${CE_RUN:-170} ))
timeout $(( b + 25 )) python3 -m site_builder.runner --family cross-entropy --missing --timeout 60 --budget "$b" \
  >> "$OUT/runner.log" 2>&1
echo "ce runner exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark) 2>> "$OUT/runner.log"
b=$(( $(left) - 20 ))
if [ "$b" -gt 40 ]; then
  SWEEP_BUDGET=$(( b - 25 )) timeout "$b" python3 lab/swiglu/sweep.py --out "$OUT" >> "$OUT/runner.log" 2>&1
  echo "swiglu sweep exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
fi
tail -n 30 "$OUT/runner.log"
