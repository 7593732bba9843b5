#!/usr/bin/env bash
# 2026-12-06 (fourth session): landing the two pending patches (lab/pending/, now applied):
# the norms' aligned forwards with sweep 9's rules, and the cross-entropy exchange from
# ALT_FROM_2 = 81920 (the ce-threshold sweep of this session). Chained warm:
#
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-06e/call.sh land", timeout_s=480)
#   run(carry=[".cutl2"], command="bash lab/device-2026-12-06e/call.sh q", timeout_s=120)
#   run(carry=[".cutl3"], command="bash lab/device-2026-12-06e/call.sh q", timeout_s=120)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-06e/call.sh reports", timeout_s=560)
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-06e/call.sh rerun", timeout_s=200)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-06e/call.sh sweep10", timeout_s=420)
#   run(carry=[".whl"], command="bash lab/device-2026-12-06e/call.sh ceregs", timeout_s=330)
#
# land: Liger and QuACK's first part into /tmp/site; the norms GPU tests (three processes) and the
#   softmax + cross-entropy GPU tests beside the compile-cache prewarm of the report seed's
#   shapes; then `--missing` on rmsnorm, layernorm and cross-entropy (ours re-hashed: ours only).
# q: QuACK's next part (the carried .cutl2, then .cutl3).
# reports: FlashInfer unpacked, then the seed REPORT_SEED (7321: the seed whose rmsnorm report
#   found the odd-row misses; its layernorm report was cut on 2026-12-06 14:41) reports of both
#   norms, every implementation.
# rerun: after land's GPU test failure (a row alone against the batch at 28690 fp16, LayerNorm:
#   the aligned loop follows the row's 16-byte boundary) the test asks for row-count
#   independence and BATCH_INVARIANT was added (both kernels re-hashed): the failed test and
#   the aligned ones again, then ours on both norms (--missing).
# sweep10 (written for the next session, after rerun and QuACK's q calls): FlashInfer unpacked if
#   .fislim was carried, lab/pending/norms-unrolled-loop.patch applied on the machine's copy and
#   its GPU test, then lab/norms/sweep10.py (LayerNorm odd rows 4096-16384, RMSNorm mid sizes
#   against FlashInfer, decode and training rows between 4096 and 8192 with the unrolled loop)
#   after its compile-cache prewarm; SWEEP_BUDGET (default 300 s).
SEED=${REPORT_SEED:-7321}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh land|q|reports|rerun|sweep10|ceregs}"
case "$CALL" in
  land)
    install_whl
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1
    gpu_env
    norms_tests "${TESTS_S:-200}" "$SEED" tests/gpu/test_softmax_ce_gpu.py
    runner rmsnorm "${RMS_BUDGET:-60}" --missing
    runner layernorm "${LN_BUDGET:-40}" --missing
    runner cross-entropy "${CE_BUDGET:-90}" --missing
    pack ;;
  q)
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1
    tail -n 3 "$LOGS/install.txt"
    python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -n 1 ;;
  reports)
    bash lab/flashinfer/pack.sh install > "$LOGS/flashinfer_install.txt" 2>&1
    tail -n 2 "$LOGS/flashinfer_install.txt"
    pack > /dev/null
    BUDGET=${BUDGET:-170} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm ;;
  rerun)
    install_whl
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1  # QuACK's first part, if .cutl1 came
    gpu_env
    timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms_gpu.py -k "access_width or aligned or unrolled" \
      > "$LOGS/t_rerun.txt" 2>&1
    echo "GPU tests: $(tail -n 1 "$LOGS/t_rerun.txt")"; grep -h "^FAILED\|^E  " "$LOGS/t_rerun.txt" | head -n 6
    runner rmsnorm 30 --missing
    runner layernorm 25 --missing
    pack ;;
  sweep10)
    install_whl
    fi_install
    # the UNROLL candidates: the pending patch on the machine's copy (not here), unless applied
    git apply --check lab/pending/norms-unrolled-loop.patch 2>/dev/null && git apply lab/pending/norms-unrolled-loop.patch
    gpu_env
    timeout 120 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms_gpu.py -k unrolled > "$LOGS/t_unrolled.txt" 2>&1 &
    for i in 0 1 2 3 4 5 6 7; do timeout 90 python3 lab/norms/sweep10.py --prewarm $i 8 > "$LOGS/prewarm10-$i.log" 2>&1 & done
    wait
    echo "unrolled GPU test: $(tail -n 1 "$LOGS/t_unrolled.txt")"
    SWEEP_BUDGET=${SWEEP_BUDGET:-300} timeout $(( ${SWEEP_BUDGET:-300} + 40 )) python3 lab/norms/sweep10.py \
      --out "$OUT/sweep10.json" > "$LOGS/sweep10.txt" 2>&1
    tail -n 14 "$LOGS/sweep10.txt"
    pack ;;
  ceregs)  # lab/pending/ce-exchange-maxnreg.patch on the machine's copy: its GPU tests, then the
    # exchange's parts capped at 64 / 72 registers beside the rule on the seed-16 bf16 tune shapes
    install_whl
    git apply --check lab/pending/ce-exchange-maxnreg.patch 2>/dev/null && git apply lab/pending/ce-exchange-maxnreg.patch
    gpu_env
    timeout 90 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k "register_cap or r64" \
      > "$LOGS/t_regs.txt" 2>&1
    echo "GPU tests: $(tail -n 1 "$LOGS/t_regs.txt")"; grep -h "^FAILED" "$LOGS/t_regs.txt" | head -n 6
    TESTS=0 TUNE=16 SELECT='tune.*bf16' CANDS=rule,x4k4-r64,x4k4-r72 CALL_LIMIT=${CALL_LIMIT:-210} \
      bash lab/cross_entropy/device_sweep.sh > "$LOGS/sweep_tail.txt" 2>&1
    tail -n 20 "$LOGS/sweep_tail.txt"
    pack ;;
  *) echo "usage: call.sh land|q|reports|rerun|sweep10|ceregs"; exit 2 ;;
esac
