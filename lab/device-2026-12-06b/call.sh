#!/usr/bin/env bash
# The next GPU session's first call (written 2026-12-06 08:20 UTC, not yet run): checks the two
# runner fixes of that morning on a GPU and re-runs what their bugs failed.
#
#   run(carry=[".whl"], command="bash lab/device-2026-12-06b/call.sh a", timeout_s=420)
#
# a: the timing core's GPU tests (tests/gpu/test_measure_gpu.py: a failed capture falls back to
#    events, and skipping capture reserves no new memory) and the CE GPU tests; then the
#    cross-entropy runner with --missing --retry-failed (on the H100: Liger's three out-of-memory
#    fwd+bwd workloads, everything at 16384 x 131072 fp32, and what the budget cut; on an H200 every
#    pair, its records being protocol v4), every installed implementation, CE_BUDGET s.
# ncu: Nsight Compute on ours' CE fwd+bwd at 4096 x 128256 bf16 (DRAM bytes, achieved bandwidth,
#    issue use: lab/cross_entropy/NOTES.md, last section), when the machine has ncu.
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh a|ncu}"
case "$CALL" in
  a)
    install_whl
    gpu_env
    timeout 120 python3 -m pytest -v -p no:cacheprovider tests/gpu/test_measure_gpu.py > "$LOGS/t_measure.txt" 2>&1 &
    timeout 120 python3 -m pytest -v -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k "cross_entropy" > "$LOGS/t_ce.txt" 2>&1 &
    wait
    for f in "$LOGS"/t_*.txt; do echo "$(basename "$f"): $(tail -n 1 "$f")"; grep -h "^FAILED\|^ERROR" "$f" | head -n 8; done
    runner cross-entropy "${CE_BUDGET:-240}" --missing --retry-failed
    pack ;;
  ncu)
    gpu_env
    command -v ncu > /dev/null || { echo "no ncu on this machine"; exit 0; }
    timeout 300 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section SchedulerStats --kernel-name regex:_rowloop --launch-count 1 \
      python3 -c "
import torch
from kernels.cross_entropy.kr_triton import cross_entropy_fwd_bwd
x = torch.randn(4096, 128256, device='cuda', dtype=torch.bfloat16)
t = torch.randint(0, 128256, (4096,), device='cuda')
cross_entropy_fwd_bwd(x, t); torch.cuda.synchronize()
" > "$LOGS/ncu_ce.txt" 2>&1
    tail -n 60 "$LOGS/ncu_ce.txt"
    pack ;;
  *) echo "usage: call.sh a|ncu"; exit 2 ;;
esac
