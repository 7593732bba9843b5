"""The designated baseline: the eager PyTorch code users write (Transformers' LlamaRMSNorm, and
its backward written out in the same ops)."""

from __future__ import annotations

from . import register
from .eager import eager_rmsnorm, eager_rmsnorm_backward


@register("rmsnorm-eager", baseline=True, kinds=("forward", "backward"),
          extra_sources=["eager.py"])
def rmsnorm_eager(inputs, case):
    eps = float(case.params["eps"])
    if case.kind == "forward":
        x, w = inputs["x"], inputs["weight"]
        return lambda: eager_rmsnorm(x, w, eps)
    dy, x, w, rstd = inputs["dy"], inputs["x"], inputs["weight"], inputs["rstd"]
    return lambda: eager_rmsnorm_backward(dy, x, w, rstd)
