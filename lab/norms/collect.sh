#!/usr/bin/env bash
# After the device call: bring its files (the run tool's files_at folder) into this worktree.
#   bash lab/norms/collect.sh <files_at>
set -eu
src=${1:?files_at folder of the device call}
cd "$(dirname "$0")/../.."
mkdir -p lab/norms/run1
for t in "$src"/runs_*.tgz; do tar xzf "$t" -C .; done
for f in env.txt gpu_tests.txt prewarm.txt run_rmsnorm.txt run_layernorm.txt; do
  [ -f "$src/$f" ] && cp "$src/$f" lab/norms/run1/
done
ls records/runs/rmsnorm/h200/ records/runs/layernorm/h200/ 2>/dev/null
