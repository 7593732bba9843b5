#!/usr/bin/env bash
# A sweep on the H200 through the device tool (NOTES.md, versions 6 to 8): a smoke test of the
# split kernel, the sweep of sweeps/sweep<N>-cands.json with Liger side by side, then the GPU
# tests. Writes into $OUT.   usage: bash lab/fused_add_rmsnorm/run_sweep.sh N
# From sweep 8 on: the candidates timed interleaved (--interleave-cfgs), the end-to-end probe
# (e2e_probe.py) first, and no GPU tests (the refresh runs them).
#   carry: .whl (liger_kernel wheel)
set -u
N=${1:?sweep number}
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
  .whl/liger_kernel-*.whl && export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
timeout 90 python3 - <<'PY' 2>&1 | tee "$OUT/smoke.log"
import importlib.util, torch
spec = importlib.util.spec_from_file_location("kr", "kernels/fused_add_rmsnorm/kr_triton.py")
kr = importlib.util.module_from_spec(spec); spec.loader.exec_module(kr)
for n in (65536, 131072):
    x = torch.randn(2048, n, device="cuda", dtype=torch.bfloat16); r = torch.randn_like(x)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    y, h = kr.fused_add_rmsnorm(x, r, w); torch.cuda.synchronize()
    ye, he = kr.reference_fused_add_rmsnorm(x, r, w)
    print(n, kr._config_for(n, 2, 2048, x.device), torch.equal(h, he), (y.float() - ye.float()).abs().max().item())
PY
[ "${PIPESTATUS[0]}" = 0 ] || { echo "smoke test failed or hung"; exit 1; }
EXTRA=""
if [ "$N" -ge 8 ]; then
  EXTRA="--interleave-cfgs 8"
  timeout 120 python3 lab/fused_add_rmsnorm/e2e_probe.py --impls kr-triton,torch-rms-norm,liger-fused \
    --out "$OUT/e2e-probe.json" 2>&1 | tail -n 20
fi
W=$(python3 -c "import json; print(','.join(json.load(open('lab/fused_add_rmsnorm/candidates/sweep'+'$N'+'-cands.json'))))")
timeout 400 python3 kernels/fused_add_rmsnorm/bench.py --impls kr,liger --sweep --procs 14 --max-calls 1000 $EXTRA \
  --cands lab/fused_add_rmsnorm/candidates/sweep$N-cands.json --workloads "$W" --host-profile \
  --write-tuned "$OUT/tuned$N.json" --out "$OUT/sweep$N.json" 2>&1 | tail -n 80
[ "$N" -ge 8 ] && exit 0
timeout 150 python3 -m pytest -q -x tests/gpu/test_kr_triton_gpu.py 2>&1 | tee "$OUT/gputests.log" | tail -n 30
