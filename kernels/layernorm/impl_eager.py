"""The designated baseline: LayerNorm written out in eager PyTorch ops (float32 throughout, one
rounding at the end, as torch's own layer norm), and its backward in the same ops."""

from __future__ import annotations

from . import register
from .eager import eager_layernorm_backward, eager_layernorm


@register("layernorm-eager", baseline=True, kinds=("forward", "backward"),
          extra_sources=["eager.py"])
def layernorm_eager(inputs, case):
    eps = float(case.params["eps"])
    if case.kind == "forward":
        x, w, b = inputs["x"], inputs["weight"], inputs["bias"]
        return lambda: eager_layernorm(x, w, b, eps)
    dy, x, w, mean, rstd = (inputs[k] for k in ("dy", "x", "weight", "mean", "rstd"))
    return lambda: eager_layernorm_backward(dy, x, w, mean, rstd)
