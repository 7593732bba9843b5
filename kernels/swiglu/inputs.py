"""Random inputs for one SwiGLU workload, reproducible from the run's recorded seed.

gate, up and dy ~ N(0, 1) in float32, then cast to the workload dtype: never zeros, a spread
of silu's input that covers both its near-linear and its saturating sides. The backward kind
gets dy, gate and up; the forward kind gate and up. `layout: fused` (the swiglu-fused family)
gives one gate_up [tokens, 2 x intermediate] tensor instead of gate and up.
"""

from __future__ import annotations

import hashlib

import torch

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def derived_seed(seed: int, workload_id: str) -> int:
    text = f"{seed}:{workload_id}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little") & (2**63 - 1)


def workload_kind(workload: dict) -> str:
    """The workload's kind; a workload dict without one (an older runner) is told by its id."""
    kind = workload.get("kind")
    if kind:
        return kind
    return "backward" if str(workload.get("id", "")).startswith("bwd-") else "forward"


def _randn(shape, gen, device, dtype):
    return torch.randn(*shape, generator=gen, device=device, dtype=torch.float32).to(dtype)


def make_inputs(workload: dict, seed: int, device, fused: bool = False) -> dict[str, torch.Tensor]:
    t, i, dtype = workload["tokens"], workload["intermediate"], DTYPES[workload["dtype"]]
    gen = torch.Generator(device=device).manual_seed(derived_seed(seed, workload["id"]))
    out: dict[str, torch.Tensor] = {}
    if workload_kind(workload) == "backward":
        out["dy"] = _randn((t, i), gen, device, dtype)
    if fused:
        out["gate_up"] = _randn((t, 2 * i), gen, device, dtype)
    else:
        out["gate"] = _randn((t, i), gen, device, dtype)
        out["up"] = _randn((t, i), gen, device, dtype)
    return out
