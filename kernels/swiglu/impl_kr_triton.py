"""Registers Kernel Records' own Triton SwiGLU (kr_triton.py) under `kr-triton-swiglu`."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton-swiglu", kinds=("forward", "backward"),
          requires=["triton"], extra_sources=["kr_triton.py"])
def kr_triton_swiglu(inputs, case):
    g, u = inputs["gate"], inputs["up"]
    require_cuda(g, "kr-triton-swiglu (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .kr_triton import swiglu_backward, swiglu_forward

    if "dy" in inputs:
        dy = inputs["dy"]
        return lambda: swiglu_backward(dy, g, u)
    return lambda: swiglu_forward(g, u)
