"""Shapes beyond the family record's workloads, for `kernel-records bench --random N --seed S`
and `--models` (the family's `sample_shapes` and `shape_set` hooks); the random shapes are declared for the
shared sampler (site_builder/runner/shapes.py). Standard library only.

Random shapes: rows log-uniform in [1, 65536]; hidden log-uniform in [256, 131072], half of them
rounded to a multiple of 64 and half left arbitrary (odd and prime sizes included); dtype one of
bfloat16, float16, float32 and bfloat16 input with a float32 weight (then y is float32, torch's
promotion, as the kernel and the Transformers baseline return it), each with probability 1/4.
A draw of more than 2^29 elements (rows x hidden) has its rows cut to 2^29 // hidden, so that one
input set with its float64 reference stays within a GPU's memory (at most 8.6 GB of fp32 I/O);
KR_BENCH_MAX_ELEMENTS=<n> lowers that cap (CPU dry runs of the lab scripts), never raises it.

Model sizes: the hidden sizes of current open models at 1, 16, 64, 256, 1024, 4096 and 16384
rows, in bfloat16.
"""

from __future__ import annotations

from site_builder.runner.family import Shape
from site_builder.runner.shapes import Cap, Choice, Cycle, LogUniform, Sampler

ROWS = (1, 65536)
HIDDEN = (256, 131072)
MAX_ELEMENTS = 2**29
#: (x dtype, tensor dtypes that differ from it)
DTYPES = (("bfloat16", {}), ("float16", {}), ("float32", {}),
          ("bfloat16", {"weight": "float32", "y": "float32"}))
MODEL_HIDDEN = (2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192, 12288, 14336, 16384, 18432, 28672)
MODEL_ROWS = (1, 16, 64, 256, 1024, 4096, 16384)

SAMPLER = Sampler(
    "fused-add-rmsnorm",
    # even draws a multiple of 64 (alternating, so both kinds are always in the set)
    axes={"rows": LogUniform(*ROWS), "hidden": Cycle(LogUniform(*HIDDEN, multiple=64), LogUniform(*HIDDEN))},
    dtype=Choice(DTYPES),
    caps=(Cap(("rows", "hidden"), MAX_ELEMENTS, cut="rows"),))


def sample_shapes(n: int, seed: int) -> list[Shape]:
    return SAMPLER.sample(n, seed)


def model_shapes() -> list[Shape]:
    return [Shape(sizes={"rows": r, "hidden": h}, dtype="bfloat16") for h in MODEL_HIDDEN for r in MODEL_ROWS]


def smoke_shapes() -> list[Shape]:
    """A few small odd shapes of every dtype kind, for a CPU dry run of the lab scripts."""
    return [Shape(sizes={"rows": 3, "hidden": 1000}, dtype="float32"),
            Shape(sizes={"rows": 2, "hidden": 4097}, dtype="bfloat16"),
            Shape(sizes={"rows": 1, "hidden": 256}, dtype="float16"),
            Shape(sizes={"rows": 5, "hidden": 777}, dtype="bfloat16", tensors={"weight": "float32", "y": "float32"})]
