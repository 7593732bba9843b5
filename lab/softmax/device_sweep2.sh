#!/usr/bin/env bash
# Sweep 2 (NOTES.md, 2026-12-02), one share of it per H200 call, <= 560 s a call:
#   fwd  the GPU tests of both families, then lab/softmax/sweep2.py over the forward workloads
#   bwd  sweep2.py over the backward workloads (GPU tests only with TESTS=1)
#   all  the GPU tests and every workload (only with a bigger per-call limit than 600 s)
# The device tool returns at most 8 files from $OUT, so everything a call writes goes into a
# work folder and comes back as THREE files, rewritten after every step (a call cut short
# still returns what it had): $OUT/softmax-sweep2-<part>.tar.gz (gpu.txt, gpu_tests.log,
# sweep2.log, sweep2.json, sweep2.md), $OUT/sweep2-<part>.md (the table) and
# $OUT/summary-<part>.txt (the GPU tests' and the sweep's tails).
# Run from a copy of the worktree beside .whl (as device_run.sh), one call per part:
#   run(carry=[".gpu-softmax", ".whl"], command="bash .gpu-softmax/lab/softmax/device_sweep2.sh fwd", timeout_s=600)
#   run(carry=[".gpu-softmax", ".whl"], command="bash .gpu-softmax/lab/softmax/device_sweep2.sh bwd", timeout_s=600)
# Knobs (environment): CALL_LIMIT (s, default 560: everything ends by then), ROUNDS (2),
# PEERS (torch-softmax,liger-softmax; add softmax-torch-compile for a call of its own: a compile
# per shape), CANDS (sweep2.py's default: every candidate), DRY=1 (here, no GPU: the plan only).
set -u
export PYTHONUNBUFFERED=1
part=${1:-fwd}
case "$part" in
  fwd) kind=forward; tests=${TESTS:-1} ;;
  bwd) kind=backward; tests=${TESTS:-0} ;;
  all) kind=all; tests=${TESTS:-1} ;;
  *) echo "device_sweep2.sh: unknown part '$part'; use fwd, bwd or all" >&2; exit 2 ;;
esac
: "${OUT:?set OUT to the folder whose files come back}"
cd "$(dirname "$0")/../.."
limit=${CALL_LIMIT:-560}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
work=$(mktemp -d /tmp/sweep2-XXXXXX)
bundle() {
  tar czf "$OUT/softmax-sweep2-$part.tar.gz.tmp" -C "$work" . && mv "$OUT/softmax-sweep2-$part.tar.gz.tmp" "$OUT/softmax-sweep2-$part.tar.gz"
  [ -f "$work/sweep2.md" ] && cp "$work/sweep2.md" "$OUT/sweep2-$part.md"
  { echo "part $part ($kind), $(elapsed) s"; cat "$work/steps.txt" 2>/dev/null
    [ -f "$work/gpu_tests.log" ] && { echo "--- GPU tests (tail)"; tail -n 20 "$work/gpu_tests.log"; }
    [ -f "$work/sweep2.log" ] && { echo "--- sweep2 (tail)"; tail -n 60 "$work/sweep2.log"; }
  } > "$OUT/summary-$part.txt"
  n=$(find "$OUT" -maxdepth 1 -type f | wc -l)
  [ "$n" -le 8 ] || echo "device_sweep2.sh: $n files in \$OUT (the tool returns 8)" >&2
}
step() { echo "$*" | tee -a "$work/steps.txt"; }
if [ "${DRY:-0}" = 1 ]; then
  py=${PYTHON:-python3}
else
  py=python3
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../.whl/*.whl \
    || step "pip install failed"
  export PYTHONPATH=/tmp/site:$PWD
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$work/gpu.txt" 2>&1
fi
if [ "$tests" = 1 ] && [ "${DRY:-0}" != 1 ]; then
  timeout 150 python3 -m pytest -q --tb=short -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py > "$work/gpu_tests.log" 2>&1
  step "GPU tests: exit $? after $(elapsed) s: $(tail -n 1 "$work/gpu_tests.log")"
  bundle
fi
left=$(( limit - $(elapsed) - 15 ))   # 15 s to bundle
budget=$(( left - 60 ))                # the last measurement started, the final table written
[ "$budget" -gt 20 ] || { step "no time left for the sweep ($left s)"; bundle; exit 0; }
step "sweep $kind: SWEEP_BUDGET $budget s, timeout $left s, rounds ${ROUNDS:-2}, peers ${PEERS:-torch-softmax,liger-softmax}"
args=(--out "$work" --kind "$kind" --rounds "${ROUNDS:-2}" --peers "${PEERS:-torch-softmax,liger-softmax}")
[ -n "${CANDS:-}" ] && args+=(--cands "$CANDS")
[ "${DRY:-0}" = 1 ] && args+=(--dry-run)
SWEEP_BUDGET=$budget timeout "$left" "$py" lab/softmax/sweep2.py "${args[@]}" > "$work/sweep2.log" 2>&1
step "sweep2: exit $? after $(elapsed) s"
bundle
cat "$OUT/summary-$part.txt"
rm -rf "$work"
