"""The designated baseline: Transformers' Llama-style eager code (residual add + LlamaRMSNorm)."""

from __future__ import annotations

import torch

from . import register




def hf_add_rmsnorm(x, residual, weight, eps: float):
    """Transformers' residual add + `LlamaRMSNorm.forward`, line for line."""
    h = x + residual
    input_dtype = h.dtype
    hidden_states = h.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + eps)
    return weight * hidden_states.to(input_dtype), h


def _llama_rms_norm(weight, eps):
    """Transformers' own LlamaRMSNorm sharing `weight`, or None when transformers is absent."""
    try:
        from transformers.models.llama.modeling_llama import LlamaRMSNorm
    except Exception:  # noqa: BLE001 - not installed, or an incompatible install
        return None
    norm = LlamaRMSNorm(weight.shape[-1], eps=eps).to(device=weight.device, dtype=weight.dtype)
    norm.weight = torch.nn.Parameter(weight, requires_grad=False)  # shares storage: no copy
    return norm


@register("transformers", baseline=True, packages=["transformers"])
def transformers_eager(inputs, params):
    x, r, w, eps = inputs["x"], inputs["residual"], inputs["weight"], float(params["eps"])
    norm = _llama_rms_norm(w, eps)
    if norm is None:
        def call():
            return hf_add_rmsnorm(x, r, w, eps)
        call.kr_note = lambda: "transformers not installed: ran the verbatim copy of LlamaRMSNorm.forward"
        return call

    def call():
        with torch.no_grad():
            h = x + r
            return norm(h), h

    call.kr_note = lambda: "transformers' LlamaRMSNorm after `x + residual`"
    return call
