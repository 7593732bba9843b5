#!/usr/bin/env bash
# 2026-12-07, twelfth session (21:43 UTC-). The first call names nvidia-h200 and branches on the
# card that came:
#   run(kind="nvidia-h200", carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-07g/call.sh start", timeout_s=340)
# H200: the tenth session's chain for the protocol-5 H200 records, its first call
#   (lab/device-2026-12-07e/call.sh land: Liger, QuACK's first part, the GPU tests of the norms,
#   fused add + RMSNorm, softmax + cross-entropy); then q (.cutl2), q (.cutl3), norms, fa (.fislim).
# H100: the aligned softmax forward (lab/device-2026-12-07f/call.sh aligned: the pending patch
#   applied on the machine, the softmax GPU tests, the sweep against the committed forward).
#   It landed (d569823) and its patch is gone, so `start` is history now: the next call on an
#   H100 is `i32` below.
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
# g1: whole rows at G = 1 split past MAX_ROW_G1 = 8192 (the whole-row layouts spill above it):
#   the softmax GPU tests, then the cap ("model") against no cap ("g1whole", the code before) and
#   a 4096 cap beside torch and Liger, tune (seed 4403 and two 2-byte rows) then held out (seed
#   4404); then ours --missing on softmax (re-hashed)
#   run(carry=[".whl"], command="bash lab/device-2026-12-07g/call.sh g1", timeout_s=520)
G1_TUNE=bwd-512x10711-bf16,bwd-4096x13001-bf16,bwd-8192x15005-fp32,fwd-16x17109-fp32,bwd-512x9275-fp32,fwd-4096x8397-fp32,fwd-8192x14339-fp32,fwd-16x27469-fp32,bwd-4096x12759-fp32,bwd-16x11633-fp32
G1_HELD=bwd-1x14509-fp16,bwd-16x14757-fp32,bwd-8192x15161-fp16,bwd-8192x12353-fp16,bwd-1x8815-bf16,bwd-8192x9299-fp16,fwd-1x29299-fp32,bwd-1x16327-bf16
# g1f: the forward's limit raised to 16384 (fp32: whole rows to 16384 beat the split at 8397
#   and 14339 columns): the softmax GPU tests, the rule ("model") against g1-8k and g1whole on
#   fp32 forward rows of seed 4405 (held out); the aligned forward's whole rows on half the warps
#   (ALIGNED_EPT 32: "model") against "alw16" on 2-byte rows of 2049-16383 columns of seed 4407
#   (held out); ours --missing on softmax
#   run(carry=[".whl"], command="bash lab/device-2026-12-07g/call.sh g1f", timeout_s=400)
G1F_HELD=fwd-8192x5015-fp32,fwd-4096x38557-fp32,fwd-16x39739-fp32,fwd-16x5707-fp32,fwd-1x32519-fp32,fwd-8192x13885-fp32,fwd-8192x14929-fp32,fwd-4096x36497-fp32
ALW_HELD=fwd-4096x10393-fp16,fwd-4096x14003-fp16,fwd-512x9395-fp16,fwd-512x14663-bf16,fwd-16x8207-bf16,fwd-8192x12459-bf16,fwd-4096x3887-fp16
. "$here/../device_lib.sh" "${1:?usage: call.sh start|land|g1|g1f|g1h|i32}"
sweep() {  # NAME SHAPES BUDGET CANDS
  SWEEP_BUDGET=$3 timeout $(( $3 + 60 )) python3 lab/softmax/sweep2.py --out "$LOGS/$1" --kind all \
    --shapes "$2" --cands "$4" --peers torch-softmax,liger-softmax > "$LOGS/$1.txt" 2>&1
  echo "$1 exit $?"; tail -n 16 "$LOGS/$1.txt"
}
sm_tests() {  # the softmax GPU tests
  timeout "${TESTS_S:-120}" python3 -m pytest -q -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k softmax \
    > "$LOGS/t_sm.txt" 2>&1
  echo "softmax GPU tests exit $?: $(tail -n 1 "$LOGS/t_sm.txt")"; grep -h "^FAILED\|^ERROR" "$LOGS/t_sm.txt" | head -n 8
}
sm_missing() {  # ours --missing on softmax (each kernel edit re-hashes the family)
  runner softmax "${SM_BUDGET:-90}" --missing --implementation kr-triton-softmax
  tail -n 4 "$LOGS/run_softmax.txt"
}
case "$CALL" in
  land)
    install_whl; gpu_env
    sweep wr-tune "$WR_TUNE" "${TUNE_S:-100}" model,ept32,ept8
    pack > /dev/null
    sweep wr-held "$WR_HELD" "${HELD_S:-70}" model,ept32,ept8
    sm_missing
    pack ;;
  g1)
    install_whl; gpu_env
    sm_tests
    sweep g1-tune "$G1_TUNE" "${TUNE_S:-90}" model,g1whole,g1-4k
    pack > /dev/null
    sweep g1-held "$G1_HELD" "${HELD_S:-60}" model,g1whole,g1-4k
    sm_missing
    pack ;;
  g1f)
    git apply lab/pending/softmax-g1-forward-whole-aligned-warps.patch && echo "patch applied"
    install_whl; gpu_env
    sm_tests
    sweep g1f-held "$G1F_HELD" "${HELD_S:-50}" model,g1-8k,g1whole
    pack > /dev/null
    sweep alw-held "$ALW_HELD" "${HELD_S:-45}" model,alw16
    sm_missing
    pack ;;
  g1h)  # the last of the budget (274 s): g1f's two held-out sweeps only, the patch applied
    #   run(kind="nvidia-h200", carry=[".whl"], command="bash lab/device-2026-12-07g/call.sh g1h", timeout_s=160)
    git apply lab/pending/softmax-g1-forward-whole-aligned-warps.patch && echo "patch applied"
    install_whl; gpu_env
    sweep alw-held "$ALW_HELD" "${HELD_S:-35}" model,alw16
    pack > /dev/null
    sweep g1f-held "$G1F_HELD" "${HELD_S:-35}" model,g1-8k,g1whole
    pack ;;
  i32)  # (next session) lab/pending/softmax-int32-columns.patch applied: the column index of
    # `_fwd` / `_fwd_aligned` / `_bwd` in int32 (sm_90, triton 3.9: no stack at any whole-row
    # layout at G = 1; registers 0.5-0.9x). The softmax GPU tests, then on G = 1 shapes the
    # committed limits ("model") against no G = 1 limit ("g1whole") and the plain forward
    # ("plainfwd"), tune (G1_TUNE and call 1's whole-row forwards) then held out (G1_HELD and
    # seed 4407's forwards); ours --missing only if it lands in the same call's session
    #   run(carry=[".whl"], command="bash lab/device-2026-12-07g/call.sh i32", timeout_s=420)
    git apply lab/pending/softmax-int32-columns.patch && echo "patch applied"
    install_whl; gpu_env
    sm_tests
    sweep i32-tune "$G1_TUNE,fwd-4096x27011-bf16,fwd-8192x4097-bf16,fwd-512x23163-fp16" "${TUNE_S:-110}" model,g1whole,plainfwd
    pack > /dev/null
    sweep i32-held "$G1_HELD,$ALW_HELD" "${HELD_S:-90}" model,g1whole,plainfwd
    pack ;;
  *) echo "usage: call.sh start|land|g1|g1f|g1h|i32"; exit 2 ;;
esac
