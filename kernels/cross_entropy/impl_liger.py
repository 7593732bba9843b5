"""Liger-Kernel's cross-entropy (run when `liger-kernel` is installed).

`cross_entropy_forward` is what `LigerCrossEntropyFunction.forward` calls. With logits that
require grad it writes the gradient (for an upstream gradient of 1; the function's backward
then only returns that tensor) INTO THE LOGITS, so it is registered with `destroys`: the runner
hands it logits it may overwrite. In the forward kind the logits do not require grad and are
left as they were (the runner still gives it its own copy). Its forward counts the counted
targets with `.item()` (a host sync), so it cannot be captured in a CUDA graph; the runner then
times it with events (the result's note says so).
"""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("liger-cross-entropy", requires=["liger_kernel", "triton"], packages=["liger-kernel"],
          kinds=("forward", "forward+backward"), destroys=("logits",))
def liger_ce(inputs, case):
    x, t = inputs["logits"], inputs["target"]
    require_cuda(x, "Liger-Kernel")
    from liger_kernel.ops.cross_entropy import cross_entropy_forward

    ii = int(case.params["ignore_index"])
    if case.kind == "forward":
        def call():
            return cross_entropy_forward(x, t, None, ii, 0.0, 0.0, "mean", None, False)[0]

        call.kr_note = lambda: "loss only: the logits do not require grad and are not written"
        return call
    xg = x.detach().requires_grad_(True)  # the same storage: Liger writes the gradient there

    def call():
        loss, _, _, _, grad = cross_entropy_forward(xg, t, None, ii, 0.0, 0.0, "mean", None, False)
        return loss, grad.detach()

    call.kr_note = lambda: ("dlogits written in place of the logits; timed calls after the first run on "
                            "the previous call's gradient (the same work)")
    return call
