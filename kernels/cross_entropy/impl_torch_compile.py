"""torch.compile of F.cross_entropy, compiled afresh for every shape and kind (see the softmax
family's impl_torch_compile.py for why: Dynamo falls back to eager after 8 shapes). Forward +
backward: torch.autograd.grad through the compiled forward (AOTAutograd compiles the backward)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from . import register
from .impl_eager import loss_and_grad

_cache: dict[tuple, dict] = {}


def _raise_limits():
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(config, name):
            setattr(config, name, 256)
    for name in ("accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(config, name):
            setattr(config, name, 4096)


def _graphs() -> int:
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


@register("ce-torch-compile", extra_sources=["impl_eager.py"], kinds=("forward", "forward+backward"))
def ce_torch_compile(inputs, case):
    x, t = inputs["logits"], inputs["target"]
    ii = int(case.params["ignore_index"])
    key = (case.kind, tuple(x.shape), x.dtype, x.device.type, ii)
    if key not in _cache:
        _cache.clear()
        torch._dynamo.reset()
        _raise_limits()

        def ce(logits, target):
            return F.cross_entropy(logits, target, ignore_index=ii)

        _cache[key] = {"fn": torch.compile(ce, fullgraph=True, dynamic=False), "graphs_before": _graphs()}
    state = _cache[key]
    fn = state["fn"]
    if case.kind == "forward":
        def call():
            return fn(x, t)
    else:
        def call():
            return loss_and_grad(fn, x, t)

    def note():
        compiled = _graphs() - state["graphs_before"]
        if compiled < 1:
            return "did NOT run compiled: Dynamo compiled no graph (eager fall-back)"
        extra = "" if compiled == 1 else f"; {compiled - 1} recompile(s) while measuring"
        return f"ran compiled (inductor, fullgraph, static shapes: {compiled} graph{extra})"

    call.kr_note = note
    call.kr_compiled = lambda: _graphs() - state["graphs_before"] >= 1
    return call
