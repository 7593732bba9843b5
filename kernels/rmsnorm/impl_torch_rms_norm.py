"""PyTorch's built-in `torch.nn.functional.rms_norm`; backward: the fused op its autograd calls."""

from __future__ import annotations

import torch

from site_builder.runner.registry import Unsupported

from . import register


@register("torch-f-rms-norm", kinds=("forward", "backward"))
def torch_f_rms_norm(inputs, case):
    eps = float(case.params["eps"])
    if case.kind == "forward":
        x, w = inputs["x"], inputs["weight"]
        shape = (x.shape[-1],)
        return lambda: torch.nn.functional.rms_norm(x, shape, w, eps)
    dy, x, w, rstd = inputs["dy"], inputs["x"], inputs["weight"], inputs["rstd"]
    shape = [x.shape[-1]]
    op = getattr(torch.ops.aten, "_fused_rms_norm_backward", None)
    if x.device.type == "cuda":
        if op is None:
            raise Unsupported(f"torch {torch.__version__} has no aten._fused_rms_norm_backward")
        r = rstd.view(-1, 1)

        def call():
            dx, dw = op(dy, x, shape, r, w, [True, True])
            return dx, dw

        call.kr_note = lambda: "backward: aten._fused_rms_norm_backward (what F.rms_norm's autograd runs) given rstd"
        return call

    # CPU (runner tests): torch has no fused backward there; autograd of F.rms_norm instead
    def call():
        xg = x.detach().requires_grad_(True)
        wg = w.detach().requires_grad_(True)
        with torch.enable_grad():
            y = torch.nn.functional.rms_norm(xg, (shape[0],), wg, eps)
            dx, dw = torch.autograd.grad(y, (xg, wg), dy)
        return dx, dw

    call.kr_note = lambda: "backward on CPU: autograd of F.rms_norm (no fused backward op there)"
    return call
