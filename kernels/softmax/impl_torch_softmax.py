"""PyTorch's built-in softmax kernels: torch.softmax forward, torch._softmax_backward_data backward."""

from __future__ import annotations

import torch

from . import register


@register("torch-softmax", kinds=("forward", "backward"))
def torch_softmax(inputs, case):
    if case.kind == "forward":
        x = inputs["x"]
        return lambda: torch.softmax(x, -1)
    y, dy = inputs["y"], inputs["dy"]
    return lambda: torch._softmax_backward_data(dy, y, -1, y.dtype)
