#!/usr/bin/env bash
# 2026-12-05 (second session): the norms refresh (issue 15, stale since ec58275) and the three
# pending kernel patches of lab/pending/ (issues 16, 17), measured in calls chained on one warm
# machine. The patches are applied to the working tree before the first call.
#
#   run(carry=[".whl"], command="bash lab/device-2026-12-05b/call.sh a", timeout_s=420)
#   (or, when one call may be all there is: `TESTS_S=140 RMS_BUDGET=100 LN_BUDGET=55 call.sh ab`,
#   a and b in one call of about 560 s)
#   run(command="bash lab/device-2026-12-05b/call.sh b", timeout_s=420)
#   run(command="bash lab/device-2026-12-05b/call.sh c", timeout_s=420)
#   run(command="bash lab/device-2026-12-05b/call.sh d", timeout_s=420)
#
# a: Liger into /tmp/site; the GPU tests of the norms, softmax + cross-entropy and element-wise
#    families (five pytest processes side by side); then the rmsnorm and layernorm runners, ours
#    beside Liger and F.* (same-run ratios).
# b: the runner --missing on softmax, swiglu, swiglu-fused and rope (ours re-hashed by the patches).
# c: the seed-4099 random reports of rmsnorm and layernorm (never tuned on).
# d: the seed-3141 random reports of softmax and swiglu-fused (never tuned on).
# At most 8 files come back a call: logs are bundled in logs-<call>.tgz, records in runs-<call>.tgz.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
export PYTHONPATH=/tmp/site:$PWD
CALL=${1:?usage: call.sh a|b|c|d}
LOGS=/tmp/logs-$CALL; mkdir -p "$LOGS"
touch /tmp/kr-mark-$CALL
runner() {  # family budget [args]: the runner with a hard stop 40 s after its budget
  local fam=$1 budget=$2; shift 2
  timeout $(( budget + 40 )) python3 -m site_builder.runner --family "$fam" --timeout 45 --budget "$budget" "$@" \
    > "$LOGS/run_$fam.txt" 2>&1
  echo "$fam runner exit $? at ${SECONDS}s" | tee -a "$LOGS/run_$fam.txt"
  grep -i "fail\|error\|not run" "$LOGS/run_$fam.txt" | head -n 5
  pack > /dev/null  # after every runner: a call cut by its time limit still returns its records
}
pack() {
  tar czf "$OUT/logs-$CALL.tgz" -C /tmp "logs-$CALL"
  local new; new=$(find records/runs -name "*.yaml" -newer /tmp/kr-mark-$CALL)
  [ -z "$new" ] || { tar czf "$OUT/runs-$CALL.tgz" $new; tar tzf "$OUT/runs-$CALL.tgz"; }
  echo "call $CALL done at ${SECONDS}s"
}
case "$CALL" in
  a|ab)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    { date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
      python3 -c "import torch, triton, liger_kernel; print('torch', torch.__version__, 'triton', triton.__version__)"
      git log -1 --format=%H; git status --short; } > "$OUT/env.txt" 2>&1
    N=tests/gpu/test_norms_gpu.py
    T=${TESTS_S:-170}
    timeout $T python3 -m pytest -v -p no:cacheprovider $N -k "test_vs_float64_reference" > "$LOGS/t_norms1.txt" 2>&1 &
    timeout $T python3 -m pytest -v -p no:cacheprovider $N -k "long or parts" > "$LOGS/t_norms2.txt" 2>&1 &
    timeout $T python3 -m pytest -v -p no:cacheprovider $N -k "not test_vs_float64_reference and not long and not parts" > "$LOGS/t_norms3.txt" 2>&1 &
    timeout $T python3 -m pytest -v -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py > "$LOGS/t_softmax_ce.txt" 2>&1 &
    timeout $T python3 -m pytest -v -p no:cacheprovider tests/gpu/test_elementwise_gpu.py > "$LOGS/t_elementwise.txt" 2>&1 &
    wait
    for f in "$LOGS"/t_*.txt; do echo "$(basename "$f"): $(tail -n 1 "$f")"; grep -h "^FAILED\|^ERROR" "$f" | head -n 8; done
    echo "tests done at ${SECONDS}s"
    runner rmsnorm "${RMS_BUDGET:-80}" --implementation kr-triton-rmsnorm --implementation liger-rms-norm --implementation torch-f-rms-norm
    runner layernorm "${LN_BUDGET:-50}" --implementation kr-triton-layernorm --implementation liger-layer-norm --implementation torch-f-layer-norm
    if [ "$CALL" = ab ]; then  # one call for both: the patched families' --missing too
      runner softmax "${SM_BUDGET:-45}" --missing
      runner swiglu-fused "${SWF_BUDGET:-40}" --missing
      runner swiglu "${SW_BUDGET:-40}" --missing
      runner rope "${ROPE_BUDGET:-75}" --missing --implementation kr-triton-rope
    fi
    pack ;;
  b)
    runner softmax "${SM_BUDGET:-60}" --missing
    runner swiglu "${SW_BUDGET:-50}" --missing
    runner swiglu-fused "${SWF_BUDGET:-50}" --missing
    runner rope "${ROPE_BUDGET:-110}" --missing
    pack ;;
  c) BUDGET=${BUDGET:-110} N=12 REPORT_SEED=${REPORT_SEED:-4099} bash lab/random_shapes/device_report.sh rmsnorm layernorm ;;
  d) BUDGET=${BUDGET:-110} N=12 REPORT_SEED=${REPORT_SEED:-3141} bash lab/random_shapes/device_report.sh softmax swiglu-fused ;;
  *) echo "usage: call.sh a|b|c|d"; exit 2 ;;
esac
