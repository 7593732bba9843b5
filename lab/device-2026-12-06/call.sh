#!/usr/bin/env bash
# 2026-12-06: sweep 8's float32 rule (rmsnorm and layernorm forwards with 4096 < n < 8192 that are
# not a power of two: the masked block of 8192 instead of the 4 kB chunked loop), checked where it
# was not tuned. One call (Liger from the carried .whl; QuACK and FlashInfer do not fit beside the
# working tree in one carry any more, see lab/NEXT_GPU_SESSION.md):
#
#   run(carry=[".whl"], command="bash lab/device-2026-12-06/call.sh a", timeout_s=480)
#
# a: the norms GPU tests (three processes) beside the compile-cache prewarm of the report's
#    shapes; ours on rmsnorm and layernorm (every workload: the records); then the REPORT_SEED
#    (6007, then 4099 if REPORT_SEED2 is set) reports of both families, BUDGET s a family.
SEED=${REPORT_SEED:-6007}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh a}"
case "$CALL" in
  a)
    install_whl
    gpu_env
    N=tests/gpu/test_norms_gpu.py
    T=${TESTS_S:-120}
    timeout $T python3 -m pytest -v -p no:cacheprovider $N -k "test_vs_float64_reference" > "$LOGS/t_norms1.txt" 2>&1 &
    timeout $T python3 -m pytest -v -p no:cacheprovider $N -k "long or parts" > "$LOGS/t_norms2.txt" 2>&1 &
    timeout $T python3 -m pytest -v -p no:cacheprovider $N -k "not test_vs_float64_reference and not long and not parts" > "$LOGS/t_norms3.txt" 2>&1 &
    for i in $(seq 0 7); do
      KR_PREWARM_RANDOM=12:$SEED TORCHINDUCTOR_COMPILE_THREADS=1 timeout $((T - 10)) python3 lab/norms/prewarm.py $i 8 > "$LOGS/prewarm$i.log" 2>&1 &
    done
    wait
    for f in "$LOGS"/t_*.txt; do echo "$(basename "$f"): $(tail -n 1 "$f")"; grep -h "^FAILED\|^ERROR" "$f" | head -n 8; done
    echo "tests done at ${SECONDS}s"
    runner rmsnorm "${RMS_BUDGET:-45}" --implementation kr-triton-rmsnorm
    runner layernorm "${LN_BUDGET:-35}" --implementation kr-triton-layernorm
    pack
    BUDGET=${BUDGET:-120} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm
    if [ -n "${REPORT_SEED2:-}" ]; then
      BUDGET=${BUDGET:-120} N=12 REPORT_SEED=$REPORT_SEED2 bash lab/random_shapes/device_report.sh rmsnorm layernorm
    fi ;;
  *) echo "usage: call.sh a"; exit 2 ;;
esac
