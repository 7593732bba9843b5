#!/usr/bin/env bash
# 2026-12-04, device call 1 (carry .whl). The SwiGLU edge tile now runs masked in steps of one
# vector per thread (sm_90 backward: 63 registers, 139 before; kernels/swiglu/kr_triton.py).
#  1. the element-wise GPU tests (SwiGLU and RoPE, bf16 and fp32 on the H200: the interpreter's bf16 is not reliable);
#  2. the size-class sweep (lab/swiglu/sweep.py SIZE_CANDS: tile bytes and warps) on tune seed 41,
#     8 shapes per family above 8 MB, and one record workload per family and kind.
# Files back: gpu-tests.log, runner.log, swiglu-sweep.{md,json}.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-570}
left() { echo $(( LIMIT - SECONDS )); }
[ -d /tmp/site/liger_kernel ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > "$OUT/runner.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$OUT/runner.log"
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_elementwise_gpu.py > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
tail -n 3 "$OUT/gpu-tests.log" >> "$OUT/runner.log"
b=$(( $(left) - 40 ))
SWEEP_BUDGET=$b timeout $(( b + 35 )) python3 lab/swiglu/sweep.py --out "$OUT" --tune 8 --report 0 --records 1 \
  --cands model,t2k-w4,t2k-w2,t4k-w4,t4k-w2,t8k-w8,t16k-w8,t16k-w4 >> "$OUT/runner.log" 2>&1
echo "swiglu sweep exit $? at ${SECONDS}s" | tee -a "$OUT/runner.log"
grep -v "^│\|^┃\|^┏\|^┡\|^└\|^├\|^┗\|^┣\|^┠" "$OUT/runner.log" | tail -n 30
