"""The float64 references (forward and backward) and the tolerance per dtype.

Forward (Hugging Face `apply_rotary_pos_emb`, unsqueeze_dim=1): x_embed = x * cos + rotate_half(x) * sin
for x in (q, k), rotate_half([x1, x2]) = [-x2, x1], cos / sin [pos_batch, seq, head_dim]
broadcast over heads. Backward: dx = dy * cos + rotate_half^T(dy * sin), rotate_half^T([z1, z2]) = [z2, -z1].

Rounding: the eager code rounds x * cos, rotate_half(x) * sin and their sum to the input dtype
(three roundings); our kernel and Liger compute in float32 and round once. The sum can cancel,
so the error is relative to the terms, not the result: with |x| up to about 6 (N(0, 1) over
10^8 elements) a bf16 term has an ulp of 2^-5, and three half-ulp roundings stay under
3 x 2^-6 = 0.047: atol 5e-2 in bf16. float32: the same three roundings, 2^-24 relative, stay
under 1e-6 absolute.
"""

from __future__ import annotations

import torch

NUMERICS = ("float64 from the inputs as given (cos and sin as rounded to the workload dtype): "
            "x * cos + rotate_half(x) * sin; backward dy * cos + rotate_half^T(dy * sin)")

TOLERANCES = {
    "float32": (2e-6, 1e-5),
    "bfloat16": (5e-2, 1.6e-2),
    "float16": (8e-3, 2e-3),
    "float64": (1e-12, 1e-12),
}


def tolerance(dtype: str) -> tuple[float, float]:
    return TOLERANCES[dtype]


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def rotate_half_t(z):
    h = z.shape[-1] // 2
    return torch.cat((z[..., h:], -z[..., :h]), dim=-1)


def _tables(cos, sin):
    c, s = cos.double(), sin.double()
    if c.dim() == 2:
        c, s = c[None], s[None]
    return c[:, None], s[:, None]  # [pos_batch, 1, seq, head_dim]


def reference(inputs: dict[str, torch.Tensor], params: dict) -> dict[str, torch.Tensor]:
    c, s = _tables(inputs["cos"], inputs["sin"])
    if "q" in inputs:
        q, k = inputs["q"].double(), inputs["k"].double()
        return {"q_embed": q * c + rotate_half(q) * s, "k_embed": k * c + rotate_half(k) * s}
    dq, dk = inputs["dq_embed"].double(), inputs["dk_embed"].double()
    return {"dq": dq * c + rotate_half_t(dq * s), "dk": dk * c + rotate_half_t(dk * s)}
