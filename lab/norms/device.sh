#!/usr/bin/env bash
# Issue 15's one H200 call (device tool, timeout_s 360), from a copy of this worktree in
# /work/main/.gpu-norms, carried with ../.whl (pydantic, liger-kernel):
#   GPU tests and compile-cache warming side by side, then the runner on rmsnorm and layernorm
#   (every implementation, every workload, each within a --budget), then the run records and
#   logs to $OUT (at most 8 files come back: the records travel as one tarball).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../.whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
L=/tmp/krlogs && mkdir -p $L /tmp/pw
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv;
  python3 -c "import torch, triton, liger_kernel, pydantic; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $L/env.txt 2>&1
t0=$(date +%s)
for i in $(seq 0 11); do TORCHINDUCTOR_COMPILE_THREADS=1 timeout 85 python3 lab/norms/prewarm.py $i 12 > /tmp/pw/$i.log 2>&1 & done
timeout 85 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms_gpu.py > $L/gpu_tests.txt 2>&1
echo "pytest exit $? after $(( $(date +%s) - t0 )) s" >> $L/gpu_tests.txt
wait
cat /tmp/pw/*.log > $L/prewarm.txt; echo "prewarm done after $(( $(date +%s) - t0 )) s" >> $L/prewarm.txt
timeout 135 python3 -m site_builder.runner --family rmsnorm --timeout 60 --budget 118 > $L/run_rmsnorm.txt 2>&1
echo "runner exit $? after $(( $(date +%s) - t0 )) s" >> $L/run_rmsnorm.txt
timeout 112 python3 -m site_builder.runner --family layernorm --timeout 60 --budget 95 > $L/run_layernorm.txt 2>&1
echo "runner exit $? after $(( $(date +%s) - t0 )) s" >> $L/run_layernorm.txt
tar czf $OUT/runs.tgz records/runs/rmsnorm records/runs/layernorm 2>/dev/null
cp $L/*.txt $OUT/
