"""Random inputs for one LayerNorm case (forward or backward), reproducible from the run's seed."""

from __future__ import annotations

from site_builder.runner.family import Case, generator, normal, uniform


def make_inputs(case: Case, seed: int, device) -> dict:
    """x ~ N(0.5, 1) (a non-zero mean, as activations have, so that centring matters), weight ~
    U(0.5, 1.5), bias ~ U(-0.5, 0.5), dy ~ N(0, 1), in the case's dtypes; for the backward kind
    also mean and rstd, the forward's float32 statistics of this x (float64 from the rounded x,
    then rounded to float32), so that every implementation gets the same tensors."""
    import torch

    gen = generator(case, seed, device)
    x = normal(case.inputs["x"], gen, device, mean=0.5)
    weight = uniform(case.inputs["weight"], gen, device, 0.5, 1.5)
    if case.kind == "forward":
        bias = uniform(case.inputs["bias"], gen, device, -0.5, 0.5)
        return {"x": x, "weight": weight, "bias": bias}
    dy = normal(case.inputs["dy"], gen, device)
    eps = float(case.params.get("eps", 1e-5))
    xd = x.double()
    mean = xd.mean(-1)
    rstd = torch.rsqrt((xd - mean.unsqueeze(-1)).pow(2).mean(-1) + eps)
    return {"dy": dy, "x": x, "weight": weight, "mean": mean.to(torch.float32), "rstd": rstd.to(torch.float32)}
