"""Kernel Records' own Triton LayerNorm: forward, and backward (dx, dweight, dbias in one pass).

Forward numerics (as torch's native `F.layer_norm`: float32 throughout, one rounding):

    mean = mean(float32(x)),  rstd = 1 / sqrt(mean((float32(x) - mean) ** 2) + eps)   (float32,
           two passes over the row in registers: no cancellation of E[x^2] - E[x]^2)
    y    = ((float32(x) - mean) * rstd * float32(weight) + float32(bias))  -> rounded once to
           promote_types(weight, x)

Backward numerics (float32 from the inputs, one rounding per output):

    xhat = (float32(x) - mean) * rstd,  g = float32(dy) * float32(weight)
    dx   = rstd * (g - xhat * mean(g * xhat) - mean(g))    -> x.dtype
    dw   = sum over rows of float32(dy) * xhat             -> weight.dtype
    db   = sum over rows of float32(dy)                    -> weight.dtype

`mean` and `rstd` are the forward's float32 statistics ([rows]); pass None for both to
recompute them from x in the kernel.

Kernels (the same scheme as kernels/rmsnorm/kr_triton.py):

* `_fwd`: ROWS rows per program, each row whole in registers (one pass over memory).
* `_fwd_split`: rows that are two powers of two (768 = 512 + 256, 3072 = 2048 + 1024): the
  row in registers as those two pieces. Rows that would need a masked third piece (2496, 1252,
  9000) take the masked block (sweeps 6-7).
* `_fwd_chunked`: rows longer than _MAX_REG_ROW, and 2-byte rows of two pieces above 8192
  (9216, 10240, 12288; sweep 10): one program per row, three loops over
  column chunks (sum, centred sum of squares, output), re-reading the row mostly from L2.
* `_fwd_aligned`: kind "aligned": contiguous rows whose length is not a multiple of 16 bytes,
  in registers as head, the body's whole 16-byte vectors and tail, where the plain kernels
  access such rows one element at a time; `_fwd_chunked_aligned` the same rows in
  `_fwd_chunked`'s three loops (a chunked ALIGN). The rule takes the aligned loop above 16384
  elements (_ALIGN_LOOP, sweep 9), for 2-byte rows from 8192 (_ALIGN_LOOP_2B) and odd 2-byte
  rows between 4096 and 8192 (_ALIGN_LOOP_ODD), those two unrolled (sweep 15); no rule takes
  `_fwd_aligned` (sweep 9: behind the plain block at 4 of 5 short odd rows; a sweep's OVERRIDE
  reaches it).
* `_bwd_parts`: rows longer than _BWD_REG_ROW (12288), as kernels/rmsnorm's: the row across
  the programs of a group, which exchange partial sums through L2 (kernels/rmsnorm/kr_parts.py).
* `_bwd_long`: where the parts kernel cannot run (the interpreter): chunks, never a whole row
  in registers; partial rows of dy * xhat and dy read-modify-written per program.
* `_bwd`: a persistent grid of P programs (SMs x the programs that fit on one SM, as in
  kernels/rmsnorm/kr_triton.py); program p takes a contiguous range of rows, ROWS at a time,
  prefetches the next tile of x and dy, writes dx and accumulates dy * xhat and dy in two
  float32 register tiles; at the end it writes its column sums to rows p of a float32 buffer
  [2, P, hidden]; `_reduce2` sums the P partial rows of each column in a fixed order
  (deterministic) and rounds once to the weight dtype. x and dy are read once.

Launch configuration: rules over (hidden, element size) in `fwd_config` and `bwd_config`; a
row's arithmetic never depends on the number of rows that come with it; a forward row off
16-byte multiples through the aligned loop follows its first 16-byte boundary instead
(kernels/rmsnorm/kr_triton.py says how; KR_TRITON_BATCH_INVARIANT=1 turns that off).
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

from .._row_access import access_granularity, row_ptr
from ..rmsnorm.kr_aligned import aligned_ok as _aligned_ok, aligned_row
from ..rmsnorm import kr_parts
from ..rmsnorm.kr_parts import (bwd_start, count_out, first_pair, gather, parts_config, publish, row_index, row_pair,
                               store_row)

__all__ = ["layernorm", "layernorm_backward", "fwd_config", "bwd_config"]

_INT32_MAX = 2**31 - 1
_SUPPORTED = (torch.float32, torch.float16, torch.bfloat16)
_MAX_REG_ROW = 32768  # the longest row the forward keeps whole in registers (backward: _BWD_REG_ROW)
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd(X, W, B, Y, MEAN, RSTD, n_rows, sx, sy, eps, N: tl.constexpr, BLOCK: tl.constexpr,
         ROWS: tl.constexpr, MASK_COLS: tl.constexpr, STORE_STATS: tl.constexpr, I64: tl.constexpr,
         PDL: tl.constexpr, LATE_W: tl.constexpr = True, G: tl.constexpr = 1):
    """LATE_W: weight and bias loaded after the row's reductions (not live across them: fewer
    registers; the rule) instead of with x (run 2)."""
    if PDL:
        # programmatic dependent launch: wait for the previous kernel's writes, then let the
        # next kernel's programs be scheduled while this grid drains
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    if ROWS == 1:
        # one row per program in 1-D blocks (no row axis): the plainest code for wide rows
        row = pid
        if I64:
            row = row.to(tl.int64)
        if MASK_COLS:
            cmask = cols < N
            if not LATE_W:
                w = tl.load(W + cols, mask=cmask, other=0.0).to(tl.float32)
                b = tl.load(B + cols, mask=cmask, other=0.0).to(tl.float32)
            x = tl.load(row_ptr(X, row * sx, G) + cols, mask=cmask, other=0.0).to(tl.float32)
        else:
            if not LATE_W:
                w = tl.load(W + cols).to(tl.float32)
                b = tl.load(B + cols).to(tl.float32)
            x = tl.load(row_ptr(X, row * sx, G) + cols).to(tl.float32)
        mean = tl.sum(x, axis=0) / N
        xc = x - mean
        if MASK_COLS:
            xc = tl.where(cmask, xc, 0.0)
        rstd = tl.math.rsqrt(tl.sum(xc * xc, axis=0) / N + eps)
        if LATE_W:  # weight and bias after the reductions (from L2): not live across them
            if MASK_COLS:
                w = tl.load(W + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
                b = tl.load(B + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
            else:
                w = tl.load(W + cols, eviction_policy="evict_last").to(tl.float32)
                b = tl.load(B + cols, eviction_policy="evict_last").to(tl.float32)
        y = xc * rstd * w + b
        if MASK_COLS:
            tl.store(row_ptr(Y, row * sy, G) + cols, y.to(Y.dtype.element_ty), mask=cmask)
        else:
            tl.store(row_ptr(Y, row * sy, G) + cols, y.to(Y.dtype.element_ty))
        if STORE_STATS:
            tl.store(MEAN + row, mean)
            tl.store(RSTD + row, rstd)
    else:
        rows = pid * ROWS + tl.arange(0, ROWS)
        rmask = rows < n_rows
        if I64:
            rows = rows.to(tl.int64)
        if MASK_COLS:
            cmask = cols < N
            m = rmask[:, None] & cmask[None, :]
            if not LATE_W:
                w = tl.load(W + cols, mask=cmask, other=0.0).to(tl.float32)
                b = tl.load(B + cols, mask=cmask, other=0.0).to(tl.float32)
        else:
            m = rmask[:, None]
            if not LATE_W:
                w = tl.load(W + cols).to(tl.float32)
                b = tl.load(B + cols).to(tl.float32)
        x = tl.load(row_ptr(X, rows * sx, G)[:, None] + cols[None, :], mask=m, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=1) / N
        xc = x - mean[:, None]
        if MASK_COLS:
            xc = tl.where(cmask[None, :], xc, 0.0)
        rstd = tl.math.rsqrt(tl.sum(xc * xc, axis=1) / N + eps)
        if LATE_W:
            if MASK_COLS:
                w = tl.load(W + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
                b = tl.load(B + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
            else:
                w = tl.load(W + cols, eviction_policy="evict_last").to(tl.float32)
                b = tl.load(B + cols, eviction_policy="evict_last").to(tl.float32)
        y = xc * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(row_ptr(Y, rows * sy, G)[:, None] + cols[None, :], y.to(Y.dtype.element_ty), mask=m)
        if STORE_STATS:
            tl.store(MEAN + rows, mean, mask=rmask)
            tl.store(RSTD + rows, rstd, mask=rmask)


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd_chunked(X, W, B, Y, MEAN, RSTD, n_rows, sx, sy, eps, N: tl.constexpr, BLOCK: tl.constexpr,
                 STORE_STATS: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr, G: tl.constexpr = 1,
                 UNROLL: tl.constexpr = False):
    """UNROLL: the three loops unrolled at compile time (a configuration's UNROLL), as in
    kernels/rmsnorm's `_fwd_chunked`: the same operations in the same order, but not always the
    loop's bits (an H100 found 4 of 3,072,000 elements a last bit apart at 64 x 8000 bf16), so a
    rule takes it by hidden and type only."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    row = tl.program_id(0)
    if I64:
        row = row.to(tl.int64)
    xrow = row_ptr(X, row * sx, G)
    yrow = row_ptr(Y, row * sy, G)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    if UNROLL:
        for off in tl.static_range(0, N, BLOCK):
            acc += _chunk_x(xrow, off, N, BLOCK)
    else:
        for off in range(0, N, BLOCK):
            acc += _chunk_x(xrow, off, N, BLOCK)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    if UNROLL:
        for off in tl.static_range(0, N, BLOCK):
            acc += _chunk_dev2(xrow, off, mean, N, BLOCK)
    else:
        for off in range(0, N, BLOCK):
            acc += _chunk_dev2(xrow, off, mean, N, BLOCK)
    rstd = tl.math.rsqrt(tl.sum(acc, axis=0) / N + eps)
    if UNROLL:
        for off in tl.static_range(0, N, BLOCK):
            _chunk_out(xrow, W, B, yrow, off, mean, rstd, N, BLOCK)
    else:
        for off in range(0, N, BLOCK):
            _chunk_out(xrow, W, B, yrow, off, mean, rstd, N, BLOCK)
    if STORE_STATS:
        tl.store(MEAN + row, mean)
        tl.store(RSTD + row, rstd)


@triton.jit
def _chunk_x(xrow, off, N: tl.constexpr, BLOCK: tl.constexpr):
    """`_fwd_chunked`'s first loop: one chunk of the row in float32."""
    cols = off + tl.arange(0, BLOCK)
    return tl.load(xrow + cols, mask=cols < N, other=0.0, eviction_policy="evict_last").to(tl.float32)


@triton.jit
def _chunk_dev2(xrow, off, mean, N: tl.constexpr, BLOCK: tl.constexpr):
    """`_fwd_chunked`'s second loop: one chunk's squared deviations from the mean."""
    cols = off + tl.arange(0, BLOCK)
    cm = cols < N
    x = tl.load(xrow + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
    xc = tl.where(cm, x - mean, 0.0)
    return xc * xc


@triton.jit
def _chunk_out(xrow, W, B, yrow, off, mean, rstd, N: tl.constexpr, BLOCK: tl.constexpr):
    """`_fwd_chunked`'s third loop: one chunk of y."""
    cols = off + tl.arange(0, BLOCK)
    cm = cols < N
    x = tl.load(xrow + cols, mask=cm, other=0.0, eviction_policy="evict_first").to(tl.float32)
    w = tl.load(W + cols, mask=cm, other=0.0).to(tl.float32)
    b = tl.load(B + cols, mask=cm, other=0.0).to(tl.float32)
    y = (x - mean) * rstd * w + b
    tl.store(yrow + cols, y.to(yrow.dtype.element_ty), mask=cm)


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd_chunked_aligned(X, W, B, Y, MEAN, RSTD, n_rows, eps, N: tl.constexpr, BLOCK: tl.constexpr,
                         VEC: tl.constexpr, STORE_STATS: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr,
                         UNROLL: tl.constexpr = False):
    """`_fwd_chunked` (three loops: sum, centred sum of squares, output) for the rows of
    `_fwd_aligned` (a chunked configuration's ALIGN): each row's head (< VEC columns) and tail
    (< VEC) in small masked steps held in registers, its body's whole vectors in BLOCK chunks from
    its first 16-byte boundary, the last chunk masked by a length declared a multiple of VEC (16-byte
    accesses throughout the body). A row's bits follow N, BLOCK and its head.
    UNROLL: the three loops unrolled at compile time over the most chunks a row has, every chunk
    masked to the body, no branch between chunks (as kernels/rmsnorm's): the same operations on
    the same values; on a GPU the compiler may contract them otherwise (the plain loop's UNROLL
    differed in the last bit, tests/gpu/test_norms_gpu.py), so a rule takes it by hidden and type."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    row = tl.program_id(0)
    if I64:
        row = row.to(tl.int64)
    xoff = row * N
    head, nb, nbv, xb, yb = aligned_row(X, Y, xoff, N, VEC)
    nfull = nbv // BLOCK
    nch = tl.cdiv(nbv, BLOCK)
    offs = tl.arange(0, BLOCK)
    v = tl.arange(0, VEC)
    hm = v < head
    tm = v < nb - nbv
    xh = tl.load(X + xoff + v, mask=hm, other=0.0).to(tl.float32)
    xt = tl.load(xb + nbv + v, mask=tm, other=0.0).to(tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    if UNROLL:
        for c in tl.static_range(0, (N + BLOCK - 1) // BLOCK):
            acc += _body_x(xb, c * BLOCK + offs, nbv)
    else:
        for c in range(0, nch):
            if c < nfull:
                acc += tl.load(xb + c * BLOCK + offs, eviction_policy="evict_last").to(tl.float32)
            else:
                acc += _body_x(xb, c * BLOCK + offs, nbv)
    mean = (tl.sum(acc, axis=0) + tl.sum(xh + xt, axis=0)) / N
    xhc = tl.where(hm, xh - mean, 0.0)
    xtc = tl.where(tm, xt - mean, 0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    if UNROLL:
        for c in tl.static_range(0, (N + BLOCK - 1) // BLOCK):
            xc = _body_dev(xb, c * BLOCK + offs, nbv, mean)
            acc += xc * xc
    else:
        for c in range(0, nch):
            if c < nfull:
                xc = tl.load(xb + c * BLOCK + offs, eviction_policy="evict_last").to(tl.float32) - mean
            else:
                xc = _body_dev(xb, c * BLOCK + offs, nbv, mean)
            acc += xc * xc
    rstd = tl.math.rsqrt((tl.sum(acc, axis=0) + tl.sum(xhc * xhc + xtc * xtc, axis=0)) / N + eps)
    wh = tl.load(W + v, mask=hm, other=0.0).to(tl.float32)
    bh = tl.load(B + v, mask=hm, other=0.0).to(tl.float32)
    tl.store(Y + xoff + v, (xhc * rstd * wh + bh).to(Y.dtype.element_ty), mask=hm)
    wt = tl.load(W + head + nbv + v, mask=tm, other=0.0).to(tl.float32)
    bt = tl.load(B + head + nbv + v, mask=tm, other=0.0).to(tl.float32)
    tl.store(yb + nbv + v, (xtc * rstd * wt + bt).to(Y.dtype.element_ty), mask=tm)
    if UNROLL:
        for c in tl.static_range(0, (N + BLOCK - 1) // BLOCK):
            _body_out(xb, W, B, yb, head, c * BLOCK + offs, nbv, mean, rstd)
    else:
        for c in range(0, nch):
            cols = c * BLOCK + offs
            if c < nfull:
                x = tl.load(xb + c * BLOCK + offs, eviction_policy="evict_first").to(tl.float32)
                w = tl.load(W + head + cols).to(tl.float32)
                b = tl.load(B + head + cols).to(tl.float32)
                tl.store(yb + c * BLOCK + offs, ((x - mean) * rstd * w + b).to(Y.dtype.element_ty))
            else:
                _body_out(xb, W, B, yb, head, cols, nbv, mean, rstd)
    if STORE_STATS:
        tl.store(MEAN + row, mean)
        tl.store(RSTD + row, rstd)


@triton.jit
def _body_x(xb, cols, nbv):
    """`_fwd_chunked_aligned`'s first pass, one chunk of x masked to the body (`cols` past its
    `nbv` whole vectors load nothing and add +0.0): the unrolled loop's every chunk, the loop's
    last."""
    return tl.load(xb + cols, mask=cols < nbv, other=0.0, eviction_policy="evict_last").to(tl.float32)


@triton.jit
def _body_dev(xb, cols, nbv, mean):
    """`_fwd_chunked_aligned`'s second pass, one chunk's deviations from the mean masked to the
    body (0.0 past it)."""
    cm = cols < nbv
    x = tl.load(xb + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
    return tl.where(cm, x - mean, 0.0)


@triton.jit
def _body_out(xb, W, B, yb, head, cols, nbv, mean, rstd):
    """`_fwd_chunked_aligned`'s third pass, one chunk of y masked to the body; weight and bias at
    the row's shifted columns."""
    cm = cols < nbv
    x = tl.load(xb + cols, mask=cm, other=0.0, eviction_policy="evict_first").to(tl.float32)
    w = tl.load(W + head + cols, mask=cm, other=0.0).to(tl.float32)
    b = tl.load(B + head + cols, mask=cm, other=0.0).to(tl.float32)
    tl.store(yb + cols, ((x - mean) * rstd * w + b).to(yb.dtype.element_ty), mask=cm)


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd_aligned(X, W, B, Y, MEAN, RSTD, n_rows, eps, N: tl.constexpr, BLOCK: tl.constexpr, ROWS: tl.constexpr,
                 VEC: tl.constexpr, STORE_STATS: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr):
    """`_fwd` (ROWS rows a program, each whole in registers) for contiguous rows whose length is
    not a multiple of 16 bytes (kind "aligned"), which the plain kernels access one element at a
    time: each row as its head (< VEC columns before its first 16-byte boundary), its body's
    whole vectors from that boundary (a tile masked by a length declared a multiple of VEC: 16-byte
    accesses) and its tail (< VEC columns), as rmsnorm's `_fwd_aligned`. Weight and bias read at
    each row's shifted columns. A row's bits follow N, BLOCK and its head (its start modulo VEC)."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    rows = pid * ROWS + tl.arange(0, ROWS)
    rmask = rows < n_rows
    if I64:
        rows = rows.to(tl.int64)
    xoff = rows * N
    head, nb, nbv, xb, yb = aligned_row(X, Y, xoff, N, VEC)
    cols = tl.arange(0, BLOCK)
    v = tl.arange(0, VEC)
    hm = rmask[:, None] & (v[None, :] < head[:, None])
    bm = rmask[:, None] & (cols[None, :] < nbv[:, None])
    tm = rmask[:, None] & (v[None, :] < (nb - nbv)[:, None])
    xh = tl.load(X + xoff[:, None] + v[None, :], mask=hm, other=0.0).to(tl.float32)
    x = tl.load(xb[:, None] + cols[None, :], mask=bm, other=0.0).to(tl.float32)
    xt = tl.load(xb[:, None] + nbv[:, None] + v[None, :], mask=tm, other=0.0).to(tl.float32)
    mean = (tl.sum(x, axis=1) + tl.sum(xh + xt, axis=1)) / N
    m2 = mean[:, None]
    xhc = tl.where(hm, xh - m2, 0.0)
    xc = tl.where(bm, x - m2, 0.0)
    xtc = tl.where(tm, xt - m2, 0.0)
    rstd = tl.math.rsqrt((tl.sum(xc * xc, axis=1) + tl.sum(xhc * xhc + xtc * xtc, axis=1)) / N + eps)
    r2 = rstd[:, None]
    hcol = v[None, :] + 0 * head[:, None]
    bcol = head[:, None] + cols[None, :]
    tcol = (head + nbv)[:, None] + v[None, :]
    wh = tl.load(W + hcol, mask=hm, other=0.0).to(tl.float32)
    bh = tl.load(B + hcol, mask=hm, other=0.0).to(tl.float32)
    tl.store(Y + xoff[:, None] + v[None, :], (xhc * r2 * wh + bh).to(Y.dtype.element_ty), mask=hm)
    w = tl.load(W + bcol, mask=bm, other=0.0).to(tl.float32)
    b = tl.load(B + bcol, mask=bm, other=0.0).to(tl.float32)
    tl.store(yb[:, None] + cols[None, :], (xc * r2 * w + b).to(Y.dtype.element_ty), mask=bm)
    wt = tl.load(W + tcol, mask=tm, other=0.0).to(tl.float32)
    bt = tl.load(B + tcol, mask=tm, other=0.0).to(tl.float32)
    tl.store(yb[:, None] + nbv[:, None] + v[None, :], (xtc * r2 * wt + bt).to(Y.dtype.element_ty), mask=tm)
    if STORE_STATS:
        tl.store(MEAN + rows, mean, mask=rmask)
        tl.store(RSTD + rows, rstd, mask=rmask)


@triton.jit(do_not_specialize=["n_rows", "rows_per_prog", "P", "eps"])
def _bwd(DY, X, W, MEAN, RSTD, DX, PART, n_rows, rows_per_prog, P, sdy, sx, sdx, eps, N: tl.constexpr,
         BLOCK: tl.constexpr, ROWS: tl.constexpr, MASK_COLS: tl.constexpr, HAS_STATS: tl.constexpr,
         I64: tl.constexpr, PDL: tl.constexpr, PREFETCH: tl.constexpr):
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    start = pid * rows_per_prog
    end = tl.minimum(start + rows_per_prog, n_rows)
    cols = tl.arange(0, BLOCK)
    if MASK_COLS:
        cmask = cols < N
    else:
        cmask = cols < BLOCK
    acc_w = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
    acc_b = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
    # PREFETCH: the next row tile's x and dy are loaded before this one's arithmetic (twice the
    # bytes in flight per program, more registers); the host picks it or not (_bwd_launch)
    if PREFETCH:
        rows = start + tl.arange(0, ROWS)
        if I64:
            rows = rows.to(tl.int64)
        rmask = rows < end
        if MASK_COLS:
            m = rmask[:, None] & cmask[None, :]
        else:
            m = rmask[:, None]
        x_n = tl.load(X + rows[:, None] * sx + cols[None, :], mask=m, other=0.0)
        dy_n = tl.load(DY + rows[:, None] * sdy + cols[None, :], mask=m, other=0.0)
    for r0 in range(start, end, ROWS):
        if PREFETCH:
            x = x_n.to(tl.float32)
            dy = dy_n.to(tl.float32)
            rows_c = rows
            rmask_c = rmask
            m_c = m
            rows = rows + ROWS
            rmask = rows < end
            if MASK_COLS:
                m = rmask[:, None] & cmask[None, :]
            else:
                m = rmask[:, None]
            x_n = tl.load(X + rows[:, None] * sx + cols[None, :], mask=m, other=0.0)
            dy_n = tl.load(DY + rows[:, None] * sdy + cols[None, :], mask=m, other=0.0)
        else:
            rows_c = r0 + tl.arange(0, ROWS)
            if I64:
                rows_c = rows_c.to(tl.int64)
            rmask_c = rows_c < end
            if MASK_COLS:
                m_c = rmask_c[:, None] & cmask[None, :]
            else:
                m_c = rmask_c[:, None]
            x = tl.load(X + rows_c[:, None] * sx + cols[None, :], mask=m_c, other=0.0).to(tl.float32)
            dy = tl.load(DY + rows_c[:, None] * sdy + cols[None, :], mask=m_c, other=0.0).to(tl.float32)
        # the weight again each tile (from L1/L2): fewer registers held across the loop
        if MASK_COLS:
            w = tl.load(W + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
        else:
            w = tl.load(W + cols, eviction_policy="evict_last").to(tl.float32)
        if HAS_STATS:
            mean = tl.load(MEAN + rows_c, mask=rmask_c, other=0.0)
            rstd = tl.load(RSTD + rows_c, mask=rmask_c, other=0.0)
            xc = x - mean[:, None]
        else:
            mean = tl.sum(x, axis=1) / N
            xc = x - mean[:, None]
            if MASK_COLS:
                xc = tl.where(cmask[None, :], xc, 0.0)
            rstd = tl.math.rsqrt(tl.sum(xc * xc, axis=1) / N + eps)
        xhat = tl.where(m_c, xc * rstd[:, None], 0.0)
        g = dy * w[None, :]
        c1 = tl.sum(g * xhat, axis=1) / N
        c2 = tl.sum(g, axis=1) / N
        dx = (g - xhat * c1[:, None] - c2[:, None]) * rstd[:, None]
        tl.store(DX + rows_c[:, None] * sdx + cols[None, :], dx.to(DX.dtype.element_ty), mask=m_c)
        acc_w += dy * xhat
        acc_b += dy
    pw = tl.sum(acc_w, axis=0)
    pb = tl.sum(acc_b, axis=0)
    if I64:
        pid = pid.to(tl.int64)
    tl.store(PART + pid * N + cols, pw.to(PART.dtype.element_ty), mask=cmask)
    tl.store(PART + (P + pid) * N + cols, pb.to(PART.dtype.element_ty), mask=cmask)


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd_split(X, W, B, Y, MEAN, RSTD, n_rows, sx, sy, eps, N: tl.constexpr, B1: tl.constexpr,
               B2: tl.constexpr, B3: tl.constexpr, ROWS: tl.constexpr, STORE_STATS: tl.constexpr,
               I64: tl.constexpr, PDL: tl.constexpr):
    """The row in registers as up to three power-of-two pieces [0, B1), [B1, B1 + B2),
    [B1 + B2, N) (B3 masked, B2/B3 0 when absent): 768 = 512 + 256, 3072 = 2048 + 1024."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    rows = pid * ROWS + tl.arange(0, ROWS)
    rmask = rows < n_rows
    if I64:
        rows = rows.to(tl.int64)
    m = rmask[:, None]
    xp = X + rows[:, None] * sx
    yp = Y + rows[:, None] * sy
    c1 = tl.arange(0, B1)
    x1 = tl.load(xp + c1[None, :], mask=m, other=0.0).to(tl.float32)
    s1 = tl.sum(x1, axis=1)
    if B2 > 0:
        c2 = B1 + tl.arange(0, B2)
        x2 = tl.load(xp + c2[None, :], mask=m, other=0.0).to(tl.float32)
        s1 += tl.sum(x2, axis=1)
    if B3 > 0:
        c3 = B1 + B2 + tl.arange(0, B3)
        m3 = m & (c3 < N)[None, :]
        x3 = tl.load(xp + c3[None, :], mask=m3, other=0.0).to(tl.float32)
        s1 += tl.sum(x3, axis=1)
    mean = s1 / N
    xc1 = x1 - mean[:, None]
    s2 = tl.sum(xc1 * xc1, axis=1)
    if B2 > 0:
        xc2 = x2 - mean[:, None]
        s2 += tl.sum(xc2 * xc2, axis=1)
    if B3 > 0:
        xc3 = tl.where((c3 < N)[None, :], x3 - mean[:, None], 0.0)
        s2 += tl.sum(xc3 * xc3, axis=1)
    rstd = tl.math.rsqrt(s2 / N + eps)
    w1 = tl.load(W + c1, eviction_policy="evict_last").to(tl.float32)
    b1 = tl.load(B + c1, eviction_policy="evict_last").to(tl.float32)
    tl.store(yp + c1[None, :], (xc1 * rstd[:, None] * w1[None, :] + b1[None, :]).to(Y.dtype.element_ty), mask=m)
    if B2 > 0:
        w2 = tl.load(W + c2, eviction_policy="evict_last").to(tl.float32)
        b2 = tl.load(B + c2, eviction_policy="evict_last").to(tl.float32)
        tl.store(yp + c2[None, :], (xc2 * rstd[:, None] * w2[None, :] + b2[None, :]).to(Y.dtype.element_ty),
                 mask=m)
    if B3 > 0:
        w3 = tl.load(W + c3, mask=c3 < N, other=0.0, eviction_policy="evict_last").to(tl.float32)
        b3 = tl.load(B + c3, mask=c3 < N, other=0.0, eviction_policy="evict_last").to(tl.float32)
        tl.store(yp + c3[None, :], (xc3 * rstd[:, None] * w3[None, :] + b3[None, :]).to(Y.dtype.element_ty),
                 mask=m3)
    if STORE_STATS:
        tl.store(MEAN + rows, mean, mask=rmask)
        tl.store(RSTD + rows, rstd, mask=rmask)


@triton.jit(do_not_specialize=["n_rows", "rows_per_prog", "P", "eps"])
def _bwd_long(DY, X, W, MEAN, RSTD, DX, PART, n_rows, rows_per_prog, P, sdy, sx, sdx, eps, N: tl.constexpr,
              BLOCK: tl.constexpr, HAS_STATS: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr):
    """The backward for long rows, never a whole row in registers (as kernels/rmsnorm's
    `_bwd_long`): a persistent grid; per row, one loop over BLOCK-column chunks accumulates
    sum(g * xhat) and sum(g) (x and dy kept in L2), a second re-reads them, writes dx and adds
    dy * xhat and dy to the program's own float32 rows p and P + p of PART (read-modify-write,
    only this program touches them: fixed order, deterministic). `_reduce2` sums them."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    start = pid * rows_per_prog
    end = tl.minimum(start + rows_per_prog, n_rows)
    pw_row = PART + pid.to(tl.int64) * N
    pb_row = PART + (pid.to(tl.int64) + P) * N
    for r in range(start, end):
        row = r
        if I64:
            row = row.to(tl.int64)
        xrow = X + row * sx
        dyrow = DY + row * sdy
        dxrow = DX + row * sdx
        if HAS_STATS:
            mean = tl.load(MEAN + row)
            rstd = tl.load(RSTD + row)
        else:
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for off in range(0, N, BLOCK):
                cols = off + tl.arange(0, BLOCK)
                acc += tl.load(xrow + cols, mask=cols < N, other=0.0, eviction_policy="evict_last").to(tl.float32)
            mean = tl.sum(acc, axis=0) / N
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for off in range(0, N, BLOCK):
                cols = off + tl.arange(0, BLOCK)
                cm = cols < N
                x = tl.load(xrow + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
                xc = tl.where(cm, x - mean, 0.0)
                acc += xc * xc
            rstd = tl.math.rsqrt(tl.sum(acc, axis=0) / N + eps)
        d1 = tl.zeros([BLOCK], dtype=tl.float32)
        d2 = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            cm = cols < N
            x = tl.load(xrow + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
            dy = tl.load(dyrow + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
            w = tl.load(W + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
            xhat = tl.where(cm, (x - mean) * rstd, 0.0)
            g = dy * w
            d1 += g * xhat
            d2 += g
        c1 = tl.sum(d1, axis=0) / N
        c2 = tl.sum(d2, axis=0) / N
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            cm = cols < N
            x = tl.load(xrow + cols, mask=cm, other=0.0, eviction_policy="evict_first").to(tl.float32)
            dy = tl.load(dyrow + cols, mask=cm, other=0.0, eviction_policy="evict_first").to(tl.float32)
            w = tl.load(W + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
            xhat = tl.where(cm, (x - mean) * rstd, 0.0)
            g = dy * w
            dx = (g - xhat * c1 - c2) * rstd
            tl.store(dxrow + cols, dx.to(DX.dtype.element_ty), mask=cm)
            # the program's first row writes its partial rows, later rows add to them
            pm = cm & ((cols * 0 + r) > start)
            ow = tl.load(pw_row + cols, mask=pm, other=0.0)
            ob = tl.load(pb_row + cols, mask=pm, other=0.0)
            tl.store(pw_row + cols, ow + dy * xhat, mask=cm)
            tl.store(pb_row + cols, ob + dy, mask=cm)


@triton.jit(do_not_specialize=["n_rows", "groups", "eps"])
def _bwd_parts(DY, X, W, MEAN, RSTD, DX, PART, SLOTS, DEP, n_rows, groups, sdy, sx, sdx, eps, N: tl.constexpr,
               BLOCK: tl.constexpr, PARTS: tl.constexpr, SP: tl.constexpr, NX: tl.constexpr,
               MASK_COLS: tl.constexpr, HAS_STATS: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr,
               PREFETCH: tl.constexpr = False):
    """The backward of rows too long for one program, each across PARTS programs, persistent (as
    kernels/rmsnorm's `_bwd_parts`): program p = g * PARTS + part holds columns [part * BLOCK,
    +BLOCK) of rows g, g + groups, ...; per row it loads its block of x and dy once, exchanges
    its parts of sum(g * xhat) and sum(g) (first those of the mean and the centred sum of squares
    when the statistics are not given: NX exchanges), writes dx and adds dy * xhat and dy to two
    float32 register accumulators; at the end rows g and groups + g of PART [2, groups, N]
    receive them (`_reduce2` sums the groups). x and dy are read once."""
    g, part, cols, cm, w = bwd_start(W, N, BLOCK, PARTS, MASK_COLS, PDL)
    accw = tl.zeros([BLOCK], dtype=tl.float32)
    accb = tl.zeros([BLOCK], dtype=tl.float32)
    x_n, dy_n = first_pair(X, DY, g, n_rows, sx, sdy, cols, cm, I64, PREFETCH)
    for r in range(g, n_rows, groups):
        row = row_index(r, I64)
        x, dy, x_n, dy_n = row_pair(X, DY, row, groups, n_rows, sx, sdy, cols, cm, x_n, dy_n, MASK_COLS, PREFETCH)
        slots = SLOTS + row.to(tl.int64) * (SP * NX)
        if HAS_STATS:
            mean = tl.load(MEAN + row)
            rstd = tl.load(RSTD + row)
            dslots = slots
        else:
            publish(slots, part, tl.sum(x, axis=0))
            mean = gather(slots, PARTS, SP) / N
            xc = x - mean
            if MASK_COLS:
                xc = tl.where(cm, xc, 0.0)
            publish(slots + SP, part, tl.sum(xc * xc, axis=0))
            rstd = tl.math.rsqrt(gather(slots + SP, PARTS, SP) / N + eps)
            dslots = slots + 2 * SP
        xhat = (x - mean) * rstd
        if MASK_COLS:
            xhat = tl.where(cm, xhat, 0.0)
        gw = dy * w
        publish(dslots, part, tl.sum(gw * xhat, axis=0))
        publish(dslots + SP, part, tl.sum(gw, axis=0))
        c1 = gather(dslots, PARTS, SP) / N
        c2 = gather(dslots + SP, PARTS, SP) / N
        store_row(DX, row, sdx, cols, cm, (gw - xhat * c1 - c2) * rstd, MASK_COLS)
        accw += dy * xhat
        accb += dy
        count_out(DEP + row, slots, PARTS, SP * NX)
    gl = g.to(tl.int64)
    tl.store(PART + gl * N + cols, accw, mask=cm)
    tl.store(PART + (gl + groups) * N + cols, accb, mask=cm)


@triton.jit(do_not_specialize=["P"])
def _reduce2(PART, OUTW, OUTB, P, N: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_P: tl.constexpr,
             PDL: tl.constexpr):
    """OUTW[c] = sum_p PART[0, p, c], OUTB[c] = sum_p PART[1, p, c] (float32, fixed order)."""
    if PDL:
        tl.extra.cuda.gdc_wait()  # the partial sums of the kernel before
        tl.extra.cuda.gdc_launch_dependents()
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    which = tl.program_id(1)
    cmask = cols < N
    base = PART + which.to(tl.int64) * P * N
    acc = tl.zeros([BLOCK_P, BLOCK_N], dtype=tl.float32)
    for p0 in range(0, P, BLOCK_P):
        ps = p0 + tl.arange(0, BLOCK_P)
        m = (ps < P)[:, None] & cmask[None, :]
        acc += tl.load(base + ps[:, None].to(tl.int64) * N + cols[None, :], mask=m, other=0.0)
    total = tl.sum(acc, axis=0)
    if which == 0:
        tl.store(OUTW + cols, total.to(OUTW.dtype.element_ty), mask=cmask)
    else:
        tl.store(OUTB + cols, total.to(OUTB.dtype.element_ty), mask=cmask)


# --------------------------------------------------------------------------------------
# Launch configuration: rules over size classes of (hidden, element size)
# --------------------------------------------------------------------------------------


def _pow2_floor(v: int) -> int:
    return 1 << (max(1, int(v)).bit_length() - 1)


def split_pieces(n: int) -> tuple[int, int, int]:
    """The row as up to three power-of-two pieces (B1, B2, B3): B1 the largest power of two
    <= n, B2 the largest <= the rest, B3 the next power of two >= what is left (masked); 0 where
    a piece is absent. 768 -> (512, 256, 0), 3072 -> (2048, 1024, 0), 7168 -> (4096, 2048, 1024)."""
    b1 = _pow2_floor(n)
    rest = n - b1
    b2 = _pow2_floor(rest) if rest else 0
    rest -= b2
    b3 = triton.next_power_of_2(rest) if rest else 0
    return b1, b2, b3


#: rows of at least this many elements that are not a power of two, whose masked
#: power-of-two block would waste more than 1/_SPLIT_WASTE of the row, are of the split class:
#: `_fwd_split` where the row is two powers of two, else the masked block with warps from its
#: real bytes. Sweeps 6-7 (H200, 2026-12-04): 2496 bf16, the masked block on 4 warps 10.70 us
#: against the three-piece split's 18.57 (4096 rows), 2.35 against 4.04 (14 rows); 1252 fp16
#: (24887 rows), 2 rows on 2 warps 40.43 against 54.77
_SPLIT_MIN = 512
#: 2-byte rows of 129 to 255 elements (a masked block of 256): 4 rows a program, a quarter of
#: the 4096-element tile (warps follow the tile's bytes, so a quarter of them too): more, smaller
#: programs resident an SM. Sweep 13 class M (H100, 2026-12-07b): RMSNorm 18937 x 213 bf16 0.87x
#: the 16-row tile; sweep 14 class S (H100, 2026-12-07c): RMSNorm 792 x 146 bf16 0.81x, LayerNorm
#: 5647 x 212 fp16 0.83x. Not measured: 256 itself, blocks of 128 and 512 (sweep 14: quarter rows
#: 1.01x at RMSNorm 12248 x 448 fp16), float32.
_SHORT_ROWS_2B = 4
_SPLIT_WASTE = 8
#: 2-byte split-class rows strictly between these sizes take the masked block of 8192 instead
#: (_MASKED_8K_2B; the chunked loop until sweeps 11-12, as kernels/rmsnorm, where sweep 2 measured
#: the split slower than the loop at 5120 / 7168), odd ones the aligned loop (_ALIGN_LOOP_ODD);
#: float32 rows there the masked block of 8192 (16 warps): sweep 8 (H100, 2026-12-06, tune seed
#: 8181), 1038 x 4288: 11.78 us against the loop's 13.37 and torch.compile's 13.56; 3688 x
#: 6400: 64.68 against 72.94 and 65.33; 524 x 5983: 12.45 against 14.30 and 13.58
_CHUNK_BETWEEN = (4096, 8192)
#: bytes of a 2-byte "rows" tile per warp (four 16-byte vectors a thread): lab/norms/NOTES.md,
#: "2026-12-02 sweep 2: what the rules take" (float32: 1024)
_WARP_BYTES_2B = 2048
#: rows longer than this (up to _MAX_REG_ROW) take `_fwd_chunked` in 32 kB chunks on 16 warps:
#: sweep 5 (H200, 2026-12-04), 2048 x 32768 bf16: 78.69 us against 85.08 for the row held in
#: `_fwd`, torch.compile 92.13; the whole row one chunk on 32 warps 89.74
_THREE_PASS_FROM = 16384
#: rows above _THREE_PASS_FROM whose length is not a multiple of 16 bytes: `_fwd_chunked_aligned`
#: (ALIGN) in 8192-element chunks on 16 warps. Sweep 9 (H100, 2026-12-06, tune seed 9209;
#: lab/device-2026-12-06e/norms9/): 2340 x 28667 fp32 234.4 us against the rule's 362.1 and
#: torch.compile's 341.9; 2171 x 30906 bf16 122.9 against 147.8 (torch.compile 158.3). Shorter
#: odd rows keep the rules: at 1066 fp16 (15232 rows) the aligned loop was 1.59x the plain block
#: and more; kernels/rmsnorm takes the loop from 4096 at 2 bytes, not measured here
_ALIGN_LOOP = {"kind": "chunked", "BLOCK": 8192, "num_warps": 16, "ALIGN": 1}
#: 2-byte rows off 16-byte multiples from 8192 to _THREE_PASS_FROM: the aligned loop in 4 kB
#: chunks on 8 warps. Sweep 10 (H100, 2026-12-06, tune seed 10103; lab/device-2026-12-06f/):
#: 3494 x 9365 fp16 60.22 us against the rule's (the masked block) 77.46, torch.compile 111.1;
#: 6500 x 8469 fp16 98.68 against 127.9 (2 kB chunks on 4 warps 96.58); 862 x 15179 fp16 33.88
#: against 37.36. Between 4096 and 8192 not measured (kernels/rmsnorm takes it from 4096).
#: Unrolled (UNROLL: every chunk's loads in flight at once; by hidden and type, as a row's last
#: bit may move with it): sweep 15 (H100, 2026-12-07d, tune seed 15013), 7479 x 8972 bf16 107.2
#: us against the loop's 115.9 (torch.compile 98.9), 11 x 9611 bf16 4.72 against 5.15
_ALIGN_LOOP_2B = {"kind": "chunked", "BLOCK": 4096, "num_warps": 8, "ALIGN": 1, "UNROLL": True}
#: odd 2-byte rows between 4096 and 8192 (2-byte aligned only: the plain loop reads them an
#: element at a time): the aligned loop in 2048-element chunks on 8 warps. Sweep 12 (H100,
#: 2026-12-07, tune seed 12011; lab/device-2026-12-07/ce12/): 11722 x 5725 fp16 114.5 us against
#: the rule's (the plain loop, UNROLL) 186.2, torch.compile 184.6; 15610 x 4299 bf16 127.9
#: against 205.1 (torch.compile 193.3, FlashInfer 159.0 in sweep 11); 7 x 4335 fp16 3.9 against
#: 4.1 (on 4 warps 109.9, 115.9, but 4.2 at 7 rows). Not for even rows off 16-byte multiples: at
#: 5182, 6110 fp16 / bf16 and 8172 bf16 every aligned candidate lost to the loop (1.05-1.26x).
#: Unrolled as _ALIGN_LOOP_2B: sweep 15, 1114 x 5943 bf16 16.89 us against 17.58, 14 x 5847 bf16
#: 3.93 against 4.10 (1024-element chunks unrolled: 15.39 and 4.75)
_ALIGN_LOOP_ODD = {"kind": "chunked", "BLOCK": 2048, "num_warps": 8, "ALIGN": 1, "UNROLL": True}
#: even 2-byte split-class rows between 4096 and 8192: the masked block of 8192 on 8 warps, one
#: row a program, weight and bias after the reductions, instead of the chunked loop (UNROLL, sweep
#: 10). Sweeps 11-12 (H100, 2026-12-07, tune seeds 11027, 12011), against the loop: decode rows
#: 0.74-0.93x (73 x 5612 fp16 3.15 us against 4.01, torch.compile 3.78; 9 x 4480 bf16 2.73 against
#: 3.07); training rows 16-byte multiples 0.994-1.002x (13617 x 4928 bf16 90.85 against 91.43,
#: torch.compile 103.3), other even rows 0.91x (5501 x 5182 fp16 44.40 against 49.01, 10983 x
#: 6110 bf16 96.83 against 105.7). On 16 warps it lost at training rows (1.03-1.23x the loop)
_MASKED_8K_2B = {"kind": "rows", "BLOCK": 8192, "ROWS": 1, "MASK_COLS": True, "num_warps": 8, "LATE_W": True}
#: 2-byte rows of two power-of-two pieces above 8192 (9216, 10240, 12288): the chunked loop in
#: 4 kB chunks on 8 warps, not `_fwd_split`. Sweep 10: 3001 x 9216 bf16 41.55 us against the
#: split's 63.63 (torch.compile 43.26); 6000 x 10240 fp16 85.64 against 129.0; 1500 x 12288
#: bf16 29.80 against 34.76 (the masked block of 16384 28.21)
_SPLIT_LOOP = {"kind": "chunked", "BLOCK": 4096, "num_warps": 8}
#: float32 split-class rows held in the masked block of 16384 (8192 < n < 16384): at most 16
#: warps. Sweep 9: 6393 x 10496 fp32 180.8 us on 16 warps (182.5 on 8) against 200.0 on the 32 of
#: the rule before, torch.compile 181.2 (kernels/rmsnorm: 16 and 32 within 1 % at 9664 and 9280)
_F32_MASKED_16K_WARPS = 16


def fwd_config(n: int, elsize: int) -> dict:
    """Forward: a tile of about 4096 elements per program for short rows (several rows per program;
    4 at 2-byte rows of 129-255, _SHORT_ROWS_2B), one row per program from hidden 4096 up; 1 kB
    of the tile per warp for float32 (two 16-byte vectors per thread), 2 kB for 2-byte types
    (four), at most 16 warps for 2-byte types and 32 for float32; longer rows go to the chunked
    kernel. Rows that are not a power of two (>= _SPLIT_MIN, wasting more than an eighth of a
    masked block: 768, 3072, 9000) are held as power-of-two pieces (kind "split"), warps from
    their real bytes, except between 4096 and 8192 (5120, 7168, _CHUNK_BETWEEN): there even
    2-byte rows take the masked block of 8192 on 8 warps (_MASKED_8K_2B, sweeps 11-12), float32
    rows the masked block (sweep 8). 2-byte rows of kind "rows": 2 kB of the tile per warp
    (_WARP_BYTES_2B; sweep 2: 8192 at 8 warps 0.958x / 0.960x the 16, 1024 x 4 rows at 4 warps
    0.985x the 8); float32 keeps 1 kB per warp (4096: 8 warps 1.015x the 16). Rows above
    _THREE_PASS_FROM whose length is not a multiple of 16 bytes take the aligned chunked loop
    (_ALIGN_LOOP), 2-byte ones from 8192 too (_ALIGN_LOOP_2B), odd 2-byte ones between 4096 and
    8192 in shorter chunks (_ALIGN_LOOP_ODD); 2-byte rows of two pieces above 8192 the chunked
    loop (_SPLIT_LOOP); float32 rows of the masked block of 16384 at most 16 warps
    (_F32_MASKED_16K_WARPS)."""
    if n % (16 // elsize) and n > _THREE_PASS_FROM:
        return dict(_ALIGN_LOOP)
    if n % (16 // elsize) and elsize == 2 and n > _CHUNK_BETWEEN[1]:
        return dict(_ALIGN_LOOP_2B)
    if n % 2 and elsize == 2 and _CHUNK_BETWEEN[0] < n < _CHUNK_BETWEEN[1]:
        return dict(_ALIGN_LOOP_ODD)
    if n > _MAX_REG_ROW:
        return {"kind": "chunked", "BLOCK": 4096 if elsize == 4 else 8192, "num_warps": 16}
    if n > _THREE_PASS_FROM:
        # the chunked loop with 32 kB chunks: the row is not held across the two reductions
        return {"kind": "chunked", "BLOCK": 32768 // elsize, "num_warps": 16}
    block = triton.next_power_of_2(n)
    rows = max(1, min(64, 4096 // block))
    if elsize == 2 and block == 256 and n != block:
        rows = _SHORT_ROWS_2B
    # 16 warps at most for 2-byte types (wider CTAs only cut the programs resident per SM),
    # 32 for float32 rows of 8192 and more (fewer float32 values per thread, no spills)
    cap = 32 if elsize == 4 else 16
    if n >= _SPLIT_MIN and block != n and (block - n) * _SPLIT_WASTE > n:
        between = _CHUNK_BETWEEN[0] < n < _CHUNK_BETWEEN[1]
        if between and elsize != 4:
            # (odd rows took _ALIGN_LOOP_ODD above) the masked block of 8192 on 8 warps, by hidden
            # and type, so a row's bits keep to the row count (_MASKED_8K_2B, sweeps 11-12)
            return dict(_MASKED_8K_2B)
        b1, b2, b3 = split_pieces(n)
        if b3 == 0 and elsize == 2 and n > _CHUNK_BETWEEN[1]:
            return dict(_SPLIT_LOOP)
        warps = max(1, min(cap, _pow2_floor(rows * n * elsize // 1024)))
        if b3 == 0 and not between:
            return {"kind": "split", "B1": b1, "B2": b2, "B3": b3, "BLOCK": block, "ROWS": rows,
                    "MASK_COLS": False, "num_warps": warps}
        # the masked block, warps from the real bytes at this rule's bytes a warp
        per_warp = _WARP_BYTES_2B if elsize == 2 and (rows > 1 or rows * block * elsize >= 16384) else 1024
        if elsize == 4 and block == 16384:
            cap = _F32_MASKED_16K_WARPS
        warps = max(1, min(cap, _pow2_floor(rows * n * elsize // per_warp)))
        return {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": True, "num_warps": warps,
                "LATE_W": True}
    tile_bytes = rows * block * elsize
    # 2 kB a warp for 2-byte tiles of several rows or of 16 kB and more; 1 kB for a lone shorter
    # row, which at decode sizes needs the parallelism (sweep 3, 4096 bf16: one row 2.04 us on
    # 8 warps against 2.92 on 4; 4096 rows 18.19 against 18.06)
    per_warp = _WARP_BYTES_2B if elsize == 2 and (rows > 1 or tile_bytes >= 16384) else 1024
    warps = max(1, min(cap, _pow2_floor(tile_bytes // per_warp)))
    # LATE_W: weight and bias after the reductions (run 2 loaded them with x and trailed
    # torch.compile by 1.25-1.3x at 8192; fewer registers live across the two reductions)
    return {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": block != n, "num_warps": warps,
            "LATE_W": True}


#: the longest row the backward keeps whole in registers (x, dy, dx and two float32
#: accumulators); longer rows go to `_bwd_parts` (the row across programs). Sweep 3 (H200,
#: 2026-12-04, bf16): at 8192 (4096 rows) the register kernel 63.58 us, parts 98.3; at 16384
#: (2048 rows) parts 102.4, the long kernel 138.8; at 32768 parts 199.4, long 384.4. Sweep 5:
#: at 12288 (4096 rows) the register kernel (a masked block of 16384, 32 warps) 111.5, parts 150.9
_BWD_REG_ROW = 12288
#: elements of the backward's register tile for short rows, as kernels/rmsnorm's (its comment
#: has the measurements). Sweep 7 (H200, 2026-12-04) here: 768 bf16 (4096 rows), one row on 4
#: warps 11.46 us against the 2048 tile's 18.50; 1024 bf16 (32768 rows) 60.04 against 69.97;
#: 256 fp16 (6560 rows) 2 rows on 2 warps 10.39 against 20.27
_BWD_TILE = 512
#: bytes of L2 the long backward may keep per wave (two partial rows of 4 bytes a column and
#: the re-read row of x and dy, per program)
_LONG_L2 = 24 * 1024 * 1024


def bwd_config(n: int, elsize: int) -> dict:
    """Backward: tiles of one row from 512 columns up, of 512 elements for rows of 256 and 512
    columns and of 1024 for shorter rows (_BWD_TILE, kernels/rmsnorm's rule; dy, x, dx and two
    float32 accumulators live together), 8 float32 elements per thread of each, at least 2 and
    at most 32 warps; CTAS programs per SM. Rows longer than _BWD_REG_ROW: kind "parts"
    (`_bwd_parts`, the row across programs of 4 kB of each input on 4 warps)."""
    if n > _BWD_REG_ROW:
        return parts_config(n, _BWD_PART_BYTES // elsize, _BWD_PART_WARPS)
    block = triton.next_power_of_2(n)
    rows = max(1, min(64, (_BWD_TILE if block >= 256 else 2 * _BWD_TILE) // block))
    warps = max(2, min(32, _pow2_floor(rows * block // 256)))
    ctas = max(1, min(4, 32 // warps))
    return {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": block != n, "num_warps": warps,
            "CTAS": ctas}


def long_config(n: int, elsize: int) -> dict:
    """The long backward (`_bwd_long`): chunks of 16 kB of each input over 32 warps. Where the
    parts kernel cannot run (the interpreter)."""
    block = 16384 // elsize
    return {"kind": "long", "BLOCK": block, "ROWS": 1, "MASK_COLS": n % block != 0,
            "num_warps": 32, "num_stages": 1, "CTAS": None}


#: the parts backward (`_bwd_parts`): bytes of each input one program holds of a row, and its
#: warps (sweep 3, 2048 x 32768 bf16: 4 kB on 4 warps 199.4 us, 8 kB on 8 warps 204.3, 16 kB on
#: 16 warps 214.8; kernels/rmsnorm's the same)
_BWD_PART_BYTES = 4096
_BWD_PART_WARPS = 4


def long_ctas(n: int, elsize: int, sms: int) -> int:
    """Programs per SM of the long backward: the most (1, 2 or 4) whose partial rows and
    re-read rows (n x (8 + 2 x elsize) bytes per program) fit in _LONG_L2; at least 1."""
    per = n * (8 + 2 * elsize)
    c = 4
    while c > 1 and sms * c * per > _LONG_L2:
        c //= 2
    return c


#: configurations that replace the rules, for sweeps only (lab/norms/sweep2.py):
#: {("fwd" | "bwd", hidden, element size): config dict of the same form as the rule's}
OVERRIDE: dict = {}


#: at most this many rows, the forward loads weight and bias with x (LATE_W off): a few rows
#: cannot hide the rule's second trip to memory after the reductions. Sweep 13, class D (H100,
#: 2026-12-07, lab/device-2026-12-07b/): early loads 0.67x the rule at 3 x 5440 fp16, 0.76x at
#: 14 x 5312 fp32, 0.62x at 2 x 9024 fp16 (tune seed 13007); on seed 13031, not tuned on, 0.68x
#: at 1 x 11028 and 2 x 10688 fp32, 0.89x at 16 x 13312 fp16. LATE_W moves loads, not
#: arithmetic (test_late_weight_loads_change_no_bit), so a row's bits stay independent of the batch.
#: From _EARLY_W_MIN elements: sweep 14 class E (H100, 2026-12-07c, tune seed 14009) had early
#: loads 0.73x the rule at 1 x 1856 bf16 and 0.95x at 2 x 1609 bf16; shorter rows not measured
#: (sweep 15 class V, 16 rows or fewer below 1024: 1.07x at 2 x 518 bf16, 1.35x at 6 x 256 fp16).
#: Up to _EARLY_W_ROWS_LONG rows from _EARLY_W_LONG_MIN elements: sweep 15 class W (H100,
#: 2026-12-07d, tune seed 15013) had early loads 0.90x the rule at 65 x 7168 bf16 and 0.85x at
#: 46 x 4544 fp32; seed 14071 (sweep 14's held-out run) 0.94x at 98 x 6208 bf16. 17-128 rows of
#: 1024-4095 elements are not measured and keep the rule.
_EARLY_W_ROWS = 16
_EARLY_W_MIN = 1024
_EARLY_W_ROWS_LONG = 128
_EARLY_W_LONG_MIN = 4096


def _early_w(n: int, n_rows: int) -> bool:
    """Whether n_rows rows of n elements load weight and bias with x (LATE_W off)."""
    return (n_rows <= _EARLY_W_ROWS and n >= _EARLY_W_MIN) or (n_rows <= _EARLY_W_ROWS_LONG and n >= _EARLY_W_LONG_MIN)


def _fwd_cfg(n: int, elsize: int, n_rows: int | None = None) -> dict:
    """The forward's configuration: a test's override, or the rule by hidden and type, with LATE_W
    off where `_early_w` says so (n_rows None: the rule as it is)."""
    got = OVERRIDE.get(("fwd", n, elsize))
    if got:
        return dict(got)
    cfg = fwd_config(n, elsize)
    if cfg["kind"] == "rows" and n_rows is not None and _early_w(n, n_rows):
        cfg = {**cfg, "LATE_W": False}
    return cfg


def _bwd_cfg(n: int, elsize: int) -> dict:
    got = OVERRIDE.get(("bwd", n, elsize))
    if got:
        got = dict(got)
        if got.get("kind", "rows") == "rows" and n > _MAX_REG_ROW:
            raise ValueError(f"layernorm_backward: a rows-kind configuration keeps a row in registers; hidden {n} > "
                             f"{_MAX_REG_ROW} needs kind 'long'")
        return got
    return bwd_config(n, elsize)


_SM_COUNT: dict = {}


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 4  # the interpreter: a few programs, so that the partial sums are exercised
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SM_COUNT:
        _SM_COUNT[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SM_COUNT[idx]


def reduce_config(n: int, p: int) -> tuple[int, int, int]:
    """The partial-sum reduction: each program sums all P partial rows of BLOCK_N columns, in
    tiles of BLOCK_P x BLOCK_N <= 8192 elements (one tile when P <= 1024), BLOCK_N >= 8 (32-byte
    row segments): many programs even for short rows, so the reduction is not latency-bound."""
    bp = min(triton.next_power_of_2(p), 1024)
    bn = max(8, min(256, 8192 // bp, triton.next_power_of_2(n)))
    return bp, bn, 8 if bp * bn >= 4096 else 4


def bwd_programs(n_rows: int, cfg: dict, sms: int, ctas: int | None = None) -> int:
    """Programs of the persistent backward grid: `ctas` per SM (by default the rule's CTAS; on
    a GPU the occupancy of the compiled kernel, see _bwd_launch), never more than row tiles."""
    tiles = triton.cdiv(n_rows, cfg["ROWS"])
    return max(1, min(tiles, sms * (ctas or cfg["CTAS"])))


_LAUNCH: dict = {}  # backward: key -> (num_warps, programs per SM)


#: bytes of x and dy in flight per SM beyond which the backward's launch choice stops counting
#: them (4.2 TB/s over 132 SMs at 1-1.5 us of loaded DRAM latency needs 32-48 kB per SM;
#: Little's law), and the resident warps per SM beyond which it stops counting those
_INFLIGHT_CAP = 48 * 1024
_WARPS_CAP = 32


def _bwd_launch(kernel, key, make_args, consts: dict, cfg: dict, elsize: int, device) -> tuple[int, bool, int]:
    """(num_warps, PREFETCH, programs per SM) of the backward kernel, from the compiled kernel.

    A model of the memory system, not a table: the kernel streams x and dy, so its bandwidth is
    the bytes it keeps in flight per SM over the DRAM latency. Each candidate (half, once and
    twice the rule's warps, 4 to 32, with 2 to 32 elements of the tile per thread; with or
    without the software prefetch)
    is compiled (warmup, no launch); its registers, threads and shared memory give the programs
    resident per SM (at most 8), and in flight = resident programs x tile bytes of x and dy x
    (2 with the prefetch). The choice: the fewest register spills, then the most bytes in flight
    up to _INFLIGHT_CAP, then the most resident warps up to _WARPS_CAP, then no prefetch, then
    fewer warps per program. The persistent
    grid is that many programs per SM (one wave). Chosen once per configuration, before the first
    call, so the grid and with it the order of dweight's sums never change between calls. In the
    interpreter, or on any failure: the rule's num_warps and CTAS, without the prefetch."""
    if _INTERPRET or device.type != "cuda":
        return cfg["num_warps"], False, cfg["CTAS"]
    got = _LAUNCH.get(key)
    if got is not None:
        return got
    best = None
    try:
        props = torch.cuda.get_device_properties(device)
        regs_sm = int(getattr(props, "regs_per_multiprocessor", 65536))
        threads_sm = int(getattr(props, "max_threads_per_multi_processor", 2048))
        smem_sm = int(getattr(props, "shared_memory_per_multiprocessor", 233472))
        elems = cfg["ROWS"] * cfg["BLOCK"]
        tile_bytes = elems * elsize * 2  # x and dy
        rule = cfg["num_warps"]
        for warps in sorted({max(4, rule // 2), rule, min(32, rule * 2)}):
            per_thread = elems // (warps * 32)
            if per_thread < 2 or per_thread > 32:
                continue
            for prefetch in (False, True):
                try:
                    ck = kernel.warmup(*make_args(), grid=(1,), **{**consts, "num_warps": warps, "PREFETCH": prefetch})
                    ck._init_handles()
                    threads = warps * 32
                    regs = max(8, (int(ck.n_regs) + 7) // 8 * 8) * threads
                    smem = int(getattr(ck.metadata, "shared", 0) or 0)
                    fit = min(regs_sm // regs, threads_sm // threads, smem_sm // (smem + 1024) if smem else 32, 8)
                    if fit < 1:
                        continue
                    inflight = fit * tile_bytes * (2 if prefetch else 1)
                    spills = int(getattr(ck, "n_spills", 0) or 0)
                    score = (-spills, min(inflight, _INFLIGHT_CAP), min(fit * warps, _WARPS_CAP), not prefetch,
                             -warps)
                    if best is None or score > best[0]:
                        best = (score, (warps, prefetch, fit))
                except Exception:  # noqa: BLE001 - this candidate does not compile or load
                    continue
    except Exception:  # noqa: BLE001 - no device properties: the rule
        best = None
    got = best[1] if best else (cfg["num_warps"], False, cfg["CTAS"])
    _LAUNCH[key] = got
    return got


def launch_choices() -> dict:
    """For benchmarks and notes: the backward launch chosen per configuration key."""
    return {str(k): {"num_warps": v[0], "prefetch": v[1], "programs_per_sm": v[2]} for k, v in _LAUNCH.items()}


# --------------------------------------------------------------------------------------
# Host side
# --------------------------------------------------------------------------------------


def _check(x, weight, bias, what):
    if not isinstance(x, torch.Tensor) or not isinstance(weight, torch.Tensor):
        raise ValueError(f"{what}: x and weight must be torch.Tensors")
    if x.dim() < 1 or x.shape[-1] == 0:
        raise ValueError(f"{what}: x must be (..., hidden) with hidden > 0, got shape {tuple(x.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is None:
            continue
        if t.dim() != 1 or t.shape[0] != x.shape[-1]:
            raise ValueError(f"{what}: {name} must be 1-D of size hidden={x.shape[-1]}, got {tuple(t.shape)}")
        if t.dtype not in _SUPPORTED or t.device != x.device:
            raise ValueError(f"{what}: {name} is {t.dtype} on {t.device}; use float32, float16 or bfloat16 on "
                             f"{x.device}")
    if bias is not None and bias.dtype != weight.dtype:
        raise ValueError(f"{what}: weight is {weight.dtype}, bias {bias.dtype}; give them one dtype")
    if x.dtype not in _SUPPORTED:
        raise ValueError(f"{what}: unsupported dtype x={x.dtype}; use float32, float16 or bfloat16")
    if x.device.type != "cuda" and not _INTERPRET:
        raise ValueError(f"{what} needs CUDA tensors (or TRITON_INTERPRET=1 for CPU tensors)")


def _rows2d(t: torch.Tensor, n: int) -> torch.Tensor:
    """A [rows, n] view with unit column stride (a copy only when no such view exists)."""
    if t.dim() == 1:
        t = t.view(1, n)
    elif t.dim() > 2:
        try:
            t = t.view(-1, n)
        except RuntimeError:
            t = t.reshape(-1, n)
    if t.stride(1) != 1:
        t = t.contiguous()
    return t


def _i64(*ts) -> bool:
    return any((t.shape[0] - 1) * abs(t.stride(0)) + t.shape[1] > _INT32_MAX for t in ts if t.shape[0])


_PDL_ENV = os.environ.get("KR_TRITON_PDL", "1") not in ("", "0")
_PDL: dict = {}


def _pdl(device: torch.device) -> bool:
    """Programmatic dependent launch: Hopper (sm_90) and newer, compiled mode only
    (KR_TRITON_PDL=0 turns it off)."""
    if _INTERPRET or not _PDL_ENV or device.type != "cuda":
        return False
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _PDL:
        _PDL[idx] = torch.cuda.get_device_capability(idx)[0] >= 9
    return _PDL[idx]


def _pdl_kw(pdl: bool) -> dict:
    return {"PDL": True, "launch_pdl": True} if pdl else {"PDL": False}


def _device_ctx(device):
    return torch.cuda.device(device) if device.type == "cuda" else _Null()


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


# the lean path of the common forward call (contiguous, aligned, int32 offsets): the compiled
# kernel launched directly, skipping Triton's per-call argument binding. Filled after a normal
# launch and checked bit for bit once.
_FAST: dict = {}
_FAST_ENABLED = os.environ.get("KR_TRITON_NO_FAST_LAUNCH", "0") in ("", "0")
#: KR_TRITON_BATCH_INVARIANT=1: rows whose length is not a multiple of 16 bytes skip the aligned
#: forwards, so that a row's bits follow its hidden size and dtype only, wherever it lies (see
#: the module docstring); they then cost what the plain kernels cost (sweep 9: up to 1.75x)
BATCH_INVARIANT = os.environ.get("KR_TRITON_BATCH_INVARIANT", "0") not in ("", "0")


def _aligned(x2, y2, n):
    """Whether the rows may take an aligned forward: on 16-byte boundaries, and not BATCH_INVARIANT
    (read at each call, so that a test may set it)."""
    return not BATCH_INVARIANT and _aligned_ok(x2, y2, n)


_raw_stream = None
_get_device = None  # torch._C._cuda_getDevice once the lean path is filled (no lazy-init check)


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5,
              return_stats: bool = False):
    """y = layer_norm(x) * weight + bias, a new tensor of dtype promote_types(weight, x); with
    return_stats, (y, mean, rstd), the statistics float32 of shape x.shape[:-1]."""
    if _FAST and not return_stats:
        try:
            n = x.shape[-1]
            entry = _FAST.get((n, x.dtype, weight.dtype, x.get_device(), _early_w(n, x.numel() // n)))
        except (AttributeError, IndexError, TypeError, ZeroDivisionError):
            entry = None
        if entry and bias is not None and x.is_contiguous() and weight.is_contiguous() and bias.is_contiguous() \
                and x.numel() <= _INT32_MAX and weight.shape == (n,) and bias.shape == (n,) \
                and bias.dtype is weight.dtype and weight.get_device() == x.get_device() \
                and bias.get_device() == x.get_device() \
                and ((x.data_ptr() | weight.data_ptr() | bias.data_ptr()) & 15) == 0 \
                and _get_device() == x.get_device():
            ck, rpp, tail, ydt = entry
            y = torch.empty_like(x) if ydt is x.dtype else torch.empty_like(x, dtype=ydt)
            n_rows = x.numel() // n
            if n_rows:
                yp = y.data_ptr()
                ck.run((n_rows + rpp - 1) // rpp, 1, 1, _raw_stream(x.get_device()), ck.function,
                       ck.packed_metadata, None, None, None, x.data_ptr(), weight.data_ptr(), bias.data_ptr(),
                       yp, yp, yp, n_rows, n, n, float(eps), *tail)
            return y
    return _layernorm_general(x, weight, bias, eps, return_stats)


def _layernorm_general(x, weight, bias, eps, return_stats):
    _check(x, weight, bias, "layernorm")
    if bias is None:
        raise ValueError("layernorm: bias is required (pass torch.zeros_like(weight) for none)")
    n = x.shape[-1]
    ydt = torch.promote_types(weight.dtype, x.dtype)
    y = torch.empty(x.shape, dtype=ydt, device=x.device)
    if return_stats:
        mean = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device)
        rstd = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device)
    if x.numel() == 0:
        return (y, mean, rstd) if return_stats else y
    x2 = _rows2d(x, n)
    y2 = y.view(-1, n)
    w, b = weight.contiguous(), bias.contiguous()
    n_rows = x2.shape[0]
    i64 = _i64(x2, y2)
    cfg = _fwd_cfg(n, x.element_size(), n_rows)
    pdl = _pdl(x.device)
    g = access_granularity(n, (x2.stride(0), y2.stride(0)), (x2, y2))  # the rows' access width
    ms, rs = (mean.view(-1), rstd.view(-1)) if return_stats else (y2, y2)
    with _device_ctx(x.device):
        if cfg["kind"] == "split":
            _fwd_split[(triton.cdiv(n_rows, cfg["ROWS"]),)](
                x2, w, b, y2, ms, rs, n_rows, x2.stride(0), y2.stride(0), float(eps), N=n, B1=cfg["B1"],
                B2=cfg["B2"], B3=cfg["B3"], ROWS=cfg["ROWS"], STORE_STATS=return_stats, I64=i64,
                num_warps=cfg["num_warps"], num_stages=1, **_pdl_kw(pdl))
        elif cfg["kind"] == "aligned" and _aligned(x2, y2, n):
            _fwd_aligned[(triton.cdiv(n_rows, cfg["ROWS"]),)](
                x2, w, b, y2, ms, rs, n_rows, float(eps), N=n, BLOCK=cfg["BLOCK"], ROWS=cfg["ROWS"],
                VEC=16 // x2.element_size(), STORE_STATS=return_stats, I64=i64, num_warps=cfg["num_warps"],
                num_stages=1, **_pdl_kw(pdl))
        elif cfg["kind"] == "chunked" and cfg.get("ALIGN") and _aligned(x2, y2, n):
            _fwd_chunked_aligned[(n_rows,)](x2, w, b, y2, ms, rs, n_rows, float(eps), N=n, BLOCK=cfg["BLOCK"],
                                            VEC=16 // x2.element_size(), STORE_STATS=return_stats, I64=i64,
                                            UNROLL=bool(cfg.get("UNROLL")), num_warps=cfg["num_warps"],
                                            **_pdl_kw(pdl))
        elif cfg["kind"] == "chunked":
            _fwd_chunked[(n_rows,)](x2, w, b, y2, ms, rs, n_rows, x2.stride(0), y2.stride(0), float(eps), N=n,
                                    BLOCK=cfg["BLOCK"], STORE_STATS=return_stats, I64=i64,
                                    G=g, UNROLL=bool(cfg.get("UNROLL")), num_warps=cfg["num_warps"],
                                    **_pdl_kw(pdl))
        else:  # kind "rows"; or "aligned" rows that cannot take it (on boundaries, strided or
            # BATCH_INVARIANT): the plain block, not remembered for the fast path (which skips the checks)
            ck = _fwd[(triton.cdiv(n_rows, cfg["ROWS"]),)](
                x2, w, b, y2, ms, rs, n_rows, x2.stride(0), y2.stride(0), float(eps), N=n, BLOCK=cfg["BLOCK"],
                ROWS=cfg["ROWS"], MASK_COLS=cfg.get("MASK_COLS", cfg["BLOCK"] != n), STORE_STATS=return_stats, I64=i64,
                LATE_W=bool(cfg.get("LATE_W", True)), G=g, num_warps=cfg["num_warps"], num_stages=1, **_pdl_kw(pdl))
            if cfg["kind"] == "rows" and not return_stats and not i64:
                _remember_fast(ck, cfg, pdl, g, x2, w, b, y2, n_rows, float(eps), ydt)
    return (y, mean, rstd) if return_stats else y


def _remember_fast(ck, cfg, pdl, g, x2, w, b, y2, n_rows, eps, ydt):
    global _raw_stream, _get_device
    if not _FAST_ENABLED or _INTERPRET or ck is None or x2.device.type != "cuda":
        return
    n = x2.shape[1]
    key = (n, x2.dtype, w.dtype, x2.get_device(), _early_w(n, n_rows))  # decode rows: LATE_W off
    if key in _FAST or n < 2 or not x2.is_contiguous() \
            or ((x2.data_ptr() | w.data_ptr() | b.data_ptr() | y2.data_ptr()) & 15):
        return
    try:
        if torch.cuda.is_current_stream_capturing():
            return
        _raw_stream = torch._C._cuda_getCurrentRawStream
        _get_device = torch._C._cuda_getDevice
        tail = (n, cfg["BLOCK"], cfg["ROWS"], cfg["MASK_COLS"], False, False, pdl, bool(cfg.get("LATE_W", True)), g)
        y_b = torch.empty_like(y2)
        yp = y_b.data_ptr()
        ck.run(triton.cdiv(n_rows, cfg["ROWS"]), 1, 1, _raw_stream(x2.get_device()), ck.function,
               ck.packed_metadata, None, None, None, x2.data_ptr(), w.data_ptr(), b.data_ptr(), yp, yp, yp,
               n_rows, n, n, eps, *tail)
        same = torch.equal(y_b.view(torch.uint8), y2.view(torch.uint8))
    except Exception:  # noqa: BLE001 - any incompatibility: keep the normal path
        same = False
    _FAST[key] = (ck, cfg["ROWS"], tail, ydt) if same else False


def fast_path_status() -> dict:
    return {str(k): bool(v) for k, v in _FAST.items()}


def layernorm_backward(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, mean: torch.Tensor | None = None,
                       rstd: torch.Tensor | None = None, eps: float = 1e-5, programs: int | None = None,
                       prefetch: bool | None = None):
    """(dx, dweight, dbias) of y = layer_norm(x) * weight + bias: dx like x, dweight and dbias
    like weight. `mean` and `rstd` are the forward's float32 statistics (shape x.shape[:-1]);
    None for both recomputes them. `programs` fixes the size of the persistent grid and
    `prefetch` the loop variant (tests)."""
    _check(x, weight, None, "layernorm_backward")
    if not isinstance(dy, torch.Tensor) or dy.shape != x.shape or dy.dtype != x.dtype or dy.device != x.device:
        raise ValueError(f"layernorm_backward: dy must match x in shape, dtype and device; got {tuple(dy.shape)} "
                         f"{dy.dtype} {dy.device}")
    if (mean is None) != (rstd is None):
        raise ValueError("layernorm_backward: give both mean and rstd, or neither")
    n = x.shape[-1]
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return dx, torch.zeros_like(weight), torch.zeros_like(weight)
    x2, dy2 = _rows2d(x, n), _rows2d(dy, n)
    dx2 = dx.view(-1, n)
    n_rows = x2.shape[0]
    if mean is not None:
        if mean.numel() != n_rows or rstd.numel() != n_rows:
            raise ValueError(f"layernorm_backward: mean/rstd have {mean.numel()}/{rstd.numel()} elements, x has "
                             f"{n_rows} rows")
        mean = mean.reshape(-1).to(torch.float32).contiguous()
        rstd = rstd.reshape(-1).to(torch.float32).contiguous()
    w = weight.contiguous()
    cfg = _bwd_cfg(n, x.element_size())
    i64 = _i64(x2, dy2, dx2)
    has = mean is not None
    ms, rs = (mean, rstd) if has else (w, w)
    if programs is not None and (not isinstance(programs, int) or programs < 1):
        raise ValueError(f"layernorm_backward: programs must be a positive int, got {programs!r}")
    if cfg.get("kind") == "parts":
        if kr_parts.possible(x.device, cfg["PARTS"]):
            return _backward_parts(dy2, x2, w, ms, rs, has, dx, dx2, n, n_rows, i64, cfg, float(eps), programs)
        cfg = long_config(n, x.element_size())  # the interpreter: programs run one after another
    if cfg.get("kind") == "long":
        return _backward_long(dy2, x2, w, ms, rs, has, dx, dx2, n, n_rows, i64, cfg, float(eps), programs)
    consts = dict(N=n, BLOCK=cfg["BLOCK"], ROWS=cfg["ROWS"], MASK_COLS=cfg["MASK_COLS"], HAS_STATS=has, I64=i64,
                  num_warps=cfg["num_warps"], num_stages=1, **_pdl_kw(_pdl(x.device)))
    with _device_ctx(x.device):
        key = (n, x.dtype, w.dtype, x.device, has, i64, x2.stride(0) % 16, dy2.stride(0) % 16,
               tuple(sorted(cfg.items())))

        def probe_args():
            part0 = torch.empty(4, dtype=torch.float32, device=x.device)
            return (dy2, x2, w, ms, rs, dx2, part0, n_rows, 1, 1, dy2.stride(0), x2.stride(0), dx2.stride(0),
                    float(eps))

        warps, pre, ctas = _bwd_launch(_bwd, key, probe_args, consts, cfg, x.element_size(), x.device)
        consts["num_warps"] = warps
        consts["PREFETCH"] = pre if prefetch is None else bool(prefetch)
        if programs is None:
            programs = bwd_programs(n_rows, cfg, _sm_count(x.device), ctas)
        p = programs
        rows_per_prog = triton.cdiv(triton.cdiv(n_rows, p), cfg["ROWS"]) * cfg["ROWS"]
        p = triton.cdiv(n_rows, rows_per_prog)
        part = torch.empty((2, p, n), dtype=torch.float32, device=x.device)
        dw = torch.empty_like(w)
        db = torch.empty_like(w)
        _bwd[(p,)](dy2, x2, w, ms, rs, dx2, part, n_rows, rows_per_prog, p, dy2.stride(0), x2.stride(0),
                   dx2.stride(0), float(eps), **consts)
        bp, bn, rw = reduce_config(n, p)
        _reduce2[(triton.cdiv(n, bn), 2)](part, dw, db, p, N=n, BLOCK_N=bn, BLOCK_P=bp, num_warps=rw,
                **_pdl_kw(_pdl(x.device)))
    return dx, dw, db


_PARTS_FIT: dict = {}  # parts backward: key -> programs one SM holds


def _backward_parts(dy2, x2, w, ms, rs, has, dx, dx2, n, n_rows, i64, cfg, eps, programs):
    """The parts backward (`_bwd_parts` then `_reduce2`): groups of PARTS programs, as many
    groups as fit on the GPU at once (or `programs` // PARTS), never more than rows."""
    device = x2.device
    block, parts = int(cfg["BLOCK"]), int(cfg["PARTS"])
    sp = triton.next_power_of_2(parts)
    nx = 2 if has else 4
    warps = int(cfg["num_warps"])
    consts = dict(N=n, BLOCK=block, PARTS=parts, SP=sp, NX=nx, MASK_COLS=parts * block != n, HAS_STATS=has,
                  I64=i64, PREFETCH=bool(cfg.get("PREFETCH", False)), num_warps=warps, num_stages=1,
                  **_pdl_kw(_pdl(device)))
    with _device_ctx(device):
        slots, dep = kr_parts.workspace(device, n_rows, sp * nx)
        if programs is None:
            key = (n, x2.dtype, w.dtype, device, has, i64, tuple(sorted(cfg.items())))
            fit = _PARTS_FIT.get(key)
            if fit is None:
                part0 = torch.empty(4, dtype=torch.float32, device=device)
                ck = _bwd_parts.warmup(dy2, x2, w, ms, rs, dx2, part0, slots, dep, n_rows, 1, dy2.stride(0),
                                       x2.stride(0), dx2.stride(0), eps, grid=(1,), **consts)
                fit = _PARTS_FIT[key] = kr_parts.resident_programs(ck, warps, device)
            programs = _sm_count(device) * fit
        groups = max(1, min(n_rows, programs // parts))
        part = torch.empty((2, groups, n), dtype=torch.float32, device=device)
        dw = torch.empty_like(w)
        db = torch.empty_like(w)
        _bwd_parts[(groups * parts,)](dy2, x2, w, ms, rs, dx2, part, slots, dep, n_rows, groups, dy2.stride(0),
                                      x2.stride(0), dx2.stride(0), eps, **consts)
        bp, bn, rw = reduce_config(n, groups)
        _reduce2[(triton.cdiv(n, bn), 2)](part, dw, db, groups, N=n, BLOCK_N=bn, BLOCK_P=bp, num_warps=rw,
                                          **_pdl_kw(_pdl(device)))
    return dx, dw, db


def _backward_long(dy2, x2, w, ms, rs, has, dx, dx2, n, n_rows, i64, cfg, eps, programs):
    """The long-row backward (`_bwd_long` then `_reduce2`): P = SMs x long_ctas programs (or
    `programs`), never more than rows; partial rows in a float32 buffer [2, P, hidden]."""
    block = int(cfg["BLOCK"])
    if block < 16 or block & (block - 1):
        raise ValueError(f"layernorm_backward: the long kind's BLOCK must be a power of two >= 16, got {block}")
    device = x2.device
    if programs is None:
        # at most the programs of this many warps that one SM can hold (64 warps), so that the
        # persistent grid is one wave
        ctas = cfg.get("CTAS") or min(long_ctas(n, x2.element_size(), _sm_count(device)),
                                      max(1, 64 // int(cfg["num_warps"])))
        programs = _sm_count(device) * ctas
    p = max(1, min(programs, n_rows))
    rows_per_prog = triton.cdiv(n_rows, p)
    p = triton.cdiv(n_rows, rows_per_prog)
    part = torch.empty((2, p, n), dtype=torch.float32, device=device)
    dw = torch.empty_like(w)
    db = torch.empty_like(w)
    pdl = _pdl(device)
    with _device_ctx(device):
        _bwd_long[(p,)](dy2, x2, w, ms, rs, dx2, part, n_rows, rows_per_prog, p, dy2.stride(0), x2.stride(0),
                        dx2.stride(0), eps, N=n, BLOCK=block, HAS_STATS=has, I64=i64,
                        num_warps=int(cfg["num_warps"]), num_stages=int(cfg.get("num_stages", 1)), **_pdl_kw(pdl))
        bp, bn, rw = reduce_config(n, p)
        _reduce2[(triton.cdiv(n, bn), 2)](part, dw, db, p, N=n, BLOCK_N=bn, BLOCK_P=bp, num_warps=rw,
                                          **_pdl_kw(pdl))
    return dx, dw, db
