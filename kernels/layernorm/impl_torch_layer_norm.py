"""PyTorch's built-in `torch.nn.functional.layer_norm`; backward: aten.native_layer_norm_backward,
the op its autograd calls, given the saved mean and rstd."""

from __future__ import annotations

import torch

from . import register


@register("torch-f-layer-norm", kinds=("forward", "backward"))
def torch_f_layer_norm(inputs, case):
    eps = float(case.params["eps"])
    if case.kind == "forward":
        x, w, b = inputs["x"], inputs["weight"], inputs["bias"]
        shape = (x.shape[-1],)
        return lambda: torch.nn.functional.layer_norm(x, shape, w, b, eps)
    dy, x, w, mean, rstd = (inputs[k] for k in ("dy", "x", "weight", "mean", "rstd"))
    shape = [x.shape[-1]]
    if x.device.type == "cuda":
        m, r = mean.view(-1, 1), rstd.view(-1, 1)
        op = torch.ops.aten.native_layer_norm_backward
        # the bias argument only gives dbias its shape and dtype (the weight's): the weight stands in

        def call():
            return op(dy, x, shape, m, r, w, w, [True, True, True])

        call.kr_note = lambda: ("backward: aten.native_layer_norm_backward (what F.layer_norm's autograd runs) "
                                "given mean, rstd")
        return call

    # CPU (runner tests only, never a published result): the CPU op keeps its statistics and
    # dweight/dbias sums in the input dtype; autograd of F.layer_norm in float32 instead
    def call():
        xg = x.detach().float().requires_grad_(True)
        wg = w.detach().float().requires_grad_(True)
        bg = torch.zeros_like(wg).requires_grad_(True)
        with torch.enable_grad():
            y = torch.nn.functional.layer_norm(xg, (shape[0],), wg, bg, eps)
            dx, dw, db = torch.autograd.grad(y, (xg, wg, bg), dy.float())
        return dx.to(x.dtype), dw.to(w.dtype), db.to(w.dtype)

    call.kr_note = lambda: "backward on CPU: autograd of F.layer_norm in float32 (no CUDA op there)"
    return call
