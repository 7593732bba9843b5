#!/usr/bin/env bash
# Issue 16's fwd+bwd sweep, ONE H200 call (<= 330 s wall): the cross-entropy GPU tests, then
# lab/cross_entropy/sweep.py (every candidate of kernels/cross_entropy/kr_triton.py's fwd+bwd
# checked against F.cross_entropy on each shape, then timed cold-L2 by the runner's timing core,
# beside Liger) on the record's fwdbwd workloads and 6 tune shapes (seed 16).
# Three files come back in $OUT, rewritten after every step (a call cut short keeps its part):
#   ce-sweep.md (the table), ce-sweep.json (everything), ce-sweep-log.txt (steps, GPU, tests, log).
# Run from the repo root of a copy of this worktree, .whl beside it or inside it:
#   run(carry=[".gpu-ce", ".whl"], command="bash .gpu-ce/lab/cross_entropy/device_sweep.sh", timeout_s=360)
# Knobs (environment): CALL_LIMIT (s, default 325), TESTS (1: run the CE GPU tests first, <= 90 s),
# CANDS (comma list, sweep.py's names), SELECT (regex of shape ids), TUNE (tune shapes, 6),
# DRY=1 (here, no GPU: TRITON_INTERPRET=1, three tiny fp32 shapes, wall-clock times).
set -u
export PYTHONUNBUFFERED=1
: "${OUT:?set OUT to the folder whose files come back}"
cd "$(dirname "$0")/../.."
limit=${CALL_LIMIT:-325}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
work=$(mktemp -d /tmp/ce-sweep-XXXXXX)
step() { echo "[$(elapsed) s] $*" | tee -a "$work/steps.txt"; }
bundle() {
  [ -f "$work/ce-sweep.md" ] && cp "$work/ce-sweep.md" "$OUT/ce-sweep.md"
  [ -f "$work/ce-sweep.json" ] && cp "$work/ce-sweep.json" "$OUT/ce-sweep.json"
  { cat "$work/steps.txt" 2>/dev/null
    [ -f "$work/gpu.txt" ] && { echo "--- GPU"; cat "$work/gpu.txt"; }
    [ -f "$work/tests.log" ] && { echo "--- CE GPU tests (tail)"; tail -n 30 "$work/tests.log"; }
    [ -f "$work/sweep.log" ] && { echo "--- sweep.py log"; cat "$work/sweep.log"; }
  } > "$OUT/ce-sweep-log.txt"
}
if [ "${DRY:-0}" = 1 ]; then
  py=${PYTHON:-python3}
  export TRITON_INTERPRET=1 PYTHONPATH=$PWD
  step "dry run: $($py -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)')"
else
  py=python3
  whl=""
  for d in .whl ../.whl; do ls "$d"/*.whl > /dev/null 2>&1 && { whl=$d; break; }; done
  if [ ! -d /tmp/site/liger_kernel ] || [ ! -d /tmp/site/pydantic ]; then
    if [ -n "$whl" ]; then
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$whl"/*.whl \
        && step "installed $(ls "$whl"/*.whl | wc -l) wheels from $whl into /tmp/site" || step "pip install failed"
    else
      step "no .whl folder (./.whl or ../.whl) and /tmp/site incomplete: Liger (or pydantic) may be missing"
    fi
  fi
  export PYTHONPATH=/tmp/site:$PWD
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$work/gpu.txt" 2>&1
  step "$(python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1 | tail -n 1)"
  if [ "${TESTS:-1}" = 1 ]; then
    timeout 90 python3 -m pytest -q --tb=short -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k cross_entropy \
      > "$work/tests.log" 2>&1
    step "CE GPU tests: exit $?: $(tail -n 1 "$work/tests.log")"
  fi
fi
bundle
left=$(( limit - $(elapsed) - 10 ))   # 10 s to bundle
budget=$(( left - 30 ))               # the last timing started, the table written
[ "$budget" -gt 20 ] || { step "no time left for the sweep ($left s)"; bundle; exit 0; }
step "sweep: SWEEP_BUDGET $budget s, timeout $left s"
args=(--out "$work" --tune "${TUNE:-6}")
[ -n "${CANDS:-}" ] && args+=(--cands "$CANDS")
[ -n "${SELECT:-}" ] && args+=(--select "$SELECT")
[ -n "${SHAPES:-}" ] && args+=(--shapes "$SHAPES")
[ "${DRY:-0}" = 1 ] && args+=(--dry-run)
SWEEP_BUDGET=$budget timeout "$left" "$py" lab/cross_entropy/sweep.py "${args[@]}" > "$work/sweep.log" 2>&1
step "sweep.py: exit $?"
bundle
tail -n 45 "$OUT/ce-sweep-log.txt"
rm -rf "$work"
