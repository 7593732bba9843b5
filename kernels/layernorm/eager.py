"""The eager PyTorch code of the baseline (forward and backward), shared by impl_eager.py
and impl_torch_compile.py (which compiles it); no registration here."""

from __future__ import annotations

import torch


def eager_layernorm(x, weight, bias, eps: float, acc=torch.float32):
    xf = x.to(acc)
    mean = xf.mean(-1, keepdim=True)
    xc = xf - mean
    var = xc.pow(2).mean(-1, keepdim=True)
    y = xc * torch.rsqrt(var + eps) * weight.to(acc) + bias.to(acc)
    return y.to(torch.promote_types(x.dtype, weight.dtype))


def eager_layernorm_backward(dy, x, weight, mean, rstd, acc=torch.float32):
    """The backward of `eager_layernorm` given the saved float32 mean and rstd, in float32
    (`acc`, which the float64 tests replace)."""
    r = rstd.unsqueeze(-1)
    xhat = (x.to(acc) - mean.unsqueeze(-1)) * r
    dyf = dy.to(acc)
    g = dyf * weight.to(acc)
    dx = r * (g - xhat * (g * xhat).mean(-1, keepdim=True) - g.mean(-1, keepdim=True))
    dweight = (dyf * xhat).sum(0)
    dbias = dyf.sum(0)
    return dx.to(x.dtype), dweight.to(weight.dtype), dbias.to(weight.dtype)
