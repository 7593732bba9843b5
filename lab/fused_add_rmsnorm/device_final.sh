#!/usr/bin/env bash
# The final H200 refresh through the device tool, in three back-to-back calls (the machine stays
# warm for 30 s between calls, and /tmp with it). The CuTe DSL libraries QuACK needs are larger
# than one call may carry, so they travel xz-compressed in two halves (.cutl1, .cutl2).
#   bash device_final.sh stash    carry .cutl1        keeps part 1 in /tmp (add "tests": and runs the GPU tests)
#   bash device_final.sh runner   carry .cutl2 .whl   installs everything into /tmp/site, runs
#                                                     `python3 -m site_builder.runner` (all six)
#   bash device_final.sh bench    (nothing)           bench.py, every peer side by side
set -u
export PYTHONUNBUFFERED=1
step=${1:?stash, runner or bench}
cd "$(dirname "$0")/../.."
case "$step" in
stash)
  mkdir -p /tmp/stash && cp .cutl1/* /tmp/stash/ && ls -la /tmp/stash
  if [ "${2:-}" = tests ]; then
    timeout 200 python3 -m pytest -q tests/gpu/test_kr_triton_gpu.py 2>&1 | tee "$OUT/gputests.log" | tail -n 15
  fi
  ;;
runner)
  cat /tmp/stash/cutlpart.aa .cutl2/cutlpart.ab | xz -d | (mkdir -p /tmp/site && cd /tmp/site && tar xf -) || exit 1
  # the CuTe DSL wheels share one folder with the libraries above: unpacked into it, not pip-installed
  for w in .whl/nvidia_cutlass_dsl*.whl; do python3 -m zipfile -e "$w" /tmp/site || exit 1; done
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    $(ls .whl/*.whl | grep -v nvidia_cutlass_dsl) || exit 1
  export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages  # what its .pth file would add
  python3 -c "import quack.rmsnorm, liger_kernel, pydantic; print('quack, liger, pydantic import')" || exit 1
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  before=$(ls records/runs/fused-add-rmsnorm/h200/)
  # --budget: since protocol v4 the run ends with the interleaved end-to-end pass (about 2-3 more
  # minutes); a run out of budget still writes its record, a run killed by `timeout` writes none
  timeout 585 python3 -m site_builder.runner --timeout 150 --budget 540 2>&1 | tee "$OUT/runner.log" | tail -n 45
  for f in records/runs/fused-add-rmsnorm/h200/*.yaml; do
    echo "$before" | grep -qx "$(basename "$f")" || cp "$f" "$OUT/"
  done
  ;;
bench)
  export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages
  timeout 570 python3 kernels/fused_add_rmsnorm/bench.py --host-profile --out "$OUT/final.json" 2>&1 | tail -n 45
  ;;
esac
