#!/usr/bin/env bash
# 2026-12-03, device call 1 (carry .whl .cutl1): the runner on what the plan lists as missing
# for softmax (failed ones retried under the current backward tolerance), swiglu,
# swiglu-fused and rope. Records tarred per family to $OUT (the tool returns <= 8 files).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
bash lab/gemm/device.sh install > "$OUT/install.txt" 2>&1
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
t0=$SECONDS
touch /tmp/kr-mark1
{
python3 -m site_builder.runner --family softmax --missing --retry-failed --timeout 45 --budget ${SM_BUDGET:-140}
echo "softmax done at $(( SECONDS - t0 )) s"
python3 -m site_builder.runner --family swiglu --family swiglu-fused --missing --timeout 45 --budget ${SW_BUDGET:-170}
echo "swiglu done at $(( SECONDS - t0 )) s"
python3 -m site_builder.runner --family rope --missing --timeout 45 --budget ${RP_BUDGET:-170}
echo "rope done at $(( SECONDS - t0 )) s"
} > "$OUT/runner.log" 2>&1
tar czf "$OUT/runs_call1.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark1)
tail -n 40 "$OUT/runner.log"
