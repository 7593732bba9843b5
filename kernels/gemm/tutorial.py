"""A plain Triton matmul, the kernel a user writes after reading Triton's matrix-multiplication
tutorial (written here from the algorithm; no code taken from the tutorial): C = A · Bᵀ.

One program per BM × BN tile of C, tiles numbered in grouped order (GROUP_M tile rows at a
time, so neighbouring programs share tiles of A and B in L2); the program walks K in BK steps,
loading a [BM, BK] tile of A and a [BK, BN] tile of Bᵀ (B [N, K] read through its strides, no
copy) with masks at the ragged edges, and accumulates `tl.dot` in float32; C is rounded once
and stored with a mask. On a GPU `triton.autotune` picks one of a handful of tile shapes per
(M, N, K), as the tutorial's users do; the CPU tests pass one configuration explicitly.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bn, s_bk, s_cm, s_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                  IEEE: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_row = (pid // per_group) * GROUP_M
    rows_here = tl.minimum(tiles_m - first_row, GROUP_M)
    tile_m = first_row + (pid % per_group) % rows_here
    tile_n = (pid % per_group) // rows_here

    offs_m = tile_m * BM + tl.arange(0, BM)
    offs_n = tile_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_tile = a_ptr + offs_m[:, None] * s_am + offs_k[None, :] * s_ak
    bt_tile = b_ptr + offs_k[:, None] * s_bk + offs_n[None, :] * s_bn  # [BK, BN] of B transposed
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for start in range(0, K, BK):
        k_left = K - start
        a = tl.load(a_tile, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        bt = tl.load(bt_tile, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        if IEEE:
            acc = tl.dot(a, bt, acc, input_precision="ieee")
        else:
            acc = tl.dot(a, bt, acc)
        a_tile += BK * s_ak
        bt_tile += BK * s_bk
    c = c_ptr + offs_m[:, None] * s_cm + offs_n[None, :] * s_cn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _configs():
    shapes = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
              (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2)]
    return [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8}, num_stages=s, num_warps=w)
            for bm, bn, bk, s, w in shapes]


autotuned_kernel = triton.autotune(configs=_configs(), key=["M", "N", "K"])(matmul_kernel)


def matmul(a: torch.Tensor, b: torch.Tensor, config: dict | None = None) -> torch.Tensor:
    """C = a @ b.T (a [M, K], b [N, K]). `config` (BM, BN, BK, GROUP_M, and optionally
    num_warps, num_stages) skips the autotuner (the CPU tests)."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(f"matmul: a [M, K] and b [N, K] with the same K, got {tuple(a.shape)} and {tuple(b.shape)}")
    M, K = a.shape
    N = b.shape[0]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    args = (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    ieee = a.dtype == torch.float32
    if config is None:
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
        autotuned_kernel[grid](*args, IEEE=ieee)
    else:
        cfg = dict(config)
        launch = {k: cfg.pop(k) for k in ("num_warps", "num_stages") if k in cfg}
        grid = (triton.cdiv(M, cfg["BM"]) * triton.cdiv(N, cfg["BN"]),)
        matmul_kernel[grid](*args, IEEE=ieee, **cfg, **launch)
    return c
