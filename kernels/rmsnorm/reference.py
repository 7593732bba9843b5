"""The float64 references (forward and backward) and the tolerance of each output.

Forward: y = weight * x * rsqrt(mean(x^2) + eps), in float64 from the rounded inputs.
Backward: the exact gradient of that function, in float64, with rstd recomputed in float64
from x (the float32 rstd the implementations receive differs from it by < 1e-7 relative):

    xhat = x * rstd, g = dy * weight
    dx = rstd * (g - xhat * mean(g * xhat)),  dweight = sum over rows of dy * xhat

Implementations follow their own conventions (NUMERICS of each implementation record): the
Transformers/Liger "llama" forward rounds x * rstd to the input dtype before the weight
multiply; their backward rounds dy * weight and dy * xhat to the input dtype elementwise.
The tolerances below allow those roundings and no more.
"""

from __future__ import annotations

import math

import torch

from site_builder.runner.family import Case, Close

NUMERICS = ("float64 from the rounded inputs: y = weight * x * rsqrt(mean(x^2) + eps); backward the exact "
            "gradient (dx, dweight) with rstd recomputed in float64")

#: forward y, and backward dx: elementwise |out - ref| <= atol + rtol |ref|. bfloat16: two
#: roundings of half an ulp (2^-9 relative each) in the llama convention, dx from a rounded
#: dy * weight: 1.6e-2 relative (torch's own default), dx's atol for cancellation at O(1)
#: values (inputs are N(0, 1), so rstd ~ 1 and dx ~ 1). float32: reductions over up to 16384
#: elements and a few roundings stay near 1e-6 relative.
_ELEMENTWISE = {
    ("forward", "float32"): Close(1e-5, 1e-5),
    ("forward", "bfloat16"): Close(1e-3, 1.6e-2),
    ("forward", "float16"): Close(1e-4, 2e-3),
    ("backward", "float32"): Close(1e-4, 1e-4),
    ("backward", "bfloat16"): Close(2e-2, 2e-2),
    ("backward", "float16"): Close(2e-3, 4e-3),
}
#: dweight sums `rows` terms of size ~1 with random signs: |dweight| ~ sqrt(rows), and the
#: elementwise rounding of each term to the input dtype (the llama convention) adds an error
#: ~ sqrt(rows) x half an ulp x the terms' rms (~1): atol = A x sqrt(rows) with A = 4 ulps of
#: the dtype at 1 (about 6 standard deviations of that error; Transformers' bf16 backward summed
#: on a CPU reached 3 ulps x sqrt(16) at 16 rows), rtol as one final rounding of the sum.
_SUM_ATOL = {"float32": 1e-5, "bfloat16": 2.0 ** -6, "float16": 2.0 ** -9}
_SUM_RTOL = {"float32": 1e-5, "bfloat16": 1.6e-2, "float16": 2e-3}


def tolerance(case: Case, output: str) -> Close:
    dtype = case.outputs[output].dtype
    if output == "dweight":
        rows = max(1, int(case.sizes["rows"]))
        return Close(_SUM_ATOL[dtype] * math.sqrt(rows), _SUM_RTOL[dtype])
    return _ELEMENTWISE[(case.kind, dtype)]


def reference(case: Case, inputs: dict) -> dict:
    eps = float(case.params.get("eps", 1e-6))
    x = inputs["x"].double()
    w = inputs["weight"].double()
    rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    if case.kind == "forward":
        return {"y": w * (x * rstd)}
    dy = inputs["dy"].double()
    xhat = x * rstd
    g = dy * w
    dx = rstd * (g - xhat * (g * xhat).mean(-1, keepdim=True))
    return {"dx": dx, "dweight": (dy * xhat).sum(0)}
