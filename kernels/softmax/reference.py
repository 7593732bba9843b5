"""The float64 reference of both kinds and the tolerance each output is checked with.

Forward: y = softmax(x) computed in float64 from x. Backward: dx = y · (dy − Σ y·dy) in float64
from the given y and dy (the rounded forward output, as autograd would pass it), and for bf16
and fp16 an element-wise allowance for the rounding of its intermediates (`backward_allowance`).
Rows are processed in slices so the float64 temporaries stay a few hundred MB at 10^9 elements.
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


#: Backward, bf16 and fp16: an element-wise allowance for the rounding of intermediates, added to
#: (atol, rtol) by the runner's check (KernelFamily.allowance). dx_i = y_i · (dy_i − s), s = Σ_j
#: y_j·dy_j; where dy_i ≈ s the result cancels, and rounding one intermediate to the output dtype
#: costs far more than rtol·|dx_i| (the H200 run of 2026-12-02 failed torch.softmax's own backward
#: at every bf16 workload, on a few thousand of 10^8-10^9 elements). A rounding changes v by at
#: most u·|v| (u the unit roundoff: 2^-8 for bf16, 2^-11 for fp16), plus η where v is subnormal
#: (half the subnormal spacing: fp16 2^-25, bf16 none in this range). With a = Σ_j |y_j·dy_j|
#: (≥ |s|), rounding once
#:   the product y_i·dy_i                    moves dx_i by ≤ u·y_i·|dy_i| + η
#:   every product y_j·dy_j before the sum   ≤ y_i·(u·a + cols·η)
#:   s, or y_i·s                             ≤ u·y_i·|s| + η  ≤ u·y_i·a + η
#:   dy_i − s                                ≤ u·y_i·|dy_i − s| ≤ u·y_i·(|dy_i| + a)
#: each at most  u·y_i·(|dy_i| + a) + η·(1 + cols·y_i);  the allowance is C_ROUNDINGS = 2 of those
#: (two intermediates rounded; the final rounding of dx is rtol's). The sum's error is bounded by
#: Σ|terms|, not |s| (s itself may cancel): with |s| in place of a, the rounding PyTorch's CUDA
#: backward does (softmax_backward_cuda_out: tmp = grad * output in the dtype, a float32 sum of
#: tmp, dx = tmp − y·s) exceeded u·y_i·(|dy_i| + |s|) 16-fold in an emulation (cols 1024). A
#: float32 accumulation of the sum adds at most depth·2^-24·a (2e-5·a for a reduction depth of
#: 300), under 1 % of u·a for bf16.
#: With the emulations of tests/test_softmax_backward_tolerance.py (rows × cols 2048×1024 to
#: 8×262144, bf16 and fp16), the excess over (atol, rtol) of implementations that round s, y·s,
#: dy − s, or y·dy before the sum was at most 0.22 of this allowance; of a sum accumulated in the
#: dtype itself, emulated as a pairwise tree (log2(cols) roundings, so not bounded by it in
#: general; Liger-Kernel's single-block backward sums bf16 products with tl.sum, which accumulates
#: in the input dtype, in its own order), 0.56. Wrong ones exceed it: Σ y·dy missing, of another
#: row, of half the row, or of the wrong sign (1.7x to 1500x), 5 % off at the largest 1 % of |dx|
#: (3.9x to 44x). An error of 1 % there passes, as it did before: rtol 1.6e-2 alone allows it
#: (bf16's ulp is 0.4-0.8 % relative).
UNIT_ROUNDOFF = {"bfloat16": 2.0**-8, "float16": 2.0**-11}
#: half the spacing of the dtype's subnormals (float16: 2^-24 spacing below 6.1e-5; bf16 keeps
#: its relative precision down to 1e-38: none)
HALF_SUBNORMAL = {"bfloat16": 0.0, "float16": 2.0**-25}
C_ROUNDINGS = 2


def backward_allowance(y: torch.Tensor, dy: torch.Tensor, dtype: str) -> torch.Tensor:
    """C_ROUNDINGS · (u·y·(|dy| + Σ|y·dy|) + η·(1 + cols·y)), float64, in the reference's slices."""
    u, eta = UNIT_ROUNDOFF[dtype], HALF_SUBNORMAL[dtype]
    cols = y.shape[-1]
    out = torch.empty(y.shape, dtype=torch.float64, device=y.device)
    for s in _slices(*y.shape):
        yd, dyd = y[s].double(), dy[s].double()
        a = (yd * dyd).abs_().sum(-1, keepdim=True)
        allow = dyd.abs_().add_(a).mul_(yd).mul_(u)
        if eta:
            allow.add_(yd.mul(cols * eta).add_(eta))
        out[s] = allow.mul_(C_ROUNDINGS)
    return out


def allowance_applies(kind: str, dtype: str) -> bool:
    return kind == "backward" and dtype in UNIT_ROUNDOFF


def allowance(kind: str, dtype: str, inputs: dict) -> dict:
    """{output: element-wise allowance} for `kind` and `dtype` (bf16 and fp16 backward), else {}."""
    if allowance_applies(kind, dtype):
        return {"dx": backward_allowance(inputs["y"], inputs["dy"], dtype)}
    return {}


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
#: It stays scalar, not the bf16/fp16 allowance above with u = 2^-24: in float32 no intermediate
#: is rounded to a coarser dtype, and the error is the float32 sum's accumulation, up to
#: depth·2^-24·Σ|y·dy| with a depth (sequential adds per thread plus the reduction tree) that
#: each kernel chooses; two roundings' worth would not bound it, and a depth-dependent constant
#: has no measurement behind it yet (lab/softmax/bwd_tolerance.sh prints the ratio per kernel).
BWD_FP32 = (1e-4, 1e-4)


def tolerance(dtype: str, cols: int, kind: str = "forward") -> tuple[float, float]:
    """(atol, rtol) for y (forward) and dx (backward): |out − ref| ≤ atol + rtol · |ref|."""
    if kind == "backward" and dtype == "float32":
        return BWD_FP32[0] / cols, BWD_FP32[1]
    return ATOL_TIMES_COLS[dtype] / cols + SUBNORMAL[dtype], RTOL[dtype]
