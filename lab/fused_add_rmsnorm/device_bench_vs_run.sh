#!/usr/bin/env bash
# Issue 13: `kernel-records bench` and `kernel-records run` of the same implementations on the
# same workloads, twice each, alternating, so that bench-vs-run can be set beside run-to-run
# noise; then the kernel's GPU tests with what time is left. Writes into $OUT.
#   usage (device tool, from the repository root): bash lab/fused_add_rmsnorm/device_bench_vs_run.sh
set -u
cd "$(dirname "$0")/../.."
W=r1-h4096-bf16,r16-h8192-bf16,r2048-h4096-bf16,r2048-h8192-fp32,r2048-h65536-bf16,r32768-h4096-bf16
I=kr-triton,torch-rms-norm
wl_opts=$(echo "$W" | tr ',' '\n' | sed 's/^/--workload /' | tr '\n' ' ')
for round in 1 2; do
  timeout 60 python3 -c 'from site_builder.cli import main; main()' bench --family fused-add-rmsnorm \
    --workloads "$W" --impls "$I" --json "$OUT/bench$round.json" 2>&1 | tail -n 22 | tee "$OUT/bench$round.log"
  timeout 70 python3 -m site_builder.runner --family fused-add-rmsnorm --implementation kr-triton \
    --implementation torch-rms-norm $wl_opts --timeout 60 2>&1 | tail -n 14 | tee "$OUT/run$round.log"
  cp "$(ls -t records/runs/fused-add-rmsnorm/h200/*.yaml | head -1)" "$OUT/run$round.yaml"
done
timeout 45 python3 -m pytest -q -x tests/gpu/test_kr_triton_gpu.py 2>&1 | tail -n 8 | tee "$OUT/gputests.log"
