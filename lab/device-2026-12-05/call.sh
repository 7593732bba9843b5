#!/usr/bin/env bash
# 2026-12-05: the session had 451 s of device time left (one call). Issue 15's kernels changed
# rules on 2026-12-04 (sweeps 6-7), so every committed kr-triton norm result is stale. This call
# re-measures ours beside the two peers that need no two-call install (Liger-Kernel, F.rms_norm /
# F.layer_norm) in one run per family, then runs the norms GPU tests in what time is left.
#   run(carry=[".whl"], command="bash lab/device-2026-12-05/call.sh", timeout_s=290)
# With less time: OURS_ONLY=1 (ours alone; the peers keep run 4's results), TESTS_S=0 (no tests).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  python3 -c "import torch, triton, liger_kernel; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$OUT/env.txt" 2>&1
touch /tmp/kr-mark
runner() {  # family budget impl...: the runner with a hard stop 30 s after its budget
  local fam=$1 budget=$2; shift 2
  local args=(); for i in "$@"; do args+=(--implementation "$i"); done
  timeout $(( budget + 30 )) python3 -m site_builder.runner --family "$fam" --timeout 40 --budget "$budget" \
    "${args[@]}" > "$OUT/run_$fam.txt" 2>&1
  echo "$fam runner exit $? at ${SECONDS}s" | tee -a "$OUT/run_$fam.txt"
  tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark) 2>/dev/null
}
if [ "${OURS_ONLY:-0}" = 1 ]; then  # ours alone (the peers' results from run 4 stay current)
  runner rmsnorm ${RMS_BUDGET:-80} kr-triton-rmsnorm
  runner layernorm ${LN_BUDGET:-50} kr-triton-layernorm
else
  runner rmsnorm ${RMS_BUDGET:-80} kr-triton-rmsnorm liger-rms-norm torch-f-rms-norm
  runner layernorm ${LN_BUDGET:-50} kr-triton-layernorm liger-layer-norm torch-f-layer-norm
fi
tar tzf "$OUT/runs.tgz"
[ "${TESTS_S:-80}" -gt 0 ] || { echo "no tests; call done at ${SECONDS}s"; exit 0; }
T=tests/gpu/test_norms_gpu.py
mkdir -p /tmp/t
timeout ${TESTS_S:-80} python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference" > /tmp/t/t1.txt 2>&1 &
timeout ${TESTS_S:-80} python3 -m pytest -v -p no:cacheprovider $T -k "long or parts" > /tmp/t/t2.txt 2>&1 &
timeout ${TESTS_S:-80} python3 -m pytest -v -p no:cacheprovider $T -k "not test_vs_float64_reference and not long and not parts" > /tmp/t/t3.txt 2>&1 &
wait
for t in t1 t2 t3; do cat /tmp/t/$t.txt; echo "--- exit above; finished at ${SECONDS}s"; done > "$OUT/gpu_tests.txt"
grep -h "passed\|failed\|error" /tmp/t/t[123].txt | tail -n 6
echo "call done at ${SECONDS}s"
