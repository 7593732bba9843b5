"""Liger-Kernel's softmax (LigerSoftmaxFunction; run when `liger-kernel` is installed)."""

from __future__ import annotations

from types import SimpleNamespace

from site_builder.runner.registry import Unsupported, require_cuda

from . import register


@register("liger-softmax", requires=["liger_kernel", "triton"], packages=["liger-kernel"],
          kinds=("forward", "backward"))
def liger_softmax(inputs, case):
    first = inputs["x"] if case.kind == "forward" else inputs["y"]
    require_cuda(first, "Liger-Kernel")
    from liger_kernel.ops.softmax import LigerSoftmaxFunction
    from liger_kernel.ops.utils import calculate_settings

    try:
        block, warps = calculate_settings(first.shape[-1])  # Liger's own limit on the row length
    except RuntimeError as exc:
        raise Unsupported(f"Liger-Kernel refuses this row length: {exc}") from None
    if case.kind == "forward":
        x = inputs["x"]
        apply = LigerSoftmaxFunction.apply
        return lambda: apply(x)
    y, dy = inputs["y"], inputs["dy"]
    # its backward as autograd calls it, on a context like the one its forward fills
    ctx = SimpleNamespace(saved_tensors=(y,), BLOCK_SIZE=block, num_warps=warps,
                          multi_block_launch=y.shape[-1] > block)
    backward = LigerSoftmaxFunction.backward
    return lambda: backward(ctx, dy)
