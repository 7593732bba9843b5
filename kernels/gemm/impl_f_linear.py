"""The designated baseline: `torch.nn.functional.linear(a, b)`, cuBLAS on a GPU (C = A · Bᵀ)."""

from __future__ import annotations

import torch.nn.functional as F

from . import register


@register("torch-f-linear", baseline=True)
def torch_f_linear(inputs, case):
    a, b = inputs["a"], inputs["b"]
    return lambda: F.linear(a, b)
