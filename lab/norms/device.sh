#!/usr/bin/env bash
# Issue 15's one H200 call (device tool, timeout_s 360), from a copy of this worktree in
# /work/main/.gpu-norms, carried with ../.whl (pydantic, liger-kernel):
#   the GPU tests (three pytest processes) and compile-cache warming (lab/norms/prewarm.py, ten
#   processes) side by side, then the runner on rmsnorm and on layernorm (every implementation,
#   every workload, each within a --budget so that it writes its record; its probe worker and
#   the writing come on top of the budget, hence the outer timeouts), each family's run records
#   tarred to $OUT as soon as its run ends. Logs go straight to $OUT (7 files; 8 may come back),
#   so a call cut short still returns what it did.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
WHL=$(ls -d .whl ../.whl 2>/dev/null | head -1)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $WHL/*.whl
# QuACK, where lab/gemm/device.sh installed it into /tmp/site on this warm machine
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD
mkdir -p /tmp/pw
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv;
  python3 -c "import torch, triton, liger_kernel, pydantic; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $OUT/env.txt 2>&1
t0=$(date +%s)
for i in $(seq 0 9); do TORCHINDUCTOR_COMPILE_THREADS=1 timeout 68 python3 lab/norms/prewarm.py $i 10 > /tmp/pw/$i.log 2>&1 & done
T=tests/gpu/test_norms_gpu.py
timeout 68 python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference and rmsnorm" > /tmp/pw/t1.txt 2>&1 &
timeout 68 python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference and layernorm" > /tmp/pw/t2.txt 2>&1 &
timeout 68 python3 -m pytest -v -p no:cacheprovider $T -k "not test_vs_float64_reference" > /tmp/pw/t3.txt 2>&1 &
wait
for t in t1 t2 t3; do cat /tmp/pw/$t.txt; echo "---"; done > $OUT/gpu_tests.txt
cat /tmp/pw/[0-9]*.log > $OUT/prewarm.txt
echo "tests and prewarm done after $(( $(date +%s) - t0 )) s" | tee -a $OUT/gpu_tests.txt >> $OUT/prewarm.txt
timeout $(( ${RMS_BUDGET:-122} + 23 )) python3 -m site_builder.runner --family rmsnorm --timeout 60 --budget ${RMS_BUDGET:-122} > $OUT/run_rmsnorm.txt 2>&1
echo "runner exit $? after $(( $(date +%s) - t0 )) s" >> $OUT/run_rmsnorm.txt
tar czf $OUT/runs_rmsnorm.tgz records/runs/rmsnorm 2>/dev/null
timeout $(( ${LN_BUDGET:-100} + 22 )) python3 -m site_builder.runner --family layernorm --timeout 60 --budget ${LN_BUDGET:-100} > $OUT/run_layernorm.txt 2>&1
echo "runner exit $? after $(( $(date +%s) - t0 )) s" >> $OUT/run_layernorm.txt
tar czf $OUT/runs_layernorm.tgz records/runs/layernorm 2>/dev/null
