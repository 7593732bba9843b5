"""Kernel Records' own Triton softmax over the last dimension: forward and backward.

    forward:  y  = softmax(x)               = exp(x - max x) / sum(exp(x - max x))
    backward: dx = y * (dy - sum(y * dy))   (from the forward's output y and the gradient dy)

Numerics: the input is read in its dtype and widened to float32; max, exponentials, sums and
products in float32 (the odd 2-byte forward's sum in 64-bit fixed point, below); the output is
rounded once to the input dtype. A row whose entries are all
-inf gives NaN, as torch.softmax does; -inf entries elsewhere give exact zeros.

One pass over memory: every element of the inputs is read once and every element of the
output written once. Two layouts, chosen from the row length, element size and kind by
`plan()` (never from the number of rows, so a row's bits do not depend on how many rows
there are; no table of workloads):

* one program per row, the whole row in registers (rows up to `MAX_ROW` elements forward,
  `MAX_ROW_BWD` backward, which holds two), whatever the number of rows;
* a longer row split across SPLIT neighbouring programs of `LONG[kind, element size]`
  columns. Each program keeps its BLOCK columns in registers,
  publishes its partial statistics (forward: its max m_i and sum s_i = sum exp(x - m_i), the
  online-softmax pair; backward: its partial sum of y * dy), waits for its siblings', combines
  them in a fixed order (so every part of a row computes bit-identical statistics) and writes
  its block. The exchange goes through a small int64 workspace that is all zeros between calls,
  one 64-bit slot per part, written by ONE atomic exchange that carries value and flag together
  (so no fence is needed): backward (1 << 32) | float32 bits of the partial dot product;
  forward the pair packed as (bits of m_i) << 32 | bits of s_i with s_i's sign bit (always 0:
  s_i >= 0) forced to 1 as the flag (`_publish_pair`). The last program of a row to finish
  zeroes the row's slots again. The layout depends on (cols, element size, SM count) only.

  Forward progress: SPLIT <= SM count (`plan()` enforces it) and blocks dispatched in
  program-id order, as NVIDIA GPUs do. Then the lowest row R with a resident program always
  completes: every row below it has finished; if one of R's parts is not yet dispatched, no
  later row's part is either (order), so fewer than SPLIT <= SMs programs are resident and
  the next part of R gets a slot (every SM holds at least one program); once all of R's parts
  are resident they all publish and all get past their wait.

Access width: loads and stores move G elements at a time, G (`access_granularity`) the largest
power of two up to 16 bytes that divides the row length and the row strides, the base pointers
aligned to it; the kernels declare it (`row_ptr`, `_row_length`; kernels/_row_access.py). Triton alone
proves alignment only from its own specialisation (an integer argument a multiple of 16, a
pointer on a 16-byte boundary): a row of 23162 bf16 columns, even but not a multiple of 8, was
read and written 2 bytes at a time (a 2517 x 23162 backward 1.55x slower than torch.compile,
H200, 2026-12-04: lab/softmax/NOTES.md); with G = 2 it takes 4-byte accesses, 32008 columns
16-byte ones, an odd length stays at one element. G depends on the row length, strides and
pointers, never on the number of rows: the access width sets Triton's layout, hence the order
of a row's reductions.

Odd 2-byte rows forward (G = 1, `_fwd_aligned`): each row is read from its first 16-byte
boundary in whole vectors, the few columns before and after in small masked accesses. That
layout follows the row's start modulo 16 bytes, so its bits must not follow the layout: the
max is exact in any order, and the sum of exp(x - max) is taken in 64-bit fixed point
(`_fixed_scale`), exact in any order. A row then has the same bits whatever its start, stride,
layout or row count; a split row exchanges twice (the max, then the sum).

Under TRITON_INTERPRET=1 (CPU tests) programs run one after the other, so a program cannot
wait for a later one: the split layout then runs as two launches of the same kernel (PHASE 1
publishes, PHASE 2 combines and writes), the same arithmetic without the wait.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

from .._row_access import access_granularity, row_ptr

__all__ = ["softmax_forward", "softmax_backward", "plan", "access_granularity"]

_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
_SUPPORTED = (torch.float32, torch.float16, torch.bfloat16)
MAX_ROW = 32768  # the longest row one forward program keeps whole in registers
# the backward holds two rows (y, dy): at 32768 columns on 32 warps it spills (sm_90, ptxas of
# triton 3.9: 64 registers a thread and a 64-200 byte stack), at 16384 on 16 warps it does not
MAX_ROW_BWD = 16384
# The long-row layout (rows over MAX_ROW / MAX_ROW_BWD): (kind, element size) -> (BLOCK, warps).
# Chosen for residency (lab/softmax/aot_check.py, sm_90, ptxas of triton 3.9: registers a thread
# -> programs per SM -> columns held per SM while programs wait for their siblings' partials),
# then measured (H200 sweep 2, 2026-12-02, one round; lab/softmax/NOTES.md): forward bf16 8192
# on 8 warps (48 registers, 5 programs, 40960 columns an SM; the first version's 8192 on 16
# warps: 4 programs, 32768) — not re-measured at many rows (those rows of the sweep were lost);
# forward fp32 4096 on 4 warps (62 registers, 8 programs: the residency of 4096 on 8 warps,
# but 8 16-byte loads a thread instead of 4): the fastest at 4096 x 128256 (1106 µs against 1270
# for 4096 on 8 warps, 1308 for the first version's 8192 on 16; 2048 on 2 warps, also 8 loads
# a thread, 1112); backward bf16 4096 on 4 warps (88
# registers, 5 programs) and fp32 2048 on 4 (56, 9): the fastest at 8 of the 9 long-row
# backward workloads.
LONG = {("forward", 2): (8192, 8), ("forward", 4): (4096, 4),
        ("backward", 2): (4096, 4), ("backward", 4): (2048, 4)}
# Rows of 2-byte elements that move one element an access (G = 1: an odd length, or an odd
# stride) take shorter parts: the parts above then hold 32 elements a thread in scalar
# registers (sm_90, triton 3.9: 130 registers a thread at the bf16 forward, 198 at the
# backward; two programs an SM), these 16 (91 and 104). H100, 2026-12-07f
# (lab/device-2026-12-07f/README.md, cold L2, tune seed 3301, held out seed 3302): faster at
# every 2-byte G = 1 shape of both sets, 0.70x the LONG parts at 4096 x 113819 forward and
# 0.89x at 2048 x 145811 backward (held out); slower at G = 2 and G = 4 and at fp32.
LONG_NARROW = {("forward", 2): (4096, 8), ("backward", 2): (2048, 4)}
# 2-byte forward rows at G = 1 run `_fwd_aligned` (16-byte accesses from each row's first
# boundary, the sum in fixed point) on LONG_NARROW's parts: its int64 terms take registers (sm_90,
# triton 3.6: 48 a thread at 4096 on 8 warps, 120 at LONG's 8192 on 8); False: `_fwd` (one
# element an access), for side-by-sides.
ALIGNED_FWD = True
# Whole rows at G = 1 that `_fwd` / `_bwd` read one element an access: past this length they
# split into parts (LONG_NARROW's, else LONG's). The whole-row layouts spill there (sm_90, ptxas
# of triton 3.9: forward 32768 on 32 warps a 472-496 byte stack, backward 16384 on 32 warps
# 128-160 bytes, bf16 and fp32; at 8192 on 16 warps none). `_fwd_aligned` keeps MAX_ROW (64
# registers, no stack at 32768).
MAX_ROW_G1 = 8192
SPLIT_BLOCK = 8192  # the largest long-row part at 2-byte elements (tests read it)
ELEMS_PER_THREAD = 16  # the model's target: two 16-byte bf16 vectors (four fp32) per thread


@triton.jit
def _publish(slots, idx, v):
    bits = v.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF
    tl.atomic_xchg(slots + idx, bits | 0x100000000, sem="relaxed")


@triton.jit
def _gather(slots, k, kmask, WAIT: tl.constexpr):
    """The SPLIT_P2 published values of a row (masked lanes: 0), waiting until all are flagged."""
    got = tl.load(slots + k, mask=kmask, other=0x100000000, volatile=True)
    if WAIT:
        while tl.min((got >> 32).to(tl.int32), axis=0) == 0:
            got = tl.load(slots + k, mask=kmask, other=0x100000000, volatile=True)
    return got.to(tl.int32).to(tl.float32, bitcast=True)


@triton.jit
def _publish_pair(slots, idx, mx, s):
    """The forward's partial (max m_i, sum s_i = sum exp(x - m_i)) in ONE 64-bit atomic exchange:
    high word the bits of m_i, low word the bits of s_i with bit 31 (s_i's sign) forced to 1 as
    the flag. s_i is a sum of exponentials, +0 or positive (or NaN from a NaN input), so its
    sign bit carries nothing: the reader clears it and gets s_i back (a NaN stays a NaN). A
    published word always has bit 31 set, the workspace's zeros never do."""
    hi = mx.to(tl.int32, bitcast=True).to(tl.int64) << 32
    lo = (s.to(tl.int32, bitcast=True).to(tl.int64) & 0x7FFFFFFF) | 0x80000000
    tl.atomic_xchg(slots + idx, hi | lo, sem="relaxed")


@triton.jit
def _gather_pairs(slots, k, kmask, WAIT: tl.constexpr):
    """The SPLIT_P2 (m_i, s_i) pairs of a row, waiting until all SPLIT are flagged (bit 31);
    masked lanes read as flagged zeros (callers mask them out)."""
    got = tl.load(slots + k, mask=kmask, other=0x80000000, volatile=True)
    if WAIT:
        while tl.min(((got >> 31) & 1).to(tl.int32), axis=0) == 0:
            got = tl.load(slots + k, mask=kmask, other=0x80000000, volatile=True)
    pm = (got >> 32).to(tl.int32).to(tl.float32, bitcast=True)
    ps = (got & 0x7FFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
    return pm, ps


@triton.jit
def _count_out(SLOTS_ROW, DEP, row, split, NSLOTS: tl.constexpr):
    """The last program of a row to get here zeroes the row's slots for the next call."""
    left = tl.atomic_add(DEP + row, 1, sem="relaxed")
    if left == split - 1:
        tl.store(SLOTS_ROW + tl.arange(0, NSLOTS), tl.zeros([NSLOTS], dtype=tl.int64))
        tl.store(DEP + row, 0)


@triton.jit
def _row_length(N, G: tl.constexpr):
    """N, declared a multiple of G: the mask `cols < N` is then constant over each vector."""
    if G > 1:
        N = tl.multiple_of(N.to(tl.int64), G)
    return N


@triton.jit(do_not_specialize=["stride_x", "stride_y", "split"])
def _fwd(X, Y, SLOTS, DEP, stride_x, stride_y, split, N,
         BLOCK: tl.constexpr, SPLIT_P2: tl.constexpr, CONTIG: tl.constexpr,
         PHASE: tl.constexpr, G: tl.constexpr = 1):
    """PHASE 0: the whole job (one program per row when split == 1); 1 and 2: the interpreter's
    split halves (publish; combine and write). G: `access_granularity`."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // split
    part = pid % split
    if CONTIG:
        xrow = row_ptr(X, row * N, G)
        yrow = row_ptr(Y, row * N, G)
    else:
        xrow = row_ptr(X, row * stride_x, G)
        yrow = row_ptr(Y, row * stride_y, G)
    cols = part * BLOCK + tl.arange(0, BLOCK)  # a part starts at a multiple of BLOCK >= G
    m = cols < _row_length(N, G)
    x = tl.load(xrow + cols, mask=m, other=-float("inf")).to(tl.float32)
    mx = tl.max(x, axis=0)
    if SPLIT_P2 == 1:
        ms = tl.where(mx == -float("inf"), 0.0, mx)  # an all -inf row: exp gives 0, y = 0/0 = NaN
        e = tl.exp(x - ms)
        inv = 1.0 / tl.sum(e, axis=0)
        tl.store(yrow + cols, (e * inv).to(Y.dtype.element_ty), mask=m)
    else:
        slots = SLOTS + row * SPLIT_P2
        k = tl.arange(0, SPLIT_P2)
        kmask = k < split
        if PHASE != 2:
            ms = tl.where(mx == -float("inf"), 0.0, mx)
            s = tl.sum(tl.exp(x - ms), axis=0)
            _publish_pair(slots, part, mx, s)
        if PHASE != 1:
            pm, ps = _gather_pairs(slots, k, kmask, PHASE == 0)
            pm = tl.where(kmask, pm, -float("inf"))
            big = tl.max(pm, axis=0)
            bs = tl.where(big == -float("inf"), 0.0, big)
            total = tl.sum(tl.where(kmask, ps * tl.exp(pm - bs), 0.0), axis=0)
            inv = 1.0 / total
            tl.store(yrow + cols, (tl.exp(x - bs) * inv).to(Y.dtype.element_ty), mask=m)
            _count_out(slots, DEP, row, split, SPLIT_P2)


@triton.jit
def _publish_int(slots, idx, v):
    """A non-negative int64 below 2**62 with bit 62 as the flag, in one atomic exchange."""
    tl.atomic_xchg(slots + idx, v | 0x4000000000000000, sem="relaxed")


@triton.jit
def _gather_int(slots, k, kmask, WAIT: tl.constexpr):
    """The SPLIT_P2 values `_publish_int` published for a row (masked lanes: 0), waiting for all."""
    got = tl.load(slots + k, mask=kmask, other=0x4000000000000000, volatile=True)
    if WAIT:
        while tl.min(((got >> 62) & 1).to(tl.int32), axis=0) == 0:
            got = tl.load(slots + k, mask=kmask, other=0x4000000000000000, volatile=True)
    return got & 0x3FFFFFFFFFFFFFFF


@triton.jit
def _fixed(e, SCALE: tl.constexpr):
    """e in [0, 1] as a fixed-point int64, e * SCALE rounded to nearest (SCALE a power of two);
    NaN as 0 (the row's max is then NaN or +inf: every output NaN through the 0 sum)."""
    return (tl.where(e == e, e, 0.0) * SCALE + 0.5).to(tl.int64)


@triton.jit(do_not_specialize=["stride_x", "stride_y", "split"])
def _fwd_aligned(X, Y, SLOTS, DEP, stride_x, stride_y, split, N,
                 BLOCK: tl.constexpr, SPLIT_P2: tl.constexpr, CONTIG: tl.constexpr,
                 PHASE: tl.constexpr, VEC: tl.constexpr, XMIS: tl.constexpr, YSAME: tl.constexpr,
                 SCALE: tl.constexpr):
    """The forward of rows that no access width divides (2-byte rows at G = 1), in 16-byte
    accesses. A row's head (the columns before its first 16-byte boundary) and tail (the
    columns after its last whole vector), fewer than VEC each, go to part 0 in two small masked
    loads; the body between them splits into parts of BLOCK columns that load whole vectors.
    The layout so follows the row's start modulo 16 bytes, yet the row's bits do not: its max
    is exact in any order, and its sum of exp(x - max) is taken in fixed point (`_fixed`, an
    int64 per element, exact in any order), so every layout, row count and start gives the
    same bits. Two exchanges when the row splits (the max, then the sum: first SPLIT_P2 slots,
    second SPLIT_P2 slots). XMIS: X's base address in elements modulo VEC. YSAME: Y's rows start where X's do modulo 16 bytes (stores in
    whole vectors too; else element by element). PHASE 0: the whole job; 1, 2, 3: the
    interpreter's thirds (publish the max; gather it, publish the sum; gather it, write)."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // split
    part = pid % split
    if CONTIG:
        xoff = row * N
        yoff = row * N
    else:
        xoff = row * stride_x
        yoff = row * stride_y
    head = ((VEC - (xoff + XMIS) % VEC) % VEC).to(tl.int32)
    head = tl.minimum(head, N)
    nbv = tl.multiple_of(((N - head) // VEC) * VEC, VEC)  # the body's whole vectors
    xb = tl.multiple_of(X + xoff + head, 16)
    if YSAME:
        yb = tl.multiple_of(Y + yoff + head, 16)
    else:
        yb = Y + yoff + head
    cols = part * BLOCK + tl.arange(0, BLOCK)
    m = cols < nbv
    x = tl.load(xb + cols, mask=m, other=-float("inf")).to(tl.float32)
    v = tl.arange(0, VEC)
    edge = v < tl.where(part == 0, head, 0)  # part 0's head: columns [0, head)
    tcol = head + nbv + v  # and its tail: columns [head + nbv, N)
    tedge = tcol < tl.where(part == 0, N, 0)
    xh = tl.load(X + xoff + v, mask=edge, other=-float("inf")).to(tl.float32)
    xt = tl.load(X + xoff + tcol, mask=tedge, other=-float("inf")).to(tl.float32)
    mx = tl.maximum(tl.max(x, axis=0), tl.maximum(tl.max(xh, axis=0), tl.max(xt, axis=0)))
    nan = tl.sum((x != x).to(tl.int32), axis=0) + tl.sum((xh != xh).to(tl.int32), axis=0) \
        + tl.sum((xt != xt).to(tl.int32), axis=0)
    mx = tl.where(nan > 0, float("nan"), mx)  # a NaN makes the row NaN, as in torch.softmax
    k = tl.arange(0, SPLIT_P2)
    kmask = k < split
    slots = SLOTS + row * (2 * SPLIT_P2)
    if SPLIT_P2 > 1:
        if PHASE <= 1:
            _publish(slots, part, mx)
        if PHASE != 1:
            pm = _gather(slots, k, kmask, PHASE == 0)
            mx = tl.max(tl.where(kmask, pm, -float("inf")), axis=0)
            mx = tl.where(tl.sum(((pm != pm) & kmask).to(tl.int32), axis=0) > 0, float("nan"), mx)
    if PHASE != 1:
        ms = tl.where(mx == -float("inf"), 0.0, mx)  # an all -inf row: exp gives 0, y = 0/0 = NaN
        e = tl.exp(x - ms)
        eh = tl.exp(xh - ms)
        et = tl.exp(xt - ms)
        q = tl.sum(_fixed(e, SCALE), axis=0) + tl.sum(_fixed(eh, SCALE), axis=0) \
            + tl.sum(_fixed(et, SCALE), axis=0)
        if SPLIT_P2 > 1:
            if PHASE != 3:
                _publish_int(slots + SPLIT_P2, part, q)
            if PHASE != 2:
                q = tl.sum(tl.where(kmask, _gather_int(slots + SPLIT_P2, k, kmask, PHASE == 0), 0), axis=0)
        if PHASE != 2:
            inv = SCALE / q.to(tl.float32)
            tl.store(yb + cols, (e * inv).to(Y.dtype.element_ty), mask=m)
            tl.store(Y + yoff + v, (eh * inv).to(Y.dtype.element_ty), mask=edge)
            tl.store(Y + yoff + tcol, (et * inv).to(Y.dtype.element_ty), mask=tedge)
            if SPLIT_P2 > 1:
                _count_out(slots, DEP, row, split, 2 * SPLIT_P2)


@triton.jit(do_not_specialize=["stride_y", "stride_dy", "stride_dx", "split"])
def _bwd(Yp, DY, DX, SLOTS, DEP, stride_y, stride_dy, stride_dx, split, N,
         BLOCK: tl.constexpr, SPLIT_P2: tl.constexpr, CONTIG: tl.constexpr,
         PHASE: tl.constexpr, G: tl.constexpr = 1):
    """As `_fwd`, from y and dy."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // split
    part = pid % split
    if CONTIG:
        yrow = row_ptr(Yp, row * N, G)
        dyrow = row_ptr(DY, row * N, G)
        dxrow = row_ptr(DX, row * N, G)
    else:
        yrow = row_ptr(Yp, row * stride_y, G)
        dyrow = row_ptr(DY, row * stride_dy, G)
        dxrow = row_ptr(DX, row * stride_dx, G)
    cols = part * BLOCK + tl.arange(0, BLOCK)
    m = cols < _row_length(N, G)
    y = tl.load(yrow + cols, mask=m, other=0.0).to(tl.float32)
    dy = tl.load(dyrow + cols, mask=m, other=0.0).to(tl.float32)
    dot = tl.sum(y * dy, axis=0)
    if SPLIT_P2 == 1:
        tl.store(dxrow + cols, (y * (dy - dot)).to(DX.dtype.element_ty), mask=m)
    else:
        slots = SLOTS + row * SPLIT_P2
        k = tl.arange(0, SPLIT_P2)
        kmask = k < split
        if PHASE != 2:
            _publish(slots, part, dot)
        if PHASE != 1:
            parts = _gather(slots, k, kmask, PHASE == 0)
            total = tl.sum(tl.where(kmask, parts, 0.0), axis=0)
            tl.store(dxrow + cols, (y * (dy - total)).to(DX.dtype.element_ty), mask=m)
            _count_out(slots, DEP, row, split, SPLIT_P2)


# --------------------------------------------------------------------------------------
# The launch model
# --------------------------------------------------------------------------------------

_SMS: dict = {}


def _fixed_scale(n: int) -> float:
    """`_fwd_aligned`'s fixed-point scale for rows of n columns: the largest power of two with
    n * scale at most 2**61 (a row's sum, at most n terms of at most scale + 1/2, stays below
    the flag bit 62). Each term is rounded by at most 1/2, so the sum by n / (2 * scale) against
    a sum of at least 1 (the max's own term): at n = 2**18 a relative 2**-26, under float32's
    2**-24."""
    return float(2 ** (61 - max(1, n - 1).bit_length()))


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132  # the interpreter: plan as for an H200, so CPU tests see the GPU's layouts
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SMS:
        _SMS[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SMS[idx]


def _warps(block: int) -> int:
    w = max(1, min(32, block // (32 * ELEMS_PER_THREAD)))
    return 1 << (w.bit_length() - 1)


def plan(n: int, rows: int = 0, sms: int = 132, max_row: int | None = None, elem_size: int = 2,
         kind: str = "forward", g: int | None = None) -> dict:
    """Launch configuration from the row length: BLOCK columns per program, SPLIT programs per
    row. A function of (n, element size, kind, SM count, access width g) only; `rows` is
    accepted and ignored, so a row's bits never depend on how many rows there are (the
    reduction order is fixed by the layout, and the layout does not look at the row count).

    Rows up to max_row (default: MAX_ROW forward, MAX_ROW_BWD backward) stay whole in one
    program (BLOCK = next power of two, warps from ELEMS_PER_THREAD), whatever the row count.
    (Until 2026-12-02 few rows of such lengths split across programs to fill the GPU; their
    bits then followed the row count: the GPU test at fp32 32003 caught it. Cost of dropping
    it: no workload of the record has fewer than 132 rows at these lengths; NOTES.md.)

    A longer row takes the long-row layout: parts of LONG[kind, elem_size] = (BLOCK, warps),
    SPLIT = ceil(n / BLOCK), or of LONG_NARROW[kind, 2] where 2-byte rows move one element an
    access (g, the access granularity of `access_granularity`, 1; None: not known, full width),
    and where that would exceed the SM count (rows over ~1M columns) the block doubles until
    SPLIT <= SMs: the progress condition of the exchange (the docstring above)."""
    del rows  # deliberately unused (above)
    if max_row is None:
        max_row = MAX_ROW if kind == "forward" else MAX_ROW_BWD
    np2 = triton.next_power_of_2(n)
    whole = {"BLOCK": np2, "SPLIT": 1, "SPLIT_P2": 1, "num_warps": _warps(np2)}
    if n <= max_row:
        return whole
    key = (kind, 4 if elem_size >= 4 else 2)
    block, warps = LONG_NARROW[key] if g == 1 and key in LONG_NARROW else LONG[key]
    block = min(block, np2)
    while -(-n // block) > max(1, sms):
        block *= 2
        warps = min(32, warps * 2)
    split = -(-n // block)
    if split == 1:
        return whole
    return {"BLOCK": block, "SPLIT": split, "SPLIT_P2": triton.next_power_of_2(split),
            "num_warps": warps}


# The split exchange's workspace: per (device, stream) outside graph capture, all zeros between
# calls (each call leaves it as it found it); a fresh zeroed one per call while a CUDA graph is
# captured, so a graph holds its own memset and never depends on memory zeroed outside it.
_WS: dict = {}


def _workspace(device: torch.device, rows: int, per_row: int):
    def zeroed(r, p):
        return (torch.zeros(r * p, dtype=torch.int64, device=device),
                torch.zeros(r, dtype=torch.int32, device=device))

    if device.type != "cuda" or torch.cuda.is_current_stream_capturing():
        return zeroed(rows, per_row)
    key = (device.index, torch.cuda.current_stream(device).cuda_stream, per_row)
    ws = _WS.get(key)
    if ws is None or ws[1].numel() < rows:
        ws = _WS[key] = zeroed(max(rows, 2 * ws[1].numel() if ws is not None else 0), per_row)
    return ws


def _rows_view(t: torch.Tensor) -> torch.Tensor:
    n = t.shape[-1]
    if t.dim() == 2:
        return t
    try:
        return t.view(-1, n)
    except RuntimeError:  # leading dims not collapsible: copy (correct, slower)
        return t.reshape(-1, n)


def _check(name: str, t) -> None:
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor")
    if t.dtype not in _SUPPORTED:
        raise ValueError(f"{name}: unsupported dtype {t.dtype}; use float32, float16 or bfloat16")
    if t.device.type != "cuda" and not _INTERPRET:
        raise ValueError(f"{name} must be a CUDA tensor (or TRITON_INTERPRET=1 for CPU tensors)")
    if t.dim() < 1 or t.shape[-1] == 0:
        raise ValueError(f"{name} must have a non-empty last dimension, got shape {tuple(t.shape)}")


def _launch(kernel, tensors, strides, out2, n, rows, cfg, per_row_slots, phases=2, **consts):
    """kernel over rows * SPLIT programs; under the interpreter a split row runs as `phases`
    launches (PHASE 1, 2, ...), the same arithmetic without the waits."""
    device = out2.device
    split = cfg["SPLIT"]
    contig = all(s == n for s in strides)
    kw = dict(BLOCK=cfg["BLOCK"], SPLIT_P2=cfg["SPLIT_P2"], CONTIG=contig, num_warps=cfg["num_warps"], **consts)
    if split == 1:
        slots = dep = out2  # unused
    else:
        slots, dep = _workspace(device, rows, per_row_slots * cfg["SPLIT_P2"])
    args = (*tensors, slots, dep, *strides, split, n)
    grid = (rows * split,)
    if split > 1 and _INTERPRET:
        for phase in range(1, phases + 1):
            kernel[grid](*args, PHASE=phase, **kw)
    else:
        kernel[grid](*args, PHASE=0, **kw)


def softmax_forward(x: torch.Tensor) -> torch.Tensor:
    """softmax over the last dimension; a new tensor of x's dtype and shape (x is not modified)."""
    _check("x", x)
    n = x.shape[-1]
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return y
    x2 = _rows_view(x)
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    y2 = y.view(-1, n)
    rows = x2.shape[0]
    strides = (x2.stride(0), y2.stride(0))
    es = x.element_size()
    g = access_granularity(n, strides, (x2, y2))
    aligned = g == 1 and es == 2 and ALIGNED_FWD  # `_fwd_aligned`: whole vectors
    max_row = MAX_ROW if aligned or g != 1 else min(MAX_ROW, MAX_ROW_G1)
    cfg = plan(n, rows, _sm_count(x.device), max_row, es, "forward", g)
    with torch.cuda.device(x.device) if x.device.type == "cuda" else _nullctx():
        if aligned:
            ysame = (x2.data_ptr() - y2.data_ptr()) % 16 == 0 and (strides[0] - strides[1]) * es % 16 == 0
            _launch(_fwd_aligned, (x2, y2), strides, y2, n, rows, cfg, 2, phases=3, VEC=16 // es,
                    XMIS=x2.data_ptr() // es % (16 // es), YSAME=ysame, SCALE=_fixed_scale(n))
        else:
            _launch(_fwd, (x2, y2), strides, y2, n, rows, cfg, 1, G=g)
    return y


def softmax_backward(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """dx = y * (dy - sum(y * dy, -1)); a new tensor of dy's dtype and shape."""
    _check("y", y)
    _check("dy", dy)
    if y.shape != dy.shape:
        raise ValueError(f"y and dy shapes differ: {tuple(y.shape)} vs {tuple(dy.shape)}")
    if y.device != dy.device:
        raise ValueError(f"y and dy on different devices: {y.device} vs {dy.device}")
    n = y.shape[-1]
    dx = torch.empty(dy.shape, dtype=dy.dtype, device=dy.device)
    if dy.numel() == 0:
        return dx
    y2, dy2 = _rows_view(y), _rows_view(dy)
    if y2.stride(-1) != 1:
        y2 = y2.contiguous()
    if dy2.stride(-1) != 1:
        dy2 = dy2.contiguous()
    dx2 = dx.view(-1, n)
    rows = dy2.shape[0]
    strides = (y2.stride(0), dy2.stride(0), dx2.stride(0))
    g = access_granularity(n, strides, (y2, dy2, dx2))
    max_row = MAX_ROW_BWD if g != 1 else min(MAX_ROW_BWD, MAX_ROW_G1)
    cfg = plan(n, rows, _sm_count(dy.device), max_row, dy.element_size(), "backward", g)
    with torch.cuda.device(dy.device) if dy.device.type == "cuda" else _nullctx():
        _launch(_bwd, (y2, dy2, dx2), strides, dx2, n, rows, cfg, 1, G=g)
    return dx


class _nullctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
