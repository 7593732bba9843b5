"""Random inputs for one workload, reproducible from the run's recorded seed."""

from __future__ import annotations

from site_builder.runner.family import Case, generator, normal, uniform


def make_inputs(case: Case, seed: int, device) -> dict:
    """x and residual ~ N(0, 1), weight ~ U(0.5, 1.5): never zeros, all in the workload's dtype."""
    gen = generator(case, seed, device)
    x = normal(case.inputs["x"], gen, device)
    residual = normal(case.inputs["residual"], gen, device)
    weight = uniform(case.inputs["weight"], gen, device, 0.5, 1.5)
    return {"x": x, "residual": residual, "weight": weight}
