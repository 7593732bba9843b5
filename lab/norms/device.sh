#!/usr/bin/env bash
# `bash lab/norms/device.sh sweep2`: run 2's sweep instead (below; timeout_s 280).
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
if [ "${1:-}" = sweep2 ]; then
  # run 2's sweep (lab/norms/sweep2.py; device tool timeout_s 280): the GPU tests (four pytest
  # processes, the new long-row backward and split forward in the fourth) beside six processes
  # warming the sweep's compile caches, then the sweep, which starts no measurement after
  # SWEEP_BUDGET seconds (default 200). Everything to $OUT as it comes.
  { date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv;
    python3 -c "import torch, triton, liger_kernel; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $OUT/env.txt 2>&1
  t0=$(date +%s)
  for i in $(seq 0 5); do TORCHINDUCTOR_COMPILE_THREADS=1 timeout 58 python3 lab/norms/sweep2.py --prewarm $i 6 > /tmp/pw/s$i.log 2>&1 & done
  T=tests/gpu/test_norms_gpu.py
  timeout 60 python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference and rmsnorm" > /tmp/pw/t1.txt 2>&1 &
  timeout 60 python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference and layernorm" > /tmp/pw/t2.txt 2>&1 &
  timeout 60 python3 -m pytest -v -p no:cacheprovider $T -k "not test_vs_float64_reference and not long and not split" > /tmp/pw/t3.txt 2>&1 &
  timeout 60 python3 -m pytest -v -p no:cacheprovider $T -k "long or split" > /tmp/pw/t4.txt 2>&1 &
  wait
  for t in t1 t2 t3 t4; do cat /tmp/pw/$t.txt; echo "---"; done > $OUT/gpu_tests.txt
  cat /tmp/pw/s[0-9]*.log > $OUT/prewarm.txt
  echo "tests and prewarm done after $(( $(date +%s) - t0 )) s" | tee -a $OUT/gpu_tests.txt >> $OUT/prewarm.txt
  B=${SWEEP_BUDGET:-200}
  SWEEP_BUDGET=$B timeout $(( B + 14 )) python3 lab/norms/sweep2.py --out $OUT/sweep2.json > $OUT/sweep2.txt 2>&1
  echo "sweep exit $? after $(( $(date +%s) - t0 )) s" >> $OUT/sweep2.txt
  exit 0
fi
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
