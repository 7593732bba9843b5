"""Random inputs for one SwiGLU case, reproducible from the run's recorded seed.

gate, up and dy ~ N(0, 1), drawn in float32 and rounded to the workload dtype: never zeros,
and a spread of silu's input that covers both its near-linear and its saturating sides. The
case's kind says which tensors it has (forward: gate, up; backward: dy, gate, up; the fused
layout of swiglu-fused: gate_up, declared and made [tokens, halves = 2, intermediate], contiguous:
the memory of the [tokens, 2 x intermediate] tensor a fused projection produces, which the
implementations see through `.view(tokens, 2 * intermediate)`).
"""

from __future__ import annotations

from site_builder.runner.family import Case, generator, normal


def make_inputs(case: Case, seed: int, device) -> dict:
    gen = generator(case, seed, device)
    out = {}
    for name, spec in case.inputs.items():  # in the record's order: the draw is fixed by the seed
        out[name] = normal(spec, gen, device)
    return out
