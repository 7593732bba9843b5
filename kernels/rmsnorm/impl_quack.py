"""QuACK's RMSNorm (CuTe DSL; run when `quack-kernels` and `nvidia-cutlass-dsl` are installed):
forward `quack.rmsnorm.rmsnorm_fwd`, backward `quack.rmsnorm.rmsnorm_bwd` with the saved rstd."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("quack-rmsnorm", requires=["quack", "cutlass"], packages=["quack-kernels", "nvidia-cutlass-dsl"],
          kinds=("forward", "backward"))
def quack_rmsnorm(inputs, case):
    eps = float(case.params["eps"])
    x = inputs["x"]
    require_cuda(x, "QuACK")
    if case.kind == "forward":
        from quack.rmsnorm import rmsnorm_fwd

        w = inputs["weight"]

        def call():
            return rmsnorm_fwd(x, w, eps=eps)[0]

        return call
    from quack.rmsnorm import rmsnorm_bwd

    dy, w, rstd = inputs["dy"], inputs["weight"], inputs["rstd"]

    def call():
        dx, dw, _, _ = rmsnorm_bwd(x, w, dy, rstd)
        return dx, dw

    call.kr_note = lambda: "backward: quack.rmsnorm.rmsnorm_bwd (float32 partials per persistent program, summed by torch)"
    return call
