"""The float64 reference of both kinds and the tolerance each output is checked with.

Forward: y = softmax(x) computed in float64 from x. Backward: dx = y · (dy − Σ y·dy) in float64
from the given y and dy (the rounded forward output, as autograd would pass it). Rows are
processed in slices so the float64 temporaries stay a few hundred MB at 10^9 elements.
"""

from __future__ import annotations

import torch

_SLICE = 1 << 26  # elements per float64 slice


def _slices(rows: int, cols: int):
    step = max(1, _SLICE // max(cols, 1))
    for start in range(0, rows, step):
        yield slice(start, min(rows, start + step))


def forward(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape, dtype=torch.float64, device=x.device)
    for s in _slices(*x.shape):
        out[s] = torch.softmax(x[s].double(), dim=-1)
    return out


def backward(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    out = torch.empty(y.shape, dtype=torch.float64, device=y.device)
    for s in _slices(*y.shape):
        yd, dyd = y[s].double(), dy[s].double()
        out[s] = yd * (dyd - (yd * dyd).sum(-1, keepdim=True))
    return out


def reference(kind: str, inputs: dict) -> dict:
    if kind == "forward":
        return {"y": forward(inputs["x"])}
    if kind == "backward":
        return {"dx": backward(inputs["y"], inputs["dy"])}
    raise ValueError(f"softmax has no {kind!r} kind")


#: rtol per dtype; atol is this factor over cols (a fraction of the uniform probability 1/cols:
#: the outputs' typical size is 1/cols, so an absolute tolerance that does not scale with it
#: would pass anything). bfloat16: one rounding is 2^-9 relative, the float32 arithmetic before
#: it far less; 1.6e-2 is torch's own default and leaves room for implementations that round
#: an intermediate (x − max in bf16). float32: reductions over up to 262144 elements.
RTOL = {"float32": 1e-5, "bfloat16": 1.6e-2, "float16": 2e-3}
ATOL_TIMES_COLS = {"float32": 1e-6, "bfloat16": 1e-3, "float16": 1e-4}


#: the absolute resolution of a dtype's subnormals: fp16's smallest normal is 6.1e-5, so
#: probabilities of about 1/cols sit among its subnormals (spacing 2^-24); bf16 and fp32 keep
#: their relative precision down to 1e-38.
SUBNORMAL = {"float32": 0.0, "bfloat16": 0.0, "float16": 2.0**-24}


#: float32 backward: dx_i = y_i · (dy_i − Σ y·dy) cancels where dy_i ≈ Σ y·dy, and the float32
#: sum's own rounding (≈ 1e-7 of Σ |y·dy|) then is a large part of dx_i. Seen on the H200
#: (2026-12-01, lab/softmax/NOTES.md): under (1e-6 / cols, 1e-5) the float32 eager formula,
#: torch's built-in and ours each failed on 2 to 30 of 10^8-10^9 elements, all such cases.
#: (1e-4 / cols, 1e-4) leaves those a margin of about 100x and is still 0.01 % of the output.
BWD_FP32 = (1e-4, 1e-4)


def tolerance(dtype: str, cols: int, kind: str = "forward") -> tuple[float, float]:
    """(atol, rtol) for y (forward) and dx (backward): |out − ref| ≤ atol + rtol · |ref|."""
    if kind == "backward" and dtype == "float32":
        return BWD_FP32[0] / cols, BWD_FP32[1]
    return ATOL_TIMES_COLS[dtype] / cols + SUBNORMAL[dtype], RTOL[dtype]
