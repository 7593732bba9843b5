"""The Triton kernels of Kernel Records' GEMM, C = A · Bᵀ (A [M, K], B [N, K], row-major).

Three kernels, one call (kr_triton.py picks one from its configuration model):

- `tma_persistent`: one program per SM walking the output tiles in grouped order (GROUP_M tile
  rows share a band of B, so the tiles in flight at one time reuse A and B in L2); A, B and C
  through TMA tensor descriptors (`tl.make_tensor_descriptor`: the copy engine zero-fills
  loads past the edges and clips stores, so odd M, N and K need no masks), the K loop software
  pipelined `num_stages` deep, optionally warp specialised (WS). Needs 16-byte aligned rows
  (row strides passed in: a padded copy's stride need not be K); optionally split over K
  (SPLITS, float32 partials added by `split_k_reduce`).
- `tiles_persistent`: the same schedule with plain pointer loads and masks: any M, N, K, any
  strides (K not a multiple of 8, strided views); 16-byte loads where the host promises
  alignment (VEC_AB, VEC_C).
- `pad_copy`: the padded path's copy of an unaligned operand into a 16-byte aligned buffer.
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
def _rows(r, stride, V: tl.constexpr):
    """r[:, None] · stride with the host's promise that stride is a multiple of V elements,
    as a hint on the product (a hint on a scalar kernel argument has no op to carry it, and
    (x // V) · V folds away: sm_90 PTX kept 2-byte loads either way)."""
    if V > 1:
        return tl.multiple_of(r[:, None] * stride, [V, V])
    return r[:, None] * stride


@triton.jit
def _below(ks, lim, V: tl.constexpr):
    """ks[None, :] < lim, with the host's promise that lim is a multiple of V: constant over
    runs of V, so masked loads stay V wide."""
    if V > 1:
        return tl.max_constancy(ks[None, :] < lim, [1, V])
    return ks[None, :] < lim


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
def tma_persistent(a_ptr, b_ptr, c_ptr, part_ptr, M, N, K, s_a, s_b, s_c, s_p, KT_PER_SPLIT,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                   NUM_PROGRAMS: tl.constexpr, WS: tl.constexpr, IEEE: tl.constexpr,
                   SPLITS: tl.constexpr):
    """Row strides s_a, s_b, s_c (elements; 16-byte multiples, checked by the host) need not
    equal K or N: a K-padded copy of A or B, or a padded C buffer, keeps the true K and N as the
    descriptors' shapes. SPLITS > 1: work item w is output tile w % tiles of K slice
    w // tiles (KT_PER_SPLIT K tiles each); its float32 partial goes to part[slice] (row
    stride s_p) by masked stores straight from the accumulator (a float32 TMA store would
    stage the tile in shared memory: 278,552 bytes at 128 x 256 x 64, 3 stages, compiled for
    sm_90, against 232,448), added in slice order by split_k_reduce."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[s_a, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[s_b, 1], block_shape=[BN, BK])
    if SPLITS == 1:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[s_c, 1], block_shape=[BM, BN])
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    tiles = num_pid_m * num_pid_n
    for w in tl.range(tl.program_id(0), tiles * SPLITS, NUM_PROGRAMS, warp_specialize=WS):
        split = w // tiles
        pid_m, pid_n = _tile_coords(w % tiles, num_pid_m, num_pid_n, GROUP_M)
        kt0 = split * KT_PER_SPLIT
        kt1 = tl.minimum(kt0 + KT_PER_SPLIT, k_tiles)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(kt0, kt1):
            a = a_desc.load([pid_m * BM, kk * BK])
            b = b_desc.load([pid_n * BN, kk * BK])
            if IEEE:
                acc = tl.dot(a, b.T, acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b.T, acc)
        if SPLITS > 1:
            rm = pid_m * BM + tl.arange(0, BM)
            rn = pid_n * BN + tl.arange(0, BN)
            # columns N..s_p-1 of the partial are the buffer's own pad (zeros: TMA zero-fills B
            # past N); masking at s_p, a multiple of 4, lets the stores be 16 bytes wide
            tl.store(part_ptr + _rows(split * M + rm, s_p, 4) + rn[None, :], acc,
                     mask=(rm[:, None] < M) & _below(rn, s_p, 4))
        else:
            c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def tiles_persistent(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bn, s_bk, s_cm, s_cn,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                     NUM_PROGRAMS: tl.constexpr, IEEE: tl.constexpr,
                     VEC_AB: tl.constexpr = 1, VEC_C: tl.constexpr = 1):
    """VEC_AB > 1: the host checked that A and B are row-major (unit K stride) and that K and
    their row strides are multiples of VEC_AB elements (16 bytes) and the bases 16-byte aligned:
    the hints let Triton prove it and load 16 bytes at a time (its own specialisation only
    knows integers divisible by 16). VEC_C: the same for C's row stride and N."""
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
            if VEC_AB > 1:  # unit K stride, known at compile time
                a_off = _rows(rm, s_am, VEC_AB) + ks[None, :]
                b_off = _rows(rn, s_bn, VEC_AB) + ks[None, :]
            else:
                a_off = rm[:, None] * s_am + ks[None, :] * s_ak
                b_off = rn[:, None] * s_bn + ks[None, :] * s_bk
            k_in = _below(ks, K, VEC_AB)
            a = tl.load(a_ptr + a_off, mask=(rm[:, None] < M) & k_in, other=0.0)
            b = tl.load(b_ptr + b_off, mask=(rn[:, None] < N) & k_in, other=0.0)
            if IEEE:
                acc = tl.dot(a, b.T, acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b.T, acc)
        if VEC_C > 1:
            c_off = _rows(rm, s_cm, VEC_C) + rn[None, :]
        else:
            c_off = rm[:, None] * s_cm + rn[None, :] * s_cn
        tl.store(c_ptr + c_off, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & _below(rn, N, VEC_C))


@triton.jit
def split_k(a_ptr, b_ptr, part_ptr, M, N, K, s_am, s_ak, s_bn, s_bk, K_PER_SPLIT,
            c_ptr, s_cm, s_cn, count_ptr, SPLITS,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, IEEE: tl.constexpr,
            FUSED: tl.constexpr, VEC_AB: tl.constexpr = 1, VEC_N: tl.constexpr = 1):
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
        if VEC_AB > 1:  # unit K stride, known at compile time
            a_off = _rows(rm, s_am, VEC_AB) + ks[None, :]
            b_off = _rows(rn, s_bn, VEC_AB) + ks[None, :]
        else:
            a_off = rm[:, None] * s_am + ks[None, :] * s_ak
            b_off = rn[:, None] * s_bn + ks[None, :] * s_bk
        k_in = _below(ks, k_end, VEC_AB)
        a = tl.load(a_ptr + a_off, mask=(rm[:, None] < M) & k_in, other=0.0)
        b = tl.load(b_ptr + b_off, mask=(rn[:, None] < N) & k_in, other=0.0)
        if IEEE:
            acc = tl.dot(a, b.T, acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b.T, acc)
    inside = (rm[:, None] < M) & _below(rn, N, VEC_N)
    out = part_ptr + _rows(split * M + rm, N, VEC_N) + rn[None, :]  # part[split, rm, rn]
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
def split_k_reduce(part_ptr, c_ptr, M, N, s_p, s_cm, s_cn, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    """C = the sum of the SPLITS float32 partials part[s, M, N] (row stride s_p), slice 0 first
    (a fixed order), rounded once; C at any strides."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M * N
    row = offs // N
    col = offs % N
    src = row * s_p + col
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in tl.static_range(SPLITS):
        acc += tl.load(part_ptr + s * M * s_p + src, mask=mask, other=0.0)
    tl.store(c_ptr + row * s_cm + col * s_cn, acc.to(c_ptr.dtype.element_ty), mask=mask)


@triton.jit
def pad_copy(src_ptr, dst_ptr, R, C, CP, s_r, s_c, BR: tl.constexpr, BC: tl.constexpr, VEC: tl.constexpr):
    """dst [R, CP] (row-major, row stride CP, a multiple of VEC elements: 16 bytes) = src [R, C]
    at any strides, zeros in columns C..CP-1: the padded path's copy of an operand whose rows
    are not 16-byte aligned (its loads cannot be wide; its stores are)."""
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    x = tl.load(src_ptr + r[:, None] * s_r + c[None, :] * s_c, mask=(r[:, None] < R) & (c[None, :] < C), other=0.0)
    tl.store(dst_ptr + _rows(r, CP, VEC) + c[None, :], x, mask=(r[:, None] < R) & _below(c, CP, VEC))
