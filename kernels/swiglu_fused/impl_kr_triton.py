"""Kernel Records' own Triton SwiGLU (kernels/swiglu/kr_triton.py) on the fused layout:
gate and up are column-offset views of gate_up, no copy."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton-swiglu", requires=["triton"], kinds=("forward", "backward"),
          extra_sources=["../swiglu/kr_triton.py"])
def kr_triton_swiglu(inputs, case):
    g3 = inputs["gate_up"]  # [tokens, 2, intermediate]: the memory of [tokens, 2 x intermediate]
    gu = g3.view(g3.shape[0], -1)
    require_cuda(gu, "kr-triton-swiglu (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from ..swiglu.kr_triton import swiglu_fused_backward, swiglu_fused_forward

    if "dy" in inputs:
        dy = inputs["dy"]
        return lambda: swiglu_fused_backward(dy, gu).view(g3.shape)
    return lambda: swiglu_fused_forward(gu)
