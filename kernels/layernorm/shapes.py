"""Shapes beyond the family record's workloads, for `kernel-records bench --random N --seed S`
and the sweeps of lab/norms (the family's `sample_shapes` hook): the ranges of RMSNorm's
(kernels/rmsnorm/shapes.py, `row_norm_sampler`), drawn under this family's name. Standard
library only.
"""

from __future__ import annotations

from ..rmsnorm.shapes import DTYPES, HIDDEN, KINDS, MAX_ELEMENTS, ROWS, row_norm_sampler  # noqa: F401

SAMPLER = row_norm_sampler("layernorm")


def sample_shapes(n: int, seed: int) -> list:
    return SAMPLER.sample(n, seed)
