#!/usr/bin/env bash
# Issue 16's one H200 call (both families): GPU tests, then `python3 -m site_builder.runner`
# over softmax and cross-entropy (every implementation, every workload, each run under a
# --budget so it ends inside the call's limit and still writes its record), then the tables.
# Run from a copy of the worktree beside .whl (the device tool's recipe in the briefing):
#   rsync ... <worktree>/ /work/main/.gpu-softmax/
#   run(carry=[".gpu-softmax", ".whl"], command="bash .gpu-softmax/lab/softmax/device_run.sh")
# Budgets (seconds; the call's limit is 300): GPU tests 45, each family's run 80 (+45 to finish and
# write). On 2026-12-01 the softmax run under --budget 95 was still running at 107 s and `timeout`
# killed it before it wrote its record (lab/softmax/NOTES.md).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../.whl/*.whl \
  || echo "pip install failed"
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, triton, liger_kernel, pydantic; print('torch', torch.__version__, 'triton', triton.__version__, 'pydantic', pydantic.VERSION)"
start=$(date +%s)
timeout 45 python3 -m pytest -v --tb=short -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py > "$OUT/gpu_tests.log" 2>&1
echo "GPU tests: exit $? after $(( $(date +%s) - start )) s"; tail -n 25 "$OUT/gpu_tests.log"
for fam in softmax cross-entropy; do
  before=$(ls records/runs/$fam/h200/ 2>/dev/null)
  t0=$(date +%s)
  timeout 125 python3 -m site_builder.runner --family "$fam" --timeout 25 --budget 80 > "$OUT/run_$fam.log" 2>&1
  echo "run $fam: exit $? after $(( $(date +%s) - t0 )) s"
  for f in records/runs/$fam/h200/*.yaml; do
    [ -e "$f" ] || continue
    echo "$before" | grep -qx "$(basename "$f")" || { cp "$f" "$OUT/"; python3 lab/softmax/tables.py "$f" > "$OUT/table_$fam.md" 2>&1; tail -n 12 "$OUT/table_$fam.md"; }
  done
  grep -E "Wrote|Error|error" "$OUT/run_$fam.log" | tail -n 5
done
echo "total $(( $(date +%s) - start )) s"
