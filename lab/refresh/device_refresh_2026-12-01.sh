#!/usr/bin/env bash
# The session's last H200 call (2026-12-01, ~330 s): the runner on the families whose first
# calls left no record (swiglu, swiglu-fused, softmax) or failed on our kernel (rope, fixed
# since), each under a --budget so it still writes its record; the new records travel back in
# one archive (the device tool returns at most 8 files).
#   run(carry=[".whl"], timeout_s=340, command="bash lab/refresh/device_refresh_2026-12-01.sh")
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  || echo "pip install failed"
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
NEW=$(mktemp)
fam_run() {  # family budget workload...
  local fam=$1 budget=$2; shift 2
  local before; before=$(ls "records/runs/$fam/h200/" 2>/dev/null)
  local args=(); for w in "$@"; do args+=(--workload "$w"); done
  local t0=$SECONDS
  timeout $(( budget + 35 )) python3 -m site_builder.runner --family "$fam" --timeout 40 --budget "$budget" "${args[@]}" \
    > "$OUT/runner-$fam.log" 2>&1
  echo "$fam: exit $? after $(( SECONDS - t0 )) s"; tail -n 4 "$OUT/runner-$fam.log"
  for f in records/runs/"$fam"/h200/*.yaml; do
    [ -e "$f" ] || continue
    echo "$before" | grep -qx "$(basename "$f")" || echo "$f" >> "$NEW"
  done
}
fam_run rope 70 llama3-8b-b16-s1024-bf16 llama3-70b-b1-s8192-bf16 qwen2.5-7b-b16-s1024-bf16 \
  deepseek-v3-b1-s8192-bf16 llama3-8b-decode-b1-bf16 llama3-8b-decode-b64-bf16 deepseek-v3-decode-b256-bf16 \
  bwd-llama3-8b-b16-s1024-bf16 bwd-llama3-70b-b4-s4096-bf16
fam_run swiglu 65 t1-i14336-bf16 t4096-i14336-bf16 t8192-i14336-bf16 t4096-i11008-bf16 t32768-i2048-bf16 \
  bwd-t4096-i14336-bf16 bwd-t4096-i18944-bf16 bwd-t8192-i28672-bf16
fam_run softmax 70
fam_run swiglu-fused 35 t4096-i14336-bf16 t4096-i18944-bf16 bwd-t4096-i14336-bf16 bwd-t4096-i11008-bf16
tar czf "$OUT/records.tgz" -T "$NEW" && tar tzf "$OUT/records.tgz"
echo "all done at ${SECONDS}s"
