"""Random shapes for `kernel-records bench --random N --seed S` (the family's `sample_shapes`
hook), declared for the shared sampler (site_builder/runner/shapes.py). Standard library only.

The axes of swiglu's sampler (kernels/swiglu/shapes.py), seeded by this family's own id: tokens
log-uniform in [1, 32768]; intermediate log-uniform in [1024, 32768], on even draws rounded to
a multiple of 64, on odd ones arbitrary; bfloat16; kind forward or backward (1/2 each). gate_up
holds 2 x tokens x intermediate elements, so the cap is half swiglu's: a draw of more than 2^29
(tokens x intermediate) has its tokens cut to 2^29 // intermediate; KR_BENCH_MAX_ELEMENTS=<n>
lowers that cap (CPU dry runs), never raises it.
"""

from __future__ import annotations

from site_builder.runner.family import Shape
from site_builder.runner.shapes import Cap, Sampler

from ..swiglu.shapes import AXES, DTYPE, INTERMEDIATE, KIND, TOKENS  # noqa: F401  (the ranges, for tests)

MAX_ELEMENTS = 2**29

SAMPLER = Sampler("swiglu-fused", axes=AXES, dtype=DTYPE, kind=KIND,
                  caps=(Cap(("tokens", "intermediate"), MAX_ELEMENTS, cut="tokens"),))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    return SAMPLER.sample(n, seed)
