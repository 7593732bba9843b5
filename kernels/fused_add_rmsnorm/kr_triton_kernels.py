"""The Triton kernels of Kernel Records' fused add + RMSNorm (kr_triton.py is the host side).

Four kernels, one chosen per (hidden, element size) by the launch configuration
(kr_triton_config.py):

* ``_k_rows``: the whole row in registers, one pass over memory; ROWS rows per program; the
  row split into up to four power-of-two segments (5120 = 4096 + 1024), or one masked block.
* ``_k_row1``: one row per program in 1-D blocks, for wide rows that still fit in registers.
* ``_k_split``: a row too wide for one program split across SPLIT programs that exchange their
  partial sums of squares through a small global workspace; still one pass over memory.
* ``_k_chunked``: where _k_split cannot run (the interpreter, fewer SMs than parts): one
  program per row loops over chunks; pass 2 re-reads h from L2.
* ``_k_wide`` (experimental, never the model's choice; only a KR_TRITON_CONFIGS entry): _k_split's
  partials per fixed chunk on fewer programs (1, 2 or 4 chunks each), the same bits for any
  number of programs per row.

Launch knobs that leave the arithmetic alone: cache hints (LD_EV, ST_CM), programmatic
dependent launch on Hopper (PDL), the weight loaded before or after the reduction (W_EARLY).
"""

import triton
import triton.language as tl



@triton.jit
def _offsets(rows, N: tl.constexpr, stride_x, stride_r, stride_h, stride_y, CONTIG: tl.constexpr,
             I64: tl.constexpr):
    """Element offsets of rows (a scalar or a vector) in x, residual, h and y."""
    if I64:
        rows = rows.to(tl.int64)
    if CONTIG:
        return rows * N, rows * N, rows * N, rows * N
    return rows * stride_x, rows * stride_r, rows * stride_h, rows * stride_y


@triton.jit
def _seg_pass1(X, R, H, xoff, roff, hoff, rmask, OFF: tl.constexpr, SEG: tl.constexpr,
               N: tl.constexpr, MASK_COLS: tl.constexpr, LD_EV: tl.constexpr, ST_CM: tl.constexpr):
    cols = OFF + tl.arange(0, SEG)
    if MASK_COLS:
        m = rmask[:, None] & (cols < N)[None, :]
    else:
        m = rmask[:, None]
    x = tl.load(X + xoff[:, None] + cols[None, :], mask=m, other=0.0, eviction_policy=LD_EV)
    r = tl.load(R + roff[:, None] + cols[None, :], mask=m, other=0.0, eviction_policy=LD_EV)
    h = (x.to(tl.float32) + r.to(tl.float32)).to(X.dtype.element_ty)
    tl.store(H + hoff[:, None] + cols[None, :], h, mask=m, cache_modifier=ST_CM)
    hf = h.to(tl.float32)
    return hf, tl.sum(hf * hf, axis=1)


@triton.jit
def _seg_w(W, OFF: tl.constexpr, SEG: tl.constexpr, N: tl.constexpr, MASK_COLS: tl.constexpr):
    cols = OFF + tl.arange(0, SEG)
    if MASK_COLS:
        w = tl.load(W + cols, mask=cols < N, other=0.0, eviction_policy="evict_last")
    else:
        w = tl.load(W + cols, eviction_policy="evict_last")
    return w.to(tl.float32)


@triton.jit
def _seg_pass2(W, Y, hf, w, rstd, yoff, rmask, OFF: tl.constexpr, SEG: tl.constexpr, N: tl.constexpr,
               MASK_COLS: tl.constexpr, IN_DTYPE: tl.constexpr, ST_CM: tl.constexpr, W_EARLY: tl.constexpr):
    cols = OFF + tl.arange(0, SEG)
    if not W_EARLY:
        w = _seg_w(W, OFF, SEG, N, MASK_COLS)
    if MASK_COLS:
        m = rmask[:, None] & (cols < N)[None, :]
    else:
        m = rmask[:, None]
    normed = (hf * rstd[:, None]).to(IN_DTYPE).to(tl.float32)
    y = w[None, :] * normed
    tl.store(Y + yoff[:, None] + cols[None, :], y.to(Y.dtype.element_ty), mask=m, cache_modifier=ST_CM)


@triton.jit(do_not_specialize=["n_rows", "stride_x", "stride_r", "stride_h", "stride_y"])
def _k_rows(X, R, W, Y, H, n_rows, stride_x, stride_r, stride_h, stride_y, eps,
            N: tl.constexpr, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr, S3: tl.constexpr,
            MASK_COLS: tl.constexpr, ROWS: tl.constexpr, CONTIG: tl.constexpr, I64: tl.constexpr,
            PDL: tl.constexpr, LD_EV: tl.constexpr, ST_CM: tl.constexpr, W_EARLY: tl.constexpr):
    IN_DTYPE: tl.constexpr = X.dtype.element_ty
    if PDL:
        # programmatic dependent launch: wait for the previous kernel's writes, then let
        # the next kernel's programs be scheduled while this grid finishes
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    rows = pid * ROWS + tl.arange(0, ROWS)
    rmask = rows < n_rows
    xoff, roff, hoff, yoff = _offsets(rows, N, stride_x, stride_r, stride_h, stride_y, CONTIG, I64)
    O1: tl.constexpr = S0
    O2: tl.constexpr = S0 + S1
    O3: tl.constexpr = S0 + S1 + S2
    # the weight (L2-resident) either first, so its latency hides behind the x/r loads and
    # the reduction (costs registers), or after the reduction
    w0 = 0.0
    w1 = 0.0
    w2 = 0.0
    w3 = 0.0
    if W_EARLY:
        w0 = _seg_w(W, 0, S0, N, MASK_COLS)
        if S1 > 0:
            w1 = _seg_w(W, O1, S1, N, False)
        if S2 > 0:
            w2 = _seg_w(W, O2, S2, N, False)
        if S3 > 0:
            w3 = _seg_w(W, O3, S3, N, False)
    h0, ss = _seg_pass1(X, R, H, xoff, roff, hoff, rmask, 0, S0, N, MASK_COLS, LD_EV, ST_CM)
    if S1 > 0:
        h1, ss1 = _seg_pass1(X, R, H, xoff, roff, hoff, rmask, O1, S1, N, False, LD_EV, ST_CM)
        ss += ss1
    if S2 > 0:
        h2, ss2 = _seg_pass1(X, R, H, xoff, roff, hoff, rmask, O2, S2, N, False, LD_EV, ST_CM)
        ss += ss2
    if S3 > 0:
        h3, ss3 = _seg_pass1(X, R, H, xoff, roff, hoff, rmask, O3, S3, N, False, LD_EV, ST_CM)
        ss += ss3
    rstd = tl.math.rsqrt(ss / N + eps)
    _seg_pass2(W, Y, h0, w0, rstd, yoff, rmask, 0, S0, N, MASK_COLS, IN_DTYPE, ST_CM, W_EARLY)
    if S1 > 0:
        _seg_pass2(W, Y, h1, w1, rstd, yoff, rmask, O1, S1, N, False, IN_DTYPE, ST_CM, W_EARLY)
    if S2 > 0:
        _seg_pass2(W, Y, h2, w2, rstd, yoff, rmask, O2, S2, N, False, IN_DTYPE, ST_CM, W_EARLY)
    if S3 > 0:
        _seg_pass2(W, Y, h3, w3, rstd, yoff, rmask, O3, S3, N, False, IN_DTYPE, ST_CM, W_EARLY)


@triton.jit
def _vec_load(P, cols, m, MASK_COLS: tl.constexpr, EV: tl.constexpr):
    if MASK_COLS:
        return tl.load(P + cols, mask=m, other=0.0, eviction_policy=EV)
    return tl.load(P + cols, eviction_policy=EV)


@triton.jit
def _vec_store(P, cols, v, m, MASK_COLS: tl.constexpr, ST_CM: tl.constexpr):
    if MASK_COLS:
        tl.store(P + cols, v, mask=m, cache_modifier=ST_CM)
    else:
        tl.store(P + cols, v, cache_modifier=ST_CM)


@triton.jit
def _vec_pass1(X, R, H, xoff, roff, hoff, cols, m, MASK_COLS: tl.constexpr, LD_EV: tl.constexpr,
               ST_CM: tl.constexpr):
    """h = x + r (rounded to the input dtype) for one block of a row: stored, returned in
    float32 with its sum of squares."""
    x = _vec_load(X + xoff, cols, m, MASK_COLS, LD_EV)
    r = _vec_load(R + roff, cols, m, MASK_COLS, LD_EV)
    h = (x.to(tl.float32) + r.to(tl.float32)).to(X.dtype.element_ty)
    _vec_store(H + hoff, cols, h, m, MASK_COLS, ST_CM)
    hf = h.to(tl.float32)
    return hf, tl.sum(hf * hf, axis=0)


@triton.jit
def _vec_pass2(Y, hf, w, rstd, yoff, cols, m, MASK_COLS: tl.constexpr, IN_DTYPE: tl.constexpr,
               ST_CM: tl.constexpr):
    normed = (hf * rstd).to(IN_DTYPE).to(tl.float32)
    y = (w.to(tl.float32) * normed).to(Y.dtype.element_ty)
    _vec_store(Y + yoff, cols, y, m, MASK_COLS, ST_CM)


@triton.jit(do_not_specialize=["n_rows", "stride_x", "stride_r", "stride_h", "stride_y"])
def _k_row1(X, R, W, Y, H, n_rows, stride_x, stride_r, stride_h, stride_y, eps,
            N: tl.constexpr, BLOCK: tl.constexpr, MASK_COLS: tl.constexpr, CONTIG: tl.constexpr,
            I64: tl.constexpr, PDL: tl.constexpr, LD_EV: tl.constexpr, ST_CM: tl.constexpr,
            W_EARLY: tl.constexpr):
    """One row per program with 1-D blocks (no row axis): the plainest layout for wide rows."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    row = tl.program_id(0)
    xoff, roff, hoff, yoff = _offsets(row, N, stride_x, stride_r, stride_h, stride_y, CONTIG, I64)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    if W_EARLY:
        w = _vec_load(W, cols, m, MASK_COLS, "evict_last")
    hf, ss = _vec_pass1(X, R, H, xoff, roff, hoff, cols, m, MASK_COLS, LD_EV, ST_CM)
    rstd = tl.math.rsqrt(ss / N + eps)
    if not W_EARLY:
        w = _vec_load(W, cols, m, MASK_COLS, "evict_last")
    _vec_pass2(Y, hf, w, rstd, yoff, cols, m, MASK_COLS, X.dtype.element_ty, ST_CM)


@triton.jit(do_not_specialize=["n_rows", "stride_x", "stride_r", "stride_h", "stride_y"])
def _k_split(X, R, W, Y, H, n_rows, stride_x, stride_r, stride_h, stride_y, eps, SLOTS, DEP,
             N: tl.constexpr, BLOCK: tl.constexpr, SPLIT: tl.constexpr, CONTIG: tl.constexpr,
             I64: tl.constexpr, PDL: tl.constexpr, LD_EV: tl.constexpr, ST_CM: tl.constexpr,
             W_EARLY: tl.constexpr):
    """A row too wide for one program's registers, split across SPLIT neighbouring programs
    (program p: row p // SPLIT, columns [p % SPLIT * BLOCK, +BLOCK)). Each keeps its block in
    registers, publishes its sum of squares, waits for its siblings' and finishes: one pass
    over memory, as for a narrow row.

    Exchange, per row, in a workspace that is all zeros between calls: SLOTS[row, part] (int64)
    receives (1 << 32) | float32 bits of the partial sum in ONE atomic exchange, so the flag
    and the value arrive together and no fence is needed; a program spins on its row's SPLIT
    slots (volatile loads, not L1) until all are flagged, then sums them in a fixed order (so
    every part gets the same rstd, and the result does not depend on timing). After its stores,
    a program counts itself out in DEP[row]; the last one zeroes the row's slots and DEP for
    the next call (kernels on a stream do not overlap; see _split_workspace). Forward progress needs the SPLIT programs of a row to be co-resident or to run
    in launch order, which holds when SPLIT is at most the number of SMs (the host checks)
    and blocks are dispatched in order of program id, as on NVIDIA GPUs."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    row = pid // SPLIT
    part = pid % SPLIT
    xoff, roff, hoff, yoff = _offsets(row, N, stride_x, stride_r, stride_h, stride_y, CONTIG, I64)
    MASK_COLS: tl.constexpr = BLOCK * SPLIT != N
    cols = part * BLOCK + tl.arange(0, BLOCK)
    m = cols < N
    if W_EARLY:
        w = _vec_load(W, cols, m, MASK_COLS, "evict_last")
    hf, ss = _vec_pass1(X, R, H, xoff, roff, hoff, cols, m, MASK_COLS, LD_EV, ST_CM)
    slots = SLOTS + row.to(tl.int64) * SPLIT
    bits = ss.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF
    tl.atomic_xchg(slots + part, bits | 0x100000000, sem="relaxed")
    if not W_EARLY:  # the weight's load overlaps the wait
        w = _vec_load(W, cols, m, MASK_COLS, "evict_last")
    k = tl.arange(0, SPLIT)
    got = tl.load(slots + k, volatile=True)
    while tl.min((got >> 32).to(tl.int32), axis=0) == 0:
        got = tl.load(slots + k, volatile=True)
    total = tl.sum(got.to(tl.int32).to(tl.float32, bitcast=True), axis=0)
    rstd = tl.math.rsqrt(total / N + eps)
    _vec_pass2(Y, hf, w, rstd, yoff, cols, m, MASK_COLS, X.dtype.element_ty, ST_CM)
    # Off the critical path: count this program out; the last one (all siblings are past their
    # wait, their reads returned before they counted out) zeroes the row for the next call.
    left = tl.atomic_add(DEP + row, 1, sem="relaxed")
    if left == SPLIT - 1:
        tl.store(slots + k, tl.zeros([SPLIT], dtype=tl.int64))
        tl.store(DEP + row, 0)


@triton.jit
def _wide_pass1(X, R, H, xoff, roff, hoff, slots, c, CHUNK: tl.constexpr, N: tl.constexpr,
                MASK_COLS: tl.constexpr, LD_EV: tl.constexpr, ST_CM: tl.constexpr):
    """Chunk c of a row: h = x + r stored, its sum of squares published in slot c (as _k_split's
    part: the same 1-D [CHUNK] tile, so the same bits); returns the columns, mask and h."""
    cols = c * CHUNK + tl.arange(0, CHUNK)
    m = cols < N
    hf, ss = _vec_pass1(X, R, H, xoff, roff, hoff, cols, m, MASK_COLS, LD_EV, ST_CM)
    bits = ss.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF
    tl.atomic_xchg(slots + c, bits | 0x100000000, sem="relaxed")
    return cols, m, hf


@triton.jit(do_not_specialize=["n_rows", "stride_x", "stride_r", "stride_h", "stride_y"])
def _k_wide(X, R, W, Y, H, n_rows, stride_x, stride_r, stride_h, stride_y, eps, SLOTS, DEP,
            N: tl.constexpr, CHUNK: tl.constexpr, NCH: tl.constexpr, PARTS: tl.constexpr,
            CONTIG: tl.constexpr, I64: tl.constexpr, PDL: tl.constexpr, LD_EV: tl.constexpr,
            ST_CM: tl.constexpr):
    """EXPERIMENTAL, off by default (only a KR_TRITON_CONFIGS / sweep candidate selects it): a
    row of NCH fixed chunks of CHUNK columns across PARTS programs, K = NCH / PARTS (1, 2 or 4)
    consecutive chunks each. Every chunk publishes its own partial sum, so the slots, their
    fixed-order sum and hence every bit of the row are those of _k_split with BLOCK = CHUNK and
    SPLIT = NCH, whatever PARTS is: PARTS may follow the number of rows (a launch knob) without
    breaking row independence. Exchange, wait and reset as _k_split (NCH slots a row; the
    last of the PARTS programs to count out zeroes them); same forward-progress condition
    (PARTS at most the SM count, blocks dispatched in program-id order)."""
    K: tl.constexpr = NCH // PARTS
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    row = pid // PARTS
    part = pid % PARTS
    xoff, roff, hoff, yoff = _offsets(row, N, stride_x, stride_r, stride_h, stride_y, CONTIG, I64)
    MASK_COLS: tl.constexpr = CHUNK * NCH != N
    IN_DTYPE: tl.constexpr = X.dtype.element_ty
    slots = SLOTS + row.to(tl.int64) * NCH
    c0 = part * K
    cols0, m0, h0 = _wide_pass1(X, R, H, xoff, roff, hoff, slots, c0, CHUNK, N, MASK_COLS, LD_EV, ST_CM)
    if K > 1:
        cols1, m1, h1 = _wide_pass1(X, R, H, xoff, roff, hoff, slots, c0 + 1, CHUNK, N, MASK_COLS, LD_EV, ST_CM)
    if K > 2:
        cols2, m2, h2 = _wide_pass1(X, R, H, xoff, roff, hoff, slots, c0 + 2, CHUNK, N, MASK_COLS, LD_EV, ST_CM)
        cols3, m3, h3 = _wide_pass1(X, R, H, xoff, roff, hoff, slots, c0 + 3, CHUNK, N, MASK_COLS, LD_EV, ST_CM)
    # the weight's loads overlap the wait
    w0 = _vec_load(W, cols0, m0, MASK_COLS, "evict_last")
    if K > 1:
        w1 = _vec_load(W, cols1, m1, MASK_COLS, "evict_last")
    if K > 2:
        w2 = _vec_load(W, cols2, m2, MASK_COLS, "evict_last")
        w3 = _vec_load(W, cols3, m3, MASK_COLS, "evict_last")
    k = tl.arange(0, NCH)
    got = tl.load(slots + k, volatile=True)
    while tl.min((got >> 32).to(tl.int32), axis=0) == 0:
        got = tl.load(slots + k, volatile=True)
    total = tl.sum(got.to(tl.int32).to(tl.float32, bitcast=True), axis=0)
    rstd = tl.math.rsqrt(total / N + eps)
    _vec_pass2(Y, h0, w0, rstd, yoff, cols0, m0, MASK_COLS, IN_DTYPE, ST_CM)
    if K > 1:
        _vec_pass2(Y, h1, w1, rstd, yoff, cols1, m1, MASK_COLS, IN_DTYPE, ST_CM)
    if K > 2:
        _vec_pass2(Y, h2, w2, rstd, yoff, cols2, m2, MASK_COLS, IN_DTYPE, ST_CM)
        _vec_pass2(Y, h3, w3, rstd, yoff, cols3, m3, MASK_COLS, IN_DTYPE, ST_CM)
    left = tl.atomic_add(DEP + row, 1, sem="relaxed")
    if left == PARTS - 1:
        tl.store(slots + k, tl.zeros([NCH], dtype=tl.int64))
        tl.store(DEP + row, 0)


@triton.jit(do_not_specialize=["n_rows", "stride_x", "stride_r", "stride_h", "stride_y"])
def _k_chunked(X, R, W, Y, H, n_rows, stride_x, stride_r, stride_h, stride_y, eps,
               N: tl.constexpr, BLOCK: tl.constexpr, CONTIG: tl.constexpr, I64: tl.constexpr,
               PDL: tl.constexpr, LD_EV: tl.constexpr, ST_CM: tl.constexpr):
    IN_DTYPE: tl.constexpr = X.dtype.element_ty
    NCHUNK: tl.constexpr = (N + BLOCK - 1) // BLOCK
    MASK_COLS: tl.constexpr = (N % BLOCK) != 0
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    row = tl.program_id(0)
    xoff, roff, hoff, yoff = _offsets(row, N, stride_x, stride_r, stride_h, stride_y, CONTIG, I64)
    Xr = X + xoff
    Rr = R + roff
    Hr = H + hoff
    Yr = Y + yoff
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    # pass 1: h = x + r, written with evict_last so it stays in L2 for pass 2
    for i in range(NCHUNK):
        cols = i * BLOCK + offs
        if MASK_COLS:
            m = cols < N
            x = tl.load(Xr + cols, mask=m, other=0.0, eviction_policy=LD_EV)
            r = tl.load(Rr + cols, mask=m, other=0.0, eviction_policy=LD_EV)
        else:
            x = tl.load(Xr + cols, eviction_policy=LD_EV)
            r = tl.load(Rr + cols, eviction_policy=LD_EV)
        h = (x.to(tl.float32) + r.to(tl.float32)).to(IN_DTYPE)
        if MASK_COLS:
            tl.store(Hr + cols, h, mask=m, eviction_policy="evict_last")
        else:
            tl.store(Hr + cols, h, eviction_policy="evict_last")
        hf = h.to(tl.float32)
        acc += hf * hf
    rstd = tl.math.rsqrt(tl.sum(acc, axis=0) / N + eps)
    tl.debug_barrier()
    # pass 2, newest chunks first (the likeliest still in L2)
    for j in range(NCHUNK):
        i = NCHUNK - 1 - j
        cols = i * BLOCK + offs
        if MASK_COLS:
            m = cols < N
            h = tl.load(Hr + cols, mask=m, other=0.0, eviction_policy="evict_first")
            w = tl.load(W + cols, mask=m, other=0.0, eviction_policy="evict_last")
        else:
            h = tl.load(Hr + cols, eviction_policy="evict_first")
            w = tl.load(W + cols, eviction_policy="evict_last")
        normed = (h.to(tl.float32) * rstd).to(IN_DTYPE).to(tl.float32)
        y = (w.to(tl.float32) * normed).to(Y.dtype.element_ty)
        if MASK_COLS:
            tl.store(Yr + cols, y, mask=m, cache_modifier=ST_CM)
        else:
            tl.store(Yr + cols, y, cache_modifier=ST_CM)


#: the constexpr arguments of each kernel, in signature order (the host passes them by name)
_K_ROWS_CONSTEXPRS = ("N", "S0", "S1", "S2", "S3", "MASK_COLS", "ROWS", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM",
                      "W_EARLY")
_K_CHUNKED_CONSTEXPRS = ("N", "BLOCK", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM")
_K_ROW1_CONSTEXPRS = ("N", "BLOCK", "MASK_COLS", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM", "W_EARLY")
_K_SPLIT_CONSTEXPRS = ("N", "BLOCK", "SPLIT", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM", "W_EARLY")
_K_WIDE_CONSTEXPRS = ("N", "CHUNK", "NCH", "PARTS", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM")
KERNELS = {"rows": (_k_rows, _K_ROWS_CONSTEXPRS), "row1": (_k_row1, _K_ROW1_CONSTEXPRS),
           "chunked": (_k_chunked, _K_CHUNKED_CONSTEXPRS), "split": (_k_split, _K_SPLIT_CONSTEXPRS),
           "wide": (_k_wide, _K_WIDE_CONSTEXPRS)}
