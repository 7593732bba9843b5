#!/usr/bin/env bash
# Issue 14 in one device call: the GPU tests, then `kernel-records bench` of kr-triton beside
# Liger-Kernel, QuACK, torch.compile and add + F.rms_norm on (1) the family's 24 workloads,
# (2) a random set drawn with the tuning seed, (3) a random set drawn with a report seed, (4) the
# model-sizes set; then issue14_tables.py's tables and targets. Everything lands in $OUT.
#
#   device tool (BRIEFING.md): rsync the worktree to /work/main/.gpu-k14, carry [".gpu-k14", ".whl"]
#   (and ".cutl1", ".cutl2" for QuACK, as device_final.sh does), then
#     cd .gpu-k14 && bash lab/fused_add_rmsnorm/device_issue14.sh [part ...]
#   parts: tests family tune report models (default: all, in that order, each within its budget);
#   sweep14: runner_sweep.py over candidates/issue14-cands.json (the seed-14 misses), ~6-8 min;
#   sweepwide: the same over candidates/wide-cands.json (the experimental _k_wide), ~3-4 min
#   on a CPU, a dry run of the same steps (small `smoke` shapes, CPU timing, no peers but
#   add + F.rms_norm and the baseline): DRY=1 OUT=/tmp/x bash lab/fused_add_rmsnorm/device_issue14.sh
#
# Budgets (seconds; each bench stops starting workloads after its budget, the rest are reported
# as not run; the workload in flight finishes, so a part may overrun by one workload): tests 90,
# family 110, tune 50, report 130, models 100: about 8 minutes with the setup, inside one
# 10-minute call. The whole issue needs more than one call: the models set alone is 98 shapes x 5
# implementations (~15 min with torch.compile compiling every shape); run the remaining parts in
# further calls (PARTS as arguments, bigger budgets: MODELS_BUDGET=540 bash ... models).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
: "${OUT:?set OUT (the device tool sets it)}"
TUNE_SEED=${TUNE_SEED:-14}        # the seed a later tuning sweep may use; never reported as the result
REPORT_SEED=${REPORT_SEED:-2026}  # the seed the issue's table reports
TUNE_N=${TUNE_N:-12}
REPORT_N=${REPORT_N:-40}
IMPLS=${IMPLS:-kr-triton,liger-fused,quack,torch-compile,torch-rms-norm}
parts=${*:-tests family tune report models}

if [ "${DRY:-0}" = 1 ]; then
  export TRITON_INTERPRET=1 KR_BENCH_MAX_ELEMENTS=65536  # small random shapes (shapes.py)
  DEVICE="--device cpu"
  IMPLS=transformers,torch-rms-norm,kr-triton
  TUNE_N=2 REPORT_N=3
  # the repository's records have no CPU hardware record: a copy with the test fixtures' one
  RECORDS=$(mktemp -d)/records
  cp -r records "$RECORDS" && rm -rf "$RECORDS/runs" && cp tests/fixtures/runner-records/hardware/cpu.yaml "$RECORDS/hardware/"
  DEVICE="$DEVICE --records $RECORDS"
else
  DEVICE=""
  # the wheels the GPU machine lacks (BRIEFING.md); QuACK's CuTe DSL when its halves were carried
  if [ -e /tmp/site/.kr-quack ]; then touch /tmp/site/.k14 /tmp/site/.k14cutl; fi  # lab/gemm/device.sh installed all
  if [ -d ../.whl ] && [ ! -e /tmp/site/.k14 ]; then
    for c in . ..; do  # the halves, carried beside this copy or inside it
      if [ -d $c/.cutl1 ] && [ -d $c/.cutl2 ] && [ ! -e /tmp/site/.k14cutl ]; then
        cat $c/.cutl1/cutlpart.aa $c/.cutl2/cutlpart.ab | xz -d | (mkdir -p /tmp/site && cd /tmp/site && tar xf -) \
          && touch /tmp/site/.k14cutl
      fi
    done
    if [ -e /tmp/site/.k14cutl ]; then
      for w in ../.whl/nvidia_cutlass_dsl*.whl; do [ -e "$w" ] && python3 -m zipfile -e "$w" /tmp/site; done
    fi
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
      $(ls ../.whl/*.whl | grep -v nvidia_cutlass_dsl) && touch /tmp/site/.k14
  fi
  export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD
  python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())"
  python3 -c "import quack.rmsnorm" 2>/dev/null || echo "QuACK does not import here: its results will read not-installed"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
fi

bench() {  # name budget args...
  local name=$1 budget=$2
  shift 2
  echo "== $name (budget $budget s): $*"
  timeout $((budget + 100)) python3 -c 'from site_builder.cli import main; main()' bench \
    --family fused-add-rmsnorm --impls "$IMPLS" $DEVICE --timeout 90 --budget "$budget" \
    --json "$OUT/$name.json" "$@" 2>&1 | tail -n 60 > "$OUT/$name.log"
  tail -n 5 "$OUT/$name.log"
}

for part in $parts; do
  case "$part" in
  tests)
    if [ "${DRY:-0}" = 1 ]; then
      timeout 300 python3 -m pytest -q tests/test_kr_triton_cpu.py 2>&1 | tail -n 3 | tee "$OUT/tests.log"
    else
      timeout "${TESTS_BUDGET:-90}" python3 -m pytest -q -x tests/gpu/test_kr_triton_gpu.py 2>&1 | tail -n 12 \
        | tee "$OUT/tests.log"
    fi ;;
  family)
    if [ "${DRY:-0}" = 1 ]; then
      bench family "${FAMILY_BUDGET:-110}" --workloads r1-h4096-bf16
    else
      bench family "${FAMILY_BUDGET:-110}"
    fi ;;
  tune) bench tune "${TUNE_BUDGET:-50}" --random "$TUNE_N" --seed "$TUNE_SEED" ;;
  report) bench report "${REPORT_BUDGET:-130}" --random "$REPORT_N" --seed "$REPORT_SEED" ;;
  models)
    if [ "${DRY:-0}" = 1 ]; then
      bench models "${MODELS_BUDGET:-100}" --set smoke
    else
      bench models "${MODELS_BUDGET:-100}" --models
    fi ;;
  sweep14)  # the candidates for the tuning seed's misses (make_issue14_cands.py), the runner's way
    timeout "${SWEEP_BUDGET:-500}" python3 lab/fused_add_rmsnorm/runner_sweep.py \
      --cands lab/fused_add_rmsnorm/candidates/issue14-cands.json --peers torch-compile,liger-fused,quack \
      --rounds 2 --out "$OUT/issue14-sweep.json" > "$OUT/sweep14.log" 2>&1
    echo "sweep14 exit $?"; tail -n 40 "$OUT/sweep14.log" ;;
  sweepwide)  # the experimental one-launch wide kernel at the few-rows losses (make_wide_cands.py), ~3-4 min
    timeout "${SWEEP_BUDGET:-400}" python3 lab/fused_add_rmsnorm/runner_sweep.py \
      --cands lab/fused_add_rmsnorm/candidates/wide-cands.json --peers torch-compile,quack \
      --rounds 2 --out "$OUT/wide-sweep.json" > "$OUT/sweepwide.log" 2>&1
    echo "sweepwide exit $?"; tail -n 40 "$OUT/sweepwide.log" ;;
  *) echo "unknown part $part (tests family tune report models sweep14 sweepwide)"; exit 2 ;;
  esac
done

files=$(ls "$OUT"/{family,tune,report,models}.json 2>/dev/null)
if [ -n "$files" ]; then
  python3 lab/fused_add_rmsnorm/issue14_tables.py $files > "$OUT/tables.md" 2>&1
  head -c 6000 "$OUT/tables.md"
fi
