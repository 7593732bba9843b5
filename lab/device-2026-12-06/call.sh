#!/usr/bin/env bash
# 2026-12-06: sweep 8's float32 rule (rmsnorm and layernorm forwards with 4096 < n < 8192 that are
# not a power of two: the masked block of 8192 instead of the 4 kB chunked loop), checked where it
# was not tuned. One call (Liger from the carried .whl; QuACK and FlashInfer do not fit beside the
# working tree in one carry any more, see lab/NEXT_GPU_SESSION.md):
#
#   run(carry=[".whl"], command="bash lab/device-2026-12-06/call.sh a", timeout_s=480)
#
# a: the norms GPU tests (three processes) and the timing core's (protocol v5's rotating outputs) beside the compile-cache prewarm of the report's
#    shapes; ours on rmsnorm and layernorm (every workload: the records); then the REPORT_SEED
#    (6007, then 4099 if REPORT_SEED2 is set) reports of both families, BUDGET s a family.
SEED=${REPORT_SEED:-6007}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh a}"
case "$CALL" in
  a)
    install_whl
    gpu_env
    norms_tests "${TESTS_S:-120}" "$SEED" tests/gpu/test_measure_gpu.py
    runner rmsnorm "${RMS_BUDGET:-45}" --implementation kr-triton-rmsnorm
    runner layernorm "${LN_BUDGET:-35}" --implementation kr-triton-layernorm
    pack
    BUDGET=${BUDGET:-120} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm
    if [ -n "${REPORT_SEED2:-}" ]; then
      BUDGET=${BUDGET:-120} N=12 REPORT_SEED=$REPORT_SEED2 bash lab/random_shapes/device_report.sh rmsnorm layernorm
    fi ;;
  *) echo "usage: call.sh a"; exit 2 ;;
esac
