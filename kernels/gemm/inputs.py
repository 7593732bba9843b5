"""Random inputs for one GEMM case, reproducible from the run's seed: a ~ N(0, 1) [M, K] and
b ~ N(0, 1/K) [N, K] (a weight scaled as a trained linear layer's, so that |c| ~ 1 at every K),
drawn in float32 and rounded to the workload dtype; never zeros."""

from __future__ import annotations

import math

from site_builder.runner.family import Case, generator, normal


def make_inputs(case: Case, seed: int, device) -> dict:
    gen = generator(case, seed, device)
    a = normal(case.inputs["a"], gen, device)
    b = normal(case.inputs["b"], gen, device, std=1.0 / math.sqrt(max(1, case.sizes["k"])))
    return {"a": a, "b": b}
