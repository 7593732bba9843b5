"""FlashInfer's LayerNorm (`flashinfer.norm.layernorm`: its CuTe DSL kernel; run when
`flashinfer-python` and `nvidia-cutlass-dsl` are installed). Forward only, bfloat16 input with
float32 weight and bias, as its documentation states; FlashInfer has no LayerNorm backward."""

from __future__ import annotations

import torch

from site_builder.runner.registry import Unsupported, require_cuda

from . import register


@register("flashinfer-layernorm", requires=["flashinfer", "cutlass"],
          packages=["flashinfer-python", "nvidia-cutlass-dsl"], kinds=("forward",))
def flashinfer_layernorm(inputs, case):
    eps = float(case.params["eps"])
    x = inputs["x"]
    require_cuda(x, "FlashInfer")
    if x.dtype != torch.bfloat16:
        raise Unsupported(f"FlashInfer's layernorm takes bfloat16 input only, not {x.dtype}")
    from flashinfer.norm import layernorm

    # float32 weight and bias, widened once here, outside the timing (exact for bfloat16 values)
    w, b = inputs["weight"].to(torch.float32), inputs["bias"].to(torch.float32)

    def call():
        return layernorm(x, w, b, eps)

    call.kr_note = lambda: "weight and bias widened to float32 before timing (FlashInfer requires it)"
    return call
