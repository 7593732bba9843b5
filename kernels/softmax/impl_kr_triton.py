"""Kernel Records' own Triton softmax (kr_triton.py), forward and backward."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton-softmax", requires=["triton"], extra_sources=["kr_triton.py", "../_row_access.py"],
          kinds=("forward", "backward"))
def kr_triton_softmax(inputs, case):
    first = inputs["x"] if case.kind == "forward" else inputs["y"]
    require_cuda(first, "kr-triton-softmax (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .kr_triton import softmax_backward, softmax_forward

    if case.kind == "forward":
        x = inputs["x"]
        return lambda: softmax_forward(x)
    y, dy = inputs["y"], inputs["dy"]
    return lambda: softmax_backward(y, dy)
