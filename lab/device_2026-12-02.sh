#!/usr/bin/env bash
# One device call for the end of the 2026-12-02 session (no QuACK: every part compares with
# cuBLAS, torch.compile or Liger): issue 14's GPU tests (the folded anchors, the experimental
# wide kernel), then the gemm GPU tests and sweep (the padded path, the wave-aware model), then
# the norms GPU tests and sweep2 (long-row backward, layernorm forward rules). Each part writes
# into its own folder of $OUT, so a call cut short returns what the parts before it did.
#   run(carry=[".whl"], timeout_s=560, command="bash lab/device_2026-12-02.sh")
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
ROOT_OUT=$OUT
t0=$SECONDS
part() {  # name command...
  local name=$1; shift
  mkdir -p "$ROOT_OUT/$name"
  echo "== $name at $(( SECONDS - t0 )) s"
  OUT="$ROOT_OUT/$name" "$@" > "$ROOT_OUT/$name/part.log" 2>&1
  echo "   exit $? at $(( SECONDS - t0 )) s"; tail -n 12 "$ROOT_OUT/$name/part.log"
}
OUT=$ROOT_OUT bash lab/gemm/device.sh install > "$ROOT_OUT/install.txt" 2>&1
part k14 env TESTS_BUDGET=${K14_TESTS:-110} bash lab/fused_add_rmsnorm/device_issue14.sh tests
part gemm env SWEEP_BUDGET=${GEMM_BUDGET:-150} bash lab/gemm/device.sh tsweep
part norms env SWEEP_BUDGET=${NORMS_BUDGET:-150} bash lab/norms/device.sh sweep2
echo "all parts done at $(( SECONDS - t0 )) s"
