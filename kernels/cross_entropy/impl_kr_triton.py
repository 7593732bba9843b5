"""Kernel Records' own Triton cross-entropy (kr_triton.py): the loss; the loss and dlogits."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton-cross-entropy", requires=["triton"], extra_sources=["kr_triton.py"],
          kinds=("forward", "forward+backward"))
def kr_triton_ce(inputs, case):
    x, t = inputs["logits"], inputs["target"]
    require_cuda(x, "kr-triton-cross-entropy (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .kr_triton import cross_entropy, cross_entropy_fwd_bwd

    ii = int(case.params["ignore_index"])
    if case.kind == "forward":
        return lambda: cross_entropy(x, t, ii)
    return lambda: cross_entropy_fwd_bwd(x, t, ii)
