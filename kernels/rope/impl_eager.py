"""The designated baseline: Hugging Face Transformers' `apply_rotary_pos_emb` (Llama), eager.

Forward: `q * cos + rotate_half(q) * sin` (and k) with cos / sin unsqueezed at dim 1, line for
line. Backward: the kernels autograd runs for that expression given the output gradients:
`dy * cos` plus the backward of `rotate_half` (slices and a negation, then a cat) of `dy * sin`.
"""

from __future__ import annotations

import torch

from . import register


def rotate_half(x):
    """Rotates half the hidden dims of the input (Transformers' Llama, verbatim)."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim: int = 1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def _rotate_half_backward(g):
    h = g.shape[-1] // 2
    return torch.cat((g[..., h:], -g[..., :h]), dim=-1)


def apply_rotary_pos_emb_backward(dq_embed, dk_embed, cos, sin, unsqueeze_dim: int = 1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    dq = dq_embed * cos + _rotate_half_backward(dq_embed * sin)
    dk = dk_embed * cos + _rotate_half_backward(dk_embed * sin)
    return dq, dk


@register("rope-eager", kinds=("forward", "backward"), baseline=True)
def rope_eager(inputs, case):
    cos, sin = inputs["cos"], inputs["sin"]
    if "dq_embed" in inputs:
        dq, dk = inputs["dq_embed"], inputs["dk_embed"]
        return lambda: apply_rotary_pos_emb_backward(dq, dk, cos, sin)
    q, k = inputs["q"], inputs["k"]
    return lambda: apply_rotary_pos_emb(q, k, cos, sin)
