"""Liger-Kernel 0.8.5 on the fused layout: `LigerFusedGateUpSiLUMulFunction` (forward) and
`liger_kernel.ops.swiglu.swiglu_fused_gate_up_backward(gate_up, dy, in_place=False)`, the
function its backward calls (out of place: a new dgate_up)."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("liger-swiglu", kinds=("forward", "backward"),
          requires=["liger_kernel", "triton"], packages=["liger-kernel"])
def liger_swiglu(inputs, case):
    g3 = inputs["gate_up"]  # [tokens, 2, intermediate]: the memory of [tokens, 2 x intermediate]
    gu = g3.view(g3.shape[0], -1)
    require_cuda(gu, "Liger-Kernel")
    if "dy" in inputs:
        from liger_kernel.ops.swiglu import swiglu_fused_gate_up_backward

        dy = inputs["dy"]
        return lambda: swiglu_fused_gate_up_backward(gu, dy, in_place=False).view(g3.shape)
    from liger_kernel.ops.swiglu import LigerFusedGateUpSiLUMulFunction

    apply = LigerFusedGateUpSiLUMulFunction.apply
    return lambda: apply(gu, False)
