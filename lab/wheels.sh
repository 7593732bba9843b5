#!/usr/bin/env bash
# The packages the GPU machine lacks, as git-ignored folders the device tool can carry. A new
# checkout has none of them; this writes all four (about 150 MB downloaded, a minute or two):
#
#   .whl     Liger-Kernel 0.8.5 and pydantic 2.14.4 with its needs (carry with any call that times Liger)
#   .cutl1   the first third of nvidia-cutlass-dsl-libs-cu13 4.8.1 (92 MB wheel, split at 30 MiB), its
#            name, sha256 and the number of parts
#   .cutl2   its second third
#   .cutl3   its last third, quack-kernels 0.6.5, nvidia-cutlass-dsl 4.8.1 and libs-base/core,
#            apache-tvm-ffi, torch-c-dlpack-ext
#   .fislim  FlashInfer 0.7.4 without its nvcc JIT sources (lab/flashinfer/pack.sh)
# Each call carries at most 64 MiB with the working tree (about 14 MB in December 2026): two
# halves of 46 MiB stopped fitting on 2026-12-06, so the wheel travels in thirds, one a call.
#
# On the GPU machine: lab/gemm/device.sh installs .whl and the parts (first call .cutl1 with
# .whl, then .cutl2, then .cutl3, the machine kept warm: the last part joins, checks and installs
# them), lab/flashinfer/pack.sh install unpacks .fislim.
#   bash lab/wheels.sh [whl] [cutl] [fislim]      # default: all
set -euo pipefail
cd "$(dirname "$0")/.."
TVM_FFI=${TVM_FFI:-0.1.15.post2}
DLPACK_EXT=${DLPACK_EXT:-0.1.5}
DL=(python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64)
want() { [ $# -eq 0 ] || [[ " $* " == *" $WHAT "* ]]; }
for WHAT in whl cutl fislim; do
  want "$@" || continue
  case $WHAT in
    whl)
      rm -rf .whl && "${DL[@]}" -d .whl pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 \
        typing-inspection==0.4.5 liger-kernel==0.8.5 ;;
    cutl)
      tmp=$(mktemp -d)
      "${DL[@]}" -d "$tmp" nvidia-cutlass-dsl-libs-cu13==4.8.1
      rm -rf .cutl1 .cutl2 .cutl3 && mkdir .cutl1 .cutl2 .cutl3
      whl=$(cd "$tmp" && ls nvidia_cutlass_dsl_libs_cu13-*.whl)
      (cd "$tmp" && sha256sum "$whl" > sha256 && split -b 30m "$whl" cutlpart.)
      [ "$(ls "$tmp"/cutlpart.* | wc -l)" = 3 ] || { echo "the wheel is not three parts of 30 MiB: update this script" >&2; exit 1; }
      mv "$tmp/cutlpart.aa" "$tmp/sha256" .cutl1/ && echo "$whl" > .cutl1/name && echo 3 > .cutl1/parts
      mv "$tmp/cutlpart.ab" .cutl2/
      mv "$tmp/cutlpart.ac" .cutl3/
      "${DL[@]}" -d .cutl3 quack-kernels==0.6.5 nvidia-cutlass-dsl==4.8.1 nvidia-cutlass-dsl-libs-base==4.8.1 \
        nvidia-cutlass-dsl-libs-core==4.8.1 "apache-tvm-ffi==$TVM_FFI" "torch-c-dlpack-ext==$DLPACK_EXT"
      rm -rf "$tmp" ;;
    fislim) bash lab/flashinfer/pack.sh > /dev/null ;;
  esac
  du -sh ".${WHAT}"* | sed 's/^/  /'
done
