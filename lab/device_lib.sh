# Shared helpers of the device call scripts (source it: `. lab/device_lib.sh CALL`). A call script
# runs on the lent GPU machine with $OUT set (what it writes there comes back: at most 8 files a
# call, so logs and records travel as one tarball each). Defines:
#   LOGS             /tmp/logs-$CALL, the call's log folder (packed into $OUT/logs-$CALL.tgz)
#   pack             packs the logs and every run record written since the call began
#   runner FAM S ... the runner on family FAM with budget S (a hard stop 40 s after it), then pack
#   gpu_env          the GPU, clocks, package versions and commit into $OUT/env.txt
#   install_whl      Liger and pydantic from the carried .whl/ into /tmp/site (nothing without it)
#   fi_install       FlashInfer from a carried .fislim/ into /tmp/site (nothing without one);
#                    prints the install's last line
#   norms_tests T SEED [FILE...]  the norms GPU tests in three processes (and each extra test
#                    FILE in one more) beside the compile-cache prewarm of the norms' workloads
#                    and SEED's report shapes, all within T s; prints each file's last line
# and sets the environment every call shares: the repository root as working directory, the
# wheels in /tmp/site and the repository on PYTHONPATH, Inductor's cache in /tmp (kept while the
# machine stays warm between chained calls).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD
CALL=${1:?usage: . lab/device_lib.sh CALL}
LOGS=/tmp/logs-$CALL
mkdir -p "$LOGS" "${OUT:=/tmp/out-$CALL}"
touch "/tmp/kr-mark-$CALL"

pack() {
  tar czf "$OUT/logs-$CALL.tgz" -C /tmp "logs-$CALL"
  local new; new=$(find records/runs -name "*.yaml" -newer "/tmp/kr-mark-$CALL")
  [ -z "$new" ] || { tar czf "$OUT/runs-$CALL.tgz" $new; tar tzf "$OUT/runs-$CALL.tgz"; }
  echo "call $CALL packed at ${SECONDS}s"
}

runner() {  # family budget [args]: the runner with a hard stop 40 s after its budget
  local fam=$1 budget=$2; shift 2
  timeout $(( budget + 40 )) python3 -m site_builder.runner --family "$fam" --timeout 60 --budget "$budget" "$@" \
    > "$LOGS/run_$fam.txt" 2>&1
  echo "$fam runner exit $? at ${SECONDS}s" | tee -a "$LOGS/run_$fam.txt"
  grep -i "fail\|error\|not run" "$LOGS/run_$fam.txt" | head -n 5
  pack > /dev/null  # after every runner: a call cut by its time limit still returns its records
}

gpu_env() {
  { date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
    python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
    git log -1 --format=%H; git status --short; } > "$OUT/env.txt" 2>&1
}

install_whl() {
  [ -d .whl ] || return 0  # not carried (a call that needs the room for .fislim): no Liger
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
}

fi_install() {
  [ -d .fislim ] || return 0
  bash lab/flashinfer/pack.sh install > "$LOGS/flashinfer_install.txt" 2>&1
  tail -n 1 "$LOGS/flashinfer_install.txt"
}

norms_sweep() {  # NAME [BUDGET PREWARM_S]: lab/norms/NAME.py's compile prewarm in 8 processes, then
  # the sweep (BUDGET s, SWEEP_BUDGET or 200 by default) into $OUT/NAME.json; the env the caller sets
  # (a sweep's seed and classes) reaches both
  local name=$1 budget=${2:-${SWEEP_BUDGET:-200}} pre=${3:-100} i
  for i in 0 1 2 3 4 5 6 7; do timeout "$pre" python3 "lab/norms/$name.py" --prewarm $i 8 > "$LOGS/prewarm-$name-$i.log" 2>&1 & done
  wait
  SWEEP_BUDGET=$budget timeout $((budget + 40)) python3 "lab/norms/$name.py" --out "$OUT/$name.json" > "$LOGS/$name.txt" 2>&1
  tail -n 16 "$LOGS/$name.txt"
}

norms_tests() {  # T SEED [extra test files]
  local T=$1 seed=$2 N=tests/gpu/test_norms_gpu.py f i; shift 2
  timeout "$T" python3 -m pytest -v -p no:cacheprovider $N -k "test_vs_float64_reference" > "$LOGS/t_norms1.txt" 2>&1 &
  timeout "$T" python3 -m pytest -v -p no:cacheprovider $N -k "long or parts" > "$LOGS/t_norms2.txt" 2>&1 &
  timeout "$T" python3 -m pytest -v -p no:cacheprovider $N -k "not test_vs_float64_reference and not long and not parts" > "$LOGS/t_norms3.txt" 2>&1 &
  for f in "$@"; do
    timeout "$T" python3 -m pytest -v -p no:cacheprovider "$f" > "$LOGS/t_$(basename "$f" .py).txt" 2>&1 &
  done
  for i in $(seq 0 7); do
    KR_PREWARM_RANDOM=12:$seed TORCHINDUCTOR_COMPILE_THREADS=1 timeout $((T - 10)) python3 lab/norms/prewarm.py $i 8 > "$LOGS/prewarm$i.log" 2>&1 &
  done
  wait
  for f in "$LOGS"/t_*.txt; do echo "$(basename "$f"): $(tail -n 1 "$f")"; grep -h "^FAILED\|^ERROR" "$f" | head -n 8; done
  echo "tests done at ${SECONDS}s"
}
