"""Kernel Records' own Triton cross-entropy: the loss, and the loss with its gradient in one pass.

    loss    = mean over rows r with target[r] != ignore_index of  lse(x[r]) - x[r, target[r]]
    dlogits = (softmax(x[r]) - onehot(target[r])) / n_valid   on those rows, 0 on ignored rows

(`F.cross_entropy(x, target, ignore_index=-100, reduction="mean")` and its gradient.) With every
target ignored the loss is 0 / 0 = NaN and the gradient all zeros, exactly as PyTorch gives.

Numerics: logits read in their dtype and widened to float32 in registers (no float32 copy of
the logits is ever written); max, exponentials, sums in float32; the per-row losses and their
sum in float32; the loss rounded once to the logits' dtype, the gradient rounded once (bf16
logits -> bf16 gradient). The mean is reduced in a fixed order (deterministic).

Forward (`cross_entropy`): one program per row (or per part of a row when rows are too few to
fill the GPU) streams its columns in chunks with an online max and sum, so the logits are read
once and nothing of their size is written; a second kernel combines the parts per row, sums
the rows' losses per block of rows, and its last block to finish (an acq_rel counter) adds the
blocks' sums in block order and writes the mean. Ignored rows are not read at all.

Aligned rows (ALIGN, `_aligned`): a vocabulary that is not a multiple of 16 bytes' worth of
columns puts most contiguous rows' starts off a 16-byte boundary, and Triton then issues 2- or
4-byte accesses for the whole row (tests/test_cross_entropy_compile.py shows it in the PTX).
The loss and the row loop take the columns before a row's first boundary (its head, fewer than
8 bf16 or 4 fp32) in one small masked step and stream the rest from the boundary, full chunks
unmasked as 16-byte vectors. Logits whose rows all start on a boundary (an aligned vocabulary
and base) keep the plain layout, its launch and its bits: the aligned code was measurably
slower there on the H200 (see ALIGN).

Forward + backward (`cross_entropy_fwd_bwd`): the gradient needs the row's logsumexp before
its first element can be written. Four paths, chosen by `plan_fwd_bwd` from FWDBWD_RULE (per
element size and, through `alt_from`, vocabulary; FWDBWD_FORCE or the environment's KR_CE_FWDBWD
force one, for sweeps): "exchange" (fp32's default, and bf16 / fp16 rows from alt_from up) holds the row in registers: whole in one program for rows up to
max_row, else split across programs that exchange their (max, sum) pairs through a flagged
workspace as kernels/softmax/kr_triton.py does (one 64-bit slot a part; see its docstring), and
then write their block of the gradient -- one pass over the logits, one write of the gradient;
"twopass" runs the forward's streaming (max, sum) per part of the row, then a gradient kernel
over (row, column block) tiles that re-reads the logits (three passes of traffic, no waiting);
"rowloop" (bf16 and fp16's default below alt_from) streams each row twice in one program (an
online (max, sum), then the gradient); "pipe" (`_pipe`, a sweep candidate) runs a persistent grid
over one-chunk tiles, each program holding its chunk while the row's (max, sum) pairs arrive from
the others (the logits read once; rows off 16-byte boundaries take the row loop). The
number of non-ignored targets (the mean's divisor, needed by every program before it writes)
comes from a small counting kernel launched first (integer atomics: exact in any order), so
nothing waits on the host; the mean as in the forward.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

__all__ = ["cross_entropy", "cross_entropy_fwd_bwd", "plan_forward", "plan_fwd_bwd", "fwd_bwd_rule", "align_vec"]

_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
_SUPPORTED = (torch.float32, torch.float16, torch.bfloat16)
MAX_ROW = 16384  # longest row one fwd+bwd program keeps whole in registers (32768 on 32 warps
                 # spills in fp32: sm_90, triton 3.9 ptxas, 64 registers a thread and a 72-byte stack)
SPLIT_BLOCK = 8192  # columns per program of a split row (forward + backward)
MIN_SPLIT_BLOCK = 2048
CHUNK = 4096  # columns per step of the forward's streaming loop
PROGRAMS_PER_SM = 16  # the forward wants at least this many programs per SM
ELEMS_PER_THREAD = 16
FINISH_ROWS = 256  # rows per block of the loss reduction (fewer when rows have many parts)
COUNT_ROWS = 1024  # targets per block of the fwd+bwd count


@triton.jit
def _row_offsets(row, N, stride_x, stride_dx, CONTIG: tl.constexpr):
    """Where a row of the logits and of the gradient start (contiguous rows: row * N)."""
    if CONTIG:
        return row * N, row * N
    return row * stride_x, row * stride_dx


@triton.jit
def _publish(slots, idx, v):
    bits = v.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF
    tl.atomic_xchg(slots + idx, bits | 0x100000000, sem="relaxed")


@triton.jit
def _gather(slots, k, kmask, WAIT: tl.constexpr):
    got = tl.load(slots + k, mask=kmask, other=0x100000000, volatile=True)
    if WAIT:
        while tl.min((got >> 32).to(tl.int32), axis=0) == 0:
            got = tl.load(slots + k, mask=kmask, other=0x100000000, volatile=True)
    return got.to(tl.int32).to(tl.float32, bitcast=True)


@triton.jit
def _local(t, start, N, BLOCK: tl.constexpr):
    """The columns [start, start + BLOCK) of a row as int32 lane offsets: (offs, in-row mask,
    one-hot of the target). int32 lanes against int32 scalars: a comparison with the int64
    start or target would widen every lane to 64 bits (twice the registers)."""
    offs = tl.arange(0, BLOCK)
    lim = tl.minimum(N - start, BLOCK).to(tl.int32)
    rel = t - start
    rel = tl.where((rel >= 0) & (rel < BLOCK), rel, -1).to(tl.int32)
    return offs, offs < lim, offs == rel


@triton.jit
def _target_logit(X, xoff, t, N):
    ok = (t >= 0) & (t < N)
    tt = tl.where(ok, t, 0)
    return tl.load(X + xoff + tt, mask=ok, other=0.0).to(tl.float32)


@triton.jit
def _online(x, m, s):
    """One chunk x into a running (max m, sum s of exp(. - m)): the new (m, s). A max still at
    -inf (nothing finite yet) rescales by exp(-inf - 0) = 0, never by NaN."""
    new = tl.maximum(m, tl.max(x, axis=0))
    ns = tl.where(new == -float("inf"), 0.0, new)
    return new, s * tl.exp(m - ns) + tl.sum(tl.exp(x - ns), axis=0)


@triton.jit
def _aligned(xoff, N, VEC: tl.constexpr):
    """A contiguous row at element offset xoff as its head (the columns before the first
    16-byte boundary, fewer than VEC) and its body (the rest, from an aligned address): (head,
    body's offset, body's columns). A vocabulary that is not a multiple of VEC puts most rows'
    starts off a 16-byte boundary, and loads from there are issued 2 or 4 bytes at a time."""
    head = ((VEC - xoff % VEC) % VEC).to(tl.int32)
    head = tl.minimum(head, N)
    body = tl.multiple_of(xoff + head, VEC)
    return head, body, N - head


@triton.jit(do_not_specialize=["stride_x", "split", "ignore_index"])
def _lse_parts(X, T, PM, PS, XT, stride_x, split, ignore_index, N,
               BLOCK: tl.constexpr, PART: tl.constexpr, CONTIG: tl.constexpr, EVICT: tl.constexpr = "",
               VEC: tl.constexpr = 0):
    """Program (row, part): the max and sum exp(x - max) of columns [part * PART, +PART) of
    the row, streamed in BLOCK chunks (online softmax); part 0 also takes the target logit.
    VEC > 0 (contiguous rows only): the aligned layout of `_aligned` -- part 0 takes the row's
    head, the parts' columns count from the body, full chunks load unmasked."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // split
    part = pid % split
    t = tl.load(T + row)
    if CONTIG:
        xoff = row * N
    else:
        xoff = row * stride_x
    m = tl.full([], -float("inf"), tl.float32)  # typed scalars: they change inside the loop
    s = tl.full([], 0.0, tl.float32)
    if t != ignore_index:
        offs = tl.arange(0, BLOCK)
        start = part * PART
        if VEC > 0:
            head, body, nb = _aligned(xoff, N, VEC)
            if part == 0:
                hoffs = tl.arange(0, VEC)
                xh = tl.load(X + xoff + hoffs, mask=hoffs < head, other=-float("inf")).to(tl.float32)
                m = tl.max(xh, axis=0)
                s = tl.sum(tl.exp(xh - tl.where(m == -float("inf"), 0.0, m)), axis=0)
            for c in range(0, PART, BLOCK):
                cols = start + c + offs
                if start + c + BLOCK <= nb:  # a full chunk: 16-byte vectors, no mask
                    x = tl.load(X + body + start + c + offs, eviction_policy=EVICT).to(tl.float32)
                else:
                    x = tl.load(X + body + cols, mask=cols < nb, other=-float("inf"),
                                eviction_policy=EVICT).to(tl.float32)
                m, s = _online(x, m, s)
        else:
            for c in range(0, PART, BLOCK):
                cols = start + c + offs
                x = tl.load(X + xoff + cols, mask=cols < N, other=-float("inf"),
                            eviction_policy=EVICT).to(tl.float32)
                m, s = _online(x, m, s)
        if part == 0:
            tl.store(XT + row, _target_logit(X, xoff, t, N))
    tl.store(PM + pid, m)
    tl.store(PS + pid, s)


@triton.jit(do_not_specialize=["rows", "split", "ignore_index", "nblocks"])
def _finish(PM, PS, XT, LOSSROW, T, OUT, BSUM, BCNT, WS, rows, split, ignore_index, nblocks,
            FROM_PARTS: tl.constexpr, R: tl.constexpr, SPLIT_P2: tl.constexpr, NB_P2: tl.constexpr):
    """Program b: the losses of rows [b * R, +R) (from the parts' (max, sum) pairs and the
    target logits, or given in LOSSROW), their sum over counted rows and the count, stored as
    block b's partials. The last block to finish (an acq_rel counter, WS[1]) sums the blocks'
    partials in block order (deterministic), writes the mean, and zeroes WS[0] (the fwd+bwd
    count) and WS[1] for the next call."""
    b = tl.program_id(0)
    r = b * R + tl.arange(0, R)
    rmask = r < rows
    t = tl.load(T + r, mask=rmask, other=ignore_index)
    valid = rmask & (t != ignore_index)
    if FROM_PARTS:
        k = tl.arange(0, SPLIT_P2)
        idx = r[:, None].to(tl.int64) * split + k[None, :]
        pm_mask = valid[:, None] & (k[None, :] < split)
        pm = tl.load(PM + idx, mask=pm_mask, other=-float("inf"))
        ps = tl.load(PS + idx, mask=pm_mask, other=0.0)
        big = tl.max(pm, axis=1)
        bs = tl.where(big == -float("inf"), 0.0, big)
        ssum = tl.sum(tl.where(pm_mask, ps * tl.exp(pm - bs[:, None]), 0.0), axis=1)
        xt = tl.load(XT + r, mask=valid, other=0.0)
        loss = (bs - xt) + tl.log(ssum)  # max − target first: exact where |logits| dwarf log(sum)
    else:
        loss = tl.load(LOSSROW + r, mask=valid, other=0.0)
    tl.store(BSUM + b, tl.sum(tl.where(valid, loss, 0.0), axis=0))
    tl.store(BCNT + b, tl.sum(valid.to(tl.float32), axis=0))
    done = tl.atomic_add(WS + 1, 1, sem="acq_rel")
    if done == nblocks - 1:
        kb = tl.arange(0, NB_P2)
        km = kb < nblocks
        total = tl.sum(tl.load(BSUM + kb, mask=km, other=0.0, volatile=True), axis=0)
        count = tl.sum(tl.load(BCNT + kb, mask=km, other=0.0, volatile=True), axis=0)
        tl.store(OUT, (total / count).to(OUT.dtype.element_ty))
        tl.store(WS, 0)
        tl.store(WS + 1, 0)


@triton.jit(do_not_specialize=["rows", "ignore_index"])
def _count(T, WS, rows, ignore_index, R: tl.constexpr):
    """The number of counted targets, added into WS[0] block by block (integers: any order)."""
    r = tl.program_id(0) * R + tl.arange(0, R)
    t = tl.load(T + r, mask=r < rows, other=ignore_index)
    tl.atomic_add(WS, tl.sum((t != ignore_index).to(tl.int64), axis=0), sem="relaxed")


@triton.jit
def _publish_pair(slots, idx, mx, s):
    """A part's (max m_i, sum s_i = sum exp(x - m_i)) in ONE 64-bit atomic exchange, as
    kernels/softmax/kr_triton.py: high word m_i's bits, low word s_i's bits with bit 31 (s_i's
    sign: s_i is +0, positive or NaN) forced to 1 as the flag; the workspace's zeros never
    have it."""
    hi = mx.to(tl.int32, bitcast=True).to(tl.int64) << 32
    lo = (s.to(tl.int32, bitcast=True).to(tl.int64) & 0x7FFFFFFF) | 0x80000000
    tl.atomic_xchg(slots + idx, hi | lo, sem="relaxed")


@triton.jit
def _gather_pairs(slots, k, kmask, WAIT: tl.constexpr):
    got = tl.load(slots + k, mask=kmask, other=0x80000000, volatile=True)
    if WAIT:
        while tl.min(((got >> 31) & 1).to(tl.int32), axis=0) == 0:
            got = tl.load(slots + k, mask=kmask, other=0x80000000, volatile=True)
    pm = (got >> 32).to(tl.int32).to(tl.float32, bitcast=True)
    ps = (got & 0x7FFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
    return pm, ps


@triton.jit(do_not_specialize=["stride_x", "stride_dx", "split", "ignore_index"])
def _fwd_bwd(X, T, WS, DX, LOSSROW, SLOTS, DEP, stride_x, stride_dx, split, ignore_index, N,
             BLOCK: tl.constexpr, SPLIT_P2: tl.constexpr, CONTIG: tl.constexpr,
             PHASE: tl.constexpr, PAIR: tl.constexpr, EXP1: tl.constexpr = False):
    """Path "exchange" (and "whole" when SPLIT_P2 == 1). Program (row, part): its BLOCK columns
    of the row's gradient, and (part 0) the row's loss. PHASE 0: the whole job; 1 and 2: the
    interpreter's split halves (publish; combine, write). PAIR: (max, sum) in one 64-bit slot
    (one atomic, one wait); else two slots (the first version). The slots of a row: 2 * SPLIT_P2
    either way (PAIR uses the first half). EXP1 (rule key `xexp`): one exp an element, not two:
    the gradient as e * exp(m_i - lse_max) / total from the part's e = exp(x - m_i), kept from
    the (max, sum) it published (fewer instructions an element; other bits)."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // split
    part = pid % split
    xoff, dxoff = _row_offsets(row, N, stride_x, stride_dx, CONTIG)
    start = part * BLOCK
    t = tl.load(T + row)
    offs, m, hit = _local(t, start, N, BLOCK)
    xoff += start
    dxoff += start
    if t == ignore_index:  # every part of the row takes this branch: no exchange for it
        if PHASE != 1:
            tl.store(DX + dxoff + offs, tl.zeros([BLOCK], dtype=DX.dtype.element_ty), mask=m)
            if part == 0:
                tl.store(LOSSROW + row, 0.0)
    else:
        x = tl.load(X + xoff + offs, mask=m, other=-float("inf")).to(tl.float32)
        mx = tl.max(x, axis=0)
        xt = 0.0
        if part == 0:  # issued before the exchange: its latency hides behind the wait
            xt = _target_logit(X, xoff, t, N)
        ms = tl.where(mx == -float("inf"), 0.0, mx)
        e = tl.exp(x - ms)
        if SPLIT_P2 == 1:
            bs = ms
            total = tl.sum(e, axis=0)
        else:
            slots = SLOTS + row * (2 * SPLIT_P2)
            k = tl.arange(0, SPLIT_P2)
            kmask = k < split
            if PHASE != 2:
                if PAIR:
                    _publish_pair(slots, part, mx, tl.sum(e, axis=0))
                else:
                    _publish(slots, part, mx)
                    _publish(slots, SPLIT_P2 + part, tl.sum(e, axis=0))
            bs = 0.0
            total = 0.0
            if PHASE != 1:
                if PAIR:
                    pm, ps = _gather_pairs(slots, k, kmask, PHASE == 0)
                else:
                    pm = _gather(slots, k, kmask, PHASE == 0)
                    ps = _gather(slots + SPLIT_P2, k, kmask, PHASE == 0)
                pm = tl.where(kmask, pm, -float("inf"))
                big = tl.max(pm, axis=0)
                bs = tl.where(big == -float("inf"), 0.0, big)
                total = tl.sum(tl.where(kmask, ps * tl.exp(pm - bs), 0.0), axis=0)
        if PHASE != 1:
            scale = 1.0 / tl.load(WS).to(tl.float32)
            if EXP1:  # mx = -inf (a part of -inf only): exp(-inf) = 0, never 0 * inf
                p = e * (tl.exp(mx - bs) / total)
            else:
                p = tl.exp(x - bs) * (1.0 / total)
            g = (p - tl.where(hit, 1.0, 0.0)) * scale
            tl.store(DX + dxoff + offs, g.to(DX.dtype.element_ty), mask=m)
            if part == 0:
                tl.store(LOSSROW + row, (bs - xt) + tl.log(total))
            if SPLIT_P2 > 1:
                slots_row = SLOTS + row * (2 * SPLIT_P2)
                left = tl.atomic_add(DEP + row, 1, sem="relaxed")
                if left == split - 1:
                    tl.store(slots_row + tl.arange(0, 2 * SPLIT_P2), tl.zeros([2 * SPLIT_P2], dtype=tl.int64))
                    tl.store(DEP + row, 0)


@triton.jit(do_not_specialize=["stride_x", "stride_dx", "split", "nblk", "ntiles", "ignore_index"])
def _grad_tiles(X, T, WS, DX, PM, PS, stride_x, stride_dx, split, nblk, ntiles, ignore_index, N,
                BLOCK: tl.constexpr, SPLIT_P2: tl.constexpr, CONTIG: tl.constexpr,
                REVERSE: tl.constexpr, EVICT: tl.constexpr):
    """Path "twopass", second kernel. Program (row, column block): the row's logsumexp from its
    parts' (max, sum) pairs (written by _lse_parts; combined as _finish combines them for the
    loss), then dlogits = (exp(x - lse) - onehot) / n_valid over BLOCK columns. REVERSE: tiles
    in reverse order, so the first tiles re-read are the last the first kernel read (still in L2)."""
    pid = tl.program_id(0).to(tl.int64)
    if REVERSE:
        pid = ntiles - 1 - pid
    row = pid // nblk
    cb = pid % nblk
    xoff, dxoff = _row_offsets(row, N, stride_x, stride_dx, CONTIG)
    start = cb * BLOCK
    t = tl.load(T + row)
    offs, m, hit = _local(t, start, N, BLOCK)
    xoff += start
    dxoff += start
    if t == ignore_index:
        tl.store(DX + dxoff + offs, tl.zeros([BLOCK], dtype=DX.dtype.element_ty), mask=m)
    else:
        k = tl.arange(0, SPLIT_P2)
        kmask = k < split
        pm = tl.load(PM + row * split + k, mask=kmask, other=-float("inf"))
        ps = tl.load(PS + row * split + k, mask=kmask, other=0.0)
        big = tl.max(pm, axis=0)
        bs = tl.where(big == -float("inf"), 0.0, big)
        total = tl.sum(tl.where(kmask, ps * tl.exp(pm - bs), 0.0), axis=0)
        x = tl.load(X + xoff + offs, mask=m, other=-float("inf"), eviction_policy=EVICT).to(tl.float32)
        scale = 1.0 / tl.load(WS).to(tl.float32)
        p = tl.exp(x - bs) * (1.0 / total)
        g = (p - tl.where(hit, 1.0, 0.0)) * scale
        tl.store(DX + dxoff + offs, g.to(DX.dtype.element_ty), mask=m)


@triton.jit
def _aligned_rowloop(row, X, T, WS, DX, LOSSROW, ignore_index, N, BLOCK: tl.constexpr, VEC: tl.constexpr,
                     EV1: tl.constexpr, EV2: tl.constexpr, SCM: tl.constexpr):
    """The row loop over `_aligned`'s layout: the head's (< VEC) columns in one small masked
    step kept in registers, the body in BLOCK chunks from a 16-byte boundary -- full chunks
    loaded and stored unmasked (16-byte vectors), the ragged last one masked. With a head of 0
    (the row starts on a boundary: every row when N is a multiple of VEC) the chunks and the
    order of the sums are the plain loop's, so are the bits; otherwise a row's bits depend on
    its head (its start modulo VEC) as well as on N and BLOCK. EV1 / EV2: the eviction policy of
    the first pass's / the gradient pass's loads, SCM every gradient store's cache modifier ("": none)."""
    xoff = row * N
    head, body, nb = _aligned(xoff, N, VEC)
    offs = tl.arange(0, BLOCK)
    hoffs = tl.arange(0, VEC)
    hm = hoffs < head
    nfull = nb // BLOCK
    nch = tl.cdiv(nb, BLOCK)
    t = tl.load(T + row)
    if t == ignore_index:
        tl.store(DX + xoff + hoffs, tl.zeros([VEC], dtype=DX.dtype.element_ty), mask=hm, cache_modifier=SCM)
        for c in range(0, nch):
            cols = c * BLOCK + offs
            if c < nfull:
                tl.store(DX + body + c * BLOCK + offs, tl.zeros([BLOCK], dtype=DX.dtype.element_ty), cache_modifier=SCM)
            else:
                tl.store(DX + body + cols, tl.zeros([BLOCK], dtype=DX.dtype.element_ty), mask=cols < nb, cache_modifier=SCM)
        tl.store(LOSSROW + row, 0.0)
    else:
        xh = tl.load(X + xoff + hoffs, mask=hm, other=-float("inf")).to(tl.float32)
        mx = tl.max(xh, axis=0)
        s = tl.sum(tl.exp(xh - tl.where(mx == -float("inf"), 0.0, mx)), axis=0)
        for c in range(0, nch):
            cols = c * BLOCK + offs
            if c < nfull:
                x = tl.load(X + body + c * BLOCK + offs, eviction_policy=EV1).to(tl.float32)
            else:
                x = tl.load(X + body + cols, mask=cols < nb, other=-float("inf"), eviction_policy=EV1).to(tl.float32)
            mx, s = _online(x, mx, s)
        bs = tl.where(mx == -float("inf"), 0.0, mx)
        tl.store(LOSSROW + row, (bs - _target_logit(X, xoff, t, N)) + tl.log(s))
        inv = 1.0 / s
        scale = 1.0 / tl.load(WS).to(tl.float32)
        tb = t - head  # the target's column in the body (negative: in the head)
        for c in range(0, nch):
            k = nch - 1 - c
            start = k * BLOCK
            lo, cm, hit = _local(tb, start, nb, BLOCK)
            if k < nfull:
                x = tl.load(X + body + k * BLOCK + offs, eviction_policy=EV2).to(tl.float32)
                g = (tl.exp(x - bs) * inv - tl.where(hit, 1.0, 0.0)) * scale
                tl.store(DX + body + k * BLOCK + offs, g.to(DX.dtype.element_ty), cache_modifier=SCM)
            else:
                x = tl.load(X + body + start + lo, mask=cm, other=-float("inf"), eviction_policy=EV2).to(tl.float32)
                g = (tl.exp(x - bs) * inv - tl.where(hit, 1.0, 0.0)) * scale
                tl.store(DX + body + start + lo, g.to(DX.dtype.element_ty), mask=cm, cache_modifier=SCM)
        gh = (tl.exp(xh - bs) * inv - tl.where(hoffs == t, 1.0, 0.0)) * scale
        tl.store(DX + xoff + hoffs, gh.to(DX.dtype.element_ty), mask=hm, cache_modifier=SCM)


@triton.jit
def _plain_rowloop(row, X, T, WS, DX, LOSSROW, stride_x, stride_dx, ignore_index, N,
                   BLOCK: tl.constexpr, CONTIG: tl.constexpr, EV1: tl.constexpr, EV2: tl.constexpr,
                   SCM: tl.constexpr):
    """One row of the row loop over any row stride (see `_rowloop`)."""
    xoff, dxoff = _row_offsets(row, N, stride_x, stride_dx, CONTIG)
    offs = tl.arange(0, BLOCK)
    nch = tl.cdiv(N, BLOCK)
    t = tl.load(T + row)
    if t == ignore_index:
        for c in range(0, nch):
            cols = c * BLOCK + offs
            tl.store(DX + dxoff + cols, tl.zeros([BLOCK], dtype=DX.dtype.element_ty), mask=cols < N, cache_modifier=SCM)
        tl.store(LOSSROW + row, 0.0)
    else:
        mx = tl.full([], -float("inf"), tl.float32)
        s = tl.full([], 0.0, tl.float32)
        for c in range(0, nch):
            cols = c * BLOCK + offs
            x = tl.load(X + xoff + cols, mask=cols < N, other=-float("inf"), eviction_policy=EV1).to(tl.float32)
            mx, s = _online(x, mx, s)
        bs = tl.where(mx == -float("inf"), 0.0, mx)
        tl.store(LOSSROW + row, (bs - _target_logit(X, xoff, t, N)) + tl.log(s))
        inv = 1.0 / s
        scale = 1.0 / tl.load(WS).to(tl.float32)
        for c in range(0, nch):
            start = (nch - 1 - c) * BLOCK
            lo, cm, hit = _local(t, start, N, BLOCK)
            x = tl.load(X + xoff + start + lo, mask=cm, other=-float("inf"), eviction_policy=EV2).to(tl.float32)
            g = (tl.exp(x - bs) * inv - tl.where(hit, 1.0, 0.0)) * scale
            tl.store(DX + dxoff + start + lo, g.to(DX.dtype.element_ty), mask=cm, cache_modifier=SCM)


@triton.jit(do_not_specialize=["stride_x", "stride_dx", "ignore_index"])
def _rowloop(X, T, WS, DX, LOSSROW, stride_x, stride_dx, ignore_index, N,
             BLOCK: tl.constexpr, CONTIG: tl.constexpr, VEC: tl.constexpr = 0,
             EV1: tl.constexpr = "", EV2: tl.constexpr = "", SCM: tl.constexpr = ""):
    """Path "rowloop": one program a row, two passes over it in BLOCK chunks: an online (max,
    sum), then the gradient with the chunks in reverse order (the last read first: most likely
    still in L1/L2). No exchange, nothing held across the passes but two scalars; the bits of a
    row depend on N and BLOCK only (VEC > 0: and on the row's head, see `_aligned_rowloop`).
    `revict` (EV1, EV2, SCM): the first pass's loads evict_last, the gradient pass's evict_first
    (Triton 3.9 lowers each to an L1 priority and an L2 cache policy:
    `ld.global.L1::evict_last.L2::cache_hint` after `createpolicy.fractional.L2::evict_last`,
    tests/test_cross_entropy_compile.py), and every gradient store `.cs` (streaming: its lines
    are allocated evict-first, so the gradient does not push the logits out of the L2). Same
    bits either way. (A persistent variant, a few programs a SM looping over the rows, lost at
    every shape on the H100 on 2026-12-06 and was removed: lab/cross_entropy/NOTES.md.)
    VEC > 0 (contiguous logits and gradient, one layout): `_aligned_rowloop`."""
    _one_row(tl.program_id(0).to(tl.int64), X, T, WS, DX, LOSSROW, stride_x, stride_dx, ignore_index, N,
             BLOCK, CONTIG, VEC, EV1, EV2, SCM)


@triton.jit
def _one_row(row, X, T, WS, DX, LOSSROW, stride_x, stride_dx, ignore_index, N, BLOCK: tl.constexpr,
             CONTIG: tl.constexpr, VEC: tl.constexpr, EV1: tl.constexpr, EV2: tl.constexpr, SCM: tl.constexpr):
    """One row of `_rowloop` in its layout: `_aligned_rowloop` (VEC > 0) or `_plain_rowloop`."""
    if VEC > 0:
        _aligned_rowloop(row, X, T, WS, DX, LOSSROW, ignore_index, N, BLOCK, VEC, EV1, EV2, SCM)
    else:
        _plain_rowloop(row, X, T, WS, DX, LOSSROW, stride_x, stride_dx, ignore_index, N,
                       BLOCK, CONTIG, EV1, EV2, SCM)


@triton.jit(do_not_specialize=["stride_x", "stride_dx", "ignore_index", "ntiles", "nsteps"])
def _pipe(X, T, WS, DX, LOSSROW, SLOTS, stride_x, stride_dx, ignore_index, N, ntiles, nsteps,
          P: tl.constexpr, P_P2: tl.constexpr, BLOCK: tl.constexpr, LAG: tl.constexpr,
          HOLD: tl.constexpr, CONTIG: tl.constexpr, VEC: tl.constexpr, EV1: tl.constexpr,
          EV2: tl.constexpr, SCM: tl.constexpr):
    """Path "pipe": a persistent grid of G programs over tiles of one BLOCK chunk (tile a is part
    a % P of row a // P, P = cdiv(N, BLOCK)), software-pipelined by hand. At step k, program g
    takes tile a = k * G + g through phase A (its chunk's (max, sum) published in the row's
    64-bit slot, `_publish_pair`) and tile b = a - LAG * G through phase B (wait for the P slots
    of b's row, combine them in a fixed order, write b's gradient; part 0 also the row's loss).
    The order within a step: a's chunk load is issued first, phase B runs while it is in flight,
    then a's (max, sum) is reduced and published. HOLD 1: b's chunk is the one loaded a step
    earlier, kept in registers (LAG 1: the logits are read once, as the floor counts them); 2:
    its exp(x - m_b) kept instead (fp32, twice the registers of bf16; one exp an element, not
    two: the gradient is e * exp(m_b - lse_max) / total); 0: phase B reads the chunk again. No wait is on the same or a later step's work: with G a
    multiple of P no row straddles two steps, so the tiles a phase B waits for were published
    in an earlier step (the interpreter's layout: one program, LAG = P), and the grid never
    deadlocks if all G programs are resident at once (the launch sizes G from the compiled
    kernel's occupancy). A row's bits depend on N and BLOCK only, never on the row count or G.
    VEC: columns a 16-byte vector; the launch checks that rows start on 16-byte boundaries (N,
    the row strides and the base: `_pipe_fits`), and the hints below tell the compiler so."""
    pid = tl.program_id(0).to(tl.int64)
    G = tl.num_programs(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    kp = tl.arange(0, P_P2)
    scale = 1.0 / tl.load(WS).to(tl.float32)
    held = tl.zeros([BLOCK], dtype=X.dtype.element_ty)
    held_e = tl.zeros([BLOCK], dtype=tl.float32)
    held_m = tl.full([], 0.0, tl.float32)
    for k in range(0, nsteps):
        step = tl.full([], 0, tl.int64) + k  # 64-bit tile numbers (k is a plain int when interpreted)
        a = step * G + pid
        ra = a // P
        ca = (a % P) * BLOCK
        oka = a < ntiles
        ta = tl.load(T + ra, mask=oka, other=ignore_index)
        xoff, _ = _row_offsets(ra, N, stride_x, stride_dx, CONTIG)
        xoff = tl.multiple_of(xoff, VEC)
        lim = tl.multiple_of(tl.where(oka & (ta != ignore_index), N - ca, 0), VEC)  # ignored: none
        xa = tl.load(X + xoff + ca + offs, mask=offs < lim, other=-float("inf"), eviction_policy=EV1)
        b = a - LAG * G
        okb = (b >= 0) & (b < ntiles)
        # b's row's slots, first read beside a's chunk (published a step ago: rarely a wait)
        got = tl.load(SLOTS + (b // P) * P + kp, mask=kp < tl.where(okb, P, 0), other=0x80000000,
                      volatile=True)
        if okb:
            rb = b // P
            cb = (b % P) * BLOCK
            tb = tl.load(T + rb)
            bxoff, dxoff = _row_offsets(rb, N, stride_x, stride_dx, CONTIG)
            bxoff = tl.multiple_of(bxoff, VEC)
            dxoff = tl.multiple_of(dxoff, VEC)
            cols = cb + offs
            cm = offs < tl.multiple_of(N - cb, VEC)
            if tb == ignore_index:
                tl.store(DX + dxoff + cols, tl.zeros([BLOCK], dtype=DX.dtype.element_ty), mask=cm,
                         cache_modifier=SCM)
                if cb == 0:
                    tl.store(LOSSROW + rb, 0.0)
            else:
                while tl.min(((got >> 31) & 1).to(tl.int32), axis=0) == 0:
                    got = tl.load(SLOTS + rb * P + kp, mask=kp < P, other=0x80000000, volatile=True)
                pm = (got >> 32).to(tl.int32).to(tl.float32, bitcast=True)
                ps = (got & 0x7FFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
                m = tl.max(pm, axis=0)
                bs = tl.where(m == -float("inf"), 0.0, m)
                s = tl.sum(tl.where(kp < P, ps * tl.exp(pm - bs), 0.0), axis=0)
                if HOLD == 2:  # held_m = -inf (a tile of -inf only): exp(-inf) = 0, never 0 * inf
                    p = held_e * (tl.exp(held_m - bs) / s)
                elif HOLD == 1:
                    p = tl.exp(held.to(tl.float32) - bs) * (1.0 / s)
                else:
                    x = tl.load(X + bxoff + cols, mask=cm, other=-float("inf"), eviction_policy=EV2).to(tl.float32)
                    p = tl.exp(x - bs) * (1.0 / s)
                rel = (tb - cb).to(tl.int32)
                g = (p - tl.where(offs == rel, 1.0, 0.0)) * scale
                tl.store(DX + dxoff + cols, g.to(DX.dtype.element_ty), mask=cm, cache_modifier=SCM)
                if cb == 0:
                    tl.store(LOSSROW + rb, (bs - _target_logit(X, bxoff, tb, N)) + tl.log(s))
        mx = tl.max(xa.to(tl.float32), axis=0)
        ea = tl.exp(xa.to(tl.float32) - tl.where(mx == -float("inf"), 0.0, mx))
        if oka:
            _publish_pair(SLOTS, a, mx, tl.sum(ea, axis=0))
        if HOLD == 2:
            held_e = ea
            held_m = mx
        else:
            held = xa


# --------------------------------------------------------------------------------------
# The launch model
# --------------------------------------------------------------------------------------

_SMS: dict = {}


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132  # the interpreter plans as for an H200
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SMS:
        _SMS[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SMS[idx]


def _warps(block: int) -> int:
    w = max(1, min(32, block // (32 * ELEMS_PER_THREAD)))
    return 1 << (w.bit_length() - 1)


def plan_forward(n: int, rows: int, sms: int = 132) -> dict:
    """The loss: one program streams a row in CHUNK steps. Rows split into parts when there
    are fewer than PROGRAMS_PER_SM programs per SM (the last wave of a few long programs would
    leave most SMs idle), never below 4 chunks a part."""
    block = min(CHUNK, triton.next_power_of_2(n))
    chunks = -(-n // block)
    split = 1
    if rows < PROGRAMS_PER_SM * sms:
        split = max(1, min(-(-PROGRAMS_PER_SM * sms // max(rows, 1)), chunks // 4))
    per_part = -(-chunks // split)
    split = -(-chunks // per_part)
    return {"BLOCK": block, "PART": per_part * block, "SPLIT": split,
            "SPLIT_P2": triton.next_power_of_2(split), "num_warps": _warps(block)}


#: The fwd+bwd rule (issue 16 sweep, lab/cross_entropy/device_sweep.sh): per element size,
#: the path and its launch parameters. "exchange": rows up to `max_row` whole in one program,
#: longer rows in parts of `block` columns on `warps` warps exchanging (max, sum) (`pair`: one
#: 64-bit slot, as the softmax family; else the first version's two slots); "twopass": the
#: forward's streaming (max, sum) per part of `lse_part` columns (chunks of `lse_block` on
#: `lse_warps`), then a gradient kernel over tiles of `gblock` columns on `gwarps` warps (3
#: passes of traffic, no waiting); "rowloop": one program per row, chunks of `rblock` on `rwarps`,
#: an online pass then a reverse gradient pass; `revict` 1: evict_last on the first pass's
#: loads, evict_first on the gradient pass's, the gradient stored streaming (.cs); "pipe"
#: (`_pipe`; rows on 16-byte boundaries, else the row loop): a persistent grid of `pper`
#: programs per SM (at most what fits) over `pblock`-column tiles on `pwarps` warps, each tile's
#: chunk held in registers (`phold`; 0: read again) while its row's (max, sum) pairs arrive: the
#: logits read once; `pevict` 1: its loads evict_first, its gradient stored .cs. `xregs` (0:
#: none): the exchange's parts compiled to at most that many registers a thread (ptxas'
#: .maxnreg): at 4096-column parts on 4 warps they take 80-96 (5-6 programs an SM), at 64 none
#: spill (sm_90 ptxas -v, 2026-12-06) and 8 programs fit: more of a row's parts resident at once.
#: `xregs_from`: the cap only on rows of at least that many columns (a forced `xregs` without a
#: forced `xregs_from` applies at every vocabulary). bf16 / fp16: 64 from 140000 columns, from the
#: sweep of 2026-12-07 00:40 (H100, the seed-16 bf16 tune shapes, cold L2, CUDA graphs;
#: lab/device-2026-12-07/ce-regs/ce-sweep.md): capped against the uncapped rule 0.80-0.88x at
#: every tune vocab from 143103 up (4096 x 238603: 1862 against 2254 us, 1.10x the floor against
#: 1.33x; 2048 x 143103: 520 / 619), but 1.15x at 4096 x 128256 (943 / 821): the threshold lies
#: between them. At 64 bf16 parts do spill (a 48-byte stack under triton 3.6: 25 local-memory
#: requests a warp in Nsight Compute at 4096 x 262144, H100, 2026-12-07d; 72: 8 bytes, 80: none),
#: and still win: 2.15 ms against 2.17 at 72, 2.25 at 80, 2.31 uncapped (76 registers). fp32
#: parts fit 64 without a spill: 64 from 20000 columns, from the sweep of 2026-12-07 13:05
#: (H100, random vocabularies, cold L2; lab/device-2026-12-07d/ceregs*/ce-sweep.md): 0.83-0.96x
#: the uncapped exchange at all nine shapes from 2048 x 20001 to 1024 x 258843 (8192 x 30011:
#: 727.9 against 875.5 us; 2048 x 215631: 1255 against 1333), 72 between them; below 20000 not
#: measured.
#: Default from the H200 sweep of 2026-12-02 (lab/cross_entropy/sweep-2026-12-02/ce-sweep.md,
#: 12 bf16 fwd+bwd workloads, cold L2): the row loop on 4096-column chunks and 4 warps was the
#: fastest candidate at 8 of them and within 4 % of the best at the other 4 (the 4096-part
#: exchange at 1024 and 8192 x 128256, 2048-part exchange at 4096 x 151936 ign50, twopass 4096/8
#: at 1024 x 262144, 5 %), 1.41-1.86x the floor against 2.4-4.0x for the first version (8192
#: parts on 16 warps, two slots) and 0.10-0.67x Liger's time. It has no waits and its layout
#: follows the vocab only (a row's bits never depend on the row count). Cost: rows run one
#: program each, so a call with fewer rows than SMs leaves SMs idle.
#: fp32 (4): the 4096-part exchange on 4 warps with the paired slot, from the fp32 sweep of
#: 2026-12-02 (lab/cross_entropy/sweep-2026-12-02-fp32/ce-sweep.md): 17-48 % faster than the
#: row loop at all 5 fp32 shapes (4096 x 128256: 1198 against 1565 us; the odd vocab 2048 x
#: 144707: 732 against 1408).
#: `alt_path` / `alt_from`: rows of at least alt_from columns take alt_path instead (0: never),
#: for a sweep that finds one path best at short vocabularies and another at long ones.
#: bf16 / fp16 from ALT_FROM_2 columns: the exchange (4096-column parts on 4 warps, the paired
#: slot: the fp32 rule's launch). Sweep of 2026-12-06 14:25 (H100, the seed-16 tune shapes, bf16,
#: cold L2; lab/device-2026-12-06d/pipe/ce-sweep.md): the exchange against the row loop at every
#: tune vocab from 128256 up, 0.816-0.976x (4096 x 128256 ign10: 818 against 1003 us; 4096 x
#: 151936: 1118 / 1195; 4096 x 238603: 2249 / 2304; 2048 x 182587: 793 / 854; 4096 x 263651: 2280
#: / 2360; CUDA-graph timed; 4096 x 240349 and 2048 x 143103 event-timed: 0.952, 0.921), and
#: 1.18x / 1.20x the row loop at 16384 x 32000 and 16384 x 54463: below the row loop's second
#: read still hits the L2. ALT_FROM_2 from the sweep of 2026-12-06 17:50 between them (H100;
#: lab/device-2026-12-06e/ce-threshold/ce-sweep.md): the exchange 1.03x / 1.05x the loop at
#: 4096 / 8192 x 65536, 0.83x at 4096 x 81920, 0.82-0.96x from 92000 to 114688.
ALT_FROM_2 = 81920
FWDBWD_RULE = {
    2: {"path": "rowloop", "max_row": MAX_ROW, "block": 4096, "warps": 4, "pair": 1, "xexp": 0,
        "lse_part": 16384, "lse_block": CHUNK, "lse_warps": 8, "gblock": 4096, "gwarps": 8,
        "evict": 0, "reverse": 1, "rblock": 4096, "rwarps": 4, "revict": 1,
        "pblock": 4096, "pwarps": 4, "pper": 6, "phold": 1, "pevict": 1, "xregs": 64,
        "xregs_from": 140000, "alt_path": "exchange", "alt_from": ALT_FROM_2},
    4: {"path": "exchange", "max_row": MAX_ROW, "block": 4096, "warps": 4, "pair": 1, "xexp": 0,
        "lse_part": 16384, "lse_block": CHUNK, "lse_warps": 8, "gblock": 4096, "gwarps": 8,
        "evict": 0, "reverse": 1, "rblock": 4096, "rwarps": 4, "revict": 0,
        "pblock": 4096, "pwarps": 4, "pper": 4, "phold": 1, "pevict": 1, "xregs": 64,
        "xregs_from": 20000, "alt_path": "twopass", "alt_from": 0},
}
#: A sweep's forced candidate: a dict of FWDBWD_RULE keys replacing the rule's (None: the
#: environment variable KR_CE_FWDBWD, "key=value,key=value", e.g. "path=twopass,gblock=8192").
FWDBWD_FORCE: dict | None = None
_PATHS = ("exchange", "twopass", "rowloop", "pipe")


def _forced() -> dict:
    if FWDBWD_FORCE is not None:
        return dict(FWDBWD_FORCE)
    text = os.environ.get("KR_CE_FWDBWD", "").strip()
    out: dict = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, sep, val = item.partition("=")
        if not sep or key not in FWDBWD_RULE[2]:
            raise ValueError(f"KR_CE_FWDBWD: bad item {item!r}; use key=value with keys "
                             f"{', '.join(FWDBWD_RULE[2])}")
        out[key] = val if key in ("path", "alt_path") else int(val)
    return out


def fwd_bwd_rule(elem_size: int = 2) -> dict:
    """The rule for one element size with any forced keys applied. A forced `path` is taken at
    every vocabulary (alt_from 0) unless `alt_from` is forced too."""
    rule = dict(FWDBWD_RULE[4 if elem_size >= 4 else 2])
    forced = _forced()
    if "path" in forced and "alt_from" not in forced:
        forced["alt_from"] = 0
    if "xregs" in forced and "xregs_from" not in forced:
        forced["xregs_from"] = 0
    rule.update(forced)
    for key in ("path", "alt_path"):
        if rule[key] not in _PATHS:
            raise ValueError(f"fwd+bwd {key} {rule[key]!r}: use one of {', '.join(_PATHS)}")
    return rule


def plan_fwd_bwd(n: int, rows: int, sms: int = 132, elem_size: int = 2, path: str | None = None) -> dict:
    """Loss and gradient: the launch of the rule's path (fwd_bwd_rule) for rows of n columns.

    "exchange": the row held in registers, whole up to max_row columns, else split in parts of
    `block` (more parts when rows are fewer than 2 per SM: those bits follow the row count, as the
    first version's; rows >= sms never split a row within max_row). "twopass" and "rowloop": the
    layout follows n (and the dtype) only, never the row count."""
    rule = fwd_bwd_rule(elem_size)
    if path is None:
        path = rule["path"]
        if rule["alt_from"] and n >= rule["alt_from"]:
            path = rule["alt_path"]
    if path == "twopass":
        lb = min(rule["lse_block"], triton.next_power_of_2(n))
        per_part = max(1, rule["lse_part"] // lb)
        chunks = -(-n // lb)
        split = -(-chunks // per_part)
        gb = min(rule["gblock"], triton.next_power_of_2(n))
        return {"PATH": path, "LSE_BLOCK": lb, "PART": per_part * lb, "SPLIT": split,
                "SPLIT_P2": triton.next_power_of_2(split), "lse_warps": min(rule["lse_warps"], _warps(lb) * 2),
                "GBLOCK": gb, "NBLK": -(-n // gb), "gwarps": min(rule["gwarps"], max(1, gb // 256)),
                "EVICT": bool(rule["evict"]), "REVERSE": bool(rule["reverse"])}
    if path == "pipe":
        pb = min(rule["pblock"], triton.next_power_of_2(n))
        return {"PATH": path, "BLOCK": pb, "P": -(-n // pb), "SPLIT": 1, "SPLIT_P2": 1,
                "num_warps": min(rule["pwarps"], max(1, pb // 256)), "PER_SM": max(1, int(rule["pper"])),
                "HOLD": int(rule["phold"]), "PEVICT": bool(rule["pevict"])}
    if path == "rowloop":
        rb = min(rule["rblock"], triton.next_power_of_2(n))
        return {"PATH": path, "BLOCK": rb, "SPLIT": 1, "SPLIT_P2": 1,
                "num_warps": min(rule["rwarps"], max(1, rb // 256)), "REVICT": bool(rule["revict"])}
    np2 = triton.next_power_of_2(n)
    max_row = rule["max_row"]
    want = max(1, -(-2 * sms // max(rows, 1)))
    if n <= max_row:
        split = 1 if rows >= sms or n < 2 * MIN_SPLIT_BLOCK else min(want, n // MIN_SPLIT_BLOCK)
    else:
        split = max(-(-n // rule["block"]), min(want, n // MIN_SPLIT_BLOCK))
    split = max(1, min(split, 4 * sms))
    if split > 1:
        block = triton.next_power_of_2(-(-n // split))
        split = -(-n // block)
    if split == 1:
        return {"PATH": "exchange", "BLOCK": np2, "SPLIT": 1, "SPLIT_P2": 1, "num_warps": _warps(np2),
                "PAIR": False, "EXP1": False}  # whole rows: no exchange
    warps = rule["warps"] if block == rule["block"] else _warps(block)
    return {"PATH": "exchange", "BLOCK": block, "SPLIT": split, "SPLIT_P2": triton.next_power_of_2(split),
            "num_warps": warps, "PAIR": bool(rule["pair"]), "EXP1": bool(rule["xexp"]),
            "MAXNREG": int(rule["xregs"]) if n >= rule["xregs_from"] else 0}


#: Aligned rows (odd vocabularies): contiguous logits whose rows do not all start on a 16-byte
#: boundary (a vocabulary that is not a multiple of 8 bf16 / 4 fp32 columns, or a base address
#: off the boundary) are streamed by the forward and by the row loop from each row's first
#: boundary (`_aligned`: the few columns before it in a small masked step), so full chunks load
#: as 16-byte vectors whatever the vocabulary. Rows that are aligned already keep the plain
#: layout: on the H200 (2026-12-03, lab/cross_entropy/NOTES.md) the aligned code at an aligned
#: vocabulary was 1.17-1.27x slower than the plain one, and 1.6x faster at odd vocabularies.
#: The environment's KR_CE_ALIGN=0 turns it off (a sweep's side-by-side), 1 on; unset: ALIGN.
ALIGN = True


def align_vec(elem_size: int, contiguous: bool, n_cols: int, data_ptr: int = 0) -> int:
    """Columns per 16-byte vector when the aligned layout applies (contiguous rows of which some
    start off a 16-byte boundary: n_cols not a multiple of the vector, or data_ptr off one),
    else 0 (the plain layout)."""
    env = os.environ.get("KR_CE_ALIGN", "").strip()
    if env not in ("", "0", "1"):
        raise ValueError(f"KR_CE_ALIGN={env!r}: use 0 (off) or 1 (on)")
    on = ALIGN if env == "" else env == "1"
    vec = 16 // elem_size
    if not (on and contiguous) or (n_cols % vec == 0 and data_ptr % 16 == 0):
        return 0
    return vec


_WS: dict = {}


def _workspace(device: torch.device, rows: int, per_row: int) -> torch.Tensor:
    """One int64 buffer, all zeros between calls (each call leaves it as it found it): [0] the
    fwd+bwd count of counted targets, [1] the loss reduction's block counter, then per row
    `per_row` exchange slots, then per row the split's count-out (see kernels/softmax/kr_triton.py).
    Cached per (device, stream); a fresh zeroed one per call while a CUDA graph is captured, so
    a graph holds its own memset and never depends on memory zeroed outside it."""
    need = 2 + rows * (per_row + 1)
    if device.type != "cuda" or torch.cuda.is_current_stream_capturing():
        return torch.zeros(need, dtype=torch.int64, device=device)
    key = (device.index, torch.cuda.current_stream(device).cuda_stream)
    ws = _WS.get(key)
    if ws is None or ws.numel() < need:
        ws = _WS[key] = torch.zeros(max(need, 2 * ws.numel() if ws is not None else 0), dtype=torch.int64,
                                    device=device)
    return ws


def _finish_launch(pm, ps, xt, lossrow, t, out, ws, rows, split, p2, ignore_index, from_parts):
    r = max(1, min(FINISH_ROWS, 4096 // p2))
    nblocks = max(1, -(-rows // r))
    bsum = torch.empty(nblocks, dtype=torch.float32, device=t.device)
    bcnt = torch.empty_like(bsum)
    _finish[(nblocks,)](pm, ps, xt, lossrow, t, out, bsum, bcnt, ws, rows, split, ignore_index, nblocks,
                        FROM_PARTS=from_parts, R=r, SPLIT_P2=p2, NB_P2=triton.next_power_of_2(nblocks),
                        num_warps=4)


def _prepare(logits, target):
    if not isinstance(logits, torch.Tensor) or not isinstance(target, torch.Tensor):
        raise ValueError("logits and target must be torch.Tensors")
    if logits.dim() != 2:
        raise ValueError(f"logits must be 2-D [tokens, vocab], got shape {tuple(logits.shape)}")
    if logits.dtype not in _SUPPORTED:
        raise ValueError(f"unsupported logits dtype {logits.dtype}; use float32, float16 or bfloat16")
    if target.dtype != torch.int64 or target.dim() != 1 or target.shape[0] != logits.shape[0]:
        raise ValueError(f"target must be int64 of shape [{logits.shape[0]}], got {target.dtype} {tuple(target.shape)}")
    if logits.device != target.device:
        raise ValueError(f"logits on {logits.device}, target on {target.device}")
    if logits.device.type != "cuda" and not _INTERPRET:
        raise ValueError("cross_entropy needs CUDA tensors (or TRITON_INTERPRET=1 for CPU tensors)")
    if logits.shape[1] == 0:
        raise ValueError("vocab size must be > 0")
    x = logits if logits.stride(-1) == 1 else logits.contiguous()
    return x, target.contiguous()


class _nullctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _on(device):
    return torch.cuda.device(device) if device.type == "cuda" else _nullctx()


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    """The mean cross-entropy over non-ignored rows: a 0-d tensor of the logits' dtype."""
    x, t = _prepare(logits, target)
    rows, n = x.shape
    out = torch.empty((), dtype=x.dtype, device=x.device)
    cfg = plan_forward(n, rows, _sm_count(x.device))
    split = cfg["SPLIT"]
    with _on(x.device):
        pm = torch.empty(max(rows * split, 1), dtype=torch.float32, device=x.device)
        ps = torch.empty_like(pm)
        xt = torch.empty(max(rows, 1), dtype=torch.float32, device=x.device)
        ws = _workspace(x.device, 0, 0)
        if rows:
            contig = x.stride(0) == n
            _lse_parts[(rows * split,)](x, t, pm, ps, xt, x.stride(0), split, ignore_index, n,
                                       BLOCK=cfg["BLOCK"], PART=cfg["PART"], CONTIG=contig,
                                       VEC=align_vec(x.element_size(), contig, n, x.data_ptr()), num_warps=cfg["num_warps"])
        _finish_launch(pm, ps, xt, xt, t, out, ws, rows, split, cfg["SPLIT_P2"], ignore_index, True)
    return out


_OCC: dict = {}


def _pipe_fits(x: torch.Tensor, cfg: dict, sms: int) -> bool:
    """Path "pipe" takes rows that start on 16-byte boundaries (its chunks load as 16-byte
    vectors: the vocabulary, the row stride and the base on a boundary) and at most as many
    parts a row as one wave of the grid holds (G >= P); others take the row loop."""
    vec = 16 // x.element_size()
    n = x.shape[1]
    if n % vec or x.stride(0) % vec or x.data_ptr() % 16:
        return False
    return _INTERPRET or cfg["P"] <= sms


def _pipe_args(x, t, ws, dx, lossrow, slots, ignore_index, ntiles, nsteps, cfg, contig, lag, hold):
    ev = cfg["PEVICT"]
    args = (x, t, ws, dx, lossrow, slots, x.stride(0), dx.stride(0), ignore_index, x.shape[1], ntiles, nsteps)
    kw = dict(P=cfg["P"], P_P2=triton.next_power_of_2(cfg["P"]), BLOCK=cfg["BLOCK"], LAG=lag, HOLD=hold,
              CONTIG=contig, VEC=16 // x.element_size(), EV1="evict_first" if ev else "", EV2="evict_first" if ev else "",
              SCM=".cs" if ev else "", num_warps=cfg["num_warps"])
    return args, kw


def _resident(args, kw, device: torch.device) -> int:
    """How many programs of the compiled `_pipe` fit on one SM at once (registers, shared
    memory, warps), from the compiled kernel (cached per specialisation)."""
    key = (device.index, args[0].dtype, args[3].dtype, tuple(sorted(kw.items())))
    if key not in _OCC:
        kern = _pipe.warmup(*args, grid=(1,), **kw)
        kern._init_handles()
        props = torch.cuda.get_device_properties(device)
        regs = getattr(props, "regs_per_multiprocessor", 65536)
        smem = getattr(props, "shared_memory_per_multiprocessor", 233472)
        warps = kw["num_warps"]
        per_warp = -(-max(kern.n_regs, 1) * 32 // 256) * 256  # registers go to a warp in 256s
        fit = min(regs // (per_warp * warps), 64 // warps, 32)
        shared = kern.metadata.shared
        if shared:
            fit = min(fit, smem // shared)
        _OCC[key] = max(0, fit)
    return _OCC[key]


def _pipe_launch(x, t, ws, dx, lossrow, ignore_index, cfg, contig, sms):
    rows, n = x.shape
    p = cfg["P"]
    ntiles = rows * p
    slots = torch.zeros(ntiles, dtype=torch.int64, device=x.device)  # flagged (max, sum) pairs
    if _INTERPRET:  # programs run one after another: one program, phase B P steps behind (a
        # held chunk only with one tile a row: LAG 1)
        lag, hold, grid = p, cfg["HOLD"] if p == 1 else 0, 1
    else:
        lag, hold = 1, cfg["HOLD"]
        args, kw = _pipe_args(x, t, ws, dx, lossrow, slots, ignore_index, 0, 0, cfg, contig, lag, hold)
        per_sm = min(cfg["PER_SM"], _resident(args, kw, x.device))
        if per_sm < 1 or per_sm * sms < p:
            raise RuntimeError(f"cross_entropy_fwd_bwd: path 'pipe' needs {p} resident programs "
                               f"({cfg['BLOCK']}-column parts), the GPU holds {per_sm} a SM")
        grid = min(per_sm * sms // p * p, ntiles)  # a multiple of P: no row straddles two steps
    nsteps = -(-ntiles // grid) + lag
    args, kw = _pipe_args(x, t, ws, dx, lossrow, slots, ignore_index, ntiles, nsteps, cfg, contig, lag, hold)
    _pipe[(grid,)](*args, **kw)


def cross_entropy_fwd_bwd(logits: torch.Tensor, target: torch.Tensor,
                          ignore_index: int = -100) -> tuple[torch.Tensor, torch.Tensor]:
    """(loss, dlogits): the mean cross-entropy and its gradient with respect to the logits (for
    an upstream gradient of 1), dlogits a new tensor of the logits' dtype; inputs unchanged.
    The path and launch: plan_fwd_bwd (FWDBWD_RULE; FWDBWD_FORCE / KR_CE_FWDBWD to force one)."""
    x, t = _prepare(logits, target)
    rows, n = x.shape
    out = torch.empty((), dtype=x.dtype, device=x.device)
    dx = torch.empty((rows, n), dtype=x.dtype, device=x.device)
    sms = _sm_count(x.device)
    cfg = plan_fwd_bwd(n, rows, sms, x.element_size())
    contig = x.stride(0) == n
    if cfg["PATH"] == "pipe" and not _pipe_fits(x, cfg, sms):
        cfg = plan_fwd_bwd(n, rows, sms, x.element_size(), path="rowloop")
    path, split, p2 = cfg["PATH"], cfg["SPLIT"], cfg["SPLIT_P2"]
    with _on(x.device):
        if path == "twopass":
            pm = torch.empty(max(rows * split, 1), dtype=torch.float32, device=x.device)
            ps = torch.empty_like(pm)
            xt = torch.empty(max(rows, 1), dtype=torch.float32, device=x.device)
            ws = _workspace(x.device, 0, 0)
            if rows:
                _count[(triton.cdiv(rows, COUNT_ROWS),)](t, ws, rows, ignore_index, R=COUNT_ROWS, num_warps=4)
                _lse_parts[(rows * split,)](x, t, pm, ps, xt, x.stride(0), split, ignore_index, n,
                                           BLOCK=cfg["LSE_BLOCK"], PART=cfg["PART"], CONTIG=contig,
                                           EVICT="evict_last" if cfg["EVICT"] else "",
                                           num_warps=cfg["lse_warps"])
                ntiles = rows * cfg["NBLK"]
                _grad_tiles[(ntiles,)](x, t, ws, dx, pm, ps, x.stride(0), dx.stride(0), split, cfg["NBLK"],
                                       ntiles, ignore_index, n, BLOCK=cfg["GBLOCK"], SPLIT_P2=p2, CONTIG=contig,
                                       REVERSE=cfg["REVERSE"], EVICT="evict_first" if cfg["EVICT"] else "",
                                       num_warps=cfg["gwarps"])
            _finish_launch(pm, ps, xt, xt, t, out, ws, rows, split, p2, ignore_index, True)
            return out, dx
        lossrow = torch.empty(max(rows, 1), dtype=torch.float32, device=x.device)
        per_row = 2 * p2 if split > 1 else 0
        ws = _workspace(x.device, rows if split > 1 else 0, per_row)
        if rows:
            _count[(triton.cdiv(rows, COUNT_ROWS),)](t, ws, rows, ignore_index, R=COUNT_ROWS, num_warps=4)
            if path == "rowloop":
                ev = cfg["REVICT"]
                _rowloop[(rows,)](x, t, ws, dx, lossrow, x.stride(0), dx.stride(0), ignore_index, n,
                                  BLOCK=cfg["BLOCK"], CONTIG=contig, VEC=align_vec(x.element_size(), contig, n, x.data_ptr()),
                                  EV1="evict_last" if ev else "", EV2="evict_first" if ev else "",
                                  SCM=".cs" if ev else "", num_warps=cfg["num_warps"])
            elif path == "pipe":  # one part a row (SPLIT 1): the workspace holds only the count
                _pipe_launch(x, t, ws, dx, lossrow, ignore_index, cfg, contig, sms)
            else:
                slots = ws[2:2 + rows * per_row] if split > 1 else ws
                dep = ws[2 + rows * per_row:2 + rows * (per_row + 1)] if split > 1 else ws
                args = (x, t, ws, dx, lossrow, slots, dep, x.stride(0), dx.stride(0), split, ignore_index, n)
                kw = dict(BLOCK=cfg["BLOCK"], SPLIT_P2=p2, CONTIG=contig, PAIR=cfg["PAIR"], EXP1=cfg["EXP1"],
                          num_warps=cfg["num_warps"])
                if cfg.get("MAXNREG"):
                    kw["maxnreg"] = cfg["MAXNREG"]
                grid = (rows * split,)
                if split > 1 and _INTERPRET:
                    _fwd_bwd[grid](*args, PHASE=1, **kw)
                    _fwd_bwd[grid](*args, PHASE=2, **kw)
                else:
                    _fwd_bwd[grid](*args, PHASE=0, **kw)
        _finish_launch(lossrow, lossrow, lossrow, lossrow, t, out, ws, rows, 1, 1, ignore_index, False)
    return out, dx
