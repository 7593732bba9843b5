"""Random inputs for one RoPE workload, reproducible from the run's recorded seed.

q and k (forward) or dq_embed and dk_embed (backward) ~ N(0, 1), made as contiguous
[batch, seq, heads, head_dim] tensors and handed over as their `.transpose(1, 2)` views
[batch, heads, seq, head_dim]: the layout Llama's attention gives them
(`q_proj(x).view(batch, seq, heads, head_dim).transpose(1, 2)`).

cos and sin as Hugging Face's rotary embedding makes them: inv_freq = theta^(-2i/head_dim),
freqs = position * inv_freq (float32), emb = cat(freqs, freqs), cos = emb.cos() cast to the
workload dtype (theta = 500000, Llama 3's). Positions, drawn by the seed within Llama 3.1's
131072-token context: with pos_batch = 1 (prefill) every sequence is at p0..p0+seq-1 for one
start p0 (a prefill chunk; p0 = 0 is the first one); with pos_batch = batch (decode) sequence
b is at its own p_b, and row b of cos / sin holds that position. (The first H200 run, before
2026-12-01 16:40, drew prefill at 0..seq-1 and decode positions from [0, 8192).)
"""

from __future__ import annotations

import torch

from site_builder.runner.family import Case, Tensor, generator, normal

DTYPES = {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
THETA = 500000.0
MAX_POSITION = 131072


def rope_tables(positions: torch.Tensor, head_dim: int, dtype, theta: float = THETA):
    """cos, sin [*positions.shape, head_dim] as LlamaRotaryEmbedding computes them."""
    dev = positions.device
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=dev, dtype=torch.int64).float() / head_dim))
    freqs = positions.float()[..., None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def make_inputs(case: Case, seed: int, device) -> dict[str, torch.Tensor]:
    b, s, d = case["batch"], case["seq"], case["head_dim"]
    hq, hk, pb = case["heads_q"], case["heads_kv"], case["pos_batch"]
    if pb not in (1, b):
        raise ValueError(f"workload {case['id']}: pos_batch must be 1 or batch ({b}), got {pb} "
                         "— write pos_batch: 1 (prefill) or pos_batch: <batch> (decode)")
    dtype = DTYPES[case["dtype"]]
    gen = generator(case, seed, device)
    q = normal(Tensor(case["dtype"], (b, s, hq, d)), gen, device).transpose(1, 2)
    k = normal(Tensor(case["dtype"], (b, s, hk, d)), gen, device).transpose(1, 2)
    start = torch.randint(0, MAX_POSITION - s + 1, (pb, 1), generator=gen, device=device)
    positions = start + torch.arange(s, device=device)[None, :]
    cos, sin = rope_tables(positions, d, dtype)
    if case["kind"] == "backward":
        return {"dq_embed": q, "dk_embed": k, "cos": cos, "sin": sin}
    return {"q": q, "k": k, "cos": cos, "sin": sin}
