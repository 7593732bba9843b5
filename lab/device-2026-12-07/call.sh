#!/usr/bin/env bash
# 2026-12-07 (sixth session, 00:13 UTC-): the cross-entropy register cap landed (rule: xregs 64 from
# 140000 columns at 2 bytes, from the ceregs sweep of 00:40), checked and re-run in one call:
#
#   run(carry=[".whl"], command="REPORT_SEED=... bash lab/device-2026-12-07/call.sh ce12", timeout_s=340)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07/call.sh sweep13", timeout_s=330)
#
# ce12: the cross-entropy GPU tests (test_softmax_ce_gpu.py -k cross_entropy) beside sweep 12's
#   compile prewarm, ours --missing on cross-entropy (the kernel is re-hashed), then
#   lab/norms/sweep12.py (LayerNorm odd 2-byte rows between 4096 and 8192, the aligned loop; peers
#   torch.compile, Liger, FlashInfer from .fislim when carried), then REPORT_SEED's random-shape report of
#   cross-entropy (BUDGET s). (A first call, the same without sweep 12, got no machine.)
# sweep13: lab/norms/sweep13.py (short rows at many rows, both norms; RMSNorm's even split-class rows
#   between 4096 and 8192) after its prewarm; FlashInfer's norms need QuACK's three calls first.
SEED=${REPORT_SEED:-12207}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh ce12|sweep13}"
case "$CALL" in
  ce12)
    install_whl; gpu_env
    fi_install
    timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k "cross_entropy" \
      > "$LOGS/t_ce.txt" 2>&1 &
    for i in 0 1 2 3 4 5; do timeout 100 python3 lab/norms/sweep12.py --prewarm $i 6 > "$LOGS/prewarm12-$i.log" 2>&1 & done
    wait
    echo "GPU tests: $(tail -n 1 "$LOGS/t_ce.txt") at ${SECONDS}s"; grep -h "^FAILED\|^ERROR" "$LOGS/t_ce.txt" | head -n 8
    runner cross-entropy "${CE_BUDGET:-60}" --missing
    SWEEP_BUDGET=${SWEEP_BUDGET:-100} timeout $(( ${SWEEP_BUDGET:-100} + 40 )) python3 lab/norms/sweep12.py \
      --out "$OUT/sweep12.json" > "$LOGS/sweep12.txt" 2>&1
    tail -n 12 "$LOGS/sweep12.txt"
    pack > /dev/null
    BUDGET=${BUDGET:-110} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh cross-entropy
    pack ;;
  sweep13)  # written after this session's calls (no device time left): lab/norms/sweep13.py
    install_whl; gpu_env
    fi_install
    for i in 0 1 2 3 4 5 6 7; do timeout 100 python3 lab/norms/sweep13.py --prewarm $i 8 > "$LOGS/prewarm13-$i.log" 2>&1 & done
    wait
    SWEEP_BUDGET=${SWEEP_BUDGET:-200} timeout $(( ${SWEEP_BUDGET:-200} + 40 )) python3 lab/norms/sweep13.py \
      --out "$OUT/sweep13.json" > "$LOGS/sweep13.txt" 2>&1
    tail -n 16 "$LOGS/sweep13.txt"
    pack ;;
  *) echo "usage: call.sh ce12|sweep13"; exit 2 ;;
esac
