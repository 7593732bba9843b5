#!/usr/bin/env bash
# Issue 21 part 3 on a multi-GPU kind through the device tool (nvidia-h200-x8 or x4/x2), after
#   rsync -a --delete --exclude .venv --exclude .git --exclude output --exclude __pycache__ \
#     <worktree>/ /work/main/.gpu-multigpu/
# then `run` with carry [".gpu-multigpu", ".whl"], kind nvidia-h200-x8 (or the largest lent),
# timeout_s 600, and the command
#   cd .gpu-multigpu && bash lab/multigpu/device.sh PART
# PART: interference | speedup1 | speedup248, FAMILY optional (speedup: that family only). The
# whole index (nine families with kernels on main at 2026-12-01) is more than one call of 10
# minutes on one GPU: time the speed-up per family (one N per call if need be; results
# accumulate in speedup.json only within one machine's $OUT, so keep each call's table).
set -u
export PYTHONUNBUFFERED=1
part=${1:?interference, speedup1 or speedup248}
fam=${2:+--family $2}
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../.whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=index,name,serial,pci.bus_id,clocks.sm,temperature.gpu --format=csv
nvidia-smi topo -m || true
lscpu | grep -E "NUMA|^CPU\(s\)|Thread|Core" || true
mkdir -p "$OUT/multigpu"
case "$part" in
interference)
  # kr-triton over every fused-add-rmsnorm workload: alone, busy, alone, busy, alone
  timeout 580 python3 lab/multigpu/interference.py interference --out "$OUT/multigpu" --impls kr-triton \
    --repeats 2 --timeout 120 2>&1 | tee "$OUT/multigpu/interference.txt" | tail -n 60
  ;;
speedup1)
  timeout 580 python3 lab/multigpu/interference.py speedup --out "$OUT/multigpu" --n 1 --timeout 120 $fam 2>&1 | tail -n 20
  ;;
speedup248)
  timeout 580 python3 lab/multigpu/interference.py speedup --out "$OUT/multigpu" --n 2,4,8 --timeout 120 $fam 2>&1 | tail -n 20
  ;;
esac
