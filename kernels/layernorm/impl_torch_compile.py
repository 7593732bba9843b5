"""torch.compile of the eager baseline (forward, and the written-out backward), compiled afresh
for every workload shape.

Dynamo stops recompiling after a few shapes (8 by default) and then silently runs eager code.
To measure compiled code at every workload, each new shape starts from `torch._dynamo.reset()`
with `fullgraph=True, dynamic=False` (a graph break raises instead of falling back), the
recompile limits are raised as a second guard, and Dynamo's counters are read after timing:
the result's note says how many graphs were compiled and whether any call recompiled.
"""

from __future__ import annotations

import torch

from . import register
from .eager import eager_layernorm, eager_layernorm_backward

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


def _compiled(fn, key):
    if key not in _cache:
        _cache.clear()
        torch._dynamo.reset()
        _raise_limits()
        _cache[key] = {"fn": torch.compile(fn, fullgraph=True, dynamic=False), "graphs_before": _graphs()}
    return _cache[key]


def _with_note(call, state):
    def note():
        compiled = _graphs() - state["graphs_before"]
        if compiled < 1:
            return "did NOT run compiled: Dynamo compiled no graph (eager fall-back)"
        extra = "" if compiled == 1 else f"; {compiled - 1} recompile(s) while measuring"
        return f"ran compiled (inductor, fullgraph, static shapes: {compiled} graph{extra})"

    call.kr_note = note
    call.kr_compiled = lambda: _graphs() - state["graphs_before"] >= 1
    return call


@register("layernorm-torch-compile", extra_sources=["eager.py"], kinds=("forward", "backward"))
def layernorm_torch_compile(inputs, case):
    eps = float(case.params["eps"])
    x, w = inputs["x"], inputs["weight"]
    key = (case.kind, tuple(x.shape), x.dtype, x.device.type, w.dtype, eps)
    if case.kind == "forward":
        state = _compiled(eager_layernorm, key)
        fn = state["fn"]
        b = inputs["bias"]
        return _with_note(lambda: fn(x, w, b, eps), state)
    state = _compiled(eager_layernorm_backward, key)
    fn = state["fn"]
    dy, mean, rstd = inputs["dy"], inputs["mean"], inputs["rstd"]
    return _with_note(lambda: fn(dy, x, w, mean, rstd), state)
