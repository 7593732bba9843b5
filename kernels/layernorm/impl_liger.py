"""Liger-Kernel's LayerNorm (run when `liger-kernel` is installed): forward through
LigerLayerNormFunction, backward through the function its autograd backward calls."""

from __future__ import annotations

from site_builder.runner.registry import Unsupported, require_cuda

from . import register


@register("liger-layer-norm", requires=["liger_kernel", "triton"], packages=["liger-kernel"],
          kinds=("forward", "backward"))
def liger_layer_norm(inputs, case):
    eps = float(case.params["eps"])
    x = inputs["x"]
    require_cuda(x, "Liger-Kernel")
    from liger_kernel.ops.utils import calculate_settings

    try:
        calculate_settings(x.shape[-1])  # Liger's own limit on the row length
    except RuntimeError as exc:
        raise Unsupported(f"Liger-Kernel refuses this row length: {exc}") from None
    if case.kind == "forward":
        from liger_kernel.ops.layer_norm import LigerLayerNormFunction

        apply, w, b = LigerLayerNormFunction.apply, inputs["weight"], inputs["bias"]
        return lambda: apply(x, w, b, eps)
    from liger_kernel.ops.layer_norm import layer_norm_backward

    dy, w, mean, rstd = inputs["dy"], inputs["weight"], inputs["mean"], inputs["rstd"]

    def call():
        # the bias argument only gives dbias its dtype (the weight's): the weight stands in
        return layer_norm_backward(dy, x, w, w, mean, rstd)

    call.kr_note = lambda: "backward: liger_kernel.ops.layer_norm.layer_norm_backward"
    return call
