"""Liger-Kernel 0.8.5's SwiGLU (`LigerSiLUMulFunction`), run when liger-kernel is installed.

Forward: `LigerSiLUMulFunction.apply(gate, up)`. Backward: `liger_kernel.ops.swiglu.swiglu_backward`,
the function `LigerSiLUMulFunction.backward` calls; it overwrites gate and up with dgate and dup
(in place). The inputs must stay unmodified, so the factory copies gate and up once (setup,
not timed) and every call overwrites those copies: the first call's outputs are the checked
gradients, later calls run on the values the previous call left (same bytes, same kernel).
"""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("liger-swiglu", kinds=("forward", "backward"),
          requires=["liger_kernel", "triton"], packages=["liger-kernel"])
def liger_swiglu(inputs, case):
    g, u = inputs["gate"], inputs["up"]
    require_cuda(g, "Liger-Kernel")
    if "dy" in inputs:
        from liger_kernel.ops.swiglu import swiglu_backward

        dy = inputs["dy"]
        a, b = g.clone(), u.clone()

        def call():
            return swiglu_backward(a, b, dy)

        call.kr_note = lambda: "in place: overwrites private copies of gate and up (made untimed in setup)"
        return call
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction

    apply = LigerSiLUMulFunction.apply
    return lambda: apply(g, u)
