"""Registers the plain tutorial-style Triton matmul (tutorial.py) under `triton-tutorial-matmul`."""

from __future__ import annotations

from site_builder.runner.registry import require_cuda

from . import register


@register("triton-tutorial-matmul", requires=["triton"], extra_sources=["tutorial.py"])
def triton_tutorial_matmul(inputs, case):
    a, b = inputs["a"], inputs["b"]
    require_cuda(a, "triton-tutorial-matmul (on a CPU only under TRITON_INTERPRET=1, in its tests)")
    from .tutorial import autotuned_kernel, matmul

    def call():
        return matmul(a, b)

    def note():
        best = getattr(autotuned_kernel, "best_config", None)
        return f"triton.autotune picked {best}" if best is not None else None

    call.kr_note = note
    return call
