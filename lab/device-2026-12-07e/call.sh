#!/usr/bin/env bash
# 2026-12-07, tenth session (14:52 UTC-): the H200 records of protocol 5 (every H200 record so far is
# protocol 4), every implementation side by side, the norms and fused add + RMSNorm first.
# Chained on one warm machine (QuACK's three parts and FlashInfer live in /tmp/site between calls):
#
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-07e/call.sh land", timeout_s=330)
#   run(carry=[".cutl2"], command="bash lab/device-2026-12-07e/call.sh q", timeout_s=120)
#   run(carry=[".cutl3"], command="bash lab/device-2026-12-07e/call.sh q", timeout_s=120)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07e/call.sh norms", timeout_s=560)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07e/call.sh fa", timeout_s=560)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07e/call.sh report", timeout_s=560)
#
# land: Liger, QuACK's first part; the GPU tests of the norms (three processes), of fused add +
#   RMSNorm and of softmax + cross-entropy beside the compile-cache prewarm of the norms'
#   workloads and REPORT_SEED's shapes.
# q: QuACK's next part (.cutl2, then .cutl3; the third joins and installs).
# norms: FlashInfer; the runner on rmsnorm and layernorm, every implementation (no --missing).
# fa: the runner on fused-add-rmsnorm, every implementation.
# report: the random-shape reports of both norms on REPORT_SEED (not tuned on), every implementation.
SEED=${REPORT_SEED:-8117}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh land|q|norms|fa|report}"
case "$CALL" in
  land)
    install_whl
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1
    gpu_env
    norms_tests "${TESTS_S:-220}" "$SEED" tests/gpu/test_kr_triton_gpu.py tests/gpu/test_softmax_ce_gpu.py
    pack ;;
  q)
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1
    tail -n 3 "$LOGS/install.txt"
    python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -n 1 ;;
  norms)
    fi_install; gpu_env
    python3 -c "import quack, flashinfer, liger_kernel; print('peers import')" 2>&1 | tail -n 1
    runner rmsnorm "${RMS_BUDGET:-240}"
    runner layernorm "${LN_BUDGET:-170}"
    pack ;;
  fa)
    fi_install; gpu_env
    runner fused-add-rmsnorm "${FA_BUDGET:-330}"
    pack ;;
  report)
    fi_install
    BUDGET=${BUDGET:-230} N=${N:-12} REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm ;;
  *) echo "usage: call.sh land|q|norms|fa|report"; exit 2 ;;
esac
