"""The float64 reference and the tolerance each dtype is checked with.

NUMERICS below is the convention, as the family declares it. In full: convention (Hugging Face Llama's, "rounded h"): h = x + residual rounded to the input dtype
and returned as residual_out; y = weight * h * rsqrt(mean(h^2) + eps), all in float64 from the
rounded h. Implementations that normalise the unrounded float32 sum (QuACK, FlashInfer) or
round the normalised value before the weight multiply (Transformers) differ from it by at most
one or two units in the last place of the output dtype, which the tolerances below allow.
"""

from __future__ import annotations

import torch

NUMERICS = ("Hugging Face Llama's: h = x + residual rounded to the input dtype (residual_out); "
            "y = weight * h * rsqrt(mean(h^2) + eps) from the rounded h")

#: (atol, rtol) per workload dtype, applied elementwise: |out - ref| <= atol + rtol * |ref|.
#: bfloat16: 8 significant bits, an ulp is up to 2^-7 relative; two or three roundings of
#: half an ulp each, as the conventions above make, stay under 1.6e-2 (torch's own default).
#: float16: 11 bits, 2^-10 relative per ulp. float32: the float32 reduction over up to 131072
#: elements and three roundings stay near 1e-6 relative; 1e-5 leaves margin without hiding bugs.
TOLERANCES = {
    "float32": (1e-5, 1e-5),
    "bfloat16": (1e-3, 1.6e-2),
    "float16": (1e-4, 2e-3),
}


def reference(inputs: dict[str, torch.Tensor], params: dict) -> dict[str, torch.Tensor]:
    x, residual, weight = inputs["x"], inputs["residual"], inputs["weight"]
    eps = float(params.get("eps", 1e-6))
    h = (x.double() + residual.double()).to(x.dtype).double()  # the exact sum, rounded once
    rstd = torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + eps)
    return {"y": weight.double() * (h * rstd), "residual_out": h}
