#!/usr/bin/env bash
# 2026-12-06 (second session): issue 16's fwd+bwd path "pipe" (kernels/cross_entropy/kr_triton.py
# `_pipe`: the logits read once) on a GPU. One call:
#
#   run(carry=[".whl"], command="bash lab/device-2026-12-06c/call.sh pipe", timeout_s=420)
#
# pipe: a smoke check with a hard stop (a grid that waits on a program never resident would hang:
#   pipe_smoke.py, 60 s), then lab/cross_entropy/device_sweep.sh (the CE GPU tests, then the
#   sweep of the pipe candidates beside the rule, bf16 shapes) only if the smoke check passed.
#   NCU="kernel=force;...": then Nsight Compute on each forced path at 4096 x 128256 bf16.
# ce: the timing core's GPU tests, then the cross-entropy runner, every installed implementation
#   (with measure.free_cache and the out-of-memory retry of 11:30).
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
    if [ -n "${NCU:-}" ] && command -v ncu > /dev/null; then  # NCU="name=force;name=force"
      IFS=';' read -ra items <<< "$NCU"
      for it in "${items[@]}"; do
        name=${it%%=*}; force=${it#*=}
        KR_CE_FWDBWD=$force timeout 90 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
          --section SchedulerStats --section WarpStateStats --kernel-name "regex:${name}" --launch-count 1 \
          python3 -c "
import torch
from kernels.cross_entropy.kr_triton import cross_entropy_fwd_bwd
x = torch.randn(4096, 128256, device='cuda', dtype=torch.bfloat16)
t = torch.randint(0, 128256, (4096,), device='cuda')
cross_entropy_fwd_bwd(x, t); torch.cuda.synchronize()
" > "$LOGS/ncu_${name}_${force//[=,]/_}.txt" 2>&1
        echo "ncu $name $force: $(grep -E 'Duration|DRAM Throughput|L2 Hit Rate|Issued Warp' "$LOGS/ncu_${name}_${force//[=,]/_}.txt" | tr -s ' ' | tr '\n' ';')"
      done
    fi
    pack ;;
  ce)
    install_whl
    gpu_env
    timeout 60 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_measure_gpu.py > "$LOGS/t_measure.txt" 2>&1
    echo "measure GPU tests: $(tail -n 1 "$LOGS/t_measure.txt")"
    runner cross-entropy "${CE_BUDGET:-330}"
    pack ;;
  *) echo "usage: call.sh pipe|ce"; exit 2 ;;
esac
