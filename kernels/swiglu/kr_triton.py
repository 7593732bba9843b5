"""Kernel Records' own Triton SwiGLU, forward and backward, one pass over memory each.

Numerics, forward (Hugging Face `act_fn(gate) * up` with `act_fn = SiLU`, the convention of
the eager baseline and of Liger-Kernel):

    s = silu(float32(gate)) rounded to the input dtype        (what F.silu returns)
    y = float32(s) * float32(up) rounded to the input dtype   (the bf16 multiply)

Backward, from dy, gate and up (nothing saved from the forward; silu recomputed), everything in
float32 and rounded once per output:

    sig   = sigmoid(g);  silu = g * sig
    dup   = dy * silu
    dgate = dy * up * sig * (1 + g * (1 - sig))

Layouts: every tensor is a 2-D [rows, cols] view with unit column stride and any row stride,
so the fused [tokens, 2 x intermediate] layout is just two column-offset views of one tensor
(gate = gate_up[:, :I], up = gate_up[:, I:]) and needs no copy. When every tensor is contiguous
the rows are collapsed into one long row (purely element-wise, no column padding).

Launch configuration (`plan`): a model of the shape, not a table of workloads. A program owns a
BLOCK_R x BLOCK_C tile of about 8 KB per tensor (16-byte vectors, four per thread per tensor);
BLOCK_C is the power of two (up to the tile) that pads the column count least; the tile is
halved while the grid would have fewer than two programs per SM, down to one warp of vectors,
so a one-token call still spreads over many SMs.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

__all__ = ["swiglu_forward", "swiglu_backward", "swiglu_fused_forward", "swiglu_fused_backward", "plan"]

_INT32_MAX = 2**31 - 1
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
_SUPPORTED = (torch.float32, torch.bfloat16, torch.float16)
_SMS: dict = {}


@triton.jit
def _tile(pid, n_rows, n_cols, n_col_blocks, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
          I64: tl.constexpr):
    if I64:  # offsets past 2^31 - 1 elements (a collapsed row of more than 2^31 elements too)
        pid = pid.to(tl.int64)
    pid_r = pid // n_col_blocks
    pid_c = pid % n_col_blocks
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    return rows[:, None], cols[None, :], mask


@triton.jit
def _ld(P, off, mask, EVEN: tl.constexpr):
    if EVEN:
        return tl.load(P + off, eviction_policy="evict_first")
    return tl.load(P + off, mask=mask, other=0.0, eviction_policy="evict_first")


@triton.jit
def _st(P, off, v, mask, EVEN: tl.constexpr):
    if EVEN:
        tl.store(P + off, v)
    else:
        tl.store(P + off, v, mask=mask)


@triton.jit(do_not_specialize=["n_rows"])
def _fwd(G, U, Y, n_rows, n_cols, n_col_blocks, sg, su, sy,
         BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, I64: tl.constexpr, EVEN: tl.constexpr):
    r, c, mask = _tile(tl.program_id(0), n_rows, n_cols, n_col_blocks, BLOCK_R, BLOCK_C, I64)
    g = _ld(G, r * sg + c, mask, EVEN).to(tl.float32)
    u = _ld(U, r * su + c, mask, EVEN)
    s = (g * tl.sigmoid(g)).to(u.dtype)
    y = (s.to(tl.float32) * u.to(tl.float32)).to(Y.dtype.element_ty)
    _st(Y, r * sy + c, y, mask, EVEN)


@triton.jit(do_not_specialize=["n_rows"])
def _bwd(DY, G, U, DG, DU, n_rows, n_cols, n_col_blocks, sdy, sg, su, sdg, sdu,
         BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, I64: tl.constexpr, EVEN: tl.constexpr):
    r, c, mask = _tile(tl.program_id(0), n_rows, n_cols, n_col_blocks, BLOCK_R, BLOCK_C, I64)
    dy = _ld(DY, r * sdy + c, mask, EVEN).to(tl.float32)
    g = _ld(G, r * sg + c, mask, EVEN).to(tl.float32)
    u = _ld(U, r * su + c, mask, EVEN).to(tl.float32)
    sig = tl.sigmoid(g)
    silu = g * sig
    du = dy * silu
    dg = dy * u * (sig * (1.0 + g * (1.0 - sig)))
    _st(DG, r * sdg + c, dg.to(DG.dtype.element_ty), mask, EVEN)
    _st(DU, r * sdu + c, du.to(DU.dtype.element_ty), mask, EVEN)


# --------------------------------------------------------------------------------------
# Launch model
# --------------------------------------------------------------------------------------


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132  # the interpreter: any count gives the same arithmetic
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SMS:
        _SMS[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SMS[idx]


def plan(n_rows: int, n_cols: int, elsize: int, sms: int, tile_bytes: int = 8192) -> dict:
    """Tile and warps for an [n_rows, n_cols] element-wise pass (see the module docstring)."""
    vec = 16 // elsize                       # elements per 16-byte vector
    target = tile_bytes // elsize            # elements per tensor per program
    min_tile = vec * 32                      # one warp, one vector per thread
    cols_p2 = triton.next_power_of_2(n_cols)
    best = None
    c = min(cols_p2, target)
    while c >= min(cols_p2, max(vec, target // 16)):
        waste = (triton.cdiv(n_cols, c) * c - n_cols) / n_cols
        if best is None or waste < best[1] - 1e-9:
            best = (c, waste)
        if waste == 0:
            break
        c //= 2
    block_c = best[0]
    block_r = max(1, min(target // block_c, triton.next_power_of_2(n_rows)))

    def programs(br, bc):
        return triton.cdiv(n_rows, br) * triton.cdiv(n_cols, bc)

    while programs(block_r, block_c) < 2 * sms and block_r * block_c > min_tile:
        if block_r > 1:
            block_r //= 2
        else:
            block_c //= 2
    tile = block_r * block_c
    num_warps = max(1, min(8, tile // (vec * 4 * 32)))
    even = n_rows % block_r == 0 and n_cols % block_c == 0
    return {"BLOCK_R": block_r, "BLOCK_C": block_c, "num_warps": num_warps, "EVEN": even,
            "programs": programs(block_r, block_c)}


# --------------------------------------------------------------------------------------
# Host side
# --------------------------------------------------------------------------------------


def _check(name: str, t, shape=None, dtype=None, device=None):
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor")
    if t.dtype not in _SUPPORTED:
        raise ValueError(f"{name} has dtype {t.dtype}; use float32, float16 or bfloat16")
    if shape is not None and tuple(t.shape) != tuple(shape):
        raise ValueError(f"{name} has shape {tuple(t.shape)}, expected {tuple(shape)}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} has dtype {t.dtype}, expected {dtype}")
    if device is not None and t.device != device:
        raise ValueError(f"{name} is on {t.device}, expected {device}")
    if t.device.type != "cuda" and not _INTERPRET:
        raise ValueError(f"{name} must be a CUDA tensor (or run under TRITON_INTERPRET=1)")


def _as_rows(t: torch.Tensor) -> torch.Tensor:
    """A 2-D [rows, cols] view with unit column stride (a copy only if no such view exists)."""
    if t.dim() == 0:
        raise ValueError("tensors must have at least one dimension (..., cols)")
    t2 = t.reshape(1, t.shape[0]) if t.dim() == 1 else t.reshape(-1, t.shape[-1])
    if t2.shape[1] > 1 and t2.stride(1) != 1:
        t2 = t2.contiguous()
    return t2


def _collapse(tensors):
    """All contiguous [rows, cols]: one long row (purely element-wise); else as they are."""
    if all(t.is_contiguous() for t in tensors):
        n = tensors[0].numel()
        return [t.view(1, n) for t in tensors]
    return tensors


def _launch(kernel, tensors2d, n_rows, n_cols):
    t0 = tensors2d[0]
    cfg = plan(n_rows, n_cols, t0.element_size(), _sm_count(t0.device))
    max_off = max((n_rows - 1) * abs(t.stride(0)) + n_cols for t in tensors2d)
    i64 = max_off > _INT32_MAX
    n_col_blocks = triton.cdiv(n_cols, cfg["BLOCK_C"])
    args = [*tensors2d, n_rows, n_cols, n_col_blocks, *(t.stride(0) for t in tensors2d)]
    kernel[(cfg["programs"],)](*args, BLOCK_R=cfg["BLOCK_R"], BLOCK_C=cfg["BLOCK_C"], I64=i64,
                               EVEN=cfg["EVEN"], num_warps=cfg["num_warps"], num_stages=1)


def _device_ctx(t):
    return torch.cuda.device(t.device) if t.device.type == "cuda" else _Null()


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def swiglu_forward(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """y = silu(gate) * up (HF rounding, see the module docstring); a new tensor of gate's shape."""
    _check("gate", gate)
    _check("up", up, gate.shape, gate.dtype, gate.device)
    y = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if y.numel() == 0:
        return y
    g2, u2, y2 = _collapse([_as_rows(gate), _as_rows(up), y.view(-1, y.shape[-1]) if y.dim() > 1 else y.view(1, -1)])
    with _device_ctx(y):
        _launch(_fwd, [g2, u2, y2], g2.shape[0], g2.shape[1])
    return y


def swiglu_backward(dy: torch.Tensor, gate: torch.Tensor, up: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(dgate, dup) of y = silu(gate) * up, from dy; new tensors, inputs unmodified."""
    _check("gate", gate)
    _check("up", up, gate.shape, gate.dtype, gate.device)
    _check("dy", dy, gate.shape, gate.dtype, gate.device)
    dg = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    du = torch.empty_like(dg)
    if dg.numel() == 0:
        return dg, du
    rows = [_as_rows(dy), _as_rows(gate), _as_rows(up), _as_rows(dg), _as_rows(du)]
    rows = _collapse(rows)
    with _device_ctx(dg):
        _launch(_bwd, rows, rows[0].shape[0], rows[0].shape[1])
    return dg, du


def _split_gate_up(gate_up: torch.Tensor):
    _check("gate_up", gate_up)
    if gate_up.shape[-1] % 2:
        raise ValueError(f"gate_up's last dimension must be even (2 x intermediate), got {gate_up.shape[-1]}")
    gu = _as_rows(gate_up)
    i = gu.shape[1] // 2
    return gu, i


def swiglu_fused_forward(gate_up: torch.Tensor) -> torch.Tensor:
    """y = silu(gate_up[..., :I]) * gate_up[..., I:]; y has shape [..., I]."""
    gu, i = _split_gate_up(gate_up)
    y = torch.empty((*gate_up.shape[:-1], i), dtype=gate_up.dtype, device=gate_up.device)
    if y.numel() == 0:
        return y
    y2 = y.view(-1, i)
    with _device_ctx(y):
        _launch(_fwd, [gu[:, :i], gu[:, i:], y2], gu.shape[0], i)
    return y


def swiglu_fused_backward(dy: torch.Tensor, gate_up: torch.Tensor) -> torch.Tensor:
    """d gate_up [..., 2I] (dgate in the first half, dup in the second) from dy [..., I]."""
    gu, i = _split_gate_up(gate_up)
    _check("dy", dy, (*gate_up.shape[:-1], i), gate_up.dtype, gate_up.device)
    dgu = torch.empty(gate_up.shape, dtype=gate_up.dtype, device=gate_up.device)
    if dgu.numel() == 0:
        return dgu
    d2 = dgu.view(-1, 2 * i)
    with _device_ctx(dgu):
        _launch(_bwd, [_as_rows(dy), gu[:, :i], gu[:, i:], d2[:, :i], d2[:, i:]], gu.shape[0], i)
    return dgu
