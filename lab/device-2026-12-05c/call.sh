#!/usr/bin/env bash
# 2026-12-05 (third session): the norms' declared access width (kernels/_row_access.py, shared
# with softmax: re-hashes rmsnorm, layernorm and softmax), then issue 15's side-by-side runs with
# every implementation (QuACK and FlashInfer installed), then a fresh-seed report. Calls chained
# on one warm machine (/tmp keeps the wheels and compile caches between them):
#
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-05c/call.sh a", timeout_s=480)
#   run(carry=[".cutl2"], command="bash lab/device-2026-12-05c/call.sh b", timeout_s=200)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-05c/call.sh c", timeout_s=595)
#   run(command="bash lab/device-2026-12-05c/call.sh d", timeout_s=595)
#   run(command="bash lab/device-2026-12-05c/call.sh e", timeout_s=400)   # sweep 8 (warm: Liger in)
#
# a: Liger into /tmp/site, QuACK's first half kept; the norms GPU tests (three processes) and the
#    softmax + cross-entropy GPU tests beside the compile-cache prewarm of the norms' workloads
#    and the report's shapes; then ours alone on rmsnorm and layernorm and softmax --missing
#    (enough to land the change if no other call comes).
# b: QuACK's second half joined and installed.
# c: FlashInfer unpacked; rmsnorm and layernorm, every implementation side by side.
# d: FlashInfer's fused add + RMSNorm on its family; the seed REPORT_SEED reports of both norms.
# Ran on 2026-12-05 on an H100 (kind nvidia-h100-x1: the H200 was refused five times), c with
# RMS_BUDGET=150 LN_BUDGET=120, d with BUDGET=150 FA_BUDGET=30; then the seed-4099 check of
# tables.md (ours and torch.compile). Outputs in a/ b/ c/ d/ reports/, tables in tables.md.
# At most 8 files come back a call: logs go in logs-<call>.tgz, records in runs-<call>.tgz
# (lab/device_lib.sh: pack, runner, gpu_env, install_whl; sourced since 2026-12-05, 4th session).
SEED=${REPORT_SEED:-6007}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh a|b|c|d|e}"
case "$CALL" in
  a)
    install_whl
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1
    gpu_env
    norms_tests "${TESTS_S:-170}" "$SEED" tests/gpu/test_softmax_ce_gpu.py
    runner rmsnorm "${RMS_BUDGET:-45}" --implementation kr-triton-rmsnorm
    runner layernorm "${LN_BUDGET:-35}" --implementation kr-triton-layernorm
    runner softmax "${SM_BUDGET:-45}" --missing
    pack ;;
  b)
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1
    tail -n 3 "$LOGS/install.txt"
    python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -n 1
    pack ;;
  c)
    bash lab/flashinfer/pack.sh install > "$LOGS/flashinfer_install.txt" 2>&1
    tail -n 2 "$LOGS/flashinfer_install.txt"
    runner rmsnorm "${RMS_BUDGET:-220}"
    runner layernorm "${LN_BUDGET:-200}"
    pack ;;
  d)
    runner fused-add-rmsnorm "${FA_BUDGET:-40}" --implementation flashinfer-fused-add-rmsnorm
    pack
    BUDGET=${BUDGET:-200} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm ;;
  e)  # sweep 8 (lab/norms/sweep8.py): the long-row rules, on its own tune seed
    for i in 0 1 2 3 4 5 6 7; do timeout 60 python3 lab/norms/sweep8.py --prewarm $i 8 > "$LOGS/prewarm8-$i.log" 2>&1 & done
    wait
    SWEEP_BUDGET=${SWEEP_BUDGET:-280} timeout 300 python3 lab/norms/sweep8.py --out "$OUT/sweep8.json" > "$LOGS/sweep8.txt" 2>&1
    tail -n 30 "$LOGS/sweep8.txt"
    pack ;;
  *) echo "usage: call.sh a|b|c|d|e"; exit 2 ;;
esac
