#!/usr/bin/env bash
# Issue 15's one H200 call (device tool, timeout_s 360), from a copy of this worktree in
# /work/main/.gpu-norms, carried with ../.whl (pydantic, liger-kernel):
#   the GPU tests (three pytest processes) and compile-cache warming (lab/norms/prewarm.py, ten
#   processes) side by side, then the runner on rmsnorm and on layernorm (every implementation,
#   every workload, each within a --budget so that it writes its record), then the run records
#   and the logs to $OUT (at most 8 files come back: the records travel as one tarball).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../.whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
L=/tmp/krlogs && mkdir -p $L /tmp/pw
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv;
  python3 -c "import torch, triton, liger_kernel, pydantic; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $L/env.txt 2>&1
t0=$(date +%s)
for i in $(seq 0 9); do TORCHINDUCTOR_COMPILE_THREADS=1 timeout 68 python3 lab/norms/prewarm.py $i 10 > /tmp/pw/$i.log 2>&1 & done
T=tests/gpu/test_norms_gpu.py
timeout 68 python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference and rmsnorm" > /tmp/pw/t1.txt 2>&1 &
timeout 68 python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference and layernorm" > /tmp/pw/t2.txt 2>&1 &
timeout 68 python3 -m pytest -v -p no:cacheprovider $T -k "not test_vs_float64_reference" > /tmp/pw/t3.txt 2>&1 &
wait
for t in t1 t2 t3; do cat /tmp/pw/$t.txt; echo "---"; done > $L/gpu_tests.txt
cat /tmp/pw/[0-9]*.log > $L/prewarm.txt; echo "tests and prewarm done after $(( $(date +%s) - t0 )) s" | tee -a $L/gpu_tests.txt >> $L/prewarm.txt
timeout 140 python3 -m site_builder.runner --family rmsnorm --timeout 60 --budget 128 > $L/run_rmsnorm.txt 2>&1
echo "runner exit $? after $(( $(date +%s) - t0 )) s" >> $L/run_rmsnorm.txt
timeout 118 python3 -m site_builder.runner --family layernorm --timeout 60 --budget 106 > $L/run_layernorm.txt 2>&1
echo "runner exit $? after $(( $(date +%s) - t0 )) s" >> $L/run_layernorm.txt
tar czf $OUT/runs.tgz records/runs/rmsnorm records/runs/layernorm 2>/dev/null
cp $L/*.txt $OUT/
