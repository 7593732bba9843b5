"""The eager PyTorch code of the baseline (forward and backward), shared by impl_eager.py
and impl_torch_compile.py (which compiles it); no registration here."""

from __future__ import annotations

import torch


def eager_rmsnorm(x, weight, eps: float, acc=torch.float32):
    """Transformers' `LlamaRMSNorm.forward`, line for line (`acc`: its float32, which the
    float64 tests replace)."""
    input_dtype = x.dtype
    hidden_states = x.to(acc)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + eps)
    return weight * hidden_states.to(input_dtype)


def eager_rmsnorm_backward(dy, x, weight, rstd, acc=torch.float32):
    """The backward of `eager_rmsnorm` in the ops autograd runs for it, given the saved rstd:
    dweight = sum(dy * normed) with normed rounded to the input dtype (the product rounded
    elementwise, the sum accumulated in float32), dx in float32 from dy * weight."""
    r = rstd.unsqueeze(-1)
    xhat = x.to(acc) * r
    dweight = (dy * xhat.to(x.dtype)).sum(0)
    g = (dy * weight).to(acc)
    dx = r * (g - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx.to(x.dtype), dweight.to(weight.dtype)
