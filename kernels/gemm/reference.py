"""The float64 reference of C = A · Bᵀ and its tolerance, which grows with K.

Inputs (inputs.py): a ~ N(0, 1), b ~ N(0, 1/K), rounded to the workload dtype, so that
|c| ~ N(0, 1) whatever K is (as in a trained linear layer), and Σ_k |a_ik|·|b_jk| ≈ K · E|a| ·
E|b| = (2/π)·√K (E|x| = σ·√(2/π) for a normal x).

Why the tolerance has these terms (elementwise |c − ref| ≤ atol + rtol·|ref|):

- accumulation: a float32 sum of K products carries a rounding error whose probabilistic
  bound (Higham and Mary, 2019: errors of independent roundings add like a random walk) is
  λ·√K·u₃₂·Σ|a||b| per element, u₃₂ = 2⁻²⁴ (bf16 products are exact in float32, so only the
  additions round). With λ = 8 (far in the tail: the bound is met with overwhelming
  probability for λ ≥ a few) and Σ|a||b| ≈ (2/π)·√K: atol_acc = 8·(2/π)·K·u₃₂; at K = 28672
  that is 8.7e-3 (|c| ~ 1), 16× more than at K = 1792 (5.4e-4).
- the output: C is rounded to bf16 once, half an ulp, 2⁻⁹ relative; rtol allows one ulp (2⁻⁸).
- reduced-precision split-K (bf16 and fp16 only): PyTorch lets cuBLAS add split-K partials
  in the 16-bit type by default (`allow_bf16_reduced_precision_reduction`), which rounds each
  partial to half an ulp of its size (~|c|): atol_red = 4 ulps of the dtype at |c|'s scale
  (σ_c = 1), for the element-wise maximum over up to 10⁹ elements.

float32 workloads (the CPU tests, with IEEE float32 products): the same accumulation term
and rtol = 4·u₃₂ for the last roundings.
"""

from __future__ import annotations

import math

from site_builder.runner.family import Case, Close

NUMERICS = "float64 product of the rounded inputs: c[i, j] = sum over k of a[i, k] * b[j, k]"

U32 = 2.0 ** -24
LAMBDA = 8.0
_ULP = {"bfloat16": 2.0 ** -8, "float16": 2.0 ** -11, "float32": 2.0 ** -23}


def accumulation_atol(k: int, sigma_a: float = 1.0, sigma_b: float | None = None) -> float:
    """λ·√K·u₃₂·E[Σ|a||b|] for a ~ N(0, σa²), b ~ N(0, σb²) (σb = 1/√K by default)."""
    sigma_b = 1.0 / math.sqrt(k) if sigma_b is None else sigma_b
    abs_sum = k * (2.0 / math.pi) * sigma_a * sigma_b
    return LAMBDA * math.sqrt(k) * U32 * abs_sum


def tolerance(case: Case, output: str = "c") -> Close:
    dtype = case.outputs[output].dtype
    k = int(case.sizes["k"])
    atol = accumulation_atol(k)
    if dtype in ("bfloat16", "float16"):
        return Close(atol + 4 * _ULP[dtype], _ULP[dtype])
    return Close(atol, 4 * U32)


def reference(case: Case, inputs: dict) -> dict:
    return {"c": inputs["a"].double() @ inputs["b"].double().T}
