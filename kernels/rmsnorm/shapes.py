"""Shapes beyond the family record's workloads, for `kernel-records bench --random N --seed S`
and the sweeps of lab/norms (the family's `sample_shapes` hook), declared for the shared sampler
(site_builder/runner/shapes.py). Standard library only.

Random shapes: rows log-uniform in [1, 32768]; hidden log-uniform in [128, 32768], every other
one rounded to a multiple of 64 and the rest left arbitrary (odd and prime sizes included);
dtype bfloat16, float16 or float32 (1/3 each); kind forward or backward (1/2 each). A draw of
more than 2^26 elements (rows x hidden) has its rows cut to 2^26 // hidden, so that one input
set with its float64 reference stays small beside the rotating sets; KR_BENCH_MAX_ELEMENTS=<n>
lowers that cap (CPU dry runs), never raises it.
"""

from __future__ import annotations

from site_builder.runner.shapes import Cap, Choice, Cycle, LogUniform, Sampler

ROWS = (1, 32768)
HIDDEN = (128, 32768)
MAX_ELEMENTS = 2**26
DTYPES = ("bfloat16", "float16", "float32")
KINDS = ("forward", "backward")

def row_norm_sampler(family: str) -> Sampler:
    """The random shapes of a row-wise norm family (rmsnorm, layernorm: the same ranges; the
    draws differ by the family name, which seeds them)."""
    return Sampler(
        family,
        axes={"rows": LogUniform(*ROWS),
              "hidden": Cycle(LogUniform(*HIDDEN, multiple=64), LogUniform(*HIDDEN))},  # even draws: a multiple of 64
        dtype=Choice(DTYPES),
        kind=Choice(KINDS),
        caps=(Cap(("rows", "hidden"), MAX_ELEMENTS, cut="rows"),))


SAMPLER = row_norm_sampler("rmsnorm")


def sample_shapes(n: int, seed: int) -> list:
    return SAMPLER.sample(n, seed)
