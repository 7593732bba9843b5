#!/usr/bin/env bash
# Issue 18's H200 work for the gemm family (NOT RUN YET: written in a session without a GPU).
# From a copy of this repository on the device machine, with the wheels of ../.whl or .whl
# carried (pydantic and friends; quack-kernels is not among them, so quack-gemm records
# not-installed unless its wheels travel too: FACTS.md says how). Everything goes to $OUT.
#
# Two calls in one session, the machine kept warm between them (/tmp survives: Inductor's
# caches and the cold compile times live there):
#
#   run(carry=[".whl"], timeout_s=420, command="bash lab/gemm/device.sh prewarm")    ~300-400 s
#   run(carry=[".whl"], timeout_s=600, command="bash lab/gemm/device.sh run")        ~450-560 s
#
# `prewarm`: environment, the GPU tests (tests/gpu/test_gemm_gpu.py, ~60-90 s), then
#   max-autotune's cold compile of all 60 shapes in 4 processes (2-10 s a shape by FACTS.md:
#   60 × ~6 s / 4 ≈ 90-150 s, capped at 240 s), times to $OUT/compile_times.jsonl and
#   /tmp/kr-gemm/compile_times.jsonl.
# `run`: the runner on every implementation and workload (--budget 480: about 240 results at
#   ~1-1.5 s each, the tutorial kernel's autotuning ~60-90 s on top; results past the budget are
#   recorded as not run, never lost), its record tarred to $OUT/runs_gemm.tgz, the summary table.
# `all`: both in one call (only when the estimate fits: it does not, cold, at ~700-900 s).
# `sweep`: the configuration sweep (lab/gemm/sweep.py): tune on seed 11, report on seed 12.
# `tsweep`: the GPU tests, then the sweep, ending within TSWEEP_CAP (280 s) after the install:
#   run(carry=[".whl"], timeout_s=330, command="SWEEP_BUDGET=200 bash lab/gemm/device.sh tsweep")
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
MODE=${1:-run}
WHL=$(ls -d .whl ../.whl 2>/dev/null | head -1)
if [ -n "$WHL" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$WHL"/*.whl \
    || echo "pip install failed"
fi
# QuACK's CuTe DSL libraries (a 92 MB wheel) travel in three parts (lab/wheels.sh): .cutl1
# (cutlpart.aa, its name, sha256 and the number of parts) with the first call, .cutl2 (ab) with
# the second, .cutl3 (ac and the small QuACK wheels) with the third, on the still-warm machine;
# each is kept in /tmp/kr-cutl, and the call that brings the last part joins and installs them.
# The DSL wheels share one folder (nvidia_cutlass_dsl/), so they are unpacked, not pip-installed
# (pip --target would replace it).
CUTL=/tmp/kr-cutl
for part in .cutl1 .cutl2 .cutl3; do
  if [ -d $part ]; then mkdir -p $CUTL && cp $part/* $CUTL/ && echo "QuACK $part kept in $CUTL"; fi
done
if [ -d .cutl3 ] && [ ! -e /tmp/site/.kr-quack ]; then
  if [ -e $CUTL/parts ] && [ "$(ls $CUTL/cutlpart.* | wc -l)" = "$(cat $CUTL/parts)" ]; then
    cat $CUTL/cutlpart.* > "$CUTL/$(cat $CUTL/name)" \
      && (cd $CUTL && sha256sum -c sha256) \
      && for w in $CUTL/nvidia_cutlass_dsl*.whl; do python3 -m zipfile -e "$w" /tmp/site || exit 1; done \
      && python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
           $(ls $CUTL/*.whl | grep -v nvidia_cutlass_dsl) \
      && touch /tmp/site/.kr-quack
  else
    echo "QuACK's parts are not all in $CUTL ($(ls $CUTL 2>/dev/null | tr '\n' ' ')): the machine was not kept warm between the calls; quack reads not-installed"
  fi
fi
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
export KR_GEMM_COMPILE_TIMES=/tmp/kr-gemm/compile_times.jsonl
mkdir -p /tmp/kr-gemm
t0=$SECONDS

env_info() {
  { date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
    python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
    python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -1; } > "$OUT/env_$MODE.txt" 2>&1
}

prewarm() {
  timeout 150 python3 -m pytest -q -s -p no:cacheprovider tests/gpu/test_gemm_gpu.py > "$OUT/gpu_tests.txt" 2>&1
  echo "gpu tests exit $? after $(( SECONDS - t0 )) s" | tee -a "$OUT/gpu_tests.txt"
  tail -n 3 "$OUT/gpu_tests.txt"
  rm -f "$KR_GEMM_COMPILE_TIMES"
  for i in 0 1 2 3; do
    timeout 240 python3 lab/gemm/prewarm.py $i 4 "$KR_GEMM_COMPILE_TIMES" > /tmp/kr-gemm/prewarm$i.log 2>&1 &
  done
  wait
  cp "$KR_GEMM_COMPILE_TIMES" "$OUT/compile_times.jsonl" 2>/dev/null
  cat /tmp/kr-gemm/prewarm?.log | grep -v '^{' | tail -n 40 > "$OUT/prewarm_errors.txt"
  python3 - <<'PY'
import json, os, statistics
rows = [json.loads(l) for l in open(os.environ["KR_GEMM_COMPILE_TIMES"]) if l.strip()]
ok = [r["compile_s"] for r in rows if "compile_s" in r]
print(f"max-autotune prewarm: {len(ok)} of 60 shapes compiled, {len(rows) - len(ok)} errors; "
      f"cold compile median {statistics.median(ok) if ok else float('nan'):.1f} s, max {max(ok, default=0):.1f} s")
PY
  echo "prewarm done after $(( SECONDS - t0 )) s"
}

run_family() {
  local before; before=$(ls records/runs/gemm/h200/ 2>/dev/null)
  timeout 540 python3 -m site_builder.runner --family gemm --timeout 120 --budget 480 > "$OUT/run_gemm.txt" 2>&1
  echo "runner exit $? after $(( SECONDS - t0 )) s" | tee -a "$OUT/run_gemm.txt"
  tar czf "$OUT/runs_gemm.tgz" records/runs/gemm 2>/dev/null
  tail -n 70 "$OUT/run_gemm.txt"
}

case "$MODE" in
  prewarm) env_info; prewarm ;;
  run) env_info; run_family ;;
  all) env_info; prewarm; run_family ;;
  sweep)
    env_info
    timeout 560 python3 lab/gemm/sweep.py --tune-seed 11 --report-seed 12 --n 24 --budget 520 \
      --out "$OUT/sweep.json" > "$OUT/sweep.txt" 2>&1
    echo "sweep exit $? after $(( SECONDS - t0 )) s"; tail -n 60 "$OUT/sweep.txt" ;;
  tsweep)  # the GPU tests, then the sweep, in one call; the whole call ends within TSWEEP_CAP s
    # (default 280, from after the wheels install): the sweep gets SWEEP_BUDGET s or what the cap leaves after the tests, less
    # a 15 s margin for its last measurement (its timeout)
    env_info
    timeout 140 python3 -m pytest -q -s -p no:cacheprovider tests/gpu/test_gemm_gpu.py > "$OUT/gpu_tests.txt" 2>&1
    echo "gpu tests exit $? after $(( SECONDS - t0 )) s" | tee -a "$OUT/gpu_tests.txt"
    tail -n 3 "$OUT/gpu_tests.txt"
    left=$(( ${TSWEEP_CAP:-280} - (SECONDS - t0) - 15 ))
    budget=${SWEEP_BUDGET:-400}; [ "$left" -lt "$budget" ] && budget=$left
    echo "sweep budget $budget s"
    timeout $(( budget + 15 )) python3 lab/gemm/sweep.py --tune-seed 11 --report-seed 12 --n 24 \
      --budget "$budget" --out "$OUT/sweep.json" > "$OUT/sweep.txt" 2>&1
    echo "sweep exit $? after $(( SECONDS - t0 )) s"; tail -n 60 "$OUT/sweep.txt" ;;
  install) echo "installed what was carried into /tmp/site" ;;
  *) echo "unknown mode $MODE (prewarm, run, all, sweep, tsweep, install)"; exit 2 ;;
esac
