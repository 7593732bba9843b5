# Shared helpers of the device call scripts (source it: `. lab/device_lib.sh CALL`). A call script
# runs on the lent GPU machine with $OUT set (what it writes there comes back: at most 8 files a
# call, so logs and records travel as one tarball each). Defines:
#   LOGS             /tmp/logs-$CALL, the call's log folder (packed into $OUT/logs-$CALL.tgz)
#   pack             packs the logs and every run record written since the call began
#   runner FAM S ... the runner on family FAM with budget S (a hard stop 40 s after it), then pack
#   gpu_env          the GPU, clocks, package versions and commit into $OUT/env.txt
#   install_whl      Liger and pydantic from the carried .whl/ into /tmp/site
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
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
}
