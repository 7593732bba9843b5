#!/usr/bin/env bash
# The packages the GPU machine lacks, as git-ignored folders the device tool can carry. A new
# checkout has none of them; this writes all four (about 150 MB downloaded, a minute or two):
#
#   .whl     Liger-Kernel 0.8.5 and pydantic 2.14.4 with its needs (carry with any call that times Liger)
#   .cutl1   the first half of nvidia-cutlass-dsl-libs-cu13 4.8.1 (92 MB wheel, split at 46 MiB), its name, sha256
#   .cutl2   its second half, quack-kernels 0.6.5, nvidia-cutlass-dsl 4.8.1 and libs-base/core,
#            apache-tvm-ffi, torch-c-dlpack-ext (carry alone: with .whl it passes the 64 MiB limit)
#   .fislim  FlashInfer 0.7.4 without its nvcc JIT sources (lab/flashinfer/pack.sh)
#
# On the GPU machine: lab/gemm/device.sh installs .whl and the two halves (first call .cutl1 with
# .whl, second .cutl2, the machine kept warm), lab/flashinfer/pack.sh install unpacks .fislim.
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
      rm -rf .cutl1 .cutl2 && mkdir .cutl1 .cutl2
      whl=$(cd "$tmp" && ls nvidia_cutlass_dsl_libs_cu13-*.whl)
      (cd "$tmp" && sha256sum "$whl" > sha256 && split -b 46m "$whl" cutlpart.)
      mv "$tmp/cutlpart.aa" "$tmp/sha256" .cutl1/ && echo "$whl" > .cutl1/name
      mv "$tmp/cutlpart.ab" .cutl2/
      [ ! -e "$tmp/cutlpart.ac" ] || { echo "the wheel needs three parts: update lab/gemm/device.sh" >&2; exit 1; }
      "${DL[@]}" -d .cutl2 quack-kernels==0.6.5 nvidia-cutlass-dsl==4.8.1 nvidia-cutlass-dsl-libs-base==4.8.1 \
        nvidia-cutlass-dsl-libs-core==4.8.1 "apache-tvm-ffi==$TVM_FFI" "torch-c-dlpack-ext==$DLPACK_EXT"
      rm -rf "$tmp" ;;
    fislim) bash lab/flashinfer/pack.sh > /dev/null ;;
  esac
  du -sh ".${WHAT}"* | sed 's/^/  /'
done
