#!/usr/bin/env bash
# 2026-12-07, seventh session (03:56 UTC-): LayerNorm's rules between 4096 and 8192 (from
# lab/pending/layernorm-between-rules.patch) and the norms' shared aligned check landed, with
# reports that give every peer its share. Calls, chained on one warm machine:
#
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-06e/call.sh q")   # then .cutl2, .cutl3
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07b/call.sh land", timeout_s=600)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07b/call.sh report rmsnorm", timeout_s=420)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-06f/call.sh ... / 2026-12-07/call.sh sweep13")
#
# land: every norms GPU test (three processes) beside the compile prewarm of REPORT_SEED's report
#   shapes, ours --missing on both norms (both re-hashed), then REPORT_SEED's LayerNorm report
#   (BUDGET s, 280 by default; none with BUDGET=0). Liger comes from the q call's install (/tmp/site, kept while the
#   machine stays warm): `.whl` and `.fislim` no longer fit one call's 64 MiB beside the tree.
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
