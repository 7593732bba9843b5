"""The designated baseline and PyTorch's built-in: F.cross_entropy, its gradient by autograd."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from . import register


def loss_and_grad(fn, x, t):
    """(loss, dlogits) of `fn(logits, target)` by autograd, the logits left untouched."""
    xg = x.detach().requires_grad_(True)  # shares storage; x itself keeps requires_grad=False
    loss = fn(xg, t)
    (g,) = torch.autograd.grad(loss, xg)
    return loss.detach(), g


@register("ce-eager", baseline=True, kinds=("forward", "forward+backward"))
def ce_eager(inputs, case):
    x, t = inputs["logits"], inputs["target"]
    ii = int(case.params["ignore_index"])

    def fn(logits, target):
        return F.cross_entropy(logits, target, ignore_index=ii)

    if case.kind == "forward":
        return lambda: fn(x, t)
    return lambda: loss_and_grad(fn, x, t)
