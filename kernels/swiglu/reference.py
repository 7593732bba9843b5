"""The float64 references (forward and backward) and the tolerance per output and dtype.

Forward: y = silu(gate) * up = gate * sigmoid(gate) * up, exactly, from the inputs as given.
Backward: dup = dy * silu(gate); dgate = dy * up * sigmoid(gate) * (1 + gate * (1 - sigmoid(gate))).

Implementations round differently: the Hugging Face eager code (and Liger, and our forward)
rounds silu(gate) to the input dtype before the multiply, then the product; autograd's eager
backward rounds dy * up before silu's backward. Each rounding is at most half a unit in the
last place, relative to a product (no cancellation in any of these formulas), so two or
three of them stay within 1.6e-2 relative in bf16 (8 significant bits: an ulp is up to 2^-7
relative). atol covers outputs near zero (silu(gate) for gate far below zero is tiny).
"""

from __future__ import annotations

import torch

NUMERICS = ("float64 from the inputs as given: y = gate * sigmoid(gate) * up; backward dup = dy * silu(gate), "
            "dgate = dy * up * s * (1 + gate * (1 - s)), s = sigmoid(gate)")

#: (atol, rtol) per dtype, |out - ref| <= atol + rtol * |ref|; the same for every output.
TOLERANCES = {
    "float32": (1e-6, 1e-5),
    "bfloat16": (1e-3, 1.6e-2),
    "float16": (1e-4, 2e-3),
    "float64": (1e-12, 1e-12),
}


def tolerance(dtype: str) -> tuple[float, float]:
    return TOLERANCES[dtype]


def swiglu64(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    g = gate.double()
    return g * torch.sigmoid(g) * up.double()


def swiglu_backward64(dy, gate, up):
    g, u, d = gate.double(), up.double(), dy.double()
    sig = torch.sigmoid(g)
    return d * u * sig * (1 + g * (1 - sig)), d * g * sig


def reference(inputs: dict[str, torch.Tensor], params: dict) -> dict[str, torch.Tensor]:
    """Outputs keyed by the family record's names, for either kind and either layout."""
    if "gate_up" in inputs:  # [tokens, 2, intermediate] (swiglu-fused)
        gate, up = inputs["gate_up"][:, 0], inputs["gate_up"][:, 1]
    else:
        gate, up = inputs["gate"], inputs["up"]
    if "dy" not in inputs:
        return {"y": swiglu64(gate, up)}
    dgate, dup = swiglu_backward64(inputs["dy"], gate, up)
    if "gate_up" in inputs:
        return {"dgate_up": torch.stack([dgate, dup], dim=1)}
    return {"dgate": dgate, "dup": dup}
