"""Registers Kernel Records' own Triton RoPE (kr_triton.py) under `kr-triton-rope`."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton-rope", kinds=("forward", "backward"),
          requires=["triton"], extra_sources=["kr_triton.py"])
def kr_triton_rope(inputs, case):
    cos, sin = inputs["cos"], inputs["sin"]
    require_cuda(cos, "kr-triton-rope (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .kr_triton import rope_backward, rope_forward

    if "dq_embed" in inputs:
        dq, dk = inputs["dq_embed"], inputs["dk_embed"]
        return lambda: rope_backward(dq, dk, cos, sin)
    q, k = inputs["q"], inputs["k"]
    return lambda: rope_forward(q, k, cos, sin)
