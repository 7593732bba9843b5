"""torch.compile of F.linear with mode="max-autotune", compiled afresh for every workload shape.

Inductor's autotuner times its Triton matmul templates (and cuBLAS) at the shape and keeps the
fastest. Each new shape starts from `torch._dynamo.reset()` with `fullgraph=True,
dynamic=False`, the recompile limits are raised as a second guard, and the compile time (the
first call, autotuning included) goes into the result's note with whether it ran compiled.
GPU only: on a CPU, max-autotune would tune C++ templates instead, a different thing.

A device session may warm Inductor's caches first (lab/gemm/prewarm.py, which times each
shape's cold compile and writes it to the JSON-lines file KR_GEMM_COMPILE_TIMES names); the
note then gives that cold time beside this process's (warm-cache) one.
"""

from __future__ import annotations

import json
import os
import time
from functools import lru_cache

import torch
import torch.nn.functional as F

from site_builder.runner.registry import require_cuda

from . import register

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


@lru_cache(maxsize=1)
def _cold_times() -> dict:
    """(m, n, k) -> cold compile seconds from the prewarm's file (empty without one)."""
    path = os.environ.get("KR_GEMM_COMPILE_TIMES")
    out = {}
    if path and os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            if line.strip():
                d = json.loads(line)
                out[tuple(d["shape"])] = d["compile_s"]
    return out


def _linear(a, b):
    return F.linear(a, b)


@register("gemm-torch-compile-max-autotune")
def gemm_torch_compile(inputs, case):
    a, b = inputs["a"], inputs["b"]
    require_cuda(a, "torch.compile max-autotune")
    key = (tuple(a.shape), tuple(b.shape), a.dtype)
    if key not in _cache:
        _cache.clear()
        torch._dynamo.reset()
        _raise_limits()
        fn = torch.compile(_linear, mode="max-autotune", fullgraph=True, dynamic=False)
        before = _graphs()
        t0 = time.perf_counter()
        fn(a, b)  # compile and autotune now, outside the timing
        torch.cuda.synchronize()
        _cache[key] = {"fn": fn, "graphs_before": before, "compile_s": time.perf_counter() - t0}
    state = _cache[key]
    fn = state["fn"]

    def call():
        return fn(a, b)

    def note():
        compiled = _graphs() - state["graphs_before"]
        if compiled < 1:
            return "did NOT run compiled: Dynamo compiled no graph (eager fall-back)"
        extra = "" if compiled == 1 else f"; {compiled - 1} recompile(s) while measuring"
        cold = _cold_times().get((a.shape[0], b.shape[0], a.shape[1]))
        took = (f"cold compile and autotune {cold:.1f} s (caches warmed before the run), "
                f"{state['compile_s']:.1f} s in this process" if cold is not None
                else f"compile and autotune {state['compile_s']:.1f} s")
        return f"ran compiled (inductor max-autotune, static shapes: {compiled} graph{extra}); {took}"

    call.kr_note = note
    call.kr_compiled = lambda: _graphs() - state["graphs_before"] >= 1
    return call
