#!/usr/bin/env bash
# 2026-12-04 (third session), device call 1 (carry .whl): issue 15's sweep 6 (run 4's floor
# misses at 4096 x 4096 / 5120 and the random report's small and odd calls, lab/norms/sweep6.py)
# after its compile-cache prewarm (six processes). No GPU tests: the kernels are those of run 4
# (21 passed then); the next call runs them with whatever rules sweep 6 leads to.
# Files back (4): env.txt prewarm.txt sweep6.json sweep6.txt
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  python3 -c "import torch, triton, liger_kernel; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$OUT/env.txt" 2>&1
mkdir -p /tmp/pw
for i in 0 1 2 3 4 5 6 7; do TORCHINDUCTOR_COMPILE_THREADS=1 timeout 100 python3 lab/norms/sweep6.py --prewarm $i 8 > /tmp/pw/s$i.log 2>&1 & done
wait
cat /tmp/pw/s[0-9].log > "$OUT/prewarm.txt"
echo "prewarm done at ${SECONDS}s"
B=${SWEEP_BUDGET:-200}
SWEEP_BUDGET=$B timeout $(( B + 60 )) python3 lab/norms/sweep6.py --rounds 2 --out "$OUT/sweep6.json" > "$OUT/sweep6.txt" 2>&1
echo "sweep exit $? at ${SECONDS}s"
tail -n 60 "$OUT/sweep6.txt"
