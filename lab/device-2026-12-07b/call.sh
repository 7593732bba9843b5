#!/usr/bin/env bash
# 2026-12-07, seventh session (03:56 UTC-): LayerNorm's rules between 4096 and 8192 (from
# lab/pending/norms-between-rules.patch) and the norms' shared aligned check landed. The calls
# that ran (on one H100; the q calls and the reports did not: no device time was left):
#
#   run(carry=[".whl"], command="BUDGET=0 TESTS_S=150 bash lab/device-2026-12-07b/call.sh land", timeout_s=330)
#   run(carry=[".fislim"], command="SWEEP_BUDGET=150 bash lab/device-2026-12-07/call.sh sweep13", timeout_s=300)
#   run(carry=[".fislim"], command="SWEEP13_SEED=13031 SWEEP13_CLASSES=D SWEEP_BUDGET=60 bash lab/device-2026-12-07/call.sh sweep13")
#
# and the reports as written for a session with time for them (QuACK's three `q` calls of
# lab/device-2026-12-06e/call.sh first, so that Liger and QuACK sit in /tmp/site):
#
#   run(carry=[".fislim"], command="REPORT_SEED=7321 bash lab/device-2026-12-07b/call.sh report layernorm", timeout_s=420)
#
# land: every norms GPU test (three processes) beside the compile prewarm of REPORT_SEED's report
#   shapes, ours --missing on both norms (both re-hashed), then REPORT_SEED's LayerNorm report
#   (BUDGET s, 280 by default; none with BUDGET=0). Liger comes from `.whl` when carried, else
#   from the q call's install (/tmp/site, kept while the machine stays warm): `.whl` and
#   `.fislim` no longer fit one call's 64 MiB beside the tree.
# report FAM...: REPORT_SEED's report of each family named, BUDGET s each.
SEED=${REPORT_SEED:-7321}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh land|report FAM...}"
shift
case "$CALL" in
  land)
    install_whl; fi_install; gpu_env
    norms_tests "${TESTS_S:-170}" "$SEED"
    runner rmsnorm "${RMS_BUDGET:-40}" --missing
    runner layernorm "${LN_BUDGET:-30}" --missing
    pack
    [ "${BUDGET:-280}" = 0 ] || BUDGET=${BUDGET:-280} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh layernorm ;;
  report)
    install_whl; fi_install
    BUDGET=${BUDGET:-280} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh "${@:-rmsnorm}" ;;
  *) echo "usage: call.sh land|report FAM..."; exit 2 ;;
esac
