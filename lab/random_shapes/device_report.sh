#!/usr/bin/env bash
# Issues 15, 16 and 17's random-shape reports in one device call: `kernel-records bench --random N
# --seed REPORT_SEED` on each family named (every registered implementation, the runner's
# protocol, correctness against the float64 reference first), from the families' `sample_shapes`
# hooks (kernels/<family>/shapes.py, on site_builder/runner/shapes.py).
#
# REPORT_SEED (default 1217) was never tuned on: the hooks are new, no sweep drew from them, and
# the sweeps' own tune seeds (softmax 31, cross-entropy 16, norms 21, issue 14's 14) differ.
#
#   bash lab/random_shapes/device_report.sh softmax                 # one family, BUDGET s (300)
#   BUDGET=150 bash lab/random_shapes/device_report.sh swiglu rope  # the budget is per family
#   DRY=1 OUT=/tmp/x bash lab/random_shapes/device_report.sh softmax cross-entropy   # on a CPU
#
# Writes $OUT/random-<family>-<seed>.json (bench --json: rows, groups, environment) and
# $OUT/random-<family>-<seed>.log (the table; the last 80 lines): two files a family, so at most
# four families a call (the device tool returns 8 files). The bench stops starting workloads
# after its budget (the one in flight finishes; each implementation gets an even share), so a
# call takes about families x (BUDGET + 60) s: keep that under 400. A share too small cuts each
# implementation's last shapes at its own point: on 2026-12-07, 140 s for the norms' 7
# implementations x 12 shapes left most peer cells not run (torch.compile compiles every shape),
# and 60 s for cross-entropy ran only ours and the baseline. About 300 s a family for 12 shapes.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."  # the repository root
: "${OUT:?set OUT (the device tool sets it)}"
REPORT_SEED=${REPORT_SEED:-1217}
N=${N:-12}
BUDGET=${BUDGET:-300}
FAMILIES=${*:-softmax}
declare -A BASELINE=([softmax]=softmax-eager [cross-entropy]=ce-eager [swiglu]=swiglu-eager
                     [swiglu-fused]=swiglu-eager [rope]=rope-eager [rmsnorm]=rmsnorm-eager
                     [layernorm]=layernorm-eager)

if [ "${DRY:-0}" = 1 ]; then
  export TRITON_INTERPRET=1 KR_BENCH_MAX_ELEMENTS=${KR_BENCH_MAX_ELEMENTS:-65536}  # tiny draws
  N=${DRY_N:-2}
  # the repository's records have no CPU hardware record: a copy with the test fixtures' one
  RECORDS=$(mktemp -d)/records
  cp -r records "$RECORDS" && rm -rf "$RECORDS/runs" && mkdir "$RECORDS/runs" \
    && cp tests/fixtures/runner-records/hardware/cpu.yaml "$RECORDS/hardware/"
  EXTRA=(--device cpu --records "$RECORDS")
else
  EXTRA=()
  if [ ! -d /tmp/site/liger_kernel ] && ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
  fi
  # QuACK's CuTe DSL too, where lab/gemm/device.sh installed it on this warm machine
  export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD
  python3 -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name())"
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
fi

for fam in $FAMILIES; do
  [ -n "${BASELINE[$fam]:-}" ] || { echo "unknown family $fam (use: ${!BASELINE[*]})"; exit 2; }
  impls=()
  [ "${DRY:-0}" = 1 ] && impls=(--impls "${BASELINE[$fam]}")
  name="random-$fam-$REPORT_SEED"
  echo "== $fam: $N shapes of seed $REPORT_SEED, budget $BUDGET s (at ${SECONDS}s)"
  timeout $((BUDGET + 120)) python3 -c 'from site_builder.cli import main; main()' bench \
    --family "$fam" --random "$N" --seed "$REPORT_SEED" --timeout 90 --budget "$BUDGET" "${impls[@]}" \
    "${EXTRA[@]}" --json "$OUT/$name.json" 2>&1 | tail -n 80 > "$OUT/$name.log"
  tail -n 6 "$OUT/$name.log"
done
echo "all done at ${SECONDS}s"
