#!/usr/bin/env bash
# The last device call of the 2026-12-02 session (about 470 s; no QuACK: every part compares
# with cuBLAS, torch.compile or Liger). The three families' changes of this session are new
# defaults, so their GPU tests come first, all at once (compiles are CPU-bound, the machine has
# 16 cores): gemm (padded path, TMA split-K), norms (long-row backward, split forward), softmax
# (one-exchange long rows), beside the norms sweep's compile warming. Then one short sweep each,
# under its own budget: gemm (tune seed 11, report seed 12, 12 shapes each), norms sweep2,
# softmax sweep2. Everything lands in $OUT/<part>/ as it comes, so a call cut short keeps it.
#   run(carry=[".whl"], timeout_s=520, command="bash lab/device_2026-12-02.sh")
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
O=$OUT
mkdir -p $O/gemm $O/norms $O/softmax /tmp/pw
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  || echo "pip install failed"
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  python3 -c "import torch, triton, liger_kernel; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $O/env.txt 2>&1
t0=$SECONDS
P="python3 -m pytest -q -p no:cacheprovider --tb=short"
timeout 150 $P tests/gpu/test_gemm_gpu.py > $O/gemm/gpu_tests.txt 2>&1 &
N=tests/gpu/test_norms_gpu.py
timeout 120 $P $N -k "test_vs_float64_reference and rmsnorm" > $O/norms/t1.txt 2>&1 &
timeout 120 $P $N -k "test_vs_float64_reference and layernorm" > $O/norms/t2.txt 2>&1 &
timeout 120 $P $N -k "not test_vs_float64_reference and not long and not split" > $O/norms/t3.txt 2>&1 &
timeout 120 $P $N -k "long or split" > $O/norms/t4.txt 2>&1 &
timeout 150 $P tests/gpu/test_softmax_ce_gpu.py > $O/softmax/gpu_tests.txt 2>&1 &
for i in 0 1 2 3; do TORCHINDUCTOR_COMPILE_THREADS=1 timeout 100 python3 lab/norms/sweep2.py --prewarm $i 4 > /tmp/pw/s$i.log 2>&1 & done
wait
cat /tmp/pw/s*.log > $O/norms/prewarm.txt
echo "GPU tests done after $(( SECONDS - t0 )) s"
for f in $O/gemm/gpu_tests.txt $O/norms/t[1-4].txt $O/softmax/gpu_tests.txt; do echo "-- $f"; tail -n 2 $f; done
sweep() {  # name budget command...
  local name=$1 b=$2; shift 2
  echo "== $name sweep at $(( SECONDS - t0 )) s, budget $b s"
  SWEEP_BUDGET=$b timeout $(( b + 25 )) "$@" > $O/$name/sweep.txt 2>&1
  echo "   exit $? at $(( SECONDS - t0 )) s"; tail -n 25 $O/$name/sweep.txt
}
sweep gemm ${GEMM_BUDGET:-85} python3 lab/gemm/sweep.py --tune-seed 11 --report-seed 12 --n 12 \
  --budget ${GEMM_BUDGET:-85} --out $O/gemm/sweep.json
sweep norms ${NORMS_BUDGET:-85} python3 lab/norms/sweep2.py --out $O/norms/sweep2.json
sweep softmax ${SOFTMAX_BUDGET:-85} python3 lab/softmax/sweep2.py --out $O/softmax
echo "all done after $(( SECONDS - t0 )) s"
