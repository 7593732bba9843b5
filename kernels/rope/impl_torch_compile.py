"""torch.compile of the eager baseline (impl_eager.py), per workload shape (compile_util.py)."""

from __future__ import annotations

from . import register
from .compile_util import compiled_call
from .impl_eager import apply_rotary_pos_emb, apply_rotary_pos_emb_backward


@register("rope-torch-compile", kinds=("forward", "backward"),
          extra_sources=["impl_eager.py", "compile_util.py"])
def rope_torch_compile(inputs, case):
    cos, sin = inputs["cos"], inputs["sin"]
    if "dq_embed" in inputs:
        return compiled_call(apply_rotary_pos_emb_backward, [inputs["dq_embed"], inputs["dk_embed"], cos, sin])
    return compiled_call(apply_rotary_pos_emb, [inputs["q"], inputs["k"], cos, sin])
