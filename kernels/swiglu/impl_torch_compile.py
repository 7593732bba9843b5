"""torch.compile of the eager baseline (impl_eager.py), per workload shape (compile_util.py)."""

from __future__ import annotations

from . import register
from .compile_util import compiled_call
from .impl_eager import hf_swiglu, hf_swiglu_backward


@register("swiglu-torch-compile", kinds=("forward", "backward"),
          extra_sources=["impl_eager.py", "compile_util.py"])
def swiglu_torch_compile(inputs, case):
    if "dy" in inputs:
        return compiled_call(hf_swiglu_backward, [inputs["dy"], inputs["gate"], inputs["up"]])
    return compiled_call(hf_swiglu, [inputs["gate"], inputs["up"]])
