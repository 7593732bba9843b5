#!/usr/bin/env bash
# Written 2026-12-06 (third session) for the next GPU session: the two pending kernel patches'
# measurements (lab/NEXT_GPU_SESSION.md, its last list; lab/pending/README.md). Chained warm:
#
#   run(carry=[".whl"], command="bash lab/device-2026-12-06d/call.sh ce-threshold", timeout_s=300)
#   run(carry=[".whl"], command="bash lab/device-2026-12-06d/call.sh norms9", timeout_s=560)
#
# ce-threshold: the CE sweep, row loop ("rule", on main) against the exchange (x4k4) at bf16
#   vocabularies between the sweep of 2026-12-06 14:25's 54463 (the loop won) and 128256 (the
#   exchange won), to place ALT_FROM_2 of lab/pending/ce-exchange-from-100k.patch. No GPU tests
#   (TESTS=0), no tune draws (TUNE=0): only the --shapes below (SHAPES overrides).
# norms9: lab/pending/norms-aligned-forwards.patch applied on the machine's copy (not here), its
#   GPU test and the norms GPU tests of the aligned kinds, then sweep 9 (lab/norms/sweep9.py)
#   after its compile-cache prewarm; SWEEP_BUDGET (default 330 s) bounds the timing.
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh ce-threshold|norms9}"
case "$CALL" in
  ce-threshold)
    install_whl
    gpu_env
    TESTS=0 TUNE=0 SELECT=shape CANDS=rule,x4k4 CALL_LIMIT=${CALL_LIMIT:-260} \
      SHAPES=${SHAPES:-4096x65536,8192x65536,4096x81920,2048x100277,4096x100352,4096x114688,16384x92000-ign10} \
      bash lab/cross_entropy/device_sweep.sh > "$LOGS/sweep_tail.txt" 2>&1
    tail -n 25 "$LOGS/sweep_tail.txt"
    pack ;;
  norms9)
    install_whl
    git apply lab/pending/norms-aligned-forwards.patch || { echo "the patch does not apply"; exit 1; }
    gpu_env
    timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms_gpu.py \
      -k "aligned or split_forward or access_width" > "$LOGS/t_aligned.txt" 2>&1 &
    for i in 0 1 2 3 4 5 6 7; do timeout 90 python3 lab/norms/sweep9.py --prewarm $i 8 > "$LOGS/prewarm9-$i.log" 2>&1 & done
    wait
    echo "aligned GPU tests: $(tail -n 1 "$LOGS/t_aligned.txt")"; grep -h "^FAILED\|^ERROR" "$LOGS/t_aligned.txt" | head -n 8
    SWEEP_BUDGET=${SWEEP_BUDGET:-330} timeout $(( ${SWEEP_BUDGET:-330} + 40 )) python3 lab/norms/sweep9.py \
      --out "$OUT/sweep9.json" > "$LOGS/sweep9.txt" 2>&1
    tail -n 32 "$LOGS/sweep9.txt"
    pack ;;
  *) echo "usage: call.sh ce-threshold|norms9"; exit 2 ;;
esac
