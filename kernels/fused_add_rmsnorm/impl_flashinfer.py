"""FlashInfer's fused add + RMSNorm (`flashinfer.norm.fused_add_rmsnorm`: its CuTe DSL kernel;
run when `flashinfer-python` and `nvidia-cutlass-dsl` are installed). It works in place:
residual += x, then x = rmsnorm(residual) * weight, so it is registered with `destroys` and its
outputs are the two input buffers after the call (the runner gives it copies it may overwrite)."""

from __future__ import annotations

from site_builder.runner.registry import Unsupported, require_cuda

from . import register


@register("flashinfer-fused-add-rmsnorm", requires=["flashinfer", "cutlass"],
          packages=["flashinfer-python", "nvidia-cutlass-dsl"], destroys=("x", "residual"),
          note="FlashInfer normalises the unrounded float32 sum x + residual; residual_out is rounded; "
               "in place (y in x's buffer, residual_out in residual's)")
def flashinfer_fused_add_rmsnorm(inputs, params):
    x, r, w, eps = inputs["x"], inputs["residual"], inputs["weight"], float(params["eps"])
    require_cuda(x, "FlashInfer")
    if w.dtype != x.dtype:
        raise Unsupported(f"FlashInfer's fused_add_rmsnorm takes the weight in the input's dtype, not {w.dtype} "
                          f"with {x.dtype}")
    from flashinfer.norm import fused_add_rmsnorm

    def call():
        fused_add_rmsnorm(x, r, w, eps=eps)
        return x, r

    return call
