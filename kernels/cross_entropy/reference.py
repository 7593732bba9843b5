"""The float64 reference (loss; loss and dlogits) and the tolerance of each output.

loss = Σ over counted rows (logsumexp(x) − x[target]) / n_valid in float64 (0 / 0 = NaN when
every target is ignored, as PyTorch); dlogits = (softmax(x) − onehot(target)) / n_valid on
counted rows, 0 on ignored ones. Rows in slices, so float64 temporaries stay small.
"""

from __future__ import annotations

import torch

_SLICE = 1 << 26


def _slices(rows: int, cols: int):
    step = max(1, _SLICE // max(cols, 1))
    for start in range(0, rows, step):
        yield slice(start, min(rows, start + step))


def reference(kind: str, inputs: dict, ignore_index: int = -100) -> dict:
    x, t = inputs["logits"], inputs["target"]
    tokens, vocab = x.shape
    valid = t != ignore_index
    n_valid = valid.sum().to(torch.float64)
    total = torch.zeros((), dtype=torch.float64, device=x.device)
    grad = torch.zeros(x.shape, dtype=torch.float64, device=x.device) if kind == "forward+backward" else None
    for s in _slices(tokens, vocab):
        xd, ts, vs = x[s].double(), t[s], valid[s]
        big = xd.amax(-1, keepdim=True)
        big = torch.where(torch.isfinite(big), big, 0.0)
        rel = torch.log(torch.exp(xd - big).sum(-1))  # logsumexp − max
        picked = xd.gather(1, ts.clamp(0, vocab - 1)[:, None])[:, 0]
        # (max − target logit) + log Σ exp(x − max), in that order: exact even where the
        # logits dwarf log(vocab), as log_softmax computes it
        total += torch.where(vs, (big[:, 0] - picked) + rel, 0.0).sum()
        if grad is not None:
            g = torch.exp(xd - big - rel[:, None])
            g.scatter_add_(1, ts.clamp(0, vocab - 1)[:, None], torch.full_like(rel, -1.0)[:, None])
            grad[s] = torch.where(vs[:, None], g / n_valid, 0.0)
    out = {"loss": total / n_valid}
    if kind == "forward+backward":
        out["dlogits"] = grad
    elif kind != "forward":
        raise ValueError(f"cross-entropy has no {kind!r} kind — use forward or forward+backward")
    return out


#: (atol, rtol) of the loss per dtype: a scalar near log(vocab) + 2, so atol only guards 0.
LOSS_TOL = {"float32": (1e-6, 1e-5), "bfloat16": (1e-4, 1.6e-2), "float16": (1e-4, 2e-3)}
#: dlogits: rtol per dtype, atol = factor / (vocab · n_valid) (the gradient's typical size is
#: 1 / (vocab · n_valid); a fixed atol would pass anything). bfloat16 rtol 5e-2: PyTorch's own
#: backward exponentiates log-probabilities stored in bf16, |log p| · 2^-9 ≈ 3 % at log p ≈ −14.
GRAD_RTOL = {"float32": 1e-5, "bfloat16": 5e-2, "float16": 5e-3}
GRAD_ATOL_TIMES = {"float32": 1e-6, "bfloat16": 1e-3, "float16": 1e-4}


def tolerance(output: str, dtype: str, vocab: int, n_valid: int) -> tuple[float, float]:
    if output == "loss":
        return LOSS_TOL[dtype]
    # fp16: gradients of about 1/(vocab · n_valid) are fp16 subnormals (spacing 2^-24)
    sub = 2.0**-24 if dtype == "float16" else 0.0
    return GRAD_ATOL_TIMES[dtype] / (vocab * max(n_valid, 1)) + sub, GRAD_RTOL[dtype]
