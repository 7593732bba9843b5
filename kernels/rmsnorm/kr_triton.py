"""Kernel Records' own Triton RMSNorm: forward, and backward (dx and dweight in one pass).

Forward numerics (Hugging Face Llama convention, as `LlamaRMSNorm`):

    rstd = 1 / sqrt(mean(float32(x) ** 2) + eps)          (float32)
    y    = weight * (float32(x) * rstd).to(x.dtype)        (the product in float32, rounded once
                                                            to promote_types(weight, x))

Backward numerics (everything in float32 from the inputs, one rounding per output):

    xhat = float32(x) * rstd,  g = float32(dy) * float32(weight)
    dx   = rstd * (g - xhat * mean(g * xhat))              -> rounded to x.dtype
    dw   = sum over rows of float32(dy) * xhat             -> rounded to weight.dtype

`rstd` is the float32 statistic of the forward pass ([rows]); pass None to recompute it from x
in the kernel (the row is in registers anyway).

Kernels:

* `_fwd`: ROWS rows per program, each row whole in registers (one pass over memory); the
  tile is [ROWS, next_pow2(hidden)], masked where hidden is not a power of two.
* `_fwd_split`: rows that are two powers of two (768 = 512 + 256, 3072 = 2048 + 1024): the
  row in registers as those two pieces instead of a masked power-of-two block. Rows that would
  need a masked third piece (2496, 1252, 9000) take the masked block (sweeps 6-7).
* `_fwd_chunked`: rows longer than _MAX_REG_ROW, and the split-class rows between 4096 and
  8192 (5120, 7168): one program per row, two loops over column chunks (the second re-reads
  the row, mostly from L2).
* `_fwd_chunked_aligned`: the chunked loop for contiguous rows whose length is not a multiple
  of 16 bytes (a configuration's ALIGN; the rule's from 4096 elements at 2 bytes and above
  16384 at any type: _ALIGN_LOOP, sweep 9): each row's head (before its first 16-byte
  boundary) in a small masked step, full chunks from the boundary as 16-byte vectors, where the
  plain kernels access such rows one element at a time.
* `_fwd_aligned`: `_fwd`'s rows in registers for those rows (kind "aligned"): head, the
  body's whole vectors (16-byte accesses) and tail of each row, one pass over memory. No rule
  takes it: sweep 9 found it behind the plain block at 4 of 5 short odd rows, and behind the
  aligned loop from 4096 (a sweep's OVERRIDE reaches it).
* `_bwd_parts`: rows longer than _BWD_REG_ROW (12288): the row across PARTS programs of one
  group (4 kB of each input a program), which exchange their partial sums through L2
  (kr_parts.py); persistent, dweight's partial column sums in registers; `_reduce` as below.
* `_bwd_long`: where the parts kernel cannot run (the interpreter, whose programs run one
  after another): per row a loop over chunks for sum(g * xhat), then a second loop (the row
  again, from L2) writing dx and adding dy * xhat to the program's own float32 partial row
  (read-modify-write of a row only it touches: deterministic); `_reduce` as below.
* `_bwd`: a persistent grid of P programs, P = SMs x the programs that fit on one SM at once
  (from the compiled kernel's registers, threads and shared memory, at most 8), so the grid
  runs in one wave; program p takes a contiguous range of rows, ROWS at a time, loads the next
  tile of x and dy before this tile's arithmetic (software prefetch), writes dx for each row and
  accumulates dy * xhat in a float32 register tile. At the end it writes its column sums to
  row p of a float32 buffer [P, hidden]; `_reduce` then sums the P partial rows of each column
  (a fixed order: deterministic) and rounds once to the weight dtype. x and dy are read
  exactly once; the partial buffer (P x hidden x 4 bytes: 2.2 MB at 132 programs and hidden
  4096) is written and read back while it is still in the 60 MB L2. With one program (P == 1)
  the kernel writes dweight itself and `_reduce` is skipped.

Launch configuration: chosen from (hidden, element size) by the rules in `_fwd_config` and
`_bwd_config` (size classes, not a table of workloads). A row's arithmetic never depends on
the number of rows that come with it (dx and y are bit-identical for a row alone or in a batch),
with one exception: a forward row whose length is not a multiple of 16 bytes, through the
aligned loop (ALIGN), is split into head, body and tail at its first 16-byte boundary, so its
bits follow its address modulo 16: row i of a batch (i x hidden elements from an aligned base)
keeps its bits at any row count, but the same values at another offset modulo 16 (the row
alone in a new tensor) may differ in the last bit. KR_TRITON_BATCH_INVARIANT=1 makes those
rows take the plain kernels.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

from . import kr_parts
from .._row_access import access_granularity, row_ptr
from .kr_aligned import aligned_ok as _aligned_ok, aligned_row
from .kr_parts import bwd_start, count_out, first_pair, gather, parts_config, publish, row_index, row_pair, store_row

__all__ = ["rmsnorm", "rmsnorm_backward", "fwd_config", "bwd_config"]

_INT32_MAX = 2**31 - 1
_SUPPORTED = (torch.float32, torch.float16, torch.bfloat16)
_MAX_REG_ROW = 32768  # the longest row the forward keeps whole in registers (backward: _BWD_REG_ROW)
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd(X, W, Y, RSTD, n_rows, sx, sy, eps, N: tl.constexpr, BLOCK: tl.constexpr, ROWS: tl.constexpr,
         MASK_COLS: tl.constexpr, STORE_RSTD: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr,
         LATE_W: tl.constexpr = False, G: tl.constexpr = 1):
    """LATE_W: the weight loaded after the row's reduction (not live across it: fewer registers,
    one more dependent L2 load per row) instead of with x."""
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
            x = tl.load(row_ptr(X, row * sx, G) + cols, mask=cmask, other=0.0).to(tl.float32)
        else:
            if not LATE_W:
                w = tl.load(W + cols).to(tl.float32)
            x = tl.load(row_ptr(X, row * sx, G) + cols).to(tl.float32)
        rstd = tl.math.rsqrt(tl.sum(x * x, axis=0) / N + eps)
        if LATE_W:
            if MASK_COLS:
                w = tl.load(W + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
            else:
                w = tl.load(W + cols, eviction_policy="evict_last").to(tl.float32)
        y = w * (x * rstd).to(X.dtype.element_ty).to(tl.float32)
        if MASK_COLS:
            tl.store(row_ptr(Y, row * sy, G) + cols, y.to(Y.dtype.element_ty), mask=cmask)
        else:
            tl.store(row_ptr(Y, row * sy, G) + cols, y.to(Y.dtype.element_ty))
        if STORE_RSTD:
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
        else:
            m = rmask[:, None]
            if not LATE_W:
                w = tl.load(W + cols).to(tl.float32)
        x = tl.load(row_ptr(X, rows * sx, G)[:, None] + cols[None, :], mask=m, other=0.0).to(tl.float32)
        rstd = tl.math.rsqrt(tl.sum(x * x, axis=1) / N + eps)
        if LATE_W:
            if MASK_COLS:
                w = tl.load(W + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
            else:
                w = tl.load(W + cols, eviction_policy="evict_last").to(tl.float32)
        normed = (x * rstd[:, None]).to(X.dtype.element_ty).to(tl.float32)
        y = w[None, :] * normed
        tl.store(row_ptr(Y, rows * sy, G)[:, None] + cols[None, :], y.to(Y.dtype.element_ty), mask=m)
        if STORE_RSTD:
            tl.store(RSTD + rows, rstd, mask=rmask)


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd_chunked(X, W, Y, RSTD, n_rows, sx, sy, eps, N: tl.constexpr, BLOCK: tl.constexpr,
                 STORE_RSTD: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr, G: tl.constexpr = 1,
                 UNROLL: tl.constexpr = False):
    """UNROLL: both loops unrolled at compile time (a configuration's UNROLL; rows of a few
    chunks), so every chunk's load can be issued at once: the same operations in the same
    order, so the same bits as the loop."""
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
            acc += _chunk_sq(xrow, off, N, BLOCK)
    else:
        for off in range(0, N, BLOCK):
            acc += _chunk_sq(xrow, off, N, BLOCK)
    rstd = tl.math.rsqrt(tl.sum(acc, axis=0) / N + eps)
    if UNROLL:
        for off in tl.static_range(0, N, BLOCK):
            _chunk_out(xrow, W, yrow, off, rstd, N, BLOCK)
    else:
        for off in range(0, N, BLOCK):
            _chunk_out(xrow, W, yrow, off, rstd, N, BLOCK)
    if STORE_RSTD:
        tl.store(RSTD + row, rstd)


@triton.jit
def _chunk_sq(xrow, off, N: tl.constexpr, BLOCK: tl.constexpr):
    """`_fwd_chunked`'s first loop: the squares of one chunk of the row, in float32."""
    cols = off + tl.arange(0, BLOCK)
    x = tl.load(xrow + cols, mask=cols < N, other=0.0, eviction_policy="evict_last").to(tl.float32)
    return x * x


@triton.jit
def _chunk_out(xrow, W, yrow, off, rstd, N: tl.constexpr, BLOCK: tl.constexpr):
    """`_fwd_chunked`'s second loop: one chunk of y (the row again, mostly from L1/L2)."""
    cols = off + tl.arange(0, BLOCK)
    cm = cols < N
    x = tl.load(xrow + cols, mask=cm, other=0.0, eviction_policy="evict_first").to(tl.float32)
    w = tl.load(W + cols, mask=cm, other=0.0).to(tl.float32)
    y = w * (x * rstd).to(xrow.dtype.element_ty).to(tl.float32)
    tl.store(yrow + cols, y.to(yrow.dtype.element_ty), mask=cm)


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd_chunked_aligned(X, W, Y, RSTD, n_rows, eps, N: tl.constexpr, BLOCK: tl.constexpr, VEC: tl.constexpr,
                         STORE_RSTD: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr,
                         UNROLL: tl.constexpr = False):
    """`_fwd_chunked` for contiguous rows whose length is not a multiple of VEC (16 bytes of x):
    each row as its head (the columns before its first 16-byte boundary, fewer than VEC, in one
    small masked step) and its body from that boundary, full chunks loaded and stored unmasked
    as 16-byte vectors, the ragged last one masked (the cross-entropy family's `_aligned`
    layout). Without it such rows are read and written one element at a time. The weight is
    read at the body's columns, off its own boundaries (one element at a time, from L1/L2). A
    row's bits follow N, BLOCK and its head (its start modulo VEC), never the number of rows.
    UNROLL: both loops unrolled at compile time over the most chunks a row has, every chunk
    masked to the body (a chunk past it loads nothing and adds +0.0), with no branch between
    them, so every chunk's load can be issued at once: the same operations on the same values in
    the same order, so the same bits as the loop."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    row = tl.program_id(0)
    if I64:
        row = row.to(tl.int64)
    xoff = row * N
    head, nb, nbv, xb, yb = aligned_row(X, Y, xoff, N, VEC)  # the body's whole vectors, then its tail
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
            x = _body_x(xb, c * BLOCK + offs, nbv)
            acc += x * x
    else:
        for c in range(0, nch):
            if c < nfull:
                x = tl.load(xb + c * BLOCK + offs, eviction_policy="evict_last").to(tl.float32)
            else:
                x = _body_x(xb, c * BLOCK + offs, nbv)
            acc += x * x
    rstd = tl.math.rsqrt((tl.sum(acc, axis=0) + tl.sum(xh * xh + xt * xt, axis=0)) / N + eps)
    wh = tl.load(W + v, mask=hm, other=0.0).to(tl.float32)
    yh = wh * (xh * rstd).to(X.dtype.element_ty).to(tl.float32)
    tl.store(Y + xoff + v, yh.to(Y.dtype.element_ty), mask=hm)
    wt = tl.load(W + head + nbv + v, mask=tm, other=0.0).to(tl.float32)
    yt = wt * (xt * rstd).to(X.dtype.element_ty).to(tl.float32)
    tl.store(yb + nbv + v, yt.to(Y.dtype.element_ty), mask=tm)
    if UNROLL:
        for c in tl.static_range(0, (N + BLOCK - 1) // BLOCK):
            _body_out(xb, W, yb, head, c * BLOCK + offs, nbv, rstd)
    else:
        for c in range(0, nch):
            cols = c * BLOCK + offs
            if c < nfull:
                x = tl.load(xb + c * BLOCK + offs, eviction_policy="evict_first").to(tl.float32)
                w = tl.load(W + head + cols).to(tl.float32)
                y = w * (x * rstd).to(X.dtype.element_ty).to(tl.float32)
                tl.store(yb + c * BLOCK + offs, y.to(Y.dtype.element_ty))
            else:
                _body_out(xb, W, yb, head, cols, nbv, rstd)
    if STORE_RSTD:
        tl.store(RSTD + row, rstd)


@triton.jit
def _body_x(xb, cols, nbv):
    """`_fwd_chunked_aligned`'s first pass, one chunk of x masked to the body (`cols` past its
    `nbv` whole vectors load +0.0): the unrolled loop's every chunk, the loop's last."""
    return tl.load(xb + cols, mask=cols < nbv, other=0.0, eviction_policy="evict_last").to(tl.float32)


@triton.jit
def _body_out(xb, W, yb, head, cols, nbv, rstd):
    """`_fwd_chunked_aligned`'s second pass, one chunk of y masked to the body (as `_body_x`);
    the weight at the row's shifted columns."""
    cm = cols < nbv
    x = tl.load(xb + cols, mask=cm, other=0.0, eviction_policy="evict_first").to(tl.float32)
    w = tl.load(W + head + cols, mask=cm, other=0.0).to(tl.float32)
    y = w * (x * rstd).to(xb.dtype.element_ty).to(tl.float32)
    tl.store(yb + cols, y.to(yb.dtype.element_ty), mask=cm)


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd_aligned(X, W, Y, RSTD, n_rows, eps, N: tl.constexpr, BLOCK: tl.constexpr, ROWS: tl.constexpr,
                 VEC: tl.constexpr, STORE_RSTD: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr):
    """`_fwd` (ROWS rows a program, each whole in registers: one pass over memory) for the rows
    `_fwd_chunked_aligned` takes: each row as its head (< VEC columns before its first 16-byte
    boundary), its body's whole vectors from that boundary (a [ROWS, BLOCK] tile masked by a
    length declared a multiple of VEC, so 16-byte accesses) and its tail (< VEC columns). The
    weight is read at each row's shifted columns. A row's bits follow N, BLOCK and its head."""
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
    ss = tl.sum(x * x, axis=1) + tl.sum(xh * xh + xt * xt, axis=1)
    rstd = tl.math.rsqrt(ss / N + eps)
    r2 = rstd[:, None]
    wh = tl.load(W + v[None, :] + 0 * head[:, None], mask=hm, other=0.0).to(tl.float32)
    w = tl.load(W + head[:, None] + cols[None, :], mask=bm, other=0.0).to(tl.float32)
    wt = tl.load(W + (head + nbv)[:, None] + v[None, :], mask=tm, other=0.0).to(tl.float32)
    dt = X.dtype.element_ty
    tl.store(Y + xoff[:, None] + v[None, :], (wh * (xh * r2).to(dt).to(tl.float32)).to(Y.dtype.element_ty), mask=hm)
    tl.store(yb[:, None] + cols[None, :], (w * (x * r2).to(dt).to(tl.float32)).to(Y.dtype.element_ty), mask=bm)
    tl.store(yb[:, None] + nbv[:, None] + v[None, :], (wt * (xt * r2).to(dt).to(tl.float32)).to(Y.dtype.element_ty),
             mask=tm)
    if STORE_RSTD:
        tl.store(RSTD + rows, rstd, mask=rmask)


@triton.jit(do_not_specialize=["n_rows", "rows_per_prog", "eps"])
def _bwd(DY, X, W, RSTD, DX, DWP, n_rows, rows_per_prog, sdy, sx, sdx, eps, N: tl.constexpr,
         BLOCK: tl.constexpr, ROWS: tl.constexpr, MASK_COLS: tl.constexpr, HAS_RSTD: tl.constexpr,
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
    acc = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
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
        if HAS_RSTD:
            rstd = tl.load(RSTD + rows_c, mask=rmask_c, other=0.0)
        else:
            rstd = tl.math.rsqrt(tl.sum(x * x, axis=1) / N + eps)
        xhat = x * rstd[:, None]
        g = dy * w[None, :]
        c = tl.sum(g * xhat, axis=1) / N
        dx = (g - xhat * c[:, None]) * rstd[:, None]
        tl.store(DX + rows_c[:, None] * sdx + cols[None, :], dx.to(DX.dtype.element_ty), mask=m_c)
        acc += dy * xhat  # masked rows and columns are zeros
    part = tl.sum(acc, axis=0)
    if I64:
        pid = pid.to(tl.int64)
    tl.store(DWP + pid * N + cols, part.to(DWP.dtype.element_ty), mask=cmask)


@triton.jit(do_not_specialize=["n_rows", "eps"])
def _fwd_split(X, W, Y, RSTD, n_rows, sx, sy, eps, N: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr,
               B3: tl.constexpr, ROWS: tl.constexpr, STORE_RSTD: tl.constexpr, I64: tl.constexpr,
               PDL: tl.constexpr):
    """The row in registers as up to three power-of-two pieces [0, B1), [B1, B1 + B2) and
    [B1 + B2, N) (B3 >= N - B1 - B2, the only masked one; B2 or B3 0 when absent): a row of
    5120 is 4096 + 1024 and 7168 is 4096 + 2048 + 1024, none of it masked, instead of a
    masked block of 8192."""
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
    ss = tl.sum(x1 * x1, axis=1)
    if B2 > 0:
        c2 = B1 + tl.arange(0, B2)
        x2 = tl.load(xp + c2[None, :], mask=m, other=0.0).to(tl.float32)
        ss += tl.sum(x2 * x2, axis=1)
    if B3 > 0:
        c3 = B1 + B2 + tl.arange(0, B3)
        m3 = m & (c3 < N)[None, :]
        x3 = tl.load(xp + c3[None, :], mask=m3, other=0.0).to(tl.float32)
        ss += tl.sum(x3 * x3, axis=1)
    rstd = tl.math.rsqrt(ss / N + eps)
    w1 = tl.load(W + c1, eviction_policy="evict_last").to(tl.float32)
    y1 = w1[None, :] * (x1 * rstd[:, None]).to(X.dtype.element_ty).to(tl.float32)
    tl.store(yp + c1[None, :], y1.to(Y.dtype.element_ty), mask=m)
    if B2 > 0:
        w2 = tl.load(W + c2, eviction_policy="evict_last").to(tl.float32)
        y2 = w2[None, :] * (x2 * rstd[:, None]).to(X.dtype.element_ty).to(tl.float32)
        tl.store(yp + c2[None, :], y2.to(Y.dtype.element_ty), mask=m)
    if B3 > 0:
        w3 = tl.load(W + c3, mask=c3 < N, other=0.0, eviction_policy="evict_last").to(tl.float32)
        y3 = w3[None, :] * (x3 * rstd[:, None]).to(X.dtype.element_ty).to(tl.float32)
        tl.store(yp + c3[None, :], y3.to(Y.dtype.element_ty), mask=m3)
    if STORE_RSTD:
        tl.store(RSTD + rows, rstd, mask=rmask)


@triton.jit(do_not_specialize=["n_rows", "rows_per_prog", "eps"])
def _bwd_long(DY, X, W, RSTD, DX, DWP, n_rows, rows_per_prog, sdy, sx, sdx, eps, N: tl.constexpr,
              BLOCK: tl.constexpr, HAS_RSTD: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr):
    """The backward for long rows, never a whole row in registers: a persistent grid (program p
    takes rows [p * rows_per_prog, ...)); per row, one loop over BLOCK-column chunks
    accumulates sum(g * xhat) (x and dy kept in L2: evict_last), a second loop re-reads the
    chunks, writes dx and adds dy * xhat to the program's own float32 row p of DWP
    (read-modify-write of that row, which only this program touches: a fixed order of sums,
    deterministic; the row stays in L2). `_reduce` sums the P rows afterwards."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    start = pid * rows_per_prog
    end = tl.minimum(start + rows_per_prog, n_rows)
    prow = DWP + pid.to(tl.int64) * N
    for r in range(start, end):
        row = r
        if I64:
            row = row.to(tl.int64)
        xrow = X + row * sx
        dyrow = DY + row * sdy
        dxrow = DX + row * sdx
        if HAS_RSTD:
            rstd = tl.load(RSTD + row)
        else:
            sq = tl.zeros([BLOCK], dtype=tl.float32)
            for off in range(0, N, BLOCK):
                cols = off + tl.arange(0, BLOCK)
                x = tl.load(xrow + cols, mask=cols < N, other=0.0, eviction_policy="evict_last").to(tl.float32)
                sq += x * x
            rstd = tl.math.rsqrt(tl.sum(sq, axis=0) / N + eps)
        dot = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            cm = cols < N
            x = tl.load(xrow + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
            dy = tl.load(dyrow + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
            w = tl.load(W + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
            dot += (dy * w) * (x * rstd)
        c = tl.sum(dot, axis=0) / N
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            cm = cols < N
            x = tl.load(xrow + cols, mask=cm, other=0.0, eviction_policy="evict_first").to(tl.float32)
            dy = tl.load(dyrow + cols, mask=cm, other=0.0, eviction_policy="evict_first").to(tl.float32)
            w = tl.load(W + cols, mask=cm, other=0.0, eviction_policy="evict_last").to(tl.float32)
            xhat = x * rstd
            g = dy * w
            dx = (g - xhat * c) * rstd
            tl.store(dxrow + cols, dx.to(DX.dtype.element_ty), mask=cm)
            # the program's first row writes its partial row, later rows add to it
            old = tl.load(prow + cols, mask=cm & ((cols * 0 + r) > start), other=0.0)
            tl.store(prow + cols, old + dy * xhat, mask=cm)


@triton.jit(do_not_specialize=["n_rows", "groups", "eps"])
def _bwd_parts(DY, X, W, RSTD, DX, DWP, SLOTS, DEP, n_rows, groups, sdy, sx, sdx, eps, N: tl.constexpr,
               BLOCK: tl.constexpr, PARTS: tl.constexpr, SP: tl.constexpr, NX: tl.constexpr,
               MASK_COLS: tl.constexpr, HAS_RSTD: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr,
               PREFETCH: tl.constexpr = False):
    """The backward of rows too long for one program, each across PARTS programs, persistent:
    program p = g * PARTS + part holds columns [part * BLOCK, +BLOCK) of rows g, g + groups, ...
    Per row it loads its block of x and dy once, publishes its part of sum(g * xhat) (and
    before that of sum(x * x) when rstd is not given: NX exchanges), waits for the row's other
    parts, writes dx and adds dy * xhat to its float32 register accumulator; at the end row g
    of DWP [groups, N] receives the accumulators of group g (`_reduce` sums the groups). x and
    dy are read once; a row's dx does not depend on the rows beside it."""
    g, part, cols, cm, w = bwd_start(W, N, BLOCK, PARTS, MASK_COLS, PDL)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    x_n, dy_n = first_pair(X, DY, g, n_rows, sx, sdy, cols, cm, I64, PREFETCH)
    for r in range(g, n_rows, groups):
        row = row_index(r, I64)
        x, dy, x_n, dy_n = row_pair(X, DY, row, groups, n_rows, sx, sdy, cols, cm, x_n, dy_n, MASK_COLS, PREFETCH)
        slots = SLOTS + row.to(tl.int64) * (SP * NX)
        if HAS_RSTD:
            rstd = tl.load(RSTD + row)
            dslots = slots
        else:
            publish(slots, part, tl.sum(x * x, axis=0))
            rstd = tl.math.rsqrt(gather(slots, PARTS, SP) / N + eps)
            dslots = slots + SP
        xhat = x * rstd
        gw = dy * w
        publish(dslots, part, tl.sum(gw * xhat, axis=0))
        c = gather(dslots, PARTS, SP) / N
        store_row(DX, row, sdx, cols, cm, (gw - xhat * c) * rstd, MASK_COLS)
        acc += dy * xhat
        count_out(DEP + row, slots, PARTS, SP * NX)
    tl.store(DWP + g.to(tl.int64) * N + cols, acc, mask=cm)


@triton.jit(do_not_specialize=["P"])
def _reduce(PART, OUT, P, N: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_P: tl.constexpr, PDL: tl.constexpr):
    """OUT[c] = sum over p of PART[p, c] (float32, fixed order), rounded to OUT's dtype."""
    if PDL:
        tl.extra.cuda.gdc_wait()  # the partial sums of the kernel before
        tl.extra.cuda.gdc_launch_dependents()
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    acc = tl.zeros([BLOCK_P, BLOCK_N], dtype=tl.float32)
    for p0 in range(0, P, BLOCK_P):
        ps = p0 + tl.arange(0, BLOCK_P)
        m = (ps < P)[:, None] & cmask[None, :]
        acc += tl.load(PART + ps[:, None].to(tl.int64) * N + cols[None, :], mask=m, other=0.0)
    tl.store(OUT + cols, tl.sum(acc, axis=0).to(OUT.dtype.element_ty), mask=cmask)


# --------------------------------------------------------------------------------------
# Launch configuration: rules over size classes of (hidden, element size)
# --------------------------------------------------------------------------------------


def _pow2_floor(v: int) -> int:
    return 1 << (max(1, int(v)).bit_length() - 1)


def split_pieces(n: int) -> tuple[int, int, int]:
    """The row as up to three power-of-two pieces (B1, B2, B3): B1 the largest power of two
    <= n, B2 the largest <= the rest, B3 the next power of two >= what is left (masked); 0 where
    a piece is absent. 5120 -> (4096, 1024, 0), 7168 -> (4096, 2048, 1024), 4544 -> (4096, 256, 256)."""
    b1 = _pow2_floor(n)
    rest = n - b1
    b2 = _pow2_floor(rest) if rest else 0
    rest -= b2
    b3 = triton.next_power_of_2(rest) if rest else 0
    return b1, b2, b3


#: a row of at least this many elements that is not a power of two is of the split class when a
#: masked power-of-two block would waste more than 1/_SPLIT_WASTE of it: `_fwd_split` where it
#: is two powers of two, else the masked block with warps from its real bytes. Sweeps 6-7 (H200,
#: 2026-12-04): a masked third piece lost to the masked block everywhere it was measured (2496
#: bf16: 4096 rows 10.34 us against 13.37, 14 rows 1.43 against 3.05; 1252 fp16, 24887 rows:
#: 36.66 against 43.96)
_SPLIT_MIN = 512
#: 2-byte rows of 129 to 255 elements (a masked block of 256): 4 rows a program, a quarter of
#: the 4096-element tile (warps follow the tile's bytes, so a quarter of them too): more, smaller
#: programs resident an SM. Sweep 13 class M (H100, 2026-12-07b): RMSNorm 18937 x 213 bf16 0.87x
#: the 16-row tile; sweep 14 class S (H100, 2026-12-07c): RMSNorm 792 x 146 bf16 0.81x, LayerNorm
#: 5647 x 212 fp16 0.83x. Not measured: 256 itself, blocks of 128 and 512 (sweep 14: quarter rows
#: 1.01x at RMSNorm 12248 x 448 fp16), float32. They load the weight after the reduction
#: (LATE_W): on seed 14071 (sweep 14's held-out run, H100, 2026-12-07c) 0.85-0.92x the early
#: load at three 2-byte shapes of 192-227 elements; float32 rows of 129-640 kept the early load
#: in sweep 15 (1.03x / 1.04x at 1329 x 192 and 3446 x 561).
_SHORT_ROWS_2B = 4
_SPLIT_WASTE = 8
#: 2-byte split-class rows strictly between these sizes take the chunked loop (4 kB chunks, 8
#: warps) instead: sweep 2 (H200, 2026-12-02) measured the split at 5120 / 7168 bf16 slower than
#: both the masked block and the loop; below 4096 (768, 3072) the split stays (768: 0.86x the
#: masked). Float32 rows there take the masked block of 8192, warps from the real bytes: sweep 8
#: (H100, 2026-12-06, tune seed 8181), 1256 x 6752: 24.25 us on 16 warps (24.22 on 8) against
#: the loop's 29.50 and torch.compile's 24.56; 9796 x 6850: 181.0 (179.9) against 220.7 and 181.7
_CHUNK_BETWEEN = (4096, 8192)
#: ... and since sweeps 11 and 13 (H100, 2026-12-07; lab/device-2026-12-07b/README.md), the
#: 2-byte rows there (16-byte multiples: the others take _ALIGN_LOOP) take the masked block of
#: 8192 on 8 warps, weight loaded early, in place of the 4 kB loop: 28 x 4992 bf16 1.75 us against
#: 2.68, 104 x 6528 bf16 2.43 against 3.64 (Liger 3.30), 1422 x 6400 bf16 13.99 against 15.13
#: (torch.compile 14.72), 9900 x 4224 fp16 57.01 against 57.87; sweep 11, decode rows, 0.62-0.70x.
#: Sweep 2 (H200, 2026-12-02) had the loop 0.88x / 0.95x the masked block at 5120 / 7168 bf16
#: (4096 rows); on an H100 the index's 5120 / 7168 workloads took 1.000x / 0.989x the loop's time
#: (lab/device-2026-12-07c/); their H200 run is still owed (lab/NEXT_GPU_SESSION.md)
_MASKED_8K_2B = {"kind": "rows", "BLOCK": 8192, "ROWS": 1, "MASK_COLS": True, "num_warps": 8, "LATE_W": False}
#: rows longer than this (up to _MAX_REG_ROW) take `_fwd_chunked` with the whole row as its one
#: chunk, on 32 warps: sweep 5 (H200, 2026-12-04), 2048 x 32768 bf16: 66.91 us against 69.68 for
#: the row held in `_fwd` (16 warps) and 69.23 on 32, torch.compile 68.00; half-row chunks 71.67
_TWO_PASS_FROM = 16384
#: blocks from _LATE_W_FROM up to (not including) _LATE_W_BELOW load the weight after the
#: reduction: 8192 measured (sweep 2), 4096 too (sweep 6, bf16: 4096 rows 17.19 us against
#: 17.56, 2048 rows 8.22 against 8.65; sweep 7, float32: 33.80 against 33.89); 2048 not (sweep
#: 7: 8.73 against 8.49); 16384 not measured (early, as in run 2, where it held)
_LATE_W_FROM = 4096
_LATE_W_BELOW = 16384
#: rows whose length is not a multiple of 16 bytes (most rows then start off a boundary, and the
#: plain kernels move them one element at a time): `_fwd_chunked_aligned` (ALIGN) in 4096-element
#: chunks on 8 warps for 2-byte rows from _ALIGN_LOOP_FROM up to _TWO_PASS_FROM, 8192-element
#: chunks on 16 warps above it (every type). Sweep 9 (H100, 2026-12-06, tune seed 9209;
#: lab/device-2026-12-06e/norms9/): 1215 x 28397 bf16 56.57 us against the rule's 99.41 and
#: torch.compile's 95.92 (4096 chunks 70.23); 4036 x 7885 fp16 48.37 against 60.51 (Liger
#: 60.35); 1578 x 6117 fp16 17.95 against 23.69 (the in-register `_fwd_aligned` 19.2); LayerNorm's
#: loop the same at 28667 fp32 and 30906 bf16. Not below: at 1066 fp16 (LayerNorm, 15232 rows)
#: every aligned candidate lost to the plain block (1.59x and more), and the short odd rows of
#: the sweep (153 to 895) kept the rule at 4 of 5 shapes. Decode-sized rows are left to the rule
#: on purpose: the sweep found the masked block of 8192 0.56-0.68x the loop at 5-15 rows of
#: 4198-6568, but a rule on the row count would make a row's bits depend on the batch
_ALIGN_LOOP_FROM = 4096
#: 2-byte rows of two power-of-two pieces above 8192 (9216, 10240, 12288): the chunked loop in
#: 8192-element chunks on 16 warps, not `_fwd_split`. Sweep 10 (H100, 2026-12-06, lab/device-2026-12-06f/):
#: 3001 x 9216 bf16 38.67 us against the split's 41.19; 6000 x 10240 fp16 83.20 against 90.70
#: (the masked block of 16384 83.00); 1500 x 12288 bf16 26.22 against 27.35
_SPLIT_LOOP = {"kind": "chunked", "BLOCK": 8192, "num_warps": 16}
_ALIGN_LOOP = {False: {"kind": "chunked", "BLOCK": 4096, "num_warps": 8, "ALIGN": 1},
               True: {"kind": "chunked", "BLOCK": 8192, "num_warps": 16, "ALIGN": 1}}


def fwd_config(n: int, elsize: int) -> dict:
    """Forward: a tile of about 4096 elements per program for short rows (several rows per program,
    so that hidden 128 QK-norm rows fill a program; 4 at 2-byte rows of 129-255, weight loaded
    after the reduction, _SHORT_ROWS_2B), one row per program from hidden 4096 up; about 1 kB of the tile per warp
    (two 16-byte vectors per thread), at most 16 warps for 2-byte types and 32 for float32; rows
    beyond _MAX_REG_ROW go to the chunked kernel. A row that is not a power of two, of at least
    _SPLIT_MIN elements, whose masked power-of-two block would waste more than an eighth of it
    is of the split class: held as two power-of-two pieces where it is two (3072, 768:
    `_fwd_split`, kind "split"), else as the masked block (2496, 1252, 9000), warps from its
    real bytes either way; except between 4096 and 8192 (5120, 7168): there 2-byte rows take the
    masked block of 8192 on 8 warps (_MASKED_8K_2B, sweeps 11 and 13; the chunked loop with 4 kB
    chunks before, sweep 2) and float32 rows the masked block (sweep 8: 0.82x the loop); and
    2-byte rows of two pieces above 8192 take the chunked loop (_SPLIT_LOOP, sweep 10). Rows
    held in a block of 4096 or 8192 load the weight after the reduction (LATE_W; sweep 2 at
    8192: 0.986x / 0.960x the early load at 4096 / 2048 rows; sweep 6 at 4096: 0.979x / 0.950x;
    at 32768 the early load was 1.9 % faster, 16384 is not measured and keeps run 2's early
    load). Rows whose length is not a multiple of 16 bytes take the aligned chunked loop (ALIGN)
    from _ALIGN_LOOP_FROM elements (2-byte) and above _TWO_PASS_FROM (every type): _ALIGN_LOOP."""
    if n % (16 // elsize) and (n > _TWO_PASS_FROM or (elsize == 2 and n >= _ALIGN_LOOP_FROM)):
        return dict(_ALIGN_LOOP[n > _TWO_PASS_FROM])
    if n > _MAX_REG_ROW:
        return {"kind": "chunked", "BLOCK": 4096 if elsize == 4 else 8192, "num_warps": 16}
    if n > _TWO_PASS_FROM:
        # the two-pass loop with the whole row one chunk: the row is not held across the
        # reduction (the second pass reads it again, from L1/L2), fewer registers than `_fwd`
        return {"kind": "chunked", "BLOCK": triton.next_power_of_2(n), "num_warps": 32}
    block = triton.next_power_of_2(n)
    rows = max(1, min(64, 4096 // block))
    short_2b = elsize == 2 and block == 256 and n != block
    if short_2b:
        rows = _SHORT_ROWS_2B
    # 16 warps at most for 2-byte types (wider CTAs only cut the programs resident per SM),
    # 32 for float32 rows of 8192 and more (fewer float32 values per thread, no spills)
    cap = 32 if elsize == 4 else 16
    if n >= _SPLIT_MIN and block != n and (block - n) * _SPLIT_WASTE > n:
        between = _CHUNK_BETWEEN[0] < n < _CHUNK_BETWEEN[1]
        if between and elsize != 4:
            return dict(_MASKED_8K_2B)
        b1, b2, b3 = split_pieces(n)
        if b3 == 0 and elsize == 2 and n > _CHUNK_BETWEEN[1]:
            return dict(_SPLIT_LOOP)
        warps = max(1, min(cap, _pow2_floor(rows * n * elsize // 1024)))
        if b3 == 0 and not between:
            return {"kind": "split", "B1": b1, "B2": b2, "B3": b3, "BLOCK": block, "ROWS": rows,
                    "MASK_COLS": False, "num_warps": warps}
        # the weight loaded early, as sweeps 6-7 measured the masked block here
        return {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": True, "num_warps": warps,
                "LATE_W": False}
    tile_bytes = rows * block * elsize
    warps = max(1, min(cap, _pow2_floor(tile_bytes // 1024)))
    # LATE_W: the weight loaded after the reduction in blocks of _LATE_W_FROM up to (not
    # including) _LATE_W_BELOW (lab/norms/NOTES.md, "2026-12-02 sweep 2: what the rules take");
    # the early load elsewhere (run 2 held its targets there; 32768 measured early 1.9 % faster)
    return {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": block != n, "num_warps": warps,
            "LATE_W": short_2b or _LATE_W_FROM <= block < _LATE_W_BELOW}


#: the longest row the backward keeps whole in registers (x, dy, dx and the float32
#: accumulator); longer rows go to `_bwd_parts` (the row across programs). Sweep 3 (H200,
#: 2026-12-04, 2048 rows bf16): at 9000 the register kernel 58.96 us, parts 67.83; at 16384
#: parts 80.32, the register kernel 88.77 (32 warps, 14-34 registers spilled); at 32768 parts
#: 157.1 against the long kernel's 215.1. 12288 is the midpoint of the two measured sizes
_BWD_REG_ROW = 12288
#: elements of the backward's register tile for short rows (rows a program = _BWD_TILE / block;
#: twice that below 256 columns). Sweeps 6-7 (H200, 2026-12-04) against the 2048 of run 4:
#: 512 columns fp16, one row on 2 warps: 70 rows 3.46 us against 5.75, 20281 rows 22.78 against
#: 28.65 (2 rows on 4 warps 4.55 / 23.33); 1024 bf16 (2048 rows), one row on 4 or 2 warps 9.08 /
#: 9.03 against 11.16; 128 bf16 (131072 rows), 8 rows on 4 warps 33.03, 4 rows on 2 warps 37.25,
#: the 2048 tile 35.05 (hence the doubled tile below 256); LayerNorm's the same (256 fp16: 2 rows
#: on 2 warps 10.39, 4 rows on 4 warps 24.28, the rule 20.27)
_BWD_TILE = 512
#: bytes of L2 the long backward may keep per wave: its partial rows (4 bytes a column) and
#: the row it re-reads (x and dy), per program
_LONG_L2 = 24 * 1024 * 1024


def bwd_config(n: int, elsize: int) -> dict:
    """Backward: tiles of one row from 512 columns up, of 512 elements for rows of 256 and 512
    columns and of 1024 for shorter rows (_BWD_TILE; dy, x, dx and the float32 accumulator live
    together), 8 float32 elements per thread of each, at least 2 and at most 32 warps; CTAS
    programs per SM. Rows longer than _BWD_REG_ROW: kind "parts" (`_bwd_parts`, the row across
    programs of 4 kB of each input on 4 warps)."""
    if n > _BWD_REG_ROW:
        return parts_config(n, _BWD_PART_BYTES // elsize, _BWD_PART_WARPS)
    block = triton.next_power_of_2(n)
    rows = max(1, min(64, (_BWD_TILE if block >= 256 else 2 * _BWD_TILE) // block))
    warps = max(2, min(32, _pow2_floor(rows * block // 256)))
    ctas = max(1, min(4, 32 // warps))
    return {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": block != n, "num_warps": warps,
            "CTAS": ctas}


def long_config(n: int, elsize: int) -> dict:
    """The long backward (`_bwd_long`): chunks of 16 kB of each input (8192 elements of 2-byte
    types, 4096 of float32) over 32 warps. Where the parts kernel cannot run (the interpreter)."""
    block = 16384 // elsize
    return {"kind": "long", "BLOCK": block, "ROWS": 1, "MASK_COLS": n % block != 0,
            "num_warps": 32, "num_stages": 1, "CTAS": None}


#: the parts backward (`_bwd_parts`): bytes of each input one program holds of a row, and its
#: warps. Sweep 3, 2048 x 32768 bf16: 4 kB on 4 warps 157.1 us, 8 kB on 8 warps 191.5, 16 kB on
#: 16 warps 199.4, 8 kB on 4 warps 194.2 (small programs, 4 a SM: the exchange's wait hidden by
#: the others); float32 1024 x 32768: 4 kB on 4 warps 134.9, 8 kB on 8 warps 135.0
_BWD_PART_BYTES = 4096
_BWD_PART_WARPS = 4


def long_ctas(n: int, elsize: int, sms: int) -> int:
    """Programs per SM of the long backward: the most (a power of two, 1 to 4) whose partial
    rows and re-read rows (n x (4 + 2 x elsize) bytes per program) fit in _LONG_L2; at least 1."""
    per = n * (4 + 2 * elsize)
    c = 4
    while c > 1 and sms * c * per > _LONG_L2:
        c //= 2
    return c


#: configurations that replace the rules, for sweeps only (lab/norms/sweep2.py):
#: {("fwd" | "bwd", hidden, element size): config dict of the same form as the rule's}
OVERRIDE: dict = {}


def _fwd_cfg(n: int, elsize: int) -> dict:
    got = OVERRIDE.get(("fwd", n, elsize))
    return dict(got) if got else fwd_config(n, elsize)


def _bwd_cfg(n: int, elsize: int) -> dict:
    got = OVERRIDE.get(("bwd", n, elsize))
    if got:
        got = dict(got)
        if got.get("kind", "rows") == "rows" and n > _MAX_REG_ROW:
            raise ValueError(f"rmsnorm_backward: a rows-kind configuration keeps a row in registers; hidden {n} > "
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


def _check(x, weight, what):
    if not isinstance(x, torch.Tensor) or not isinstance(weight, torch.Tensor):
        raise ValueError(f"{what}: x and weight must be torch.Tensors")
    if x.dim() < 1 or x.shape[-1] == 0:
        raise ValueError(f"{what}: x must be (..., hidden) with hidden > 0, got shape {tuple(x.shape)}")
    if weight.dim() != 1 or weight.shape[0] != x.shape[-1]:
        raise ValueError(f"{what}: weight must be 1-D of size hidden={x.shape[-1]}, got {tuple(weight.shape)}")
    if x.dtype not in _SUPPORTED or weight.dtype not in _SUPPORTED:
        raise ValueError(f"{what}: unsupported dtypes x={x.dtype}, weight={weight.dtype}; use float32, float16 "
                         "or bfloat16")
    if x.device != weight.device:
        raise ValueError(f"{what}: x on {x.device}, weight on {weight.device}")
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
# kernel launched directly, skipping Triton's per-call argument binding (a decode-size call is
# then little more than the launch). Filled after a normal launch and checked bit for bit once.
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


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6, return_rstd: bool = False):
    """y = weight * rmsnorm(x) (Llama convention), a new tensor of dtype promote_types(weight, x);
    with return_rstd, (y, rstd) with rstd float32 of shape x.shape[:-1]."""
    if _FAST and not return_rstd:
        try:
            n = x.shape[-1]
            entry = _FAST.get((n, x.dtype, weight.dtype, x.get_device()))
        except (AttributeError, IndexError, TypeError):
            entry = None
        if entry and x.is_contiguous() and weight.is_contiguous() and x.numel() <= _INT32_MAX \
                and weight.shape == (n,) and weight.get_device() == x.get_device() \
                and ((x.data_ptr() | weight.data_ptr()) & 15) == 0 and _get_device() == x.get_device():
            ck, rpp, tail, ydt = entry
            y = torch.empty_like(x) if ydt is x.dtype else torch.empty_like(x, dtype=ydt)
            n_rows = x.numel() // n
            if n_rows:
                ck.run((n_rows + rpp - 1) // rpp, 1, 1, _raw_stream(x.get_device()), ck.function,
                       ck.packed_metadata, None, None, None, x.data_ptr(), weight.data_ptr(), y.data_ptr(),
                       y.data_ptr(), n_rows, n, n, float(eps), *tail)
            return y
    return _rmsnorm_general(x, weight, eps, return_rstd)


def _rmsnorm_general(x, weight, eps, return_rstd):
    _check(x, weight, "rmsnorm")
    n = x.shape[-1]
    ydt = torch.promote_types(weight.dtype, x.dtype)
    y = torch.empty(x.shape, dtype=ydt, device=x.device)
    rstd = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device) if return_rstd else None
    if x.numel() == 0:
        return (y, rstd) if return_rstd else y
    x2 = _rows2d(x, n)
    y2 = y.view(-1, n)
    w = weight.contiguous()
    n_rows = x2.shape[0]
    i64 = _i64(x2, y2)
    cfg = _fwd_cfg(n, x.element_size())
    pdl = _pdl(x.device)
    g = access_granularity(n, (x2.stride(0), y2.stride(0)), (x2, y2))  # the rows' access width
    rs = rstd.view(-1) if return_rstd else y2
    with _device_ctx(x.device):
        if cfg["kind"] == "split":
            _fwd_split[(triton.cdiv(n_rows, cfg["ROWS"]),)](
                x2, w, y2, rs, n_rows, x2.stride(0), y2.stride(0), float(eps), N=n, B1=cfg["B1"], B2=cfg["B2"],
                B3=cfg["B3"], ROWS=cfg["ROWS"], STORE_RSTD=return_rstd, I64=i64, num_warps=cfg["num_warps"],
                num_stages=1, **_pdl_kw(pdl))
        elif cfg["kind"] == "aligned" and _aligned(x2, y2, n):
            _fwd_aligned[(triton.cdiv(n_rows, cfg["ROWS"]),)](
                x2, w, y2, rs, n_rows, float(eps), N=n, BLOCK=cfg["BLOCK"], ROWS=cfg["ROWS"],
                VEC=16 // x2.element_size(), STORE_RSTD=return_rstd, I64=i64, num_warps=cfg["num_warps"],
                num_stages=1, **_pdl_kw(pdl))
        elif cfg["kind"] == "chunked" and cfg.get("ALIGN") and _aligned(x2, y2, n):
            _fwd_chunked_aligned[(n_rows,)](x2, w, y2, rs, n_rows, float(eps), N=n, BLOCK=cfg["BLOCK"],
                                            VEC=16 // x2.element_size(), STORE_RSTD=return_rstd, I64=i64,
                                            UNROLL=bool(cfg.get("UNROLL")), num_warps=cfg["num_warps"],
                                            **_pdl_kw(pdl))
        elif cfg["kind"] == "chunked":
            _fwd_chunked[(n_rows,)](x2, w, y2, rs, n_rows, x2.stride(0), y2.stride(0), float(eps), N=n,
                                    BLOCK=cfg["BLOCK"], STORE_RSTD=return_rstd, I64=i64,
                                    G=g, UNROLL=bool(cfg.get("UNROLL")), num_warps=cfg["num_warps"],
                                    **_pdl_kw(pdl))
        else:  # kind "rows"; or "aligned" rows that cannot take it (on boundaries, strided or
            # BATCH_INVARIANT): the plain block, not remembered for the fast path (which skips the checks)
            ck = _fwd[(triton.cdiv(n_rows, cfg["ROWS"]),)](
                x2, w, y2, rs, n_rows, x2.stride(0), y2.stride(0), float(eps), N=n, BLOCK=cfg["BLOCK"],
                ROWS=cfg["ROWS"], MASK_COLS=cfg.get("MASK_COLS", cfg["BLOCK"] != n), STORE_RSTD=return_rstd, I64=i64,
                LATE_W=bool(cfg.get("LATE_W", False)), G=g, num_warps=cfg["num_warps"], num_stages=1, **_pdl_kw(pdl))
            if cfg["kind"] == "rows" and not return_rstd and not i64:
                _remember_fast(ck, cfg, pdl, g, x2, w, y2, n_rows, float(eps), ydt)
    return (y, rstd) if return_rstd else y


def _remember_fast(ck, cfg, pdl, g, x2, w, y2, n_rows, eps, ydt):
    global _raw_stream, _get_device
    if not _FAST_ENABLED or _INTERPRET or ck is None or x2.device.type != "cuda":
        return
    n = x2.shape[1]
    key = (n, x2.dtype, w.dtype, x2.get_device())
    if key in _FAST or n < 2 or not x2.is_contiguous() or ((x2.data_ptr() | w.data_ptr() | y2.data_ptr()) & 15):
        return
    try:
        if torch.cuda.is_current_stream_capturing():
            return
        _raw_stream = torch._C._cuda_getCurrentRawStream
        _get_device = torch._C._cuda_getDevice
        tail = (n, cfg["BLOCK"], cfg["ROWS"], cfg["MASK_COLS"], False, False, pdl, bool(cfg.get("LATE_W", False)), g)
        y_b = torch.empty_like(y2)
        ck.run(triton.cdiv(n_rows, cfg["ROWS"]), 1, 1, _raw_stream(x2.get_device()), ck.function,
               ck.packed_metadata, None, None, None, x2.data_ptr(), w.data_ptr(), y_b.data_ptr(), y_b.data_ptr(),
               n_rows, n, n, eps, *tail)
        same = torch.equal(y_b.view(torch.uint8), y2.view(torch.uint8))
    except Exception:  # noqa: BLE001 - any incompatibility: keep the normal path
        same = False
    _FAST[key] = (ck, cfg["ROWS"], tail, ydt) if same else False


def fast_path_status() -> dict:
    return {str(k): bool(v) for k, v in _FAST.items()}


def rmsnorm_backward(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor | None = None,
                     eps: float = 1e-6, programs: int | None = None,
                     prefetch: bool | None = None):
    """(dx, dweight) of y = rmsnorm(x, weight): dx like x, dweight like weight. `rstd` is the
    forward's float32 statistic (shape x.shape[:-1]); None recomputes it. `programs` fixes the
    size of the persistent grid and `prefetch` the loop variant (tests)."""
    _check(x, weight, "rmsnorm_backward")
    if not isinstance(dy, torch.Tensor) or dy.shape != x.shape or dy.dtype != x.dtype or dy.device != x.device:
        raise ValueError(f"rmsnorm_backward: dy must match x in shape, dtype and device; got {tuple(dy.shape)} "
                         f"{dy.dtype} {dy.device}")
    n = x.shape[-1]
    dx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return dx, torch.zeros_like(weight)
    x2, dy2 = _rows2d(x, n), _rows2d(dy, n)
    dx2 = dx.view(-1, n)
    n_rows = x2.shape[0]
    if rstd is not None:
        if rstd.numel() != n_rows:
            raise ValueError(f"rmsnorm_backward: rstd has {rstd.numel()} elements, x has {n_rows} rows")
        rstd = rstd.reshape(-1).to(torch.float32).contiguous()
    w = weight.contiguous()
    cfg = _bwd_cfg(n, x.element_size())
    i64 = _i64(x2, dy2, dx2)
    rs = rstd if rstd is not None else w
    if programs is not None and (not isinstance(programs, int) or programs < 1):
        raise ValueError(f"rmsnorm_backward: programs must be a positive int, got {programs!r}")
    if cfg.get("kind") == "parts":
        if kr_parts.possible(x.device, cfg["PARTS"]):
            return _backward_parts(dy2, x2, w, rstd, rs, dx, dx2, n, n_rows, i64, cfg, float(eps), programs)
        cfg = long_config(n, x.element_size())  # the interpreter: programs run one after another
    if cfg.get("kind") == "long":
        return _backward_long(dy2, x2, w, rstd, rs, dx, dx2, n, n_rows, i64, cfg, float(eps), programs)
    consts = dict(N=n, BLOCK=cfg["BLOCK"], ROWS=cfg["ROWS"], MASK_COLS=cfg["MASK_COLS"], HAS_RSTD=rstd is not None,
                  I64=i64, num_warps=cfg["num_warps"], num_stages=1, **_pdl_kw(_pdl(x.device)))
    with _device_ctx(x.device):
        key = (n, x.dtype, w.dtype, x.device, rstd is not None, i64, x2.stride(0) % 16, dy2.stride(0) % 16,
               tuple(sorted(cfg.items())))

        def probe_args():
            part0 = torch.empty(4, dtype=torch.float32, device=x.device)
            return (dy2, x2, w, rs, dx2, part0, n_rows, 1, dy2.stride(0), x2.stride(0), dx2.stride(0), float(eps))

        warps, pre, ctas = _bwd_launch(_bwd, key, probe_args, consts, cfg, x.element_size(), x.device)
        consts["num_warps"] = warps
        consts["PREFETCH"] = pre if prefetch is None else bool(prefetch)
        if programs is None:
            programs = bwd_programs(n_rows, cfg, _sm_count(x.device), ctas)
        p = programs
        rows_per_prog = triton.cdiv(triton.cdiv(n_rows, p), cfg["ROWS"]) * cfg["ROWS"]
        p = triton.cdiv(n_rows, rows_per_prog)
        direct = p == 1  # one program: it writes dweight itself
        dw = torch.empty_like(w)
        part = dw if direct else torch.empty((p, n), dtype=torch.float32, device=x.device)
        _bwd[(p,)](dy2, x2, w, rs, dx2, part, n_rows, rows_per_prog, dy2.stride(0), x2.stride(0), dx2.stride(0),
                   float(eps), **consts)
        if not direct:
            bp, bn, rw = reduce_config(n, p)
            _reduce[(triton.cdiv(n, bn),)](part, dw, p, N=n, BLOCK_N=bn, BLOCK_P=bp, num_warps=rw,
                **_pdl_kw(_pdl(x.device)))
    return dx, dw


_PARTS_FIT: dict = {}  # parts backward: key -> programs one SM holds


def _backward_parts(dy2, x2, w, rstd, rs, dx, dx2, n, n_rows, i64, cfg, eps, programs):
    """The parts backward (`_bwd_parts` then `_reduce`): groups of PARTS programs, as many
    groups as fit on the GPU at once (or `programs` // PARTS), never more than rows."""
    device = x2.device
    block, parts = int(cfg["BLOCK"]), int(cfg["PARTS"])
    sp = triton.next_power_of_2(parts)
    nx = 1 if rstd is not None else 2
    warps = int(cfg["num_warps"])
    consts = dict(N=n, BLOCK=block, PARTS=parts, SP=sp, NX=nx, MASK_COLS=parts * block != n,
                  HAS_RSTD=rstd is not None, I64=i64, PREFETCH=bool(cfg.get("PREFETCH", False)), num_warps=warps,
                  num_stages=1, **_pdl_kw(_pdl(device)))
    with _device_ctx(device):
        slots, dep = kr_parts.workspace(device, n_rows, sp * nx)
        if programs is None:
            key = (n, x2.dtype, w.dtype, device, rstd is not None, i64, tuple(sorted(cfg.items())))
            fit = _PARTS_FIT.get(key)
            if fit is None:
                part0 = torch.empty(4, dtype=torch.float32, device=device)
                ck = _bwd_parts.warmup(dy2, x2, w, rs, dx2, part0, slots, dep, n_rows, 1, dy2.stride(0),
                                       x2.stride(0), dx2.stride(0), eps, grid=(1,), **consts)
                fit = _PARTS_FIT[key] = kr_parts.resident_programs(ck, warps, device)
            programs = _sm_count(device) * fit
        groups = max(1, min(n_rows, programs // parts))
        part = torch.empty((groups, n), dtype=torch.float32, device=device)
        dw = torch.empty_like(w)
        _bwd_parts[(groups * parts,)](dy2, x2, w, rs, dx2, part, slots, dep, n_rows, groups, dy2.stride(0),
                                      x2.stride(0), dx2.stride(0), eps, **consts)
        bp, bn, rw = reduce_config(n, groups)
        _reduce[(triton.cdiv(n, bn),)](part, dw, groups, N=n, BLOCK_N=bn, BLOCK_P=bp, num_warps=rw,
                                       **_pdl_kw(_pdl(device)))
    return dx, dw


def _backward_long(dy2, x2, w, rstd, rs, dx, dx2, n, n_rows, i64, cfg, eps, programs):
    """The long-row backward (`_bwd_long` then `_reduce`): P = SMs x long_ctas programs (or
    `programs`), never more than rows; partial rows always in a float32 buffer [P, hidden]."""
    block = int(cfg["BLOCK"])
    if block < 16 or block & (block - 1):
        raise ValueError(f"rmsnorm_backward: the long kind's BLOCK must be a power of two >= 16, got {block}")
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
    part = torch.empty((p, n), dtype=torch.float32, device=device)
    dw = torch.empty_like(w)
    pdl = _pdl(device)
    with _device_ctx(device):
        _bwd_long[(p,)](dy2, x2, w, rs, dx2, part, n_rows, rows_per_prog, dy2.stride(0), x2.stride(0),
                        dx2.stride(0), eps, N=n, BLOCK=block, HAS_RSTD=rstd is not None, I64=i64,
                        num_warps=int(cfg["num_warps"]), num_stages=int(cfg.get("num_stages", 1)), **_pdl_kw(pdl))
        bp, bn, rw = reduce_config(n, p)
        _reduce[(triton.cdiv(n, bn),)](part, dw, p, N=n, BLOCK_N=bn, BLOCK_P=bp, num_warps=rw, **_pdl_kw(pdl))
    return dx, dw
