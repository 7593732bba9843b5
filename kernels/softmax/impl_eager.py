"""The designated baseline: the float32 softmax formula eager code writes, forward and backward."""

from __future__ import annotations

from . import register


def eager_forward(x):
    xf = x.float()
    e = (xf - xf.amax(-1, keepdim=True)).exp()
    return (e / e.sum(-1, keepdim=True)).to(x.dtype)


def eager_backward(y, dy):
    yf, dyf = y.float(), dy.float()
    return (yf * (dyf - (yf * dyf).sum(-1, keepdim=True))).to(dy.dtype)


@register("softmax-eager", baseline=True, kinds=("forward", "backward"))
def softmax_eager(inputs, case):
    if case.kind == "forward":
        x = inputs["x"]
        return lambda: eager_forward(x)
    y, dy = inputs["y"], inputs["dy"]
    return lambda: eager_backward(y, dy)
