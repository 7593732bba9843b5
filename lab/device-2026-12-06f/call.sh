#!/usr/bin/env bash
# 2026-12-06 (fifth session, 21:02 UTC-): the three norms patches of lab/pending/ applied here
# (batch-invariant opt-out, unrolled loop, aligned-row helper, the helper now in
# kernels/rmsnorm/kr_aligned.py so softmax's kernel hash stays as it was), then sweep 10 on them,
# rules from it, and one --missing run of both norms for all of it. Calls:
#
#   run(carry=[".whl", ".fislim"], command="bash lab/device-2026-12-06f/call.sh all", timeout_s=595)
#   run(carry=[".whl", ".fislim"], command="bash lab/device-2026-12-06f/call.sh land", timeout_s=420)
#   run(carry=[".whl"], command="bash lab/device-2026-12-06e/call.sh ceregs", timeout_s=330)
#   run(carry=[".whl", ".fislim"], command="REPORT_SEED=... bash lab/device-2026-12-06f/call.sh report", timeout_s=400)
#   run(carry=[".whl", ".fislim"], command="CLASSES=GKI bash lab/device-2026-12-06f/call.sh sweep11", timeout_s=400)
#
# all: the norms GPU tests of the patches (access width, aligned, unrolled, a row alone against
#   its batch) beside sweep 10's compile-cache prewarm, then lab/norms/sweep10.py (SWEEP_BUDGET s,
#   190 by default), then ours --missing on both norms with the rules as they are (machines were
#   scarce: four starts failed, 630 s of the budget, so sweep and landing share one call).
# land: every norms GPU test (three processes) beside the prewarm of REPORT_SEED's report shapes,
#   then ours on both norms (--missing: the kernels are re-hashed).
# sweep11 (written after this session's calls): lab/norms/sweep11.py's classes CLASSES (G, K: decode
#   and training rows between 4096 and 8192, UNROLL on more warps and longer chunks; I: RMSNorm mid
#   sizes against FlashInfer, which needs QuACK's three calls first) after its prewarm.
# report: the REPORT_SEED reports of both norms, every implementation that imports (FlashInfer
#   from .fislim; QuACK only where an earlier call on this warm machine installed it).
SEED=${REPORT_SEED:-7321}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh all|land|sweep11|report}"
case "$CALL" in
  all)
    install_whl; fi_install; gpu_env
    timeout 130 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms_gpu.py \
      -k "access_width or aligned or unrolled or rows_independent" > "$LOGS/t_patches.txt" 2>&1 &
    for i in 0 1 2 3 4 5 6 7; do timeout 100 python3 lab/norms/sweep10.py --prewarm $i 8 > "$LOGS/prewarm10-$i.log" 2>&1 & done
    wait
    echo "GPU tests: $(tail -n 1 "$LOGS/t_patches.txt") at ${SECONDS}s"; grep -h "^FAILED\|^E  " "$LOGS/t_patches.txt" | head -n 8
    SWEEP_BUDGET=${SWEEP_BUDGET:-190} timeout $(( ${SWEEP_BUDGET:-190} + 35 )) python3 lab/norms/sweep10.py \
      --out "$OUT/sweep10.json" > "$LOGS/sweep10.txt" 2>&1
    tail -n 8 "$LOGS/sweep10.txt"
    pack > /dev/null
    runner rmsnorm "${RMS_BUDGET:-30}" --missing
    runner layernorm "${LN_BUDGET:-25}" --missing
    pack ;;
  land)
    install_whl; fi_install; gpu_env
    norms_tests "${TESTS_S:-170}" "$SEED"
    runner rmsnorm "${RMS_BUDGET:-40}" --missing
    runner layernorm "${LN_BUDGET:-30}" --missing
    pack ;;
  sweep11)
    install_whl; fi_install; gpu_env
    for i in 0 1 2 3 4 5 6 7; do timeout 100 python3 lab/norms/sweep11.py --prewarm $i 8 --classes "${CLASSES:-GKI}" > "$LOGS/prewarm11-$i.log" 2>&1 & done
    wait
    SWEEP_BUDGET=${SWEEP_BUDGET:-240} timeout $(( ${SWEEP_BUDGET:-240} + 40 )) python3 lab/norms/sweep11.py \
      --out "$OUT/sweep11.json" --classes "${CLASSES:-GKI}" > "$LOGS/sweep11.txt" 2>&1
    tail -n 30 "$LOGS/sweep11.txt"
    pack ;;
  report)
    install_whl; fi_install
    pack > /dev/null
    BUDGET=${BUDGET:-140} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm ;;
  *) echo "usage: call.sh all|land|sweep11|report"; exit 2 ;;
esac
