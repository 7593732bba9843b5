"""Shapes beyond the family record's workloads, for `kernel-records bench --random N --seed S`
and the sweeps of lab/norms (the family's `sample_shapes` hook). Standard library only.

Random shapes: rows log-uniform in [1, 32768]; hidden log-uniform in [128, 32768], every other
one rounded to a multiple of 64 and the rest left arbitrary (odd and prime sizes included);
dtype bfloat16, float16 or float32 (1/3 each); kind forward or backward (1/2 each). A draw of
more than 2^26 elements (rows x hidden) has its rows cut to 2^26 // hidden, so that one input
set with its float64 reference stays small beside the rotating sets; KR_BENCH_MAX_ELEMENTS=<n>
lowers that cap (CPU dry runs), never raises it.
"""

from __future__ import annotations

import math
import os
import random

from site_builder.runner.family import Shape

ROWS = (1, 32768)
HIDDEN = (128, 32768)
MAX_ELEMENTS = 2**26
DTYPES = ("bfloat16", "float16", "float32")
KINDS = ("forward", "backward")


def _log_uniform(rng: random.Random, low: int, high: int) -> int:
    return min(high, max(low, int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    rng = random.Random(f"layernorm shapes {seed}")
    out = []
    for i in range(n):
        rows = _log_uniform(rng, *ROWS)
        hidden = _log_uniform(rng, *HIDDEN)
        if i % 2 == 0:
            hidden = min(HIDDEN[1], max(HIDDEN[0], 64 * round(hidden / 64)))
        cap = min(MAX_ELEMENTS, int(os.environ.get("KR_BENCH_MAX_ELEMENTS") or MAX_ELEMENTS))
        rows = max(1, min(rows, cap // hidden))
        dtype = DTYPES[rng.randrange(len(DTYPES))]
        kind = KINDS[rng.randrange(len(KINDS))]
        out.append(Shape(sizes={"rows": rows, "hidden": hidden}, dtype=dtype, kind=kind))
    return out
