#!/usr/bin/env bash
# 2026-12-04 (second session), device call 1 (carry .whl): issue 15's new "parts" kernels (a long
# row across programs exchanging partial sums: kernels/rmsnorm/kr_parts.py) checked and timed.
#   1. the norms GPU tests (three pytest processes) beside sweep 3's compile-cache prewarm
#   2. lab/norms/e2e_probe.py: where ours loses end-to-end at decode sizes
#   3. lab/norms/$SWEEP.py (sweep3 by default; rounds 2, budget SWEEP_BUDGET s)
# Call 2: SWEEP=sweep4 PROBE=0 (the probe once is enough)
# Files back (6): env.txt gpu_tests.txt prewarm.txt e2e_probe.txt sweep3.json sweep3.txt
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  python3 -c "import torch, triton, liger_kernel; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$OUT/env.txt" 2>&1
mkdir -p /tmp/pw
T=tests/gpu/test_norms_gpu.py
timeout ${TESTS_S:-200} python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference" > /tmp/pw/t1.txt 2>&1 &
timeout ${TESTS_S:-200} python3 -m pytest -v -p no:cacheprovider $T -k "long or parts" > /tmp/pw/t2.txt 2>&1 &
timeout ${TESTS_S:-200} python3 -m pytest -v -p no:cacheprovider $T -k "not test_vs_float64_reference and not long and not parts" > /tmp/pw/t3.txt 2>&1 &
for i in 0 1 2 3 4 5; do TORCHINDUCTOR_COMPILE_THREADS=1 timeout 120 python3 lab/norms/${SWEEP:-sweep3}.py --prewarm $i 6 > /tmp/pw/s$i.log 2>&1 & done
wait
for t in t1 t2 t3; do tail -n 60 /tmp/pw/$t.txt; echo "---"; done > "$OUT/gpu_tests.txt"
cat /tmp/pw/s[0-9].log > "$OUT/prewarm.txt"
echo "tests and prewarm done at ${SECONDS}s" | tee -a "$OUT/gpu_tests.txt"
grep -h "passed\|failed" /tmp/pw/t[123].txt | tail -n 3
[ "${PROBE:-1}" = 1 ] && timeout 90 python3 lab/norms/e2e_probe.py > "$OUT/e2e_probe.txt" 2>&1
echo "probe exit $? at ${SECONDS}s"
B=${SWEEP_BUDGET:-220}
SWEEP_BUDGET=$B timeout $(( B + 60 )) python3 lab/norms/${SWEEP:-sweep3}.py --rounds 2 --out "$OUT/${SWEEP:-sweep3}.json" > "$OUT/${SWEEP:-sweep3}.txt" 2>&1
echo "sweep exit $? at ${SECONDS}s"
tail -n 20 "$OUT/${SWEEP:-sweep3}.txt"
