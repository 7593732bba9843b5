#!/usr/bin/env bash
# 2026-12-07, eleventh session (18:11 UTC-). The first call names nvidia-h200 and branches on
# the card that came:
#   run(kind="nvidia-h200", carry=[".whl", ".cutl1"], command="bash lab/device-2026-12-07f/call.sh start", timeout_s=330)
# H200 (18:11-19:01 UTC: eight refusals, 841 s of the budget gone, so no room for QuACK's three
#   parts): h200a (carry .whl) the norms GPU tests and rmsnorm's runner, every implementation
#   but QuACK and FlashInfer; h200b (carry .fislim) FlashInfer, layernorm's runner, rmsnorm
#   --missing (FlashInfer's rows). With a full budget: the tenth session's chain for the protocol-5 H200 records (lab/device-2026-12-07e/call.sh:
#   land here, then q with .cutl2, q with .cutl3, norms, fa and report with .fislim).
# H100: the softmax whole-wide patch (lab/pending/softmax-bwd-whole-wide.patch, applied on the
#   machine only): the softmax GPU tests, then the sweep of the patched rule ("model") against the
#   committed split layout ("nowide") beside torch and Liger on random 2-byte backward rows of
#   24577-32768 columns at 16-byte multiples: TUNE (seed 2417), then HELD (seed 2418, drawn after
#   the tune set with `8 * randint(3073, 4096)` columns, rows from {1, 16, 128, 512, 1024, 4096,
#   8192}, bf16 or fp16). The patch was rejected and deleted, and sweep2's "nowide" went with it
#   (both in git at 27240a6~1): `start` now sends an H100 to `aligned`, the next patch's call.
TUNE=bwd-128x25000-fp16,bwd-8192x27880-fp16,bwd-8192x28048-fp16,bwd-8192x31448-fp16,bwd-16x31688-bf16,bwd-128x30480-bf16,bwd-512x27384-fp16,bwd-1x27704-bf16,bwd-8192x24896-fp16,bwd-512x29056-fp16
HELD=bwd-8192x28360-fp16,bwd-128x32392-fp16,bwd-128x30984-bf16,bwd-4096x27560-fp16,bwd-1024x27344-fp16,bwd-1024x31192-fp16,bwd-128x31560-fp16,bwd-1024x26952-bf16,bwd-1024x32568-bf16,bwd-512x28272-fp16
# odd: rows off 16-byte multiples (one element an access; lab/sm90.py: the committed long-row parts
#   take 130-198 registers a thread there): candidates g1-w16 / g1-mid / bwd4k-w16 against the
#   committed parts ("model") beside torch and Liger, forward and backward, on ODD_TUNE (seed
#   3301 and the three worst shapes of 2026-12-07e), then ODD_HELD (seed 3302): columns
#   randint(16385 or 32769, 200000) off multiples of 16 bytes, rows from {1, 16, 512, 2048,
#   4096, 8192} (halved to 1 GiB), bf16 / fp16 / fp32.
ODD_TUNE=bwd-4096x27011-bf16,bwd-4096x71107-bf16,fwd-4096x71107-bf16,fwd-16x89761-bf16,bwd-2048x129206-bf16,bwd-2048x32882-fp32,bwd-1024x188034-fp32,bwd-1x58895-fp16,bwd-4096x74979-fp16,bwd-2048x126233-bf16,fwd-16x97419-bf16,bwd-4096x36783-fp32,bwd-1x147045-bf16
ODD_HELD=fwd-1x58469-fp32,fwd-16x106226-bf16,fwd-1x158476-bf16,fwd-4096x113819-bf16,bwd-2048x145811-bf16,bwd-512x29190-bf16,bwd-4096x63482-fp16,bwd-512x119636-bf16,fwd-2048x114130-fp32,fwd-512x181259-bf16
here=$(dirname "$0")
if [ "${1:-}" = start ]; then
  if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    set -- h200a
  else
    set -- aligned
  fi
fi
. "$here/../device_lib.sh" "${1:?usage: call.sh start|wide|odd|narrow|aligned|h200a|h200b}"
wide_sweep() {  # NAME SHAPES BUDGET [CANDS]
  SWEEP_BUDGET=$3 timeout $(( $3 + 60 )) python3 lab/softmax/sweep2.py --out "$LOGS/$1" --kind all \
    --shapes "$2" --cands "${4:-model,nowide}" --peers torch-softmax,liger-softmax > "$LOGS/$1.txt" 2>&1
  echo "$1 exit $?"; tail -n 14 "$LOGS/$1.txt"
}
case "$CALL" in
  wide)
    git apply lab/pending/softmax-bwd-whole-wide.patch && echo "patch applied"
    install_whl; gpu_env
    timeout 130 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k softmax \
      > "$LOGS/t_sm.txt" 2>&1
    echo "softmax GPU tests exit $?: $(tail -n 1 "$LOGS/t_sm.txt")"; grep -h "^FAILED\|^ERROR" "$LOGS/t_sm.txt" | head -n 8
    wide_sweep tune "$TUNE" "${TUNE_S:-110}"
    pack > /dev/null
    wide_sweep held "$HELD" "${HELD_S:-110}"
    pack ;;
  narrow)  # LONG_NARROW landed (2-byte G = 1 rows: shorter parts): the softmax GPU tests, ours
    # --missing on softmax (the family re-hashed), the held-out odd shapes again beside the peers
    install_whl; gpu_env
    timeout "${TESTS_S:-120}" python3 -m pytest -q -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k softmax \
      > "$LOGS/t_sm.txt" 2>&1
    echo "softmax GPU tests exit $?: $(tail -n 1 "$LOGS/t_sm.txt")"; grep -h "^FAILED\|^ERROR" "$LOGS/t_sm.txt" | head -n 8
    runner softmax "${SM_BUDGET:-90}" --missing --implementation "${SM_IMPL:-kr-triton-softmax}"
    tail -n 4 "$LOGS/run_softmax.txt"
    wide_sweep odd-held2 "$ODD_HELD" "${HELD_S:-50}" model
    pack ;;
  aligned)  # (next session) lab/pending/softmax-aligned-forward.patch applied on the machine:
    # the softmax GPU tests, then the aligned forward ("model", LONG_NARROW's parts; "al-8k" on 8192)
    # against the committed forward ("plainfwd") on the odd forward shapes, tune then held out
    git apply lab/pending/softmax-aligned-forward.patch && echo "patch applied"
    install_whl; gpu_env
    timeout "${TESTS_S:-130}" python3 -m pytest -q -p no:cacheprovider tests/gpu/test_softmax_ce_gpu.py -k softmax \
      > "$LOGS/t_sm.txt" 2>&1
    echo "softmax GPU tests exit $?: $(tail -n 1 "$LOGS/t_sm.txt")"; grep -h "^FAILED\|^ERROR" "$LOGS/t_sm.txt" | head -n 8
    wide_sweep al-tune "fwd-4096x71107-bf16,fwd-16x89761-bf16,fwd-16x97419-bf16,fwd-4096x27011-bf16,fwd-1x40001-fp16,fwd-8192x4097-bf16,fwd-512x23163-fp16" "${TUNE_S:-100}" model,plainfwd,al-8k
    pack > /dev/null
    wide_sweep al-held "fwd-4096x113819-bf16,fwd-512x181259-bf16,fwd-1x158477-bf16,fwd-2048x30001-fp16,fwd-64x131071-bf16" "${HELD_S:-80}" model,plainfwd,al-8k
    pack ;;
  h200a)
    install_whl; gpu_env
    norms_tests "${TESTS_S:-140}" 8117
    runner rmsnorm "${RMS_BUDGET:-220}"
    pack ;;
  h200b)
    fi_install; gpu_env
    runner layernorm "${LN_BUDGET:-200}"
    runner rmsnorm "${RMS_BUDGET:-80}" --missing
    pack ;;
  odd)  # (warm after wide, or alone) the odd-row candidates, tune then held out
    install_whl; gpu_env
    wide_sweep odd-tune "$ODD_TUNE" "${TUNE_S:-170}" model,g1-w16,g1-mid,bwd4k-w16
    pack > /dev/null
    wide_sweep odd-held "$ODD_HELD" "${HELD_S:-130}" model,g1-w16,g1-mid,bwd4k-w16
    pack ;;
  *) echo "usage: call.sh start|wide|odd|narrow|aligned|h200a|h200b"; exit 2 ;;
esac
