"""Random inputs for one RMSNorm case (forward or backward), reproducible from the run's seed."""

from __future__ import annotations

from site_builder.runner.family import Case, generator, normal, uniform


def make_inputs(case: Case, seed: int, device) -> dict:
    """x and dy ~ N(0, 1), weight ~ U(0.5, 1.5) (never zeros), in the case's dtypes; for the
    backward kind also rstd, the forward's float32 statistic of this x (computed in float64 from
    the rounded x, then rounded to float32), so that every implementation gets the same tensors."""
    import torch

    gen = generator(case, seed, device)
    x = normal(case.inputs["x"], gen, device)
    weight = uniform(case.inputs["weight"], gen, device, 0.5, 1.5)
    if case.kind == "forward":
        return {"x": x, "weight": weight}
    dy = normal(case.inputs["dy"], gen, device)
    eps = float(case.params.get("eps", 1e-6))
    rstd = torch.rsqrt(x.double().pow(2).mean(-1) + eps).to(torch.float32)
    return {"dy": dy, "x": x, "weight": weight, "rstd": rstd}
