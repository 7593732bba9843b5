"""Registers Kernel Records' own Triton LayerNorm (kr_triton.py) under `kr-triton-layernorm`."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton-layernorm", requires=["triton"], extra_sources=["kr_triton.py", "../rmsnorm/kr_parts.py", "../rmsnorm/kr_aligned.py", "../_row_access.py"],
          kinds=("forward", "backward"))
def kr_triton_layernorm(inputs, case):
    eps = float(case.params["eps"])
    x = inputs["x"]
    require_cuda(x, "kr-triton-layernorm (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .kr_triton import layernorm, layernorm_backward

    if case.kind == "forward":
        w, b = inputs["weight"], inputs["bias"]
        return lambda: layernorm(x, w, b, eps)
    dy, w, mean, rstd = inputs["dy"], inputs["weight"], inputs["mean"], inputs["rstd"]
    return lambda: layernorm_backward(dy, x, w, mean, rstd, eps)
