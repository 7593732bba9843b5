#!/usr/bin/env bash
# 2026-12-04 (third session): issue 15's records with the rules of sweeps 6-7, every
# implementation side by side (QuACK's and FlashInfer's norms included), and the random-shape
# report on seed 4099 (never tuned on: sweeps 6-7 drew their shapes from seed 1217's report).
# Calls in a row, the machine kept warm between them (/tmp holds the wheels and the caches):
#
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-04c/final.sh prep")   ~150 s
#   run(carry=[".cutl2"], command="bash lab/device-2026-12-04c/final.sh quack")          ~90 s
#   run(carry=[".fislim"], command="bash lab/device-2026-12-04c/final.sh rms")           ~300 s
#   run(command="bash lab/device-2026-12-04c/final.sh ln")                              ~300 s
#   run(command="bash lab/device-2026-12-04c/final.sh report")                          ~2 x (BUDGET + 60) s
#
# prep: lab/device-2026-12-04b/final.sh prep (wheels, QuACK's first half, the norms GPU tests in
#   three processes beside the compile-cache prewarm of the workloads and the report's shapes).
# quack: QuACK installed (lab/gemm/device.sh install); lab/norms/e2e_probe.py with QuACK there,
#   with and without programmatic dependent launch (KR_TRITON_PDL=0).
# rms: FlashInfer unpacked (lab/flashinfer/pack.sh install); the runner on rmsnorm, every
#   implementation and workload; the new record tarred to $OUT/runs-rms.tgz.
# ln: the runner on layernorm (every implementation), then FlashInfer's fused add + RMSNorm alone
#   on its family; $OUT/runs-ln.tgz.
# report: `kernel-records bench --random 12 --seed 4099` on both families, BUDGET s each.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD
SEED=${REPORT_SEED:-4099}
runner() {  # family budget [extra args]: the runner with a hard stop 40 s after its budget
  local fam=$1 budget=$2; shift 2
  timeout $(( budget + 40 )) python3 -m site_builder.runner --family "$fam" --timeout 60 --budget "$budget" "$@" \
    > "$OUT/run_$fam.txt" 2>&1
  echo "$fam runner exit $? at ${SECONDS}s" | tee -a "$OUT/run_$fam.txt"
  tail -n 4 "$OUT/run_$fam.txt"
}
case "${1:-}" in
  prep) REPORT_SEED=$SEED bash lab/device-2026-12-04b/final.sh prep ;;
  quack)
    bash lab/gemm/device.sh install > "$OUT/install.txt" 2>&1
    tail -n 2 "$OUT/install.txt"
    python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -n 1
    { timeout 80 python3 lab/norms/e2e_probe.py; echo "=== KR_TRITON_PDL=0"
      KR_TRITON_PDL=0 timeout 80 python3 lab/norms/e2e_probe.py; } > "$OUT/e2e_probe.txt" 2>&1
    grep -v "host pieces" "$OUT/e2e_probe.txt" | grep "kr-triton\|quack\|f-rms\|f-layer" ;;
  rms)
    bash lab/flashinfer/pack.sh install > "$OUT/flashinfer_install.txt" 2>&1
    tail -n 3 "$OUT/flashinfer_install.txt"
    touch /tmp/kr-mark-rms
    runner rmsnorm "${RMS_BUDGET:-230}"
    tar czf "$OUT/runs-rms.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark-rms)
    tar tzf "$OUT/runs-rms.tgz" ;;
  ln)
    touch /tmp/kr-mark-ln
    runner layernorm "${LN_BUDGET:-240}"
    runner fused-add-rmsnorm "${FA_BUDGET:-40}" --implementation flashinfer-fused-add-rmsnorm
    tar czf "$OUT/runs-ln.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark-ln)
    tar tzf "$OUT/runs-ln.tgz" ;;
  report)
    BUDGET=${BUDGET:-150} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm ;;
  *) echo "usage: final.sh prep|quack|rms|ln|report"; exit 2 ;;
esac
