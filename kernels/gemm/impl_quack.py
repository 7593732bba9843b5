"""QuACK's GEMM (CuTe DSL; run when `quack-kernels` is installed), default configuration."""

from __future__ import annotations

from site_builder.runner.registry import Unsupported, require_cuda

from . import register


@register("quack-gemm", requires=["quack", "cutlass"], packages=["quack-kernels", "nvidia-cutlass-dsl"])
def quack_gemm(inputs, case):
    a, b = inputs["a"], inputs["b"]
    require_cuda(a, "QuACK")
    try:
        from quack.gemm_interface import gemm as quack_gemm_fn
    except ImportError as exc:  # a QuACK without this entry point
        raise Unsupported(f"this quack-kernels has no quack.gemm_interface.gemm: {exc}") from None
    bt = b.T  # [K, N] view of the [N, K] weight: QuACK computes A @ B
    return lambda: quack_gemm_fn(a, bt)
