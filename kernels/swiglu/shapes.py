"""Random shapes for `kernel-records bench --random N --seed S` (the family's `sample_shapes`
hook), declared for the shared sampler (site_builder/runner/shapes.py); swiglu-fused
(kernels/swiglu_fused/shapes.py) draws the same axes. Standard library only.

tokens log-uniform in [1, 32768] (decode batches to training micro-batches); intermediate
log-uniform in [1024, 32768], on even draws rounded to a multiple of 64, on odd ones arbitrary
(odd and prime widths included); bfloat16; kind forward or backward (1/2 each). A draw of more
than 2^30 elements (tokens x intermediate; the record's largest is 32768 x 28672) has its tokens
cut to 2^30 // intermediate; KR_BENCH_MAX_ELEMENTS=<n> lowers that cap (CPU dry runs), never
raises it.
"""

from __future__ import annotations

from site_builder.runner.family import Shape
from site_builder.runner.shapes import Cap, Choice, Cycle, Fixed, LogUniform, Sampler

TOKENS = (1, 32768)
INTERMEDIATE = (1024, 32768)
MAX_ELEMENTS = 2**30
AXES = {"tokens": LogUniform(*TOKENS),
        "intermediate": Cycle(LogUniform(*INTERMEDIATE, multiple=64), LogUniform(*INTERMEDIATE))}
DTYPE = Fixed("bfloat16")
KIND = Choice(("forward", "backward"))

SAMPLER = Sampler("swiglu", axes=AXES, dtype=DTYPE, kind=KIND,
                  caps=(Cap(("tokens", "intermediate"), MAX_ELEMENTS, cut="tokens"),))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    return SAMPLER.sample(n, seed)
