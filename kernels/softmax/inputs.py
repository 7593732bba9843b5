"""Random inputs for one softmax workload, reproducible from the run's recorded seed.

Logits of a realistic scale, never zeros: x = 2 · N(0, 1) + a per-row offset drawn from
U(−10, 10) (language-model logits sit at no fixed level; the offset exercises the max
subtraction), drawn in float32 and rounded to the workload's dtype. Backward: y is the softmax
of such logits, computed in float32 and rounded to the dtype (a real forward's output, rows
summing to 1, no zeros at these scales), dy ~ N(0, 1) rounded to the dtype.
"""

from __future__ import annotations

import hashlib

import torch

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def derived_seed(seed: int, workload_id: str) -> int:
    """Fresh inputs per workload, fixed by the seed (the runner passes seed + i for set i)."""
    text = f"{seed}:{workload_id}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little") & (2**63 - 1)


def logits(rows: int, cols: int, gen, device) -> torch.Tensor:
    """float32 logits: 2 · N(0, 1) plus a per-row offset from U(−10, 10)."""
    x = torch.randn(rows, cols, generator=gen, device=device, dtype=torch.float32).mul_(2.0)
    offset = torch.rand(rows, 1, generator=gen, device=device, dtype=torch.float32).mul_(20.0).sub_(10.0)
    return x.add_(offset)


def draw(kind: str, workload_id: str, rows: int, cols: int, dtype: str, seed: int, device) -> dict:
    dt = DTYPES[dtype]
    gen = torch.Generator(device=device).manual_seed(derived_seed(seed, workload_id))
    x = logits(rows, cols, gen, device)
    if kind == "forward":
        return {"x": x.to(dt)}
    if kind == "backward":
        y = torch.softmax(x, dim=-1).to(dt)
        del x
        dy = torch.randn(rows, cols, generator=gen, device=device, dtype=torch.float32).to(dt)
        return {"y": y, "dy": dy}
    raise ValueError(f"softmax has no {kind!r} kind — use forward or backward")
