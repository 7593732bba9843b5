"""Random inputs for one cross-entropy workload, reproducible from the run's recorded seed.

logits = 2 · N(0, 1) + a per-row offset from U(−10, 10), drawn in float32 and rounded to the
workload's dtype (never zeros); target uniform in [0, vocab), int64. Exactly
tokens − round(tokens · valid_pct / 100) targets, at positions of a seeded permutation, are set to
ignore_index (the workload's `valid_pct` axis fixes the share; 100: none ignored).
"""

from __future__ import annotations

import hashlib

import torch

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def derived_seed(seed: int, workload_id: str) -> int:
    text = f"{seed}:{workload_id}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little") & (2**63 - 1)


def n_ignored(tokens: int, valid_pct: int) -> int:
    return tokens - round(tokens * valid_pct / 100)


def draw(workload_id: str, tokens: int, vocab: int, valid_pct: int, dtype: str, seed: int, device,
         ignore_index: int = -100) -> dict:
    if not 0 <= valid_pct <= 100:
        raise ValueError(f"valid_pct must be in 0..100, got {valid_pct}")
    gen = torch.Generator(device=device).manual_seed(derived_seed(seed, workload_id))
    x = torch.randn(tokens, vocab, generator=gen, device=device, dtype=torch.float32).mul_(2.0)
    offset = torch.rand(tokens, 1, generator=gen, device=device, dtype=torch.float32).mul_(20.0).sub_(10.0)
    logits = x.add_(offset).to(DTYPES[dtype])
    del x
    target = torch.randint(0, vocab, (tokens,), generator=gen, device=device, dtype=torch.int64)
    k = n_ignored(tokens, valid_pct)
    if k:
        where = torch.randperm(tokens, generator=gen, device=device)[:k]
        target[where] = ignore_index
    return {"logits": logits, "target": target}
