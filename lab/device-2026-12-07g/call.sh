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
echo "usage: call.sh start"; exit 2
