#!/usr/bin/env bash
# 2026-12-06 (second session): issue 16's fwd+bwd path "pipe" (kernels/cross_entropy/kr_triton.py
# `_pipe`: the logits read once) on a GPU. One call:
#
#   run(carry=[".whl"], command="bash lab/device-2026-12-06c/call.sh pipe", timeout_s=420)
#
# pipe: a smoke check with a hard stop (a grid that waits on a program never resident would hang:
#   pipe_smoke.py, 60 s), then lab/cross_entropy/device_sweep.sh (the CE GPU tests, then the
#   sweep of the pipe candidates beside the rule, bf16 shapes) only if the smoke check passed.
# ce: the cross-entropy runner, every installed implementation (after adopting a winner).
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh pipe|ce}"
case "$CALL" in
  pipe)
    install_whl
    gpu_env
    timeout 60 python3 lab/device-2026-12-06c/pipe_smoke.py 2>&1 | tee "$LOGS/smoke.txt" | tail -n 20
    rc=${PIPESTATUS[0]}
    echo "smoke exit $rc"
    if [ "$rc" = 0 ]; then
      CALL_LIMIT=${CALL_LIMIT:-300} CANDS=${CANDS:-rule,pipe4k4-p6,pipe4k8-p5,pipe8k8-p2,pipe16k16,pipe4k4-p6-noev,pipe4k4-p3} \
        SELECT=${SELECT:-bf16} bash lab/cross_entropy/device_sweep.sh > "$LOGS/sweep_tail.txt" 2>&1
      tail -n 30 "$LOGS/sweep_tail.txt"
    fi
    pack ;;
  ce)
    install_whl
    gpu_env
    runner cross-entropy "${CE_BUDGET:-330}"
    pack ;;
  *) echo "usage: call.sh pipe|ce"; exit 2 ;;
esac
