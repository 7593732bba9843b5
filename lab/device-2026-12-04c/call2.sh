#!/usr/bin/env bash
# 2026-12-04 (third session), device call 2 (carry .whl): issue 15's sweep 7 (lab/norms/sweep7.py:
# sweep 6's findings tried on the families' workloads) after its compile-cache prewarm (eight
# processes). No GPU tests: the kernels are those of run 4; call 3 runs them with the new rules.
# Files back (4): env.txt prewarm.txt sweep7.json sweep7.txt
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  python3 -c "import torch, triton, liger_kernel; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$OUT/env.txt" 2>&1
mkdir -p /tmp/pw
for i in 0 1 2 3 4 5 6 7; do TORCHINDUCTOR_COMPILE_THREADS=1 timeout 100 python3 lab/norms/sweep7.py --prewarm $i 8 > /tmp/pw/s$i.log 2>&1 & done
wait
cat /tmp/pw/s[0-9].log > "$OUT/prewarm.txt"
echo "prewarm done at ${SECONDS}s"
B=${SWEEP_BUDGET:-200}
SWEEP_BUDGET=$B timeout $(( B + 60 )) python3 lab/norms/sweep7.py --rounds 2 --out "$OUT/sweep7.json" > "$OUT/sweep7.txt" 2>&1
echo "sweep exit $? at ${SECONDS}s"
tail -n 60 "$OUT/sweep7.txt"
