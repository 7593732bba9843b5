"""The float64 references (forward and backward) and the tolerance of each output.

Forward: y = (x - mean) * rsqrt(var + eps) * weight + bias (biased variance), in float64 from
the rounded inputs. Backward: the exact gradient of that function, in float64, with mean and
rstd recomputed in float64 from x (the float32 statistics the implementations receive differ
by < 1e-7 relative):

    xhat = (x - mean) * rstd, g = dy * weight
    dx = rstd * (g - xhat * mean(g * xhat) - mean(g))
    dweight = sum over rows of dy * xhat,  dbias = sum over rows of dy
"""

from __future__ import annotations

import math

import torch

from site_builder.runner.family import Case, Close

NUMERICS = ("float64 from the rounded inputs: y = (x - mean) * rsqrt(var + eps) * weight + bias; backward the "
            "exact gradient (dx, dweight, dbias) with mean and rstd recomputed in float64")

#: y and dx, elementwise |out - ref| <= atol + rtol |ref|: as kernels/rmsnorm/reference.py
#: (x ~ N(0.5, 1): rstd ~ 1, y and dx ~ 1).
_ELEMENTWISE = {
    ("forward", "float32"): Close(1e-5, 1e-5),
    ("forward", "bfloat16"): Close(1e-3, 1.6e-2),
    ("forward", "float16"): Close(1e-4, 2e-3),
    ("backward", "float32"): Close(1e-4, 1e-4),
    ("backward", "bfloat16"): Close(2e-2, 2e-2),
    ("backward", "float16"): Close(2e-3, 4e-3),
}
#: dweight and dbias sum `rows` terms ~1 of random sign: atol = A x sqrt(rows), rtol one final
#: rounding (kernels/rmsnorm/reference.py says why).
_SUM_ATOL = {"float32": 1e-5, "bfloat16": 2.0 ** -6, "float16": 2.0 ** -9}
_SUM_RTOL = {"float32": 1e-5, "bfloat16": 1.6e-2, "float16": 2e-3}


def tolerance(case: Case, output: str) -> Close:
    dtype = case.outputs[output].dtype
    if output in ("dweight", "dbias"):
        rows = max(1, int(case.sizes["rows"]))
        return Close(_SUM_ATOL[dtype] * math.sqrt(rows), _SUM_RTOL[dtype])
    return _ELEMENTWISE[(case.kind, dtype)]


def reference(case: Case, inputs: dict) -> dict:
    eps = float(case.params.get("eps", 1e-5))
    x = inputs["x"].double()
    w = inputs["weight"].double()
    mean = x.mean(-1, keepdim=True)
    xc = x - mean
    rstd = torch.rsqrt(xc.pow(2).mean(-1, keepdim=True) + eps)
    xhat = xc * rstd
    if case.kind == "forward":
        return {"y": xhat * w + inputs["bias"].double()}
    dy = inputs["dy"].double()
    g = dy * w
    dx = rstd * (g - xhat * (g * xhat).mean(-1, keepdim=True) - g.mean(-1, keepdim=True))
    return {"dx": dx, "dweight": (dy * xhat).sum(0), "dbias": dy.sum(0)}
