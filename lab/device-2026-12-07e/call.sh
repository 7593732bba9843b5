#!/usr/bin/env bash
# 2026-12-07, tenth session (14:52 UTC-): the H200 records of protocol 5 (every H200 record so far is
# protocol 4), every implementation side by side, the norms and fused add + RMSNorm first.
# Chained on one warm machine (QuACK's three parts and FlashInfer live in /tmp/site between calls):
#
#   run(carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-07e/call.sh land", timeout_s=330)
#   run(carry=[".cutl2"], command="bash lab/device-2026-12-07e/call.sh q", timeout_s=120)
#   run(carry=[".cutl3"], command="bash lab/device-2026-12-07e/call.sh q", timeout_s=120)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07e/call.sh norms", timeout_s=560)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07e/call.sh fa", timeout_s=560)
#   run(carry=[".fislim"], command="bash lab/device-2026-12-07e/call.sh report", timeout_s=560)
#
# land: Liger, QuACK's first part; the GPU tests of the norms (three processes), of fused add +
#   RMSNorm and of softmax + cross-entropy beside the compile-cache prewarm of the norms'
#   workloads and REPORT_SEED's shapes.
# q: QuACK's next part (.cutl2, then .cutl3; the third joins and installs).
# norms: FlashInfer; the runner on rmsnorm and layernorm, every implementation (no --missing).
# fa: the runner on fused-add-rmsnorm, every implementation.
# report: the random-shape reports of both norms on REPORT_SEED (not tuned on), every implementation.
SEED=${REPORT_SEED:-8117}
SM_TUNE=bwd-64x247841-fp32,bwd-1x46352-bf16,bwd-1x142361-bf16,bwd-4096x71107-bf16,bwd-16384x17018-bf16,bwd-1x199193-fp32,bwd-4096x52211-fp32,bwd-4096x58994-bf16,bwd-1x52466-bf16,bwd-1x150969-bf16,bwd-16384x37308-bf16,bwd-4096x90301-fp32,bwd-4096x27011-bf16,bwd-2048x33331-fp32
SM_HELD=bwd-1x208492-fp32,bwd-4096x114884-fp32,bwd-1x46027-bf16,bwd-512x99227-fp32,bwd-1x178222-bf16,bwd-4096x177218-bf16,bwd-64x92630-bf16,bwd-512x45985-fp32
sm_sweep() {  # SHAPES CANDS BUDGET: lab/softmax/sweep2.py (backward) beside torch.softmax and Liger
  SWEEP_BUDGET=$3 timeout $(( $3 + 60 )) python3 lab/softmax/sweep2.py --out "$LOGS/sm-sweep" --kind backward \
    --shapes "$1" --cands "$2" --peers torch-softmax,liger-softmax > "$LOGS/sm-sweep.txt" 2>&1
  echo "softmax sweep exit $?"; tail -n 24 "$LOGS/sm-sweep.txt"
}
. "$(dirname "$0")/../device_lib.sh" "${1:?usage: call.sh land|q|norms|fa|report}"
case "$CALL" in
  land)
    install_whl
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1
    gpu_env
    norms_tests "${TESTS_S:-220}" "$SEED" tests/gpu/test_kr_triton_gpu.py tests/gpu/test_softmax_ce_gpu.py
    pack ;;
  q)
    bash lab/gemm/device.sh install > "$LOGS/install.txt" 2>&1
    tail -n 3 "$LOGS/install.txt"
    python3 -c "import quack; print('quack', quack.__version__)" 2>&1 | tail -n 1 ;;
  norms)
    fi_install; gpu_env
    python3 -c "import quack, flashinfer, liger_kernel; print('peers import')" 2>&1 | tail -n 1
    runner rmsnorm "${RMS_BUDGET:-240}"
    runner layernorm "${LN_BUDGET:-170}"
    pack ;;
  fa)
    fi_install; gpu_env
    runner fused-add-rmsnorm "${FA_BUDGET:-330}"
    pack ;;
  report)
    fi_install
    BUDGET=${BUDGET:-230} N=${N:-12} REPORT_SEED=$SEED bash lab/random_shapes/device_report.sh rmsnorm layernorm ;;
  h100)  # (the H200 refused four starts, 15:00-15:30 UTC) on an H100: the GPU tests of the norms
    # (the aligned loops' helpers, fcbac5c-) and of softmax + cross-entropy (the backward's row
    # loop), ours --missing on both norms, then the softmax backward sweep of the row loop against
    # the split layout on SHAPES (tune shapes: 12 drawn with seed 7071 and two at 27011 / 33331)
    install_whl; gpu_env
    norms_tests "${TESTS_S:-140}" 7321 tests/gpu/test_softmax_ce_gpu.py
    runner rmsnorm "${RMS_BUDGET:-40}" --missing
    runner layernorm "${LN_BUDGET:-30}" --missing
    sm_sweep "${SHAPES:-$SM_TUNE}" "${CANDS:-model,bwd-whole32k,loop4k-w8,loop4k-w8r,loop8k-w8,loop4k-w4,loop8k-w16}" \
      "${SWEEP_BUDGET:-170}"
    pack ;;
  smland)  # the row loop's rule landed: softmax GPU tests (row loop), ours --missing on softmax,
    # then the rule against the split layout on the held-out SHAPES (seed 7072)
    install_whl; gpu_env
    timeout 120 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k "softmax" \
      > "$LOGS/t_sm.txt" 2>&1
    echo "softmax GPU tests exit $?: $(tail -n 1 "$LOGS/t_sm.txt")"; grep -h "^FAILED\|^ERROR" "$LOGS/t_sm.txt" | head -n 8
    runner softmax "${SM_BUDGET:-90}" --missing
    sm_sweep "${SHAPES:-$SM_HELD}" "${CANDS:-model,split}" "${SWEEP_BUDGET:-120}"
    pack ;;
  ce)  # the cross-entropy comment edit (6ced499) re-hashed the family: ours --missing. On an
    # H200 (every H200 record is protocol 4) --missing runs every implementation: a bigger
    # budget and nothing else; on an H100 the softmax sweep of odd long rows after it
    install_whl; gpu_env
    if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
      runner cross-entropy "${CE_BUDGET_H200:-420}" --missing
    else
      runner cross-entropy "${CE_BUDGET:-150}" --missing
      pack > /dev/null
      SWEEP_BUDGET=${SWEEP_BUDGET:-150} timeout 220 python3 lab/softmax/sweep2.py --out "$OUT" --kind all \
        --shapes bwd-4096x27011-bf16,bwd-4096x71107-bf16,bwd-2048x45001-bf16,bwd-1024x131071-bf16,bwd-4096x40009-fp32,bwd-16x77777-bf16,bwd-4096x71168-bf16,fwd-4096x71107-bf16,fwd-1024x131071-bf16,fwd-2048x50001-fp32 \
        --cands model,b4k-w2,b8k-w4,bwd2k-w4,bwd4k-w16,fwd4k-w8 --peers torch-softmax,liger-softmax > "$OUT/sm-odd.txt" 2>&1
      echo "softmax sweep exit $?"; tail -n 14 "$OUT/sm-odd.txt"
    fi
    tail -n 3 "$LOGS/run_cross-entropy.txt"
    pack ;;
  last)  # the session's last 337 s: on an H200 the first protocol-5 H200 record of rmsnorm (every
    # implementation but QuACK, whose three parts need three calls); on an H100 the softmax sweep
    # of odd long rows (the ce case's, which no machine ran)
    install_whl; fi_install; gpu_env
    if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
      runner rmsnorm "${RMS_BUDGET:-170}"
    else
      SWEEP_BUDGET=${SWEEP_BUDGET:-150} timeout 210 python3 lab/softmax/sweep2.py --out "$OUT" --kind all \
        --shapes bwd-4096x27011-bf16,bwd-4096x71107-bf16,bwd-2048x45001-bf16,bwd-1024x131071-bf16,bwd-4096x40009-fp32,bwd-16x77777-bf16,bwd-4096x71168-bf16,fwd-4096x71107-bf16,fwd-1024x131071-bf16,fwd-2048x50001-fp32 \
        --cands model,b4k-w2,b8k-w4,bwd2k-w4,bwd4k-w16,fwd4k-w8 --peers torch-softmax,liger-softmax > "$OUT/sm-odd.txt" 2>&1
      echo "softmax sweep exit $?"; tail -n 14 "$OUT/sm-odd.txt"
    fi
    pack ;;
  *) echo "usage: call.sh land|q|norms|fa|report|h100|smland|ce|last"; exit 2 ;;
esac
