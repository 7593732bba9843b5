#!/usr/bin/env bash
# 2026-12-07, eighth session (07:37 UTC-): the two lab/pending patches landed (LayerNorm's decode
# rows load weight early; RMSNorm's even 2-byte split-class rows between 4096 and 8192 take the
# masked block of 8192). The calls that ran, on one H100 (the H200 was refused at 07:40):
#
#   run(carry=[".whl"], command="BUDGET=0 TESTS_S=150 bash lab/device-2026-12-07b/call.sh land", timeout_s=360)
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-06e/call.sh q")   # then .cutl2, .cutl3
#   run(carry=[".fislim"], command="REPORT_SEED=7321 bash lab/device-2026-12-07b/call.sh report layernorm", timeout_s=420)
#   run(carry=[".fislim"], command="REPORT_SEED=7321 bash lab/device-2026-12-07b/call.sh report rmsnorm", timeout_s=420)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07c/call.sh sweep14", timeout_s=330)
#     (four calls got no machine first; then on a fresh H100 without Liger's pydantic, so first
#      run(carry=[".whl"], command="python3 -m pip install ... --target /tmp/site .whl/*.whl"),
#      then the sweep again with SWEEP_BUDGET=190)
#   run(carry=[".whl"], command="bash lab/device-2026-12-07c/call.sh land2", timeout_s=420)
#
# sweep14: lab/norms/sweep14.py (short rows, RMSNorm odd 2-byte rows between 4096 and 8192, RMSNorm
#   decode rows, LayerNorm's rows beside the decode rule), compile prewarm in 8 processes first.
#   Liger from `.whl` when carried, else from the q call's install (/tmp/site, while warm).
# land2: sweep 14's rules (LayerNorm's early weight from 1024 at decode rows, 4 rows a program
#   at 2-byte rows of 129-255 in both norms): the norms GPU tests, ours --missing on both norms,
#   then sweep 14 on seed 14071 (not tuned on), classes Q and E, the rules before as candidates.
# sweep15 (written for the next session; not run): lab/norms/sweep15.py with
#   lab/pending/norms-unrolled-aligned-loop.patch applied in the tree, after the q calls so that
#   FlashInfer imports: run(carry=[".fislim"], command="bash lab/device-2026-12-07c/call.sh sweep15")
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh sweep14|land2|sweep15}"
case "$CALL" in
  land2)
    install_whl; gpu_env
    norms_tests "${TESTS_S:-150}" 7321
    runner rmsnorm "${RMS_BUDGET:-40}" --missing
    runner layernorm "${LN_BUDGET:-30}" --missing
    pack > /dev/null
    for i in 0 1 2 3 4 5 6 7; do SWEEP14_SEED=14071 SWEEP14_CLASSES=QE timeout 60 python3 lab/norms/sweep14.py --prewarm $i 8 > "$LOGS/prewarm14h-$i.log" 2>&1 & done
    wait
    SWEEP14_SEED=14071 SWEEP14_CLASSES=QE SWEEP_BUDGET=${SWEEP_BUDGET:-60} timeout $(( ${SWEEP_BUDGET:-60} + 30 )) \
      python3 lab/norms/sweep14.py --out "$OUT/sweep14-14071.json" > "$LOGS/sweep14-14071.txt" 2>&1
    tail -n 12 "$LOGS/sweep14-14071.txt"
    pack ;;
  sweep14|sweep15)
    install_whl; gpu_env
    fi_install
    norms_sweep "$CALL"
    pack ;;
  *) echo "usage: call.sh sweep14|land2|sweep15"; exit 2 ;;
esac
