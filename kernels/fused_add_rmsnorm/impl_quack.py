"""QuACK's RMSNorm with a residual (CuTe DSL; run when `quack-kernels` is installed)."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("quack", requires=["quack", "cutlass"], packages=["quack-kernels", "nvidia-cutlass-dsl"],
          note="QuACK normalises the unrounded float32 sum x + residual; residual_out is rounded")
def quack_rmsnorm(inputs, params):
    """QuACK's `rmsnorm_fwd(x, weight, residual=residual)` (CuTe DSL)."""
    x, r, w, eps = inputs["x"], inputs["residual"], inputs["weight"], float(params["eps"])
    require_cuda(x, "QuACK")
    from quack.rmsnorm import rmsnorm_fwd

    def call():
        out, residual_out, _ = rmsnorm_fwd(x, w, residual=r, eps=eps)
        return out, residual_out

    return call
