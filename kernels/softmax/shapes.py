"""Random shapes for `kernel-records bench --random N --seed S` (the family's `sample_shapes`
hook), declared for the shared sampler (site_builder/runner/shapes.py). Standard library only.

rows log-uniform in [1, 32768] (decode sampling to training tokens, and heads × queries of
eager attention); cols in [1024, 262144] by draw index i: i % 3 == 0 one of the vocabularies
32000, 128256, 151936, 262144 (1/4 each), i % 3 == 1 log-uniform rounded to a multiple of 64,
i % 3 == 2 log-uniform and arbitrary (odd and prime lengths included); dtype bfloat16 (2/3) or
float32 (1/3); kind forward or backward (1/2 each). A draw of more than 2^30 elements (rows x
cols, the largest of the record's workloads, 4096 x 262144) has its rows cut to 2^30 // cols;
KR_BENCH_MAX_ELEMENTS=<n> lowers that cap (CPU dry runs), never raises it.
"""

from __future__ import annotations

from site_builder.runner.family import Shape
from site_builder.runner.shapes import Cap, Choice, Cycle, LogUniform, Sampler

ROWS = (1, 32768)
COLS = (1024, 262144)
VOCABS = (32000, 128256, 151936, 262144)
MAX_ELEMENTS = 2**30

SAMPLER = Sampler(
    "softmax",
    axes={"rows": LogUniform(*ROWS),
          "cols": Cycle(Choice(VOCABS), LogUniform(*COLS, multiple=64), LogUniform(*COLS))},
    dtype=Choice(("bfloat16", "float32"), weights=(2, 1)),
    kind=Choice(("forward", "backward")),
    caps=(Cap(("rows", "cols"), MAX_ELEMENTS, cut="rows"),))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    return SAMPLER.sample(n, seed)
