"""The Triton kernels of Kernel Records' GEMM, C = A · Bᵀ (A [M, K], B [N, K], row-major).

Three kernels, one call (kr_triton.py picks one from its configuration model):

- `tma_persistent`: one program per SM walking the output tiles in grouped order (GROUP_M tile
  rows share a band of B, so the tiles in flight at one time reuse A and B in L2); A, B and C
  through TMA tensor descriptors (`tl.make_tensor_descriptor`: the copy engine zero-fills
  loads past the edges and clips stores, so odd M, N and K need no masks), the K loop software
  pipelined `num_stages` deep, optionally warp specialised (WS). Needs 16-byte aligned rows
  (K and N multiples of 8 in bf16).
- `tiles_persistent`: the same schedule with plain pointer loads and masks: any M, N, K, any
  strides (K not a multiple of 8, strided views).
- `split_k`: decode sizes (M ≤ 16, or too few tiles to fill the GPU): programs over (N tiles ×
  K slices), each writing a float32 partial [M, BN] of its K slice; `split_k_reduce` adds the
  slices in a fixed order (deterministic) and rounds once. Bound by reading B once. With
  FUSED the last program of each tile adds the slices itself, in the same order (one launch
  instead of two).

Accumulation is float32 in every kernel (`tl.dot` into a float32 accumulator); C is rounded to
its dtype once. float32 inputs use `input_precision="ieee"` (IEEE float32 products, not tf32),
so the CPU tests under TRITON_INTERPRET=1 check the same algorithm exactly.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _tile_coords(tile, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    """Grouped tile order: GROUP_M tile rows are walked column by column before the next band."""
    in_group = GROUP_M * num_pid_n
    group = tile // in_group
    first_m = group * GROUP_M
    rows = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % in_group) % rows
    pid_n = (tile % in_group) // rows
    return pid_m, pid_n


@triton.jit
def tma_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                   NUM_PROGRAMS: tl.constexpr, WS: tl.constexpr, IEEE: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_PROGRAMS, warp_specialize=WS):
        pid_m, pid_n = _tile_coords(tile, num_pid_m, num_pid_n, GROUP_M)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(k_tiles):
            a = a_desc.load([pid_m * BM, kk * BK])
            b = b_desc.load([pid_n * BN, kk * BK])
            if IEEE:
                acc = tl.dot(a, b.T, acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def tiles_persistent(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bn, s_bk, s_cm, s_cn,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                     NUM_PROGRAMS: tl.constexpr, IEEE: tl.constexpr):
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    rk = tl.arange(0, BK)
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_PROGRAMS):
        pid_m, pid_n = _tile_coords(tile, num_pid_m, num_pid_n, GROUP_M)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(k_tiles):
            ks = kk * BK + rk
            a = tl.load(a_ptr + rm[:, None] * s_am + ks[None, :] * s_ak,
                        mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + rn[:, None] * s_bn + ks[None, :] * s_bk,
                        mask=(rn[:, None] < N) & (ks[None, :] < K), other=0.0)
            if IEEE:
                acc = tl.dot(a, b.T, acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b.T, acc)
        tl.store(c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn, acc.to(c_ptr.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def split_k(a_ptr, b_ptr, part_ptr, M, N, K, s_am, s_ak, s_bn, s_bk, K_PER_SPLIT,
            c_ptr, s_cm, s_cn, count_ptr, SPLITS,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, IEEE: tl.constexpr,
            FUSED: tl.constexpr):
    """Program (n tile, m tile, k slice): the float32 partial C[m tile, n tile] over its K slice,
    written to part[slice, M, N]. K_PER_SPLIT is a multiple of BK.

    FUSED: no second kernel. After writing its partial, each program counts itself in on its
    tile's counter (an acquire-release atomic at GPU scope, after a barrier so that every thread
    of the program has written); the program that arrives last adds the SPLITS partials in slice
    order, slice 0 first (the order `split_k_reduce` uses, so C is the same bit for bit), rounds
    once, stores C and resets the counter for the next call. The counters are one int32 per
    output tile, zero between calls; calls sharing them must not overlap (one stream)."""
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    split = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    k0 = split * K_PER_SPLIT
    k_end = tl.minimum(k0 + K_PER_SPLIT, K)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(k0, k_end, BK):
        ks = kk + rk
        a = tl.load(a_ptr + rm[:, None] * s_am + ks[None, :] * s_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < k_end), other=0.0)
        b = tl.load(b_ptr + rn[:, None] * s_bn + ks[None, :] * s_bk,
                    mask=(rn[:, None] < N) & (ks[None, :] < k_end), other=0.0)
        if IEEE:
            acc = tl.dot(a, b.T, acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b.T, acc)
    inside = (rm[:, None] < M) & (rn[None, :] < N)
    out = part_ptr + split * M * N + rm[:, None] * N + rn[None, :]
    tl.store(out, acc, mask=inside)
    if FUSED:
        tile = pid_m * tl.num_programs(0) + pid_n
        tl.debug_barrier()
        arrived = tl.atomic_add(count_ptr + tile, 1, sem="acq_rel", scope="gpu")
        if arrived == SPLITS - 1:
            total = tl.zeros((BM, BN), dtype=tl.float32)
            for s in range(SPLITS):
                total += tl.load(part_ptr + s * M * N + rm[:, None] * N + rn[None, :], mask=inside, other=0.0,
                                 cache_modifier=".cg")
            tl.store(c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn, total.to(c_ptr.dtype.element_ty), mask=inside)
            tl.atomic_xchg(count_ptr + tile, 0, sem="relaxed", scope="gpu")


@triton.jit
def split_k_reduce(part_ptr, c_ptr, MN, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    """C = the sum of the SPLITS float32 partials, slice 0 first (a fixed order), rounded once."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in tl.static_range(SPLITS):
        acc += tl.load(part_ptr + s * MN + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=mask)
