#!/usr/bin/env bash
# Issue 17's one device call: the GPU tests of our SwiGLU and RoPE kernels, then the runner on
# swiglu, rope and swiglu-fused (a chosen subset of each record's workloads: the call has ~5
# minutes, the runner starts one worker process per implementation and family), each with a
# --budget inside what is left so it still writes its record.
# Run from the copy's root on the GPU machine with the wheels installed (see NOTES.md):
#   LIMIT=312 bash lab/swiglu/device_run.sh [families...]      (default: swiglu rope swiglu-fused)
# At most 8 files come back from $OUT: the new run records travel in one archive, records.tgz
# (the first call, 2026-12-01 16:19, wrote them as separate files and lost two of them).
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."  # the repository root
LIMIT=${LIMIT:-312}
left() { echo $(( LIMIT - SECONDS )); }
FAMILIES=${*:-swiglu rope swiglu-fused}
NEW=$(mktemp /tmp/kr-new-records.XXXXXX)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
python3 -c "import torch, triton, liger_kernel, pydantic; print('torch', torch.__version__, 'triton', triton.__version__)"
timeout 55 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_elementwise_gpu.py 2>&1 | tee "$OUT/gputests.log" | tail -n 25
echo "gpu tests done at ${SECONDS}s"

run_family() {  # family, seconds wanted, workload ids...
  local fam=$1 want=$2; shift 2
  local l; l=$(left)
  local budget=$(( want < l - 20 ? want : l - 20 ))
  if [ "$budget" -lt 25 ]; then echo "no time left for $fam (${l}s)"; return; fi
  case " $FAMILIES " in *" $fam "*) ;; *) return ;; esac
  local before; before=$(ls "records/runs/$fam/h200/" 2>/dev/null)
  local args=(); for w in "$@"; do args+=(--workload "$w"); done
  timeout $(( budget + 15 )) python3 -m site_builder.runner --family "$fam" --timeout 60 --budget "$budget" "${args[@]}" \
    2>&1 | tee "$OUT/runner-$fam.log" | tail -n 30
  for f in records/runs/"$fam"/h200/*.yaml; do
    [ -e "$f" ] || continue
    echo "$before" | grep -qx "$(basename "$f")" || echo "$f" >> "$NEW"
  done
  echo "$fam done at ${SECONDS}s"
}

run_family swiglu 90 t1-i14336-bf16 t4096-i14336-bf16 t8192-i14336-bf16 t4096-i11008-bf16 t32768-i2048-bf16 \
  bwd-t4096-i14336-bf16 bwd-t4096-i18944-bf16 bwd-t8192-i28672-bf16
run_family rope 100 llama3-8b-b16-s1024-bf16 llama3-70b-b1-s8192-bf16 qwen2.5-7b-b16-s1024-bf16 \
  deepseek-v3-b1-s8192-bf16 llama3-8b-decode-b1-bf16 llama3-8b-decode-b64-bf16 deepseek-v3-decode-b256-bf16 \
  bwd-llama3-8b-b16-s1024-bf16 bwd-llama3-70b-b4-s4096-bf16
run_family swiglu-fused 60 t4096-i14336-bf16 t4096-i18944-bf16 bwd-t4096-i14336-bf16 bwd-t4096-i11008-bf16

tar czf "$OUT/records.tgz" -T "$NEW" && tar tzf "$OUT/records.tgz"
rm -f "$NEW"
echo "all done at ${SECONDS}s"
