#!/usr/bin/env bash
# 2026-12-07, twelfth session (21:43 UTC-). The first call names nvidia-h200 and branches on the
# card that came:
#   run(kind="nvidia-h200", carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-07g/call.sh start", timeout_s=340)
# H200: the tenth session's chain for the protocol-5 H200 records, its first call
#   (lab/device-2026-12-07e/call.sh land: Liger, QuACK's first part, the GPU tests of the norms,
#   fused add + RMSNorm, softmax + cross-entropy); then q (.cutl2), q (.cutl3), norms, fa (.fislim).
# H100: the aligned softmax forward (lab/device-2026-12-07f/call.sh aligned: the pending patch
#   applied on the machine, the softmax GPU tests, the sweep against the committed forward).
here=$(dirname "$0")
if [ "${1:-}" = start ]; then
  if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    exec bash "$here/../device-2026-12-07e/call.sh" land
  fi
  exec bash "$here/../device-2026-12-07f/call.sh" aligned
fi
# land: the aligned forward landed (its GPU tests passed in `start`, 103 passed on an H100):
#   whole rows off 16-byte multiples, forward and backward, the committed whole-row warps
#   ("model") against ELEMS_PER_THREAD 32 / 8 beside torch and Liger, tune (seed 4401 and the
#   three whole-row shapes of `start`) then held out (seed 4402); then ours --missing on softmax
#   run(carry=[".whl"], command="bash lab/device-2026-12-07g/call.sh land", timeout_s=420)
WR_TUNE=fwd-4096x27011-bf16,fwd-8192x4097-bf16,fwd-512x23163-fp16,bwd-4096x2382-bf16,bwd-16x4791-bf16,bwd-512x2082-fp16,fwd-16x11973-fp16,bwd-16x7710-fp32,bwd-8192x6234-fp32,fwd-8192x6166-fp32,fwd-8192x13189-bf16
WR_HELD=fwd-4096x21933-bf16,bwd-16x13585-fp32,bwd-4096x11654-fp32,bwd-8192x1457-fp16,bwd-8192x6422-fp16,bwd-512x10711-bf16,bwd-16x13933-fp16,bwd-16x16231-fp16
. "$here/../device_lib.sh" "${1:?usage: call.sh start|land}"
sweep() {  # NAME SHAPES BUDGET CANDS
  SWEEP_BUDGET=$3 timeout $(( $3 + 60 )) python3 lab/softmax/sweep2.py --out "$LOGS/$1" --kind all \
    --shapes "$2" --cands "$4" --peers torch-softmax,liger-softmax > "$LOGS/$1.txt" 2>&1
  echo "$1 exit $?"; tail -n 16 "$LOGS/$1.txt"
}
case "$CALL" in
  land)
    install_whl; gpu_env
    sweep wr-tune "$WR_TUNE" "${TUNE_S:-100}" model,ept32,ept8
    pack > /dev/null
    sweep wr-held "$WR_HELD" "${HELD_S:-70}" model,ept32,ept8
    runner softmax "${SM_BUDGET:-90}" --missing --implementation kr-triton-softmax
    tail -n 4 "$LOGS/run_softmax.txt"
    pack ;;
  *) echo "usage: call.sh start|land"; exit 2 ;;
esac
