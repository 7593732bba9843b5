#!/usr/bin/env bash
# After sweep 8 (NOTES.md, version 8): the end-to-end probe, the GPU tests and the swept
# workloads with the new configurations beside Liger and add + F.rms_norm. Writes into $OUT.
#   usage: bash lab/fused_add_rmsnorm/check8.sh      carry: .whl
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
  .whl/liger_kernel-*.whl .whl/pydantic*.whl .whl/annotated_types*.whl .whl/typing_inspection*.whl || exit 1
export PYTHONPATH=/tmp/site
timeout 150 python3 lab/fused_add_rmsnorm/e2e_probe.py --impls kr-triton,torch-rms-norm,liger-fused \
  --out "$OUT/e2e-probe.json" 2>&1 | tail -n 20
timeout 220 python3 -m pytest -q tests/gpu/test_kr_triton_gpu.py 2>&1 | tee "$OUT/gputests.log" | tail -n 15
W=$(python3 -c "import json; print(','.join(json.load(open('lab/fused_add_rmsnorm/candidates/sweep8-cands.json'))))")
timeout 200 python3 kernels/fused_add_rmsnorm/bench.py --impls kr,liger,frms --no-compile --workloads "$W" \
  --out "$OUT/check8.json" 2>&1 | tail -n 16
