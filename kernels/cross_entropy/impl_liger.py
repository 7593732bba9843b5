"""Liger-Kernel's cross-entropy, `LigerCrossEntropyFunction` (run when `liger-kernel` is installed).

Its forward writes the gradient (already scaled by 1 / n_valid) INTO THE LOGITS when they
require grad; its backward, for an upstream gradient of 1, checks that on the device
(`torch.equal`, a host sync) and returns that same tensor. So it is registered with `destroys`:
the runner hands it logits it may overwrite, and its dlogits alias them. In the forward kind the
logits do not require grad and are left as they were (the runner still gives it its own copy).
Its forward counts the counted targets with `.item()` (a host sync), so it cannot be captured in
a CUDA graph: the runner then times it with events (the result's note says so), host syncs
included, as a training step pays them.
"""

from __future__ import annotations

import torch

from site_builder.runner.registry import require_cuda

from . import register


@register("liger-cross-entropy", requires=["liger_kernel", "triton"], packages=["liger-kernel"],
          kinds=("forward", "forward+backward"), destroys=("logits",))
def liger_ce(inputs, case):
    x, t = inputs["logits"], inputs["target"]
    require_cuda(x, "Liger-Kernel")
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction

    ii = int(case.params["ignore_index"])
    apply = LigerCrossEntropyFunction.apply
    # (logits, target, weight, ignore_index, lse_square_scale, label_smoothing, reduction,
    #  softcap, return_z_loss, return_token_accuracy, return_predicted_tokens)
    rest = (None, ii, 0.0, 0.0, "mean", None, False, False, False)
    if case.kind == "forward":
        def call():
            return apply(x, t, *rest)[0]

        call.kr_note = lambda: "loss only: the logits do not require grad and are not written"
        return call
    xg = x.detach().requires_grad_(True)  # the same storage: Liger writes the gradient there

    def call():
        loss = apply(xg, t, *rest)[0]
        (grad,) = torch.autograd.grad(loss, xg)
        return loss.detach(), grad

    call.kr_note = lambda: ("dlogits written in place of the logits; the timed calls after the first run "
                            "on the previous call's gradient (the same work)")
    return call
