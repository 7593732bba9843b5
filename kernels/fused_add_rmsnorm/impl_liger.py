"""Liger-Kernel's fused add + RMSNorm (run when `liger-kernel` is installed)."""

from __future__ import annotations

from site_builder.runner.registry import Unsupported, require_cuda

from . import register


@register("liger-fused", requires=["liger_kernel", "triton"], packages=["liger-kernel"])
def liger_fused(inputs, params):
    """Liger-Kernel's fused add + RMSNorm, "llama" casting mode, residual not overwritten."""
    x, r, w, eps = inputs["x"], inputs["residual"], inputs["weight"], float(params["eps"])
    require_cuda(x, "Liger-Kernel")
    from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction
    from liger_kernel.ops.utils import calculate_settings

    try:
        calculate_settings(x.shape[-1])  # Liger's own limit on the row length
    except RuntimeError as exc:
        raise Unsupported(f"Liger-Kernel refuses this row length: {exc}") from None
    apply = LigerFusedAddRMSNormFunction.apply

    def call():
        return apply(x, r, w, eps, 0.0, "llama", False)

    return call
