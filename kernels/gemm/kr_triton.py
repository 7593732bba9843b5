"""Kernel Records' Triton GEMM: C = A · Bᵀ (the nn.Linear layout), float32 accumulation.

`gemm(a, b)` checks its arguments, picks a kernel and its launch configuration from the
configuration model (`config_for`), and launches (kr_triton_kernels.py has the kernels).

The configuration model works over shape classes, not a table of workloads:

- decode (M ≤ 16): `split_k`. Bound by reading B once (N·K·2 bytes): BN columns of B per
  program and the K axis cut into slices so that about DECODE_WAVES × SMs programs keep enough
  bytes in flight; a second small kernel adds the float32 slices in a fixed order.
- small (16 < M ≤ 128) and any shape whose output tiles do not fill the GPU: the same split-K
  kernel with BM = 64, K split until tiles × slices ≥ SMs. `"fused": true` (a sweep candidate,
  not the model's choice until measured) lets the last program of each tile add the slices
  instead of a second kernel.
- large (output tiles ≥ SMs): `tma_persistent` (one program per SM, grouped tile order, TMA
  descriptors, a deep pipeline): 128 × 256 × 64 tiles, 3 stages, 8 warps for M ≥ 1024 and
  N ≥ 4096 (the Hopper wgmma sweet spot: a 128 × 256 float32 accumulator over two warpgroups);
  128 × 128 × 64, 4 stages, 4 warps below that.
- `tiles_persistent` (pointer loads with masks) instead of the TMA kernel when a row of A, B
  or C is not 16-byte aligned (K or N not a multiple of 8 in bf16) or the operands are strided
  views: handled, not refused.

The numbers above are starting points, to be set by the sweep (lab/gemm/sweep.py) on the
H200: `KR_GEMM_CONFIG=<json>` overrides the model with one configuration (the sweep's
candidates), e.g. `{"kernel": "tma", "BM": 128, "BN": 256, "BK": 64, "stages": 3, "warps": 8}`.
Every kernel adds the K products of one element in the same float32 order for a given
configuration; split-K adds its slices in slice order.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

import torch
import triton

from . import kr_triton_kernels as K_

DECODE_M = 16
SMALL_M = 128
DECODE_WAVES = 4  # programs per SM the decode split aims for
MAX_SPLITS = 32
_ENV = "KR_GEMM_CONFIG"


def _sms(device) -> int:
    if device.type != "cuda":
        return 4  # the interpreter: any count computes the same C
    return torch.cuda.get_device_properties(device).multi_processor_count


def _aligned(t: torch.Tensor) -> bool:
    """Row-major with 16-byte aligned rows and base: what a TMA descriptor needs."""
    es = t.element_size()
    return t.stride(-1) == 1 and (t.stride(0) * es) % 16 == 0 and t.data_ptr() % 16 == 0


def config_for(M: int, N: int, K: int, sms: int, tma_ok: bool = True, elsize: int = 2) -> dict:
    """The launch configuration of the shape (M, N, K) on a GPU with `sms` multiprocessors, for
    operands of `elsize` bytes (2: bfloat16 or float16, the family's; 4: float32)."""
    forced = os.environ.get(_ENV)
    if forced:
        return _checked(json.loads(forced))
    if M <= DECODE_M:
        cfg = {"kernel": "split_k", "BM": 16, "BN": 64, "BK": 128, "stages": 4, "warps": 4}
        return _with_splits(_fit(cfg, elsize), M, N, K, DECODE_WAVES * sms)
    tiles_128 = triton.cdiv(M, 128) * triton.cdiv(N, 128)
    if M <= SMALL_M or tiles_128 < sms:
        cfg = {"kernel": "split_k", "BM": 64 if M <= 64 else 128, "BN": 128, "BK": 64, "stages": 4, "warps": 4}
        return _with_splits(_fit(cfg, elsize), M, N, K, sms)
    big = M >= 1024 and N >= 4096
    cfg = ({"BM": 128, "BN": 256, "BK": 64, "stages": 3, "warps": 8} if big
           else {"BM": 128, "BN": 128, "BK": 64, "stages": 4, "warps": 4})
    cfg.update(kernel="tma" if tma_ok else "tiles", GROUP_M=8, WS=False)
    return _fit(cfg, elsize)


def _fit(cfg: dict, elsize: int) -> dict:
    """The 2-byte configuration `cfg` for operands of `elsize` bytes. float32 would ask twice its
    shared memory (the H200 measured 393,232 bytes for the 128 × 256 × 64 three-stage tile,
    against 232,448 allowed): halving BK keeps each stage's bytes, and the 128 × 256 tile drops
    to 128 × 128 on 4 warps, so the float32 epilogue fits beside the stages."""
    if elsize <= 2:
        return cfg
    cfg = dict(cfg, BK=max(16, cfg["BK"] * 2 // elsize))
    if cfg["kernel"] in ("tma", "tiles") and cfg["BN"] > 128:
        cfg.update(BN=128, warps=4, stages=4)
    return cfg


def _with_splits(cfg: dict, M: int, N: int, K: int, target_programs: int) -> dict:
    tiles = triton.cdiv(N, cfg["BN"]) * triton.cdiv(M, cfg["BM"])
    k_tiles = triton.cdiv(K, cfg["BK"])
    splits = max(1, min(MAX_SPLITS, k_tiles, triton.cdiv(target_programs, tiles)))
    per = triton.cdiv(k_tiles, splits)  # K tiles per slice
    cfg["splits"] = triton.cdiv(k_tiles, per)  # no empty slice
    cfg["k_per_split"] = per * cfg["BK"]
    return cfg


_KEYS = {"kernel", "BM", "BN", "BK", "stages", "warps", "GROUP_M", "WS", "splits", "k_per_split", "fused"}


def _checked(cfg: dict) -> dict:
    unknown = set(cfg) - _KEYS
    if unknown or cfg.get("kernel") not in ("tma", "tiles", "split_k"):
        raise ValueError(f"{_ENV}: unknown keys {sorted(unknown)} or kernel {cfg.get('kernel')!r} "
                         f"(keys: {sorted(_KEYS)}; kernel: tma, tiles or split_k)")
    return cfg


@lru_cache(maxsize=None)
def _allocator_set() -> bool:
    # TMA descriptors made on the device need a global scratch buffer from Triton's allocator.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda" if torch.cuda.is_available() else "cpu"))
    return True


def check_args(a: torch.Tensor, b: torch.Tensor) -> None:
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"gemm: a [M, K] and b [N, K] must be 2-d, got {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"gemm: a is [M, K] = {tuple(a.shape)} and b is [N, K] = {tuple(b.shape)}: "
                         "their K (last dimension) must agree")
    if a.dtype != b.dtype or a.dtype not in (torch.bfloat16, torch.float16, torch.float32):
        raise ValueError(f"gemm: a and b must share one of bfloat16, float16, float32; got {a.dtype} and {b.dtype}")
    if a.device != b.device:
        raise ValueError(f"gemm: a is on {a.device} and b on {b.device}")


def gemm(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None, config: dict | None = None) -> torch.Tensor:
    """C = a @ b.T for a [M, K] and b [N, K]; C [M, N] in their dtype, accumulated in float32.
    Any M, N, K ≥ 1 (edges masked or clipped by TMA); `config` overrides the model."""
    check_args(a, b)
    M, Kd = a.shape
    N = b.shape[0]
    c = out if out is not None else torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    if Kd == 0:
        return c.zero_()
    tma_ok = _aligned(a) and _aligned(b) and _aligned(c)
    cfg = dict(config) if config is not None else config_for(M, N, Kd, _sms(a.device), tma_ok, a.element_size())
    if cfg["kernel"] == "tma" and not tma_ok:
        cfg["kernel"] = "tiles"
    if cfg["kernel"] == "split_k" and "splits" not in cfg:
        cfg = _with_splits(cfg, M, N, Kd, DECODE_WAVES * _sms(a.device))
    ieee = a.dtype == torch.float32
    if cfg["kernel"] == "split_k":
        _split_k(a, b, c, cfg, ieee)
    else:
        _persistent(a, b, c, cfg, ieee)
    return c


def _persistent(a, b, c, cfg, ieee):
    M, Kd = a.shape
    N = b.shape[0]
    tiles = triton.cdiv(M, cfg["BM"]) * triton.cdiv(N, cfg["BN"])
    programs = max(1, min(_sms(a.device), tiles))
    common = dict(BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"], GROUP_M=cfg.get("GROUP_M", 8),
                  NUM_PROGRAMS=programs, IEEE=ieee, num_warps=cfg["warps"], num_stages=cfg["stages"])
    if cfg["kernel"] == "tma":
        _allocator_set()
        K_.tma_persistent[(programs,)](a, b, c, M, N, Kd, WS=bool(cfg.get("WS", False)), **common)
    else:
        K_.tiles_persistent[(programs,)](a, b, c, M, N, Kd, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                         c.stride(0), c.stride(1), **common)


_COUNTERS: dict = {}  # device -> int32 tile counters of the fused split-K, zero between calls


def _counters(device, tiles: int) -> torch.Tensor:
    """The fused split-K's counters: allocated (zeroed) once per device and grown when a call
    has more tiles, so a call (and a CUDA-graph replay) launches nothing to reset them."""
    have = _COUNTERS.get(device)
    if have is None or have.numel() < tiles:
        have = torch.zeros(max(tiles, 1024), dtype=torch.int32, device=device)
        _COUNTERS[device] = have
    return have


def _split_k(a, b, c, cfg, ieee):
    M, Kd = a.shape
    N = b.shape[0]
    splits, per = cfg["splits"], cfg["k_per_split"]
    if per % cfg["BK"]:
        raise ValueError(f"gemm: k_per_split {per} must be a multiple of BK {cfg['BK']}")
    grid = (triton.cdiv(N, cfg["BN"]), triton.cdiv(M, cfg["BM"]), splits)
    fused = bool(cfg.get("fused", False)) and splits > 1
    cc = c if (c.is_contiguous() and splits == 1 and c.dtype == torch.float32) else None
    part = cc if cc is not None else torch.empty((splits, M, N), dtype=torch.float32, device=a.device)
    count = _counters(a.device, grid[0] * grid[1]) if fused else part
    K_.split_k[grid](a, b, part, M, N, Kd, a.stride(0), a.stride(1), b.stride(0), b.stride(1), per,
                     c, c.stride(0), c.stride(1), count, splits,
                     BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"], IEEE=ieee, FUSED=fused,
                     num_warps=cfg["warps"], num_stages=cfg["stages"])
    if cc is not None or fused:
        return
    target = c if c.is_contiguous() else torch.empty((M, N), dtype=c.dtype, device=c.device)
    block = 1024
    K_.split_k_reduce[(triton.cdiv(M * N, block),)](part, target, M * N, SPLITS=splits, BLOCK=block, num_warps=4)
    if target is not c:
        c.copy_(target)
