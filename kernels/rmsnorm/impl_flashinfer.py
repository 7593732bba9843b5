"""FlashInfer's RMSNorm (`flashinfer.norm.rmsnorm`: its CuTe DSL kernel, compiled on first use
per dtype and hidden size; run when `flashinfer-python` and `nvidia-cutlass-dsl` are installed).
Forward only: FlashInfer is an inference library and has no RMSNorm backward."""

from __future__ import annotations

from site_builder.runner.registry import Unsupported, require_cuda

from . import register


@register("flashinfer-rmsnorm", requires=["flashinfer", "cutlass"],
          packages=["flashinfer-python", "nvidia-cutlass-dsl"], kinds=("forward",))
def flashinfer_rmsnorm(inputs, case):
    eps = float(case.params["eps"])
    x, w = inputs["x"], inputs["weight"]
    require_cuda(x, "FlashInfer")
    if w.dtype != x.dtype:
        raise Unsupported(f"FlashInfer's rmsnorm takes the weight in the input's dtype, not {w.dtype} with {x.dtype}")
    from flashinfer.norm import rmsnorm

    def call():
        return rmsnorm(x, w, eps=eps)

    return call
