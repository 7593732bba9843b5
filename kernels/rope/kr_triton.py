"""Kernel Records' own Triton rotary position embedding (Hugging Face "rotate half"), forward
and backward of q and k in one launch, one pass over memory.

    forward:   out = x * cos + rotate_half(x) * sin,  rotate_half([x1, x2]) = [-x2, x1]
               out1 = x1 * cos1 - x2 * sin1;  out2 = x2 * cos2 + x1 * sin2
    backward:  dx = dy * cos + rotate_half^T(dy * sin),  rotate_half^T([z1, z2]) = [z2, -z1]
               dx1 = dy1 * cos1 + dy2 * sin2; dx2 = dy2 * cos2 - dy1 * sin1

x1, x2 are the two halves of head_dim. Both halves of cos and sin are read (Hugging Face's
tables repeat the frequencies, cat(freqs, freqs), but nothing here relies on that). Arithmetic
in float32, each output rounded once to the input dtype.

Shapes: q [batch, heads_q, seq, head_dim], k [batch, heads_kv, seq, head_dim] with any strides
(head_dim contiguous); cos, sin [pos_batch, seq, head_dim] with pos_batch 1 (every sequence at
positions 0..seq-1) or batch (per-sequence positions, e.g. decode), or [seq, head_dim].
Outputs take the memory layout of their input (`torch.empty_like`), so a [batch, seq, heads,
head_dim] buffer seen through `.transpose(1, 2)`, as Llama's attention makes q and k, is
written in the order it is read.

Launch configuration (`plan`): one program per (token, group of heads) of q or of k, in one
grid; a group is up to 32 heads (8 KB of bf16 at head_dim 128), halved while the grid would
give fewer than two programs per SM, down to one head, so decode-sized calls (one token per
sequence) still spread over many SMs.

Launch knobs (`cfg`, a keyword of both entry points; for sweeps, lab/rope/sweep.py). With cfg
None (or empty) the launch above runs exactly as before (kernel `_rope`, the lean path); any
other cfg launches `_rope_k`, the same arithmetic with the knobs (`KNOBS` holds their defaults,
which give `_rope`'s geometry): `layout` ("grouped": the grid above; "split": the same tiles,
q and k in two launches; "token": one program per token block holding all its q and k heads,
cos / sin read once for both; "rows": flat (token, head) rows of q, then of k, a tile of rows
per program, cos / sin read per row), `tile_bytes` (bytes of one tensor per program and token:
the head group's or the row tile's target), `tokens` (tokens per program, grouped / split /
token layouts), `num_warps` (None: the plan's), `evict` and `cs_evict` (eviction hints of the
q / k loads and of the cos / sin loads: "evict_first", "evict_last" or "" for none), `store`
(the stores' cache modifier: "", ".cs", ".cg", ".wt"), `num_stages` and `persistent` (0: one
program per work item; n > 0: min(items, n x SMs) programs looping with a grid stride).
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

__all__ = ["rope_forward", "rope_backward", "plan", "launch_config", "KNOBS"]

_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
_SUPPORTED = (torch.float32, torch.bfloat16, torch.float16)
_INT32_MAX = 2**31 - 1
_SMS: dict = {}


@triton.jit
def _rotate_store(xp, op, mask, cos1, sin1, cos2, sin2, HALF: tl.constexpr, BACKWARD: tl.constexpr,
                  EVICT: tl.constexpr, STORE: tl.constexpr):
    """The one load-rotate-store of every kernel here: x's two halves from `xp` (float32), rotated
    ("rotate half"; the backward rotates by the negative angle), stored at `op` in its dtype."""
    x1 = tl.load(xp, mask=mask, other=0.0, eviction_policy=EVICT).to(tl.float32)
    x2 = tl.load(xp + HALF, mask=mask, other=0.0, eviction_policy=EVICT).to(tl.float32)
    if BACKWARD:
        o1 = x1 * cos1 + x2 * sin2
        o2 = x2 * cos2 - x1 * sin1
    else:
        o1 = x1 * cos1 - x2 * sin1
        o2 = x2 * cos2 + x1 * sin2
    tl.store(op, o1.to(op.dtype.element_ty), mask=mask, cache_modifier=STORE)
    tl.store(op + HALF, o2.to(op.dtype.element_ty), mask=mask, cache_modifier=STORE)


@triton.jit
def _rotate_k(X, O, x_off, o_off, cos1, sin1, cos2, sin2, heads, n_heads, sxh, soh,
              HALF: tl.constexpr, HALF_P2: tl.constexpr, BACKWARD: tl.constexpr,
              EVICT: tl.constexpr, STORE: tl.constexpr):
    """A group of heads of one token (`heads`: their indices, those >= n_heads masked)."""
    j = tl.arange(0, HALF_P2)[None, :]
    h = heads[:, None]
    mask = (h < n_heads) & (j < HALF)
    _rotate_store(X + x_off + h * sxh + j, O + o_off + h * soh + j, mask, cos1, sin1, cos2, sin2, HALF, BACKWARD,
                  EVICT, STORE)


@triton.jit(do_not_specialize=["n_tokens", "seq"])
def _rope(Q, K, C, S, QO, KO, n_tokens, seq, hq, hk,
          sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss,
          sqob, sqoh, sqos, skob, skoh, skos,
          HALF: tl.constexpr, HALF_P2: tl.constexpr, GQ: tl.constexpr, GK: tl.constexpr,
          PQ: tl.constexpr, PK: tl.constexpr, I64: tl.constexpr, BACKWARD: tl.constexpr):
    pid = tl.program_id(0)
    token = pid // (PQ + PK)
    part = pid % (PQ + PK)
    b = token // seq
    s = token % seq
    if I64:
        b = b.to(tl.int64)
        s = s.to(tl.int64)
    j = tl.arange(0, HALF_P2)[None, :]
    jm = j < HALF
    c_off = b * scb + s * scs
    s_off = b * ssb + s * sss
    cos1 = tl.load(C + c_off + j, mask=jm, other=0.0, eviction_policy="evict_last").to(tl.float32)
    cos2 = tl.load(C + c_off + HALF + j, mask=jm, other=0.0, eviction_policy="evict_last").to(tl.float32)
    sin1 = tl.load(S + s_off + j, mask=jm, other=0.0, eviction_policy="evict_last").to(tl.float32)
    sin2 = tl.load(S + s_off + HALF + j, mask=jm, other=0.0, eviction_policy="evict_last").to(tl.float32)
    # no variable is assigned in these branches: Triton (3.6) requires a name assigned in both
    # branches of an `if` to have one type, and the q and k head tiles differ (GQ vs GK)
    if part < PQ:
        _rotate_k(Q, QO, b * sqb + s * sqs, b * sqob + s * sqos, cos1, sin1, cos2, sin2,
                  part * GQ + tl.arange(0, GQ), hq, sqh, sqoh, HALF, HALF_P2, BACKWARD, "evict_first", "")
    else:
        _rotate_k(K, KO, b * skb + s * sks, b * skob + s * skos, cos1, sin1, cos2, sin2,
                  (part - PQ) * GK + tl.arange(0, GK), hk, skh, skoh, HALF, HALF_P2, BACKWARD, "evict_first", "")


# --------------------------------------------------------------------------------------
# The knobbed kernels (cfg given): the same arithmetic as _rope
# --------------------------------------------------------------------------------------


@triton.jit
def _token_k(Q, K, C, S, QO, KO, token, part, seq, hq, hk,
             sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss,
             sqob, sqoh, sqos, skob, skoh, skos,
             HALF: tl.constexpr, HALF_P2: tl.constexpr, GQ: tl.constexpr, GK: tl.constexpr,
             PQ: tl.constexpr, PK: tl.constexpr, I64: tl.constexpr, BACKWARD: tl.constexpr,
             QK_ONE: tl.constexpr, EVICT: tl.constexpr, CS_EVICT: tl.constexpr, STORE: tl.constexpr):
    b = token // seq
    s = token % seq
    if I64:
        b = b.to(tl.int64)
        s = s.to(tl.int64)
    j = tl.arange(0, HALF_P2)[None, :]
    jm = j < HALF
    c_off = b * scb + s * scs
    s_off = b * ssb + s * sss
    cos1 = tl.load(C + c_off + j, mask=jm, other=0.0, eviction_policy=CS_EVICT).to(tl.float32)
    cos2 = tl.load(C + c_off + HALF + j, mask=jm, other=0.0, eviction_policy=CS_EVICT).to(tl.float32)
    sin1 = tl.load(S + s_off + j, mask=jm, other=0.0, eviction_policy=CS_EVICT).to(tl.float32)
    sin2 = tl.load(S + s_off + HALF + j, mask=jm, other=0.0, eviction_policy=CS_EVICT).to(tl.float32)
    if QK_ONE:  # every head group of q and of k of this token, cos / sin read once
        for p in tl.static_range(PQ):
            _rotate_k(Q, QO, b * sqb + s * sqs, b * sqob + s * sqos, cos1, sin1, cos2, sin2,
                      p * GQ + tl.arange(0, GQ), hq, sqh, sqoh, HALF, HALF_P2, BACKWARD, EVICT, STORE)
        for p in tl.static_range(PK):
            _rotate_k(K, KO, b * skb + s * sks, b * skob + s * skos, cos1, sin1, cos2, sin2,
                      p * GK + tl.arange(0, GK), hk, skh, skoh, HALF, HALF_P2, BACKWARD, EVICT, STORE)
    else:
        if part < PQ:
            _rotate_k(Q, QO, b * sqb + s * sqs, b * sqob + s * sqos, cos1, sin1, cos2, sin2,
                      part * GQ + tl.arange(0, GQ), hq, sqh, sqoh, HALF, HALF_P2, BACKWARD, EVICT, STORE)
        else:
            _rotate_k(K, KO, b * skb + s * sks, b * skob + s * skos, cos1, sin1, cos2, sin2,
                      (part - PQ) * GK + tl.arange(0, GK), hk, skh, skoh, HALF, HALF_P2, BACKWARD, EVICT, STORE)


@triton.jit
def _item_k(Q, K, C, S, QO, KO, item, n_tokens, seq, hq, hk,
            sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss,
            sqob, sqoh, sqos, skob, skoh, skos,
            HALF: tl.constexpr, HALF_P2: tl.constexpr, GQ: tl.constexpr, GK: tl.constexpr,
            PQ: tl.constexpr, PK: tl.constexpr, I64: tl.constexpr, BACKWARD: tl.constexpr,
            T: tl.constexpr, QK_ONE: tl.constexpr, EVICT: tl.constexpr, CS_EVICT: tl.constexpr,
            STORE: tl.constexpr):
    if QK_ONE:
        tb = item
        part = item * 0
    else:
        tb = item // (PQ + PK)
        part = item % (PQ + PK)
    for tt in tl.static_range(T):
        token = tb * T + tt
        if T > 1:  # a last, partial block repeats its last token (the same values, written again)
            token = tl.minimum(token, n_tokens - 1)
        _token_k(Q, K, C, S, QO, KO, token, part, seq, hq, hk,
                 sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss, sqob, sqoh, sqos, skob, skoh, skos,
                 HALF, HALF_P2, GQ, GK, PQ, PK, I64, BACKWARD, QK_ONE, EVICT, CS_EVICT, STORE)


@triton.jit(do_not_specialize=["n_tokens", "seq", "n_items"])
def _rope_k(Q, K, C, S, QO, KO, n_tokens, seq, hq, hk,
            sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss,
            sqob, sqoh, sqos, skob, skoh, skos, n_items,
            HALF: tl.constexpr, HALF_P2: tl.constexpr, GQ: tl.constexpr, GK: tl.constexpr,
            PQ: tl.constexpr, PK: tl.constexpr, I64: tl.constexpr, BACKWARD: tl.constexpr,
            T: tl.constexpr, QK_ONE: tl.constexpr, PERSIST: tl.constexpr, EVICT: tl.constexpr,
            CS_EVICT: tl.constexpr, STORE: tl.constexpr):
    if PERSIST:
        for item in range(tl.program_id(0), n_items, tl.num_programs(0)):
            _item_k(Q, K, C, S, QO, KO, item, n_tokens, seq, hq, hk,
                    sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss, sqob, sqoh, sqos, skob, skoh, skos,
                    HALF, HALF_P2, GQ, GK, PQ, PK, I64, BACKWARD, T, QK_ONE, EVICT, CS_EVICT, STORE)
    else:
        _item_k(Q, K, C, S, QO, KO, tl.program_id(0), n_tokens, seq, hq, hk,
                sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss, sqob, sqoh, sqos, skob, skoh, skos,
                HALF, HALF_P2, GQ, GK, PQ, PK, I64, BACKWARD, T, QK_ONE, EVICT, CS_EVICT, STORE)


@triton.jit
def _rows_tile(X, O, C, S, r0, n_rows, heads, seq, sxb, sxh, sxs, sob, soh, sos, scb, scs, ssb, sss,
               R: tl.constexpr, HALF: tl.constexpr, HALF_P2: tl.constexpr, I64: tl.constexpr,
               BACKWARD: tl.constexpr, EVICT: tl.constexpr, CS_EVICT: tl.constexpr, STORE: tl.constexpr):
    rows = r0 + tl.arange(0, R)
    if I64:
        rows = rows.to(tl.int64)
    token = rows // heads
    h = rows % heads
    b = token // seq
    s = token % seq
    j = tl.arange(0, HALF_P2)[None, :]
    mask = (rows < n_rows)[:, None] & (j < HALF)
    co = (b * scb + s * scs)[:, None] + j
    so = (b * ssb + s * sss)[:, None] + j
    cos1 = tl.load(C + co, mask=mask, other=0.0, eviction_policy=CS_EVICT).to(tl.float32)
    cos2 = tl.load(C + co + HALF, mask=mask, other=0.0, eviction_policy=CS_EVICT).to(tl.float32)
    sin1 = tl.load(S + so, mask=mask, other=0.0, eviction_policy=CS_EVICT).to(tl.float32)
    sin2 = tl.load(S + so + HALF, mask=mask, other=0.0, eviction_policy=CS_EVICT).to(tl.float32)
    _rotate_store(X + (b * sxb + s * sxs + h * sxh)[:, None] + j, O + (b * sob + s * sos + h * soh)[:, None] + j,
                  mask, cos1, sin1, cos2, sin2, HALF, BACKWARD, EVICT, STORE)


@triton.jit
def _rows_item(Q, K, C, S, QO, KO, t, nq, n_tokens, seq, hq, hk,
               sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss,
               sqob, sqoh, sqos, skob, skoh, skos,
               R: tl.constexpr, HALF: tl.constexpr, HALF_P2: tl.constexpr, I64: tl.constexpr,
               BACKWARD: tl.constexpr, EVICT: tl.constexpr, CS_EVICT: tl.constexpr, STORE: tl.constexpr):
    if t < nq:
        _rows_tile(Q, QO, C, S, t * R, n_tokens * hq, hq, seq, sqb, sqh, sqs, sqob, sqoh, sqos,
                   scb, scs, ssb, sss, R, HALF, HALF_P2, I64, BACKWARD, EVICT, CS_EVICT, STORE)
    else:
        _rows_tile(K, KO, C, S, (t - nq) * R, n_tokens * hk, hk, seq, skb, skh, sks, skob, skoh, skos,
                   scb, scs, ssb, sss, R, HALF, HALF_P2, I64, BACKWARD, EVICT, CS_EVICT, STORE)


@triton.jit(do_not_specialize=["n_tokens", "seq", "n_items"])
def _rope_rows(Q, K, C, S, QO, KO, n_tokens, seq, hq, hk,
               sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss,
               sqob, sqoh, sqos, skob, skoh, skos, n_items,
               R: tl.constexpr, HALF: tl.constexpr, HALF_P2: tl.constexpr, I64: tl.constexpr,
               BACKWARD: tl.constexpr, PERSIST: tl.constexpr, EVICT: tl.constexpr,
               CS_EVICT: tl.constexpr, STORE: tl.constexpr):
    nq = tl.cdiv(n_tokens * hq, R)
    if PERSIST:
        for t in range(tl.program_id(0), n_items, tl.num_programs(0)):
            _rows_item(Q, K, C, S, QO, KO, t, nq, n_tokens, seq, hq, hk,
                       sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss, sqob, sqoh, sqos, skob, skoh, skos,
                       R, HALF, HALF_P2, I64, BACKWARD, EVICT, CS_EVICT, STORE)
    else:
        _rows_item(Q, K, C, S, QO, KO, tl.program_id(0), nq, n_tokens, seq, hq, hk,
                   sqb, sqh, sqs, skb, skh, sks, scb, scs, ssb, sss, sqob, sqoh, sqos, skob, skoh, skos,
                   R, HALF, HALF_P2, I64, BACKWARD, EVICT, CS_EVICT, STORE)


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SMS:
        _SMS[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SMS[idx]


def plan(tokens: int, hq: int, hk: int, head_dim: int, elsize: int, sms: int, tile_bytes: int = 8192) -> dict:
    """Heads per program for q and k, programs per token, and warps (see the module docstring)."""
    half_p2 = triton.next_power_of_2(head_dim // 2)
    per_head = 2 * half_p2 * elsize
    g_max = max(1, triton.next_power_of_2(max(1, tile_bytes // per_head)))
    gq = min(triton.next_power_of_2(hq), g_max)
    gk = min(triton.next_power_of_2(hk), g_max)

    def parts(a, b):
        return triton.cdiv(hq, a) + triton.cdiv(hk, b)

    while tokens * parts(gq, gk) < 2 * sms and max(gq, gk) > 1:
        if gq >= gk and gq > 1:
            gq //= 2
        else:
            gk //= 2
    pq, pk = triton.cdiv(hq, gq), triton.cdiv(hk, gk)
    vec = 16 // elsize
    tile = max(gq, gk) * 2 * half_p2
    num_warps = max(1, min(8, tile // (vec * 2 * 32)))
    return {"GQ": gq, "GK": gk, "PQ": pq, "PK": pk, "num_warps": num_warps, "programs": tokens * (pq + pk)}


#: The launch knobs and their defaults (today's geometry; see the module docstring).
KNOBS = {"layout": "grouped", "tile_bytes": 8192, "tokens": 1, "num_warps": None, "evict": "evict_first",
         "cs_evict": "evict_last", "store": "", "num_stages": 1, "persistent": 0}
_CHOICES = {"layout": ("grouped", "split", "token", "rows"), "evict": ("evict_first", "", "evict_last"),
            "cs_evict": ("evict_last", "", "evict_first"), "store": ("", ".cs", ".cg", ".wt")}


def _knobs(cfg) -> dict:
    """KNOBS overridden by `cfg` (None or a dict of some of KNOBS' keys), checked."""
    k = dict(KNOBS)
    if not cfg:
        return k
    unknown = sorted(set(cfg) - set(KNOBS))
    if unknown:
        raise ValueError(f"unknown launch knob(s) {unknown}; known: {sorted(KNOBS)}")
    k.update(cfg)
    for name in ("evict", "cs_evict", "store"):
        if k[name] in ("none", None):
            k[name] = ""
    for name, allowed in _CHOICES.items():
        if k[name] not in allowed:
            raise ValueError(f"launch knob {name}={k[name]!r}: use one of {allowed}")
    tb = k["tile_bytes"]
    if not isinstance(tb, int) or tb < 16 or tb & (tb - 1):
        raise ValueError(f"tile_bytes must be a power of two >= 16, got {tb!r}")
    nw = k["num_warps"]
    if nw is not None and (not isinstance(nw, int) or nw < 1 or nw > 32 or nw & (nw - 1)):
        raise ValueError(f"num_warps must be None or a power of two in 1..32, got {nw!r}")
    if not isinstance(k["tokens"], int) or not 1 <= k["tokens"] <= 64:
        raise ValueError(f"tokens must be an int in 1..64, got {k['tokens']!r}")
    if not isinstance(k["num_stages"], int) or k["num_stages"] < 1:
        raise ValueError(f"num_stages must be an int >= 1, got {k['num_stages']!r}")
    if not isinstance(k["persistent"], int) or k["persistent"] < 0:
        raise ValueError(f"persistent must be an int >= 0 (programs per SM), got {k['persistent']!r}")
    return k


def launch_config(tokens: int, hq: int, hk: int, head_dim: int, elsize: int, sms: int, cfg=None) -> dict:
    """The launch of `_rope_k` / `_rope_rows` under the knobs `cfg`: kernel, constexprs, warps,
    stages and one (items, grid) pair per launch. With cfg None it is plan()'s geometry."""
    k = _knobs(cfg)
    half_p2 = triton.next_power_of_2(head_dim // 2)
    per_head = 2 * half_p2 * elsize
    vec = 16 // elsize
    lay = k["layout"]
    if lay == "rows":
        r = max(1, triton.next_power_of_2(max(1, k["tile_bytes"] // per_head)))
        r = min(r, triton.next_power_of_2(max(1, tokens * max(hq, hk))))

        def progs(r_):
            return triton.cdiv(tokens * hq, r_) + triton.cdiv(tokens * hk, r_)

        while progs(r) < 2 * sms and r > 1:
            r //= 2
        out = {"kernel": "rows", "R": r, "num_warps": max(1, min(8, r * 2 * half_p2 // (vec * 2 * 32))),
               "launches": [progs(r)]}
    else:
        t = k["tokens"]
        blocks = triton.cdiv(tokens, t)
        if lay == "token":
            g_max = max(1, triton.next_power_of_2(max(1, k["tile_bytes"] // per_head)))
            gq = min(triton.next_power_of_2(hq), g_max)
            gk = min(triton.next_power_of_2(hk), g_max)
            pq, pk = triton.cdiv(hq, gq), triton.cdiv(hk, gk)
            nw = max(1, min(8, max(gq, gk) * 2 * half_p2 // (vec * 2 * 32)))
            launches = [blocks]
        else:
            p = plan(blocks, hq, hk, head_dim, elsize, sms, k["tile_bytes"])
            gq, gk, pq, pk, nw = p["GQ"], p["GK"], p["PQ"], p["PK"], p["num_warps"]
            launches = [blocks * (pq + pk)] if lay == "grouped" else [blocks * pq, blocks * pk]
        out = {"kernel": "grouped", "GQ": gq, "GK": gk, "PQ": pq, "PK": pk, "T": t, "QK_ONE": lay == "token",
               "num_warps": nw, "launches": launches}
    if k["num_warps"] is not None:
        out["num_warps"] = k["num_warps"]
    out["num_stages"] = k["num_stages"]
    out["EVICT"], out["CS_EVICT"], out["STORE"] = k["evict"], k["cs_evict"], k["store"]
    out["PERSIST"] = k["persistent"] > 0
    out["grids"] = [min(n, k["persistent"] * sms) if out["PERSIST"] else n for n in out["launches"]]
    out["layout"] = lay
    return out


def _check(name, t, dims, dtype=None, device=None):
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor")
    if t.dim() not in dims:
        raise ValueError(f"{name} must have {' or '.join(map(str, dims))} dimensions, got shape {tuple(t.shape)}")
    if t.dtype not in _SUPPORTED:
        raise ValueError(f"{name} has dtype {t.dtype}; use float32, float16 or bfloat16")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} has dtype {t.dtype}, expected {dtype}")
    if device is not None and t.device != device:
        raise ValueError(f"{name} is on {t.device}, expected {device}")
    if t.device.type != "cuda" and not _INTERPRET:
        raise ValueError(f"{name} must be a CUDA tensor (or run under TRITON_INTERPRET=1)")


def _unit_last(t):
    return t if t.shape[-1] <= 1 or t.stride(-1) == 1 else t.contiguous()


def _apply(q, k, cos, sin, backward: bool, cache: bool = True, knobs=None):
    _check("q", q, (4,))
    _check("k", k, (4,), q.dtype, q.device)
    _check("cos", cos, (2, 3), None, q.device)
    _check("sin", sin, (2, 3), cos.dtype, q.device)
    batch, hq, seq, d = q.shape
    if k.shape[0] != batch or k.shape[2] != seq or k.shape[3] != d:
        raise ValueError(f"k has shape {tuple(k.shape)}; expected [{batch}, heads_kv, {seq}, {d}] to match q")
    if d % 2:
        raise ValueError(f"head_dim must be even, got {d}")
    if cos.shape != sin.shape:
        raise ValueError(f"cos and sin shapes differ: {tuple(cos.shape)} vs {tuple(sin.shape)}")
    c3 = cos.unsqueeze(0) if cos.dim() == 2 else cos
    s3 = sin.unsqueeze(0) if sin.dim() == 2 else sin
    if c3.shape[1:] != (seq, d) or c3.shape[0] not in (1, batch):
        raise ValueError(f"cos/sin have shape {tuple(cos.shape)}; expected [{seq}, {d}] or [1 or {batch}, {seq}, {d}]")
    key = _key(q, k, cos, sin, backward)
    q, k, c3, s3 = _unit_last(q), _unit_last(k), _unit_last(c3), _unit_last(s3)
    qo = torch.empty_like(q)
    ko = torch.empty_like(k)
    hk = k.shape[1]
    tokens = batch * seq
    if tokens == 0 or (hq == 0 and hk == 0):
        return qo, ko
    scb = c3.stride(0) if c3.shape[0] > 1 else 0
    ssb = s3.stride(0) if s3.shape[0] > 1 else 0
    cfg = plan(tokens, hq, hk, d, q.element_size(), _sm_count(q.device))

    def extent(t):
        return sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride()) if n > 0) + 1

    i64 = max(extent(t) for t in (q, k, qo, ko, c3, s3)) > _INT32_MAX
    if knobs:
        _launch_k(q, k, c3, s3, qo, ko, tokens, seq, hq, hk, scb, ssb, d, i64, backward, knobs)
        return qo, ko
    ints = (tokens, seq, hq, hk,
            q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1), k.stride(2),
            scb, c3.stride(1), ssb, s3.stride(1),
            qo.stride(0), qo.stride(1), qo.stride(2), ko.stride(0), ko.stride(1), ko.stride(2))
    tail = (d // 2, triton.next_power_of_2(d // 2), cfg["GQ"], cfg["GK"], cfg["PQ"], cfg["PK"], i64, backward)
    grid = cfg["programs"]
    if q.device.type != "cuda":
        _rope[(grid,)](q, k, c3, s3, qo, ko, *ints, *tail, num_warps=cfg["num_warps"], num_stages=1)
        return qo, ko
    with torch.cuda.device(q.device):
        ck = _rope[(grid,)](q, k, c3, s3, qo, ko, *ints, *tail, num_warps=cfg["num_warps"], num_stages=1)
        if cache and _FAST_ENABLED and key is not None and key not in _FAST:
            entry = _verify_fast(ck, grid, (q, k, c3, s3), (qo, ko), ints, tail)
            if entry is not None:
                _FAST[key] = entry
    return qo, ko


def _launch_k(q, k, c3, s3, qo, ko, tokens, seq, hq, hk, scb, ssb, d, i64, backward, cfg):
    """The knobbed launch(es) (cfg given; no lean path)."""
    lc = launch_config(tokens, hq, hk, d, q.element_size(), _sm_count(q.device), cfg)
    cs = (scb, c3.stride(1), ssb, s3.stride(1))
    qs = (q.stride(0), q.stride(1), q.stride(2))
    ks = (k.stride(0), k.stride(1), k.stride(2))
    qos = (qo.stride(0), qo.stride(1), qo.stride(2))
    kos = (ko.stride(0), ko.stride(1), ko.stride(2))
    hints = dict(PERSIST=lc["PERSIST"], EVICT=lc["EVICT"], CS_EVICT=lc["CS_EVICT"], STORE=lc["STORE"],
                 num_warps=lc["num_warps"], num_stages=lc["num_stages"])
    half, half_p2 = d // 2, triton.next_power_of_2(d // 2)
    with _device_ctx(q):
        if lc["kernel"] == "rows":
            n, g = lc["launches"][0], lc["grids"][0]
            _rope_rows[(g,)](q, k, c3, s3, qo, ko, tokens, seq, hq, hk, *qs, *ks, *cs, *qos, *kos, n,
                             R=lc["R"], HALF=half, HALF_P2=half_p2, I64=i64, BACKWARD=backward, **hints)
            return
        common = dict(HALF=half, HALF_P2=half_p2, I64=i64, BACKWARD=backward, T=lc["T"], QK_ONE=lc["QK_ONE"],
                      **hints)
        if lc["layout"] != "split":
            _rope_k[(lc["grids"][0],)](q, k, c3, s3, qo, ko, tokens, seq, hq, hk, *qs, *ks, *cs, *qos, *kos,
                                       lc["launches"][0], GQ=lc["GQ"], GK=lc["GK"], PQ=lc["PQ"], PK=lc["PK"],
                                       **common)
            return
        # split: q alone (PK = 0), then k alone in q's place
        for (x, xo, h, xs, xos, g, p), n, grid in zip(
                ((q, qo, hq, qs, qos, lc["GQ"], lc["PQ"]), (k, ko, hk, ks, kos, lc["GK"], lc["PK"])),
                lc["launches"], lc["grids"]):
            if n == 0:
                continue
            _rope_k[(grid,)](x, x, c3, s3, xo, xo, tokens, seq, h, 0, *xs, *xs, *cs, *xos, *xos, n,
                             GQ=g, GK=1, PQ=p, PK=0, **common)


def _device_ctx(t):
    return torch.cuda.device(t.device) if t.device.type == "cuda" else _Null()


# --------------------------------------------------------------------------------------
# Lean host path for decode-sized calls: after a normal launch of a (shapes, strides, dtypes,
# device) key, the compiled kernel and its integer arguments are kept, checked once to give
# bit-identical outputs when launched directly, and later calls of that key skip Triton's
# argument binding. Anything unusual (misaligned pointers, no cached key) takes the normal path.
# --------------------------------------------------------------------------------------

_FAST: dict = {}
_FAST_ENABLED = os.environ.get("KR_TRITON_NO_FAST_LAUNCH", "0") in ("", "0")
_raw_stream = None
_get_device = None


def _key(q, k, cos, sin, backward):
    """The cache key of a call, or None for calls the lean path never takes."""
    try:
        dev = q.get_device()
        if dev < 0 or k.get_device() != dev or cos.get_device() != dev or sin.get_device() != dev \
                or k.dtype != q.dtype or sin.dtype != cos.dtype \
                or 1 not in (q.stride(-1), q.shape[-1]) or 1 not in (k.stride(-1), k.shape[-1]) \
                or cos.stride(-1) != 1 or sin.stride(-1) != 1:
            return None
        return (backward, q.dtype, cos.dtype, dev, tuple(q.shape), q.stride(), tuple(k.shape), k.stride(),
                tuple(cos.shape), cos.stride(), sin.stride())
    except (AttributeError, RuntimeError, IndexError):
        return None


def _verify_fast(ck, grid, ins, outs, ints, tail):
    global _raw_stream, _get_device
    try:
        if torch.cuda.is_current_stream_capturing() or any(t.data_ptr() & 15 for t in (*ins, *outs)):
            return None  # decide on a later, ordinary call
        _raw_stream = torch._C._cuda_getCurrentRawStream
        _get_device = torch._C._cuda_getDevice
        if _get_device() != ins[0].get_device():
            return None
        outs_b = [torch.empty_like(t) for t in outs]
        dev = ins[0].get_device()
        ck.run(grid, 1, 1, _raw_stream(dev), ck.function, ck.packed_metadata, None, None, None,
               *(t.data_ptr() for t in ins), *(t.data_ptr() for t in outs_b), *ints, *tail)
        same = all(torch.equal(a.view(torch.uint8), b.view(torch.uint8)) for a, b in zip(outs, outs_b))
    except Exception:  # noqa: BLE001 - any incompatibility: keep the normal path
        same = False
    return (ck, grid, ints, tail) if same else False


def _launch_fast(q, k, cos, sin, backward):
    key = _key(q, k, cos, sin, backward)
    entry = _FAST.get(key)
    if not entry:
        return None
    c3 = cos if cos.dim() == 3 else cos.unsqueeze(0)
    s3 = sin if sin.dim() == 3 else sin.unsqueeze(0)
    if (q.data_ptr() | k.data_ptr() | c3.data_ptr() | s3.data_ptr()) & 15:
        return None
    ck, grid, ints, tail = entry
    dev = q.get_device()
    if _get_device() != dev:
        return None
    qo = torch.empty_like(q)
    ko = torch.empty_like(k)
    ck.run(grid, 1, 1, _raw_stream(dev), ck.function, ck.packed_metadata, None, None, None,
           q.data_ptr(), k.data_ptr(), c3.data_ptr(), s3.data_ptr(), qo.data_ptr(), ko.data_ptr(), *ints, *tail)
    return qo, ko


def fast_path_status() -> dict:
    """For tests and benchmarks: which keys launch through the lean path."""
    return {str(key): bool(v) for key, v in _FAST.items()}


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def rope_forward(q, k, cos, sin, *, cfg: dict | None = None):
    """(q_embed, k_embed) = (x * cos + rotate_half(x) * sin for x in q, k); new tensors.
    `cfg`: launch knobs (KNOBS; None: today's launch)."""
    if cfg:
        _knobs(cfg)
        return _apply(q, k, cos, sin, backward=False, knobs=cfg)
    if _FAST:
        out = _launch_fast(q, k, cos, sin, False)
        if out is not None:
            return out
    return _apply(q, k, cos, sin, backward=False)


def rope_backward(dq_embed, dk_embed, cos, sin, *, cfg: dict | None = None):
    """(dq, dk): the gradients of q and k from those of q_embed and k_embed; new tensors.
    `cfg`: launch knobs (KNOBS; None: today's launch)."""
    if cfg:
        _knobs(cfg)
        return _apply(dq_embed, dk_embed, cos, sin, backward=True, knobs=cfg)
    if _FAST:
        out = _launch_fast(dq_embed, dk_embed, cos, sin, True)
        if out is not None:
            return out
    return _apply(dq_embed, dk_embed, cos, sin, backward=True)
