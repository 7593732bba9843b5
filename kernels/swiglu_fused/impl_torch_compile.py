"""torch.compile of the fused-layout eager baseline (impl_eager.py), per workload shape."""

from __future__ import annotations

from ..swiglu.compile_util import compiled_call
from . import register
from .impl_eager import hf_swiglu_fused, hf_swiglu_fused_backward


@register("swiglu-torch-compile", kinds=("forward", "backward"),
          extra_sources=["impl_eager.py", "../swiglu/compile_util.py"])
def swiglu_torch_compile(inputs, case):
    g3 = inputs["gate_up"]  # [tokens, 2, intermediate]: the memory of [tokens, 2 x intermediate]
    gu = g3.view(g3.shape[0], -1)
    if "dy" in inputs:
        call = compiled_call(hf_swiglu_fused_backward, [inputs["dy"], gu])

        def back():
            return call().view(g3.shape)

        back.kr_note, back.kr_compiled = call.kr_note, call.kr_compiled
        return back
    return compiled_call(hf_swiglu_fused, [gu])
