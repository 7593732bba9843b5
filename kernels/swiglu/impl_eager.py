"""The designated baseline: the eager PyTorch code of Hugging Face's Llama MLP activation.

Forward: `act_fn(gate) * up` with `act_fn = nn.SiLU()` (LlamaMLP.forward, the projections left
out). Backward: the kernels autograd runs for that expression, given dy and the saved inputs:
silu recomputed (`F.silu`), `dup = dy * silu(gate)`, `dgate = silu_backward(dy * up, gate)`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from . import register


def hf_swiglu(gate, up):
    return F.silu(gate) * up


def hf_swiglu_backward(dy, gate, up):
    """What autograd computes for `F.silu(gate) * up` (aten's silu_backward for the silu)."""
    dup = dy * F.silu(gate)
    dgate = torch.ops.aten.silu_backward(dy * up, gate)
    return dgate, dup


@register("swiglu-eager", kinds=("forward", "backward"), baseline=True)
def swiglu_eager(inputs, case):
    if "dy" in inputs:
        dy, g, u = inputs["dy"], inputs["gate"], inputs["up"]
        return lambda: hf_swiglu_backward(dy, g, u)
    g, u = inputs["gate"], inputs["up"]
    return lambda: hf_swiglu(g, u)
