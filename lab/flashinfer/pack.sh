#!/usr/bin/env bash
# FlashInfer for the GPU machine, in one device call of its own: flashinfer-python 0.7.4 (a 101 MB
# wheel) without the sources of its nvcc JIT path (flashinfer/data/csrc, cutlass, cccl, include:
# about 53 MB compressed), which its norms do not use — on Hopper `flashinfer.norm` takes its CuTe
# DSL kernels (nvidia-cutlass-dsl, carried with QuACK). `import flashinfer` and `flashinfer.norm`
# import without them (checked on this CPU machine, 2026-12-04, with apache-tvm-ffi and the light
# dependencies the GPU machine has: ninja, numpy, packaging, requests, tqdm, click, tabulate,
# einops, nvidia-ml-py). SwiGLU's silu_and_mul and RoPE go through the nvcc JIT: they need the
# whole wheel (two calls of halves, as QuACK's CuTe libraries travel).
#
#   bash lab/flashinfer/pack.sh          # here: writes .fislim/ (git-ignored): the zip, its sha256
#   run(carry=[".fislim"], command="bash lab/flashinfer/pack.sh install && ...")   # on the GPU machine
#
# `install` unpacks it into /tmp/site (after lab/gemm/device.sh install has put QuACK's CuTe DSL
# and apache-tvm-ffi there; PYTHONPATH /tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages).
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=0.7.4
if [ "${1:-}" = install ]; then
  (cd .fislim && sha256sum -c sha256)
  python3 -m zipfile -e .fislim/flashinfer-slim.zip /tmp/site
  PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages python3 -c \
    "import flashinfer, flashinfer.norm; print('flashinfer', flashinfer.__version__)"
  exit 0
fi
tmp=$(mktemp -d)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 -d "$tmp" "flashinfer-python==$VERSION"
mkdir "$tmp/x"
(cd "$tmp/x" && python3 -m zipfile -e "$tmp"/flashinfer_python-$VERSION-py3-none-any.whl . \
  && rm -rf flashinfer/data/csrc flashinfer/data/cutlass flashinfer/data/cccl flashinfer/data/include)
mkdir -p .fislim
rm -f .fislim/flashinfer-slim.zip
(cd "$tmp/x" && python3 - <<'PY'
import os, zipfile
with zipfile.ZipFile(os.path.join(os.environ["OLDPWD"], ".fislim", "flashinfer-slim.zip"), "w",
                     zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for root, _, files in os.walk("."):
        for f in sorted(files):
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, "."))
PY
)
(cd .fislim && sha256sum flashinfer-slim.zip > sha256)
ls -la .fislim
rm -rf "$tmp"
