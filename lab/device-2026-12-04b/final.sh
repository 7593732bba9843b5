#!/usr/bin/env bash
# 2026-12-04 (second session): issue 15's records and random-shape report with the rules of
# sweeps 3-5, every implementation side by side (QuACK's norms included). Three calls in a row,
# the machine kept warm between them (/tmp holds the wheels, QuACK's first half, the caches):
#
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-04b/final.sh prep")    ~120 s
#   run(carry=[".cutl2"], command="bash lab/device-2026-12-04b/final.sh run")             ~420 s
#   run(command="bash lab/device-2026-12-04b/final.sh report")                            ~330 s
#
# prep: the wheels into /tmp/site, QuACK's first half kept, the norms GPU tests (three pytest
#   processes) beside ten processes filling the compile caches for the families' workloads and
#   the report's random shapes (lab/norms/prewarm.py, KR_PREWARM_RANDOM).
# run: QuACK installed (lab/gemm/device.sh install), the runner on rmsnorm and on layernorm, every
#   implementation and workload; the new records tarred to $OUT/runs.tgz.
# report: `kernel-records bench --random 12 --seed 1217` on both families (never tuned on: the
#   sweeps drew seed 21), every implementation, BUDGET s each.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
export TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:$PWD
SEED=${REPORT_SEED:-1217}
case "${1:-}" in
  prep)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    bash lab/gemm/device.sh install > "$OUT/install.txt" 2>&1
    { date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
      python3 -c "import torch, triton, liger_kernel; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$OUT/env.txt" 2>&1
    mkdir -p /tmp/pw
    T=tests/gpu/test_norms_gpu.py
    timeout 200 python3 -m pytest -v -p no:cacheprovider $T -k "test_vs_float64_reference" > /tmp/pw/t1.txt 2>&1 &
    timeout 200 python3 -m pytest -v -p no:cacheprovider $T -k "long or parts" > /tmp/pw/t2.txt 2>&1 &
    timeout 200 python3 -m pytest -v -p no:cacheprovider $T -k "not test_vs_float64_reference and not long and not parts" > /tmp/pw/t3.txt 2>&1 &
    for i in $(seq 0 9); do
      KR_PREWARM_RANDOM=12:$SEED TORCHINDUCTOR_COMPILE_THREADS=1 timeout 150 python3 lab/norms/prewarm.py $i 10 > /tmp/pw/p$i.log 2>&1 &
    done
    wait
    for t in t1 t2 t3; do cat /tmp/pw/$t.txt; echo "---"; done > "$OUT/gpu_tests.txt"
    cat /tmp/pw/p[0-9].log > "$OUT/prewarm.txt"
    grep -h "passed\|failed" /tmp/pw/t[123].txt | tail -n 3
    echo "prep done at ${SECONDS}s" ;;
  run)
    bash lab/gemm/device.sh install > "$OUT/install.txt" 2>&1
    tail -n 3 "$OUT/install.txt"
    python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -n 1
    touch /tmp/kr-mark-final
    timeout $(( ${RMS_BUDGET:-200} + 40 )) python3 -m site_builder.runner --family rmsnorm --timeout 60 \
      --budget ${RMS_BUDGET:-200} > "$OUT/run_rmsnorm.txt" 2>&1
    echo "rmsnorm runner exit $? at ${SECONDS}s" | tee -a "$OUT/run_rmsnorm.txt"
    timeout $(( ${LN_BUDGET:-140} + 40 )) python3 -m site_builder.runner --family layernorm --timeout 60 \
      --budget ${LN_BUDGET:-140} > "$OUT/run_layernorm.txt" 2>&1
    echo "layernorm runner exit $? at ${SECONDS}s" | tee -a "$OUT/run_layernorm.txt"
    tar czf "$OUT/runs.tgz" $(find records/runs -name "*.yaml" -newer /tmp/kr-mark-final)
    tar tzf "$OUT/runs.tgz" ;;
  report)
    BUDGET=${BUDGET:-130} N=12 REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm ;;
  *) echo "usage: final.sh prep|run|report"; exit 2 ;;
esac
