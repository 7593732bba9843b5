"""QuACK's LayerNorm (CuTe DSL; run when `quack-kernels` and `nvidia-cutlass-dsl` are installed):
forward `quack.rmsnorm.layernorm_fwd`, backward `quack.rmsnorm.layernorm_bwd` with the saved
mean and rstd."""

from __future__ import annotations

import torch

from site_builder.runner.registry import require_cuda

from . import register


@register("quack-layernorm", requires=["quack", "cutlass"], packages=["quack-kernels", "nvidia-cutlass-dsl"],
          kinds=("forward", "backward"))
def quack_layernorm(inputs, case):
    eps = float(case.params["eps"])
    x = inputs["x"]
    require_cuda(x, "QuACK")
    if case.kind == "forward":
        from quack.rmsnorm import layernorm_fwd

        # QuACK's forward takes float32 weight and bias only: widened once here, outside the
        # timing (exact: every bfloat16 and float16 value is a float32 value)
        w, b = inputs["weight"].to(torch.float32), inputs["bias"].to(torch.float32)

        def call():
            return layernorm_fwd(x, w, b, eps=eps)

        call.kr_note = lambda: "forward: weight and bias widened to float32 before timing (QuACK requires it)"
        return call
    from quack.rmsnorm import layernorm_bwd

    dy, w, mean, rstd = inputs["dy"], inputs["weight"], inputs["mean"], inputs["rstd"]

    def call():
        dx, dw, db = layernorm_bwd(x, w, dy, rstd, mean, has_bias=True)
        return dx, dw, db

    call.kr_note = lambda: "backward: quack.rmsnorm.layernorm_bwd (float32 partials per persistent program, summed by torch)"
    return call
