"""Registers Kernel Records' own Triton kernel (kr_triton.py) under `kr-triton`."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton", requires=["triton"],
          extra_sources=["kr_triton.py", "kr_triton_kernels.py", "kr_triton_config.py", "kr_triton_tuned.json"])
def kr_triton(inputs, params):
    x, r, w, eps = inputs["x"], inputs["residual"], inputs["weight"], float(params["eps"])
    require_cuda(x, "kr-triton (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .kr_triton import fused_add_rmsnorm

    def call():
        return fused_add_rmsnorm(x, r, w, eps)

    return call
