"""Random inputs for one workload, reproducible from the run's recorded seed."""

from __future__ import annotations

import hashlib

import torch

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def derived_seed(seed: int, workload_id: str) -> int:
    """Fresh inputs per workload, fixed by the seed (the runner passes seed + i for rotating set i)."""
    text = f"{seed}:{workload_id}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little") & (2**63 - 1)


def make_inputs(workload: dict, seed: int, device) -> dict[str, torch.Tensor]:
    """x and residual ~ N(0, 1), weight ~ U(0.5, 1.5): never zeros, all in the workload's dtype."""
    rows, hidden, dtype = workload["rows"], workload["hidden"], DTYPES[workload["dtype"]]
    gen = torch.Generator(device=device).manual_seed(derived_seed(seed, workload["id"]))
    x = torch.randn(rows, hidden, generator=gen, device=device, dtype=torch.float32).to(dtype)
    residual = torch.randn(rows, hidden, generator=gen, device=device, dtype=torch.float32).to(dtype)
    weight = (0.5 + torch.rand(hidden, generator=gen, device=device, dtype=torch.float32)).to(dtype)
    return {"x": x, "residual": residual, "weight": weight}
