"""Kernel Records' own Triton fused add + RMSNorm (forward).

Numerics (Hugging Face Llama convention, "rounded h"):

    h    = (x + residual) rounded to the input dtype          -> returned as residual_out
    rstd = 1 / sqrt(mean(float32(h) ** 2) + eps)              (float32)
    y    = weight * (float32(h) * rstd).to(input dtype)       (the multiply as torch would do it)

The product ``weight * normed`` follows torch's type promotion, exactly as HF's
``self.weight * hidden_states.to(input_dtype)``: with weight and input of the same dtype
``y`` has that dtype; with a float32 weight and bf16/fp16 input ``y`` is float32 (the
product of the float32 weight and the bf16-rounded normalised value, not rounded again);
in general ``y.dtype == torch.promote_types(weight.dtype, x.dtype)``.
``residual_out`` always has the input dtype.

Four kernels, one chosen per (hidden, element size) (see _TUNED; a row's arithmetic never
depends on how many rows come with it):

* ``_k_rows``: the whole row lives in registers; one pass over memory. A program handles
  ROWS rows (several rows per program for small hidden sizes). The row is split into up
  to four power-of-two *segments* (e.g. 5120 = 4096 + 1024, 7168 = 4096 + 2048 + 1024),
  so hidden sizes that are not powers of two are covered without padding or masks;
  other sizes (111, 4097, ...) use one masked power-of-two block.
* ``_k_row1``: one row per program in 1-D blocks (no row axis), for wide rows that still fit
  in one program's registers.
* ``_k_split``: a row too wide for one program (hidden 32768 fp32, 65536, 131072 bf16) split
  across SPLIT programs that exchange their partial sums of squares through a small global
  workspace; still one pass over memory.
* ``_k_chunked``: where _k_split cannot run (the interpreter, fewer SMs than parts): one
  program per row loops over chunks; pass 2 re-reads h from L2.

Launch knobs that leave the arithmetic alone: cache hints (HINTS, see _HINTS), programmatic
dependent launch on Hopper (PDL), the weight loaded before or after the reduction (W_EARLY).

The host path caches per-(hidden, dtypes, alignment) launch configurations and, on CUDA,
the compiled kernel handle, so a decode-size call costs little more than the launch.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

__all__ = ["fused_add_rmsnorm", "reference_fused_add_rmsnorm"]

_INT32_MAX = 2**31 - 1


# --------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# Launch configurations
# --------------------------------------------------------------------------------------

_SUPPORTED = (torch.float32, torch.float16, torch.bfloat16)
_MAX_REG_ROW = 32768  # the largest row kept whole in registers
# cache hints: HINTS -> (eviction policy of the x/r loads, cache modifier of the y/h stores).
# 2 measures fast only when the kernel follows itself (NOTES.md, "cache hints under interleaved
# timing"); 3 keeps the streaming stores without the evict-first loads.
_HINTS = {0: ("", ""), 1: ("evict_first", ""), 2: ("evict_first", ".cs"), 3: ("", ".cs")}
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
_PDL_ENV = os.environ.get("KR_TRITON_PDL", "1") not in ("", "0")
_DEVICE_INFO: dict = {}  # device index -> (compute capability major, SM count)


def _device_info(device: torch.device) -> tuple[int, int]:
    idx = device.index if device.index is not None else torch.cuda.current_device()
    info = _DEVICE_INFO.get(idx)
    if info is None:
        props = torch.cuda.get_device_properties(idx)
        info = _DEVICE_INFO[idx] = (props.major, props.multi_processor_count)
    return info


def _pdl_supported(device: torch.device) -> bool:
    """Programmatic dependent launch: Hopper (sm_90) and newer, compiled mode only."""
    if _INTERPRET or not _PDL_ENV or device.type != "cuda":
        return False
    return _device_info(device)[0] >= 9


def _pow2_segments(n: int, max_segments: int = 4, min_seg: int = 256):
    """Split n into <= max_segments powers of two (largest first), each >= min_seg;
    None if impossible."""
    segs = []
    rest = n
    bit = 1 << (n.bit_length() - 1)
    while rest and bit >= min_seg:
        if rest & bit:
            segs.append(bit)
            rest -= bit
        bit >>= 1
    if rest or len(segs) > max_segments:
        return None
    return segs


def _rows_cfg(s, mask, rows, warps, hints=1, pdl=True, w_early=False):
    s = tuple(list(s) + [0] * (4 - len(s)))
    return {"kind": "rows", "S": s, "MASK_COLS": mask, "ROWS": rows, "num_warps": warps, "HINTS": hints,
            "PDL": pdl, "W_EARLY": w_early}


def _row1_cfg(n, warps, hints=1, pdl=True, w_early=False):
    block = triton.next_power_of_2(n)
    return {"kind": "row1", "BLOCK": block, "MASK_COLS": block != n, "num_warps": warps, "HINTS": hints,
            "PDL": pdl, "W_EARLY": w_early}


def _split_cfg(n, block, warps, hints=1, pdl=True, w_early=False):
    """A row split across SPLIT programs of BLOCK columns (SPLIT a power of two, the last
    blocks masked where BLOCK * SPLIT > n)."""
    split = triton.next_power_of_2(triton.cdiv(n, block))
    return {"kind": "split", "BLOCK": block, "SPLIT": split, "num_warps": warps, "HINTS": hints, "PDL": pdl,
            "W_EARLY": w_early}


def _chunked_cfg(block, warps, hints=1, pdl=True):
    return {"kind": "chunked", "BLOCK": block, "num_warps": warps, "HINTS": hints, "PDL": pdl}


def _default_config(n: int, elsize: int) -> dict:
    """Heuristic launch configuration for a row of n elements of elsize bytes."""
    np2 = triton.next_power_of_2(n)
    if n > _MAX_REG_ROW:
        # split across programs of 64 kB of input each (see _k_split); where that is not
        # possible (the interpreter, fewer SMs than parts) _resolve falls back to _k_chunked
        return _split_cfg(n, 16384 if elsize == 4 else 32768, 32)
    segs = _pow2_segments(n)
    if segs is None:
        segs, mask = [np2], True
    else:
        mask = False
    # several rows per program for small rows
    tile = n if not mask else np2
    rows = max(1, min(16, 2048 // np2)) if elsize == 2 else 1
    elems = rows * tile
    warps = max(1, min(32, elems // (32 * (16 // elsize) * 2)))  # ~2 16-byte vectors per thread
    warps = 1 << (warps.bit_length() - 1)  # a power of two
    if n >= 8192:
        warps = 16 if n < 16384 else 32
    return _rows_cfg(segs, mask, rows, warps)


# Tuned on the H200 (see NOTES.md). A row's result must not depend on how many rows come with
# it, so everything that fixes the order of the sum of squares (kernel kind, block shape,
# warps, rows per program) is chosen per (hidden, element size) alone: _TUNED. Per rows bucket
# (0: <= 256 rows, decode; 1: <= 8192; 2: more) only launch knobs that leave the arithmetic
# alone may change: _KNOBS (cache hints, PDL, weight loaded early). Anything missing falls back
# to _default_config. KR_TRITON_CONFIGS=<json file> overrides entries (tuning runs):
# [{"key": [n, elsize], "cfg": {...}}, {"key": [n, elsize, bucket], "knobs": {...}}, ...].
def _bucket(n_rows: int) -> int:
    return 0 if n_rows <= 256 else (1 if n_rows <= 8192 else 2)


_KNOB_NAMES = ("HINTS", "PDL", "W_EARLY")


def _R(s, rows, warps, pdl=True, w_early=False, mask=False, hints=1):
    return _rows_cfg(s, mask, rows, warps, hints, pdl, w_early)


def _K(hints=1, pdl=True, w_early=False):
    return {"HINTS": hints, "PDL": pdl, "W_EARLY": w_early}


_TUNED: dict[tuple[int, int], dict] = {
    # fp32
    (1024, 4): _R([1024], 4, 4),
    (2048, 4): _R([2048], 1, 2),
    (4096, 4): _R([4096], 2, 8),
    (8192, 4): _R([8192], 1, 32, hints=0, w_early=True),  # for 2048 and 32768 rows (sweeps 7, 8)
    (16384, 4): _row1_cfg(16384, 32, hints=0, w_early=True),
    (32768, 4): _split_cfg(32768, 8192, 8, hints=0, pdl=False),  # the row across 4 programs (sweep 8, runner8)
    # bf16/fp16
    (1024, 2): _R([1024], 2, 8),
    (2048, 2): _R([2048], 1, 4),
    (4096, 2): _row1_cfg(4096, 4, hints=0, w_early=True),  # one layout for 1 to 32768 rows (sweep 6, runner8)
    (5120, 2): _R([8192], 1, 16, mask=True),
    (7168, 2): _row1_cfg(7168, 32, hints=0, w_early=True),
    (8192, 2): _row1_cfg(8192, 16, hints=0, w_early=True),  # one layout for 1 to 2048 rows (sweep 6)
    (16384, 2): _row1_cfg(16384, 16, hints=0, w_early=True),
    (32768, 2): _row1_cfg(32768, 16, hints=0, w_early=True),
    (65536, 2): _split_cfg(65536, 4096, 4, hints=0),  # the row across 16 programs (sweep 8)
    (131072, 2): _split_cfg(131072, 8192, 4, hints=0),  # across 16 programs (sweeps 7, 8)
}
# No cache hints anywhere since sweep 8: streaming hints (HINTS 2) timed fast only after the
# kernel itself or its kin, 2-5 % slower after a peer's kernel; without hints the same both ways.
_KNOBS: dict[tuple[int, int, int], dict] = {}


def _load_overrides():
    path = os.environ.get("KR_TRITON_CONFIGS")
    if not path:
        return
    import json
    with open(path) as f:
        for item in json.load(f):
            key = tuple(item["key"])
            if len(key) == 2:
                cfg = dict(item["cfg"])
                if "S" in cfg:
                    cfg["S"] = tuple(cfg["S"])
                _TUNED[key] = cfg
            else:
                _KNOBS[key] = {k: item["knobs"][k] for k in _KNOB_NAMES if k in item["knobs"]}


_load_overrides()


def reduction_layout(cfg: dict) -> tuple:
    """What fixes the order of a row's sum of squares: two configurations with the same layout
    give bit-identical rows."""
    return tuple((k, v) for k, v in sorted(cfg.items()) if k not in _KNOB_NAMES)


def _split_possible(device: torch.device, split: int) -> bool:
    """_k_split's programs of one row wait for each other: only compiled, and only with at
    least as many SMs as parts."""
    if _INTERPRET or device.type != "cuda":
        return False
    return split <= _device_info(device)[1]


def _resolve(cfg: dict, n: int, device: torch.device) -> dict:
    if cfg["kind"] == "split" and not _split_possible(device, cfg["SPLIT"]):
        np2 = triton.next_power_of_2(n)
        return _chunked_cfg(min(16384, np2), 32 if n >= 131072 else 16, cfg.get("HINTS", 1), cfg.get("PDL", True))
    return cfg


def _config_for(n: int, elsize: int, n_rows: int, device: torch.device | None = None) -> dict:
    cfg = _TUNED.get((n, elsize))
    if cfg is None:
        cfg = _default_config(n, elsize)
    knobs = _KNOBS.get((n, elsize, _bucket(n_rows)))
    if knobs:
        cfg = {**cfg, **knobs}
    return _resolve(cfg, n, device if device is not None else torch.device("cpu"))


def candidate_configs(n: int, elsize: int) -> list[dict]:
    """Configurations worth timing for a row of n elements (used by bench.py --sweep)."""
    vec = 16 // elsize
    np2 = triton.next_power_of_2(n)
    out = []
    if n <= _MAX_REG_ROW:
        segs = _pow2_segments(n)
        variants = [(segs, False)] if segs is not None else []
        if segs is None or len(segs) > 1:
            variants.append(([np2], True))
        for segs, mask in variants:
            for rows in (1, 2, 4, 8, 16):
                tile = rows * (np2 if mask else n)
                if rows > 1 and (tile < 2048 or tile > 16384):
                    continue
                for warps in (1, 2, 4, 8, 16, 32):
                    ept = tile // (warps * 32)
                    if ept < vec or ept > 40:
                        continue
                    out.append(_rows_cfg(segs, mask, rows, warps))
        for warps in (4, 8, 16, 32):
            ept = np2 // (warps * 32)
            if vec <= ept <= 64:
                out.append(_row1_cfg(n, warps))
    if n >= 16384:
        for block in (2048, 4096, 8192, 16384, 32768):
            if block > np2:
                continue
            for warps in (4, 8, 16, 32):
                ept = block // (warps * 32)
                if ept < vec or ept > 32:
                    continue
                out.append(_chunked_cfg(block, warps))
                if not _INTERPRET and block >= 4096 and block < np2:
                    out.append(_split_cfg(n, block, warps))
    d = _default_config(n, elsize)
    if d not in out and (d["kind"] != "split" or not _INTERPRET):
        out.append(d)
    return out


def _run_cfg(cfg: dict, x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6):
    """Run one given configuration (contiguous 2-D inputs): for tuning and tests."""
    n = x.shape[-1]
    y = torch.empty(x.shape, dtype=torch.promote_types(weight.dtype, x.dtype), device=x.device)
    h = torch.empty_like(x)
    n_rows = x.numel() // n
    if n_rows:
        i64 = x.numel() > _INT32_MAX
        _launch(cfg, x.view(-1, n), residual.view(-1, n), weight, y.view(-1, n), h.view(-1, n), n_rows,
                float(eps), True, i64)
    return y, h


def _constexpr_tail(cfg: dict, n: int, contig: bool, i64: bool, pdl: bool) -> tuple:
    """The constexpr arguments, in kernel signature order (the *_CONSTEXPRS names below)."""
    ld_ev, st_cm = _HINTS[cfg.get("HINTS", 1)]
    w_early = bool(cfg.get("W_EARLY", False))
    kind = cfg["kind"]
    if kind == "rows":
        s = cfg["S"]
        return (n, s[0], s[1], s[2], s[3], cfg["MASK_COLS"], cfg["ROWS"], contig, i64, pdl, ld_ev, st_cm, w_early)
    if kind == "row1":
        return (n, cfg["BLOCK"], cfg["MASK_COLS"], contig, i64, pdl, ld_ev, st_cm, w_early)
    if kind == "split":
        return (n, cfg["BLOCK"], cfg["SPLIT"], contig, i64, pdl, ld_ev, st_cm, w_early)
    return (n, cfg["BLOCK"], contig, i64, pdl, ld_ev, st_cm)


def _grid0(cfg: dict, n_rows: int) -> int:
    kind = cfg["kind"]
    if kind == "rows":
        return triton.cdiv(n_rows, cfg["ROWS"])
    return n_rows * cfg["SPLIT"] if kind == "split" else n_rows


# _k_split's exchange workspace. Eagerly: one per (device, stream), all zeros between calls
# (each call leaves it as it found it), grown as rows demand; kernels on one stream run one
# after the other and can share it, kernels on two streams may overlap and must not. While a
# CUDA graph is being captured: a fresh zeroed one per call, so the graph holds its own
# memset and never depends on memory that was zeroed, or not, outside it.
_SPLIT_WS: dict = {}


def _split_workspace(device: torch.device, n_rows: int, split: int):
    def zeroed(rows, per_row):
        return (torch.zeros(rows * per_row, dtype=torch.int64, device=device),
                torch.zeros(rows, dtype=torch.int32, device=device))

    if torch.cuda.is_current_stream_capturing():
        return zeroed(n_rows, split)
    key = (device.index, torch.cuda.current_stream(device).cuda_stream)
    ws = _SPLIT_WS.get(key)
    if ws is None or ws[0].numel() < n_rows * split or ws[1].numel() < n_rows:
        ws = _SPLIT_WS[key] = zeroed(max(n_rows, 2 * ws[1].numel() if ws is not None else 0), max(split, 16))
    return ws


def _launch(cfg: dict, x2, r2, w, y2, h2, n_rows: int, eps: float, contig: bool, i64: bool):
    n = x2.shape[1]
    pdl = bool(cfg.get("PDL", True)) and _pdl_supported(x2.device)
    args = (x2, r2, w, y2, h2, n_rows, x2.stride(0), r2.stride(0), h2.stride(0), y2.stride(0), eps)
    if cfg["kind"] == "split":
        if not _split_possible(x2.device, cfg["SPLIT"]):
            raise ValueError(f"split configuration {cfg} needs a CUDA device with at least {cfg['SPLIT']} SMs "
                             "and compiled Triton (its programs wait for each other)")
        args += _split_workspace(x2.device, n_rows, cfg["SPLIT"])
    tail = _constexpr_tail(cfg, n, contig, i64, pdl)
    kern, names = _KERNELS[cfg["kind"]]
    kw = dict(zip(names, tail))
    if pdl:
        kw["launch_pdl"] = True
    return kern[(_grid0(cfg, n_rows),)](*args, **kw, num_warps=cfg["num_warps"], num_stages=1)


_K_ROWS_CONSTEXPRS = ("N", "S0", "S1", "S2", "S3", "MASK_COLS", "ROWS", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM",
                      "W_EARLY")
_K_CHUNKED_CONSTEXPRS = ("N", "BLOCK", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM")
_K_ROW1_CONSTEXPRS = ("N", "BLOCK", "MASK_COLS", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM", "W_EARLY")
_K_SPLIT_CONSTEXPRS = ("N", "BLOCK", "SPLIT", "CONTIG", "I64", "PDL", "LD_EV", "ST_CM", "W_EARLY")
_KERNELS = {"rows": (_k_rows, _K_ROWS_CONSTEXPRS), "row1": (_k_row1, _K_ROW1_CONSTEXPRS),
            "chunked": (_k_chunked, _K_CHUNKED_CONSTEXPRS), "split": (_k_split, _K_SPLIT_CONSTEXPRS)}


# --------------------------------------------------------------------------------------
# Lean host path: cached compiled kernels, launched without Triton's per-call binding.
# --------------------------------------------------------------------------------------

# key (hidden, x dtype, w dtype, device index, rows bucket) ->
#   (compiled kernel, rows per program, parts per row (_k_split) or 0, constexpr tail, y dtype)
#   or False (use the normal path)
_FAST: dict = {}
_FAST_ENABLED = os.environ.get("KR_TRITON_NO_FAST_LAUNCH", "0") in ("", "0")
_raw_stream = None
_get_device = None


def _check_inputs(x, residual, weight):
    if not (isinstance(x, torch.Tensor) and isinstance(residual, torch.Tensor) and isinstance(weight, torch.Tensor)):
        raise ValueError("x, residual and weight must be torch.Tensors")
    if x.shape != residual.shape:
        raise ValueError(f"x and residual shapes differ: {tuple(x.shape)} vs {tuple(residual.shape)}")
    if x.dim() < 1:
        raise ValueError("x must have at least one dimension (..., hidden)")
    if weight.dim() != 1 or weight.shape[0] != x.shape[-1]:
        raise ValueError(f"weight must be 1-D of size hidden={x.shape[-1]}, got shape {tuple(weight.shape)}")
    if x.dtype != residual.dtype:
        raise ValueError(f"x and residual dtypes differ: {x.dtype} vs {residual.dtype}")
    if x.dtype not in _SUPPORTED or weight.dtype not in _SUPPORTED:
        raise ValueError(f"unsupported dtype(s) x={x.dtype}, weight={weight.dtype}; use float32, float16 or bfloat16")
    if x.device != residual.device or x.device != weight.device:
        raise ValueError(f"tensors on different devices: x {x.device}, residual {residual.device}, weight {weight.device}")
    if x.device.type != "cuda" and not _INTERPRET:
        raise ValueError("fused_add_rmsnorm needs CUDA tensors (or TRITON_INTERPRET=1 for CPU tensors)")
    if x.shape[-1] == 0:
        raise ValueError("hidden size must be > 0")
    if x.stride(-1) != 1 or residual.stride(-1) != 1:
        raise ValueError("x and residual must be contiguous in the last dimension (stride(-1) == 1)")


def _rows_view(t: torch.Tensor, n: int) -> torch.Tensor:
    if t.dim() == 2:
        return t
    if t.dim() == 1:
        return t.view(1, n)
    try:
        return t.view(-1, n)
    except RuntimeError:  # leading dims not collapsible: copy (correct, slower)
        return t.reshape(-1, n)


def fused_add_rmsnorm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                      eps: float = 1e-6) -> tuple[torch.Tensor, torch.Tensor]:
    """returns (y, residual_out), new tensors; inputs are not modified

    residual_out = (x + residual) in x.dtype; y = weight * rmsnorm(residual_out) with the
    norm in float32 (HF Llama convention); y.dtype = torch.promote_types(weight.dtype, x.dtype).
    """
    # ---- fast path: contiguous, 16-byte aligned, int32 offsets, cached compiled kernel ----
    if _FAST:
        try:
            n = x.shape[-1]
            numel = x.numel()
            dev = x.get_device()
            entry = _FAST.get((n, x.dtype, weight.dtype, dev,
                               0 if numel <= n * 256 else (1 if numel <= n * 8192 else 2)))
        except (AttributeError, IndexError, TypeError):
            entry = None
        if entry and numel <= _INT32_MAX and x.is_contiguous() and residual.is_contiguous() \
                and weight.is_contiguous() and residual.dtype is x.dtype and residual.shape == x.shape \
                and weight.dim() == 1 and weight.shape[0] == n and residual.get_device() == dev \
                and weight.get_device() == dev and _get_device() == dev:
            px, pr, pw = x.data_ptr(), residual.data_ptr(), weight.data_ptr()
            ck, rows_per_prog, split, tail, ydt = entry
            n_rows = numel // n
            stream = _raw_stream(dev)
            ws = None
            if split and n_rows:
                # the stream's own workspace, already big enough; never while capturing a graph
                # (the normal path gives a captured call a workspace of its own)
                ws = _SPLIT_WS.get((dev, stream))
                if ws is not None and (ws[0].numel() < n_rows * split or ws[1].numel() < n_rows
                                       or torch.cuda.is_current_stream_capturing()):
                    ws = None
            if ((px | pr | pw) & 15) == 0 and (ws is not None or not split or not n_rows):
                h = torch.empty_like(x)
                y = torch.empty_like(x) if ydt is x.dtype else torch.empty_like(x, dtype=ydt)
                if n_rows:
                    # raw device pointers: the tensors were checked above (same CUDA device)
                    if split:
                        ck.run(n_rows * split, 1, 1, stream, ck.function, ck.packed_metadata, None, None, None,
                               px, pr, pw, y.data_ptr(), h.data_ptr(), n_rows, n, n, n, n, eps,
                               ws[0].data_ptr(), ws[1].data_ptr(), *tail)
                    else:
                        ck.run((n_rows + rows_per_prog - 1) // rows_per_prog, 1, 1, stream, ck.function,
                               ck.packed_metadata, None, None, None, px, pr, pw, y.data_ptr(), h.data_ptr(),
                               n_rows, n, n, n, n, eps, *tail)
                return y, h
    return _general(x, residual, weight, eps)


def _general(x, residual, weight, eps):
    _check_inputs(x, residual, weight)
    n = x.shape[-1]
    out_dtype = torch.promote_types(weight.dtype, x.dtype)
    y = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    h = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return y, h
    x2 = _rows_view(x, n)
    r2 = _rows_view(residual, n)
    w = weight.contiguous()
    y2 = y.view(-1, n)
    h2 = h.view(-1, n)
    n_rows = x2.shape[0]
    max_off = max((n_rows - 1) * abs(t.stride(0)) + n for t in (x2, r2, y2, h2))
    i64 = max_off > _INT32_MAX
    contig = all(t.stride(0) == n for t in (x2, r2))
    cfg = _config_for(n, x.element_size(), n_rows, x.device)
    if x.device.type == "cuda":
        with torch.cuda.device(x.device):
            ck = _launch(cfg, x2, r2, w, y2, h2, n_rows, float(eps), contig, i64)
            _maybe_cache_fast(ck, cfg, x2, r2, w, y2, h2, n_rows, eps, contig, i64, out_dtype)
    else:
        _launch(cfg, x2, r2, w, y2, h2, n_rows, float(eps), contig, i64)
    return y, h


def _maybe_cache_fast(ck, cfg, x2, r2, w, y2, h2, n_rows, eps, contig, i64, out_dtype):
    """After a normal launch of the common case (contiguous, 16-byte aligned, int32
    offsets), remember the compiled kernel and check once that launching it directly
    gives bit-identical results; otherwise keep using the normal path for that key."""
    global _raw_stream, _get_device
    if not _FAST_ENABLED or not contig or i64 or ck is None:
        return
    n = x2.shape[1]
    key = (n, x2.dtype, w.dtype, x2.get_device(), _bucket(n_rows))
    if key in _FAST:
        return
    if (x2.data_ptr() | r2.data_ptr() | w.data_ptr() | y2.data_ptr() | h2.data_ptr()) & 15:
        return
    if not (x2.is_contiguous() and r2.is_contiguous() and w.is_contiguous()):
        return
    try:
        if torch.cuda.is_current_stream_capturing():
            return
        _raw_stream = torch._C._cuda_getCurrentRawStream
        _get_device = torch._C._cuda_getDevice
        if _get_device() != x2.get_device():
            return
        pdl = bool(cfg.get("PDL", True)) and _pdl_supported(x2.device)
        tail = _constexpr_tail(cfg, n, True, False, pdl)
        rpp = cfg["ROWS"] if cfg["kind"] == "rows" else 1
        split = cfg["SPLIT"] if cfg["kind"] == "split" else 0
        y_b = torch.empty_like(y2)
        h_b = torch.empty_like(h2)
        args = (x2.data_ptr(), r2.data_ptr(), w.data_ptr(), y_b.data_ptr(), h_b.data_ptr(), n_rows, n, n, n, n,
                float(eps))
        if split:
            slots, dep = _split_workspace(x2.device, n_rows, split)
            args += (slots.data_ptr(), dep.data_ptr())
        grid = n_rows * split if split else (n_rows + rpp - 1) // rpp
        ck.run(grid, 1, 1, _raw_stream(x2.get_device()), ck.function, ck.packed_metadata, None, None, None,
               *args, *tail)
        same = torch.equal(y_b.view(torch.uint8), y2.view(torch.uint8)) and \
            torch.equal(h_b.view(torch.uint8), h2.view(torch.uint8))
    except Exception:  # noqa: BLE001 - any incompatibility: keep the normal path
        same = False
    _FAST[key] = (ck, rpp, split, tail, out_dtype) if same else False


def fast_path_status() -> dict:
    """For benchmarks and tests: which keys launch through the cached fast path."""
    return {str(k): bool(v) for k, v in _FAST.items()}


def reference_fused_add_rmsnorm(x, residual, weight, eps=1e-6):
    """Eager PyTorch reference with exactly the same numerics (HF LlamaRMSNorm after an add)."""
    h = x + residual
    hf = h.to(torch.float32)
    var = hf.pow(2).mean(-1, keepdim=True)
    normed = hf * torch.rsqrt(var + eps)
    return weight * normed.to(x.dtype), h
