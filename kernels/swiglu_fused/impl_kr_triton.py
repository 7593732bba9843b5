"""Kernel Records' own Triton SwiGLU (kernels/swiglu/kr_triton.py) on the fused layout:
gate and up are column-offset views of gate_up, no copy."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import base, register


@register("kr-triton-swiglu", requires=["triton"], extra_sources=["../swiglu/kr_triton.py"])
def kr_triton_swiglu(inputs, params):
    gu = inputs["gate_up"]
    require_cuda(gu, "kr-triton-swiglu (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    kr = base.kr_triton if hasattr(base, "kr_triton") else _load()
    if "dy" in inputs:
        dy = inputs["dy"]
        return lambda: kr.swiglu_fused_backward(dy, gu)
    return lambda: kr.swiglu_fused_forward(gu)


def _load():
    import importlib

    return importlib.import_module(base.__name__ + ".kr_triton")
