"""Liger-Kernel's RMSNorm (run when `liger-kernel` is installed): forward through
LigerRMSNormFunction, backward through the function its autograd backward calls."""

from __future__ import annotations

from site_builder.runner.registry import Unsupported, require_cuda

from . import register


@register("liger-rms-norm", requires=["liger_kernel", "triton"], packages=["liger-kernel"],
          kinds=("forward", "backward"), destroys=("dy",))
def liger_rms_norm(inputs, case):
    """"llama" casting mode (Transformers' numerics); backward in place (dx written over dy),
    Liger's default in training."""
    eps = float(case.params["eps"])
    x = inputs["x"]
    require_cuda(x, "Liger-Kernel")
    from liger_kernel.ops.utils import calculate_settings

    try:
        block, warps = calculate_settings(x.shape[-1])  # Liger's own limit on the row length
    except RuntimeError as exc:
        raise Unsupported(f"Liger-Kernel refuses this row length: {exc}") from None
    if case.kind == "forward":
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction

        apply, w = LigerRMSNormFunction.apply, inputs["weight"]
        return lambda: apply(x, w, eps, 0.0, "llama", False, None)
    from liger_kernel.ops.rms_norm import _str_to_casting_mode, rms_norm_backward

    dy, w, rstd = inputs["dy"], inputs["weight"], inputs["rstd"]
    mode = _str_to_casting_mode["llama"]

    def call():
        return rms_norm_backward(dy, x, w, rstd, 0.0, mode, block, warps, True, None)

    call.kr_note = lambda: "backward: liger_kernel.ops.rms_norm.rms_norm_backward, in place (dx over dy)"
    return call
