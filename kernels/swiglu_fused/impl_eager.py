"""The baseline on the fused layout: the eager Hugging Face formula on the two halves of
gate_up (`gate, up = gate_up.chunk(2, -1)`, views, no copy), as a fused-projection MLP runs it.
Backward: autograd's kernels for that expression, dgate and dup written into one dgate_up
(`torch.cat`, as autograd's backward of `chunk` does)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from . import register


def hf_swiglu_fused(gate_up):
    gate, up = gate_up.chunk(2, dim=-1)
    return F.silu(gate) * up


def hf_swiglu_fused_backward(dy, gate_up):
    gate, up = gate_up.chunk(2, dim=-1)
    dup = dy * F.silu(gate)
    dgate = torch.ops.aten.silu_backward(dy * up, gate)
    return torch.cat([dgate, dup], dim=-1)


@register("swiglu-eager", kinds=("forward", "backward"), baseline=True)
def swiglu_eager(inputs, case):
    g3 = inputs["gate_up"]  # [tokens, 2, intermediate]: the memory of [tokens, 2 x intermediate]
    gu = g3.view(g3.shape[0], -1)
    if "dy" in inputs:
        dy = inputs["dy"]
        return lambda: hf_swiglu_fused_backward(dy, gu).view(g3.shape)
    return lambda: hf_swiglu_fused(gu)
