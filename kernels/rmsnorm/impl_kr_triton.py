"""Registers Kernel Records' own Triton RMSNorm (kr_triton.py) under `kr-triton-rmsnorm`."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton-rmsnorm", requires=["triton"], extra_sources=["kr_triton.py", "kr_parts.py", "kr_aligned.py", "../_row_access.py"],
          kinds=("forward", "backward"))
def kr_triton_rmsnorm(inputs, case):
    eps = float(case.params["eps"])
    x = inputs["x"]
    require_cuda(x, "kr-triton-rmsnorm (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .kr_triton import rmsnorm, rmsnorm_backward

    if case.kind == "forward":
        w = inputs["weight"]
        return lambda: rmsnorm(x, w, eps)
    dy, w, rstd = inputs["dy"], inputs["weight"], inputs["rstd"]
    return lambda: rmsnorm_backward(dy, x, w, rstd, eps)
