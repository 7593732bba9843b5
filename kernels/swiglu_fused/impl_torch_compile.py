"""torch.compile of the fused-layout eager baseline (impl_eager.py), per workload shape."""

from __future__ import annotations

from ..swiglu.compile_util import compiled_call
from . import register
from .impl_eager import hf_swiglu_fused, hf_swiglu_fused_backward


@register("swiglu-torch-compile", kinds=("forward", "backward"),
          extra_sources=["impl_eager.py", "../swiglu/compile_util.py"])
def swiglu_torch_compile(inputs, case):
    if "dy" in inputs:
        return compiled_call(hf_swiglu_fused_backward, [inputs["dy"], inputs["gate_up"]])
    return compiled_call(hf_swiglu_fused, [inputs["gate_up"]])
