"""Registers Kernel Records' own Triton GEMM (kr_triton.py) under `kr-triton-gemm`."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("kr-triton-gemm", requires=["triton"], extra_sources=["kr_triton.py", "kr_triton_kernels.py"])
def kr_triton_gemm(inputs, case):
    a, b = inputs["a"], inputs["b"]
    require_cuda(a, "kr-triton-gemm (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .kr_triton import gemm, model_config

    cfg = model_config(a, b)  # the padded path's shape when it applies (kr_triton.needs_pad)
    call = lambda: gemm(a, b, config=cfg)  # the configuration is picked once, outside the timing
    call.kr_note = lambda: "configuration: " + ", ".join(f"{k}={v}" for k, v in sorted(cfg.items()))
    return call
