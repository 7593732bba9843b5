"""Kernel Records' own Triton SwiGLU, forward and backward, one pass over memory each.

Numerics, forward (Hugging Face `act_fn(gate) * up` with `act_fn = SiLU`, the convention of
the eager baseline and of Liger-Kernel):

    s = silu(float32(gate)) rounded to the input dtype        (what F.silu returns)
    y = float32(s) * float32(up) rounded to the input dtype   (the bf16 multiply)

Backward, from dy, gate and up (nothing saved from the forward; silu recomputed), everything in
float32 and rounded once per output:

    sig   = sigmoid(g);  silu = g * sig
    dup   = dy * silu
    dgate = dy * up * sig * (1 + g * (1 - sig))

Layouts: every tensor is a 2-D [rows, cols] view with unit column stride and any row stride,
so the fused [tokens, 2 x intermediate] layout is just two column-offset views of one tensor
(gate = gate_up[:, :I], up = gate_up[:, I:]) and needs no copy. When every tensor is contiguous
the rows are collapsed into one long row (purely element-wise, no column padding).

Accesses: the kernels take each tensor as an aligned base pointer plus an element offset
(`_aligned_base`: the up half is gate_up's 16-byte aligned start at offset I, not a pointer of
its own) and a constexpr A, the widest access (a power of two, up to 16 bytes) dividing every
offset, row stride and base alignment, which `_rowoff` states with `tl.multiple_of`. Triton by
itself knows an argument's alignment only when it is a multiple of 16 (bytes for a pointer,
elements for an integer), so in the fused layout at I not a multiple of 8 every access moved
2 bytes (`ld.global.b16`), and at I = 8 mod 16 those of y and dy (row stride I). Now the full
tiles move 8 bytes at I = 4 mod 8, 4 at I = 2 or 6 mod 8 and 16 at I = 8 mod 16; an odd I
stays at 2 bytes (its rows start at either parity). Only addresses change, never an element's
arithmetic (the same bits). Edge tiles' masked steps are as before (scalar where the column
count is not a multiple of 16: the mask's bound is of unknown alignment).

Launch configuration (`plan`): a model of the shape, not a table of workloads. A program owns a
BLOCK_R x BLOCK_C tile of 2 KB per tensor, one 16-byte vector per thread per tensor (1024 bf16
elements on 4 warps, Inductor's pointwise shape); a one-row launch whose grid would have fewer
than SMALL_GRID_PER_SM programs per SM takes a larger tile (up to 8 KB, at least 3 programs
per SM; up to 8 warps). BLOCK_C is the largest power of
two (up to the tile) that pads at most 1/64 of the columns (WASTE_OK), else the one that pads
least; the tile is halved while the grid would have fewer than two programs per SM, down to
one warp of vectors, so a one-token call still spreads over many SMs. Tiles wholly inside the
tensor load and store unmasked; an edge tile runs masked in SUB_R x SUB_C steps of one vector
per thread (`sub_tile`), which keeps the kernel's registers at the unmasked path's count. Loads
carry the evict_first hint only in passes moving less than EVICT_MAX_BYTES (80 MiB): above it
the hint measured up to 7 % slower. The H200 sweeps behind these choices: lab/swiglu/NOTES.md.

Launch knobs (`cfg`, a keyword of the four entry points; for sweeps, lab/swiglu/sweep.py; the
defaults, `KNOBS`, are the shipped launch, the same as cfg None): `tile_bytes` per tensor per
program (plan's target), `num_warps` (None: the plan's, one vector per thread),
`evict` (the loads' eviction hint: "auto" by size as above, "evict_first", "" for none,
"evict_last"), `store` (the stores' cache
modifier: "" or ".cs", ".cg", ".wt"), `num_stages`, `layout` ("tile", or "row": one program per
row holding the whole row, BLOCK_C = next_pow2(cols), and no collapse of contiguous rows; in
the fused layout each program reads both halves of its row) and `persistent` (0: one program
per tile; k > 0: min(tiles, k x SMs) programs, each looping over tiles with a grid stride).
Every choice computes the same values (the numerics above do not depend on the tile).
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

__all__ = ["swiglu_forward", "swiglu_backward", "swiglu_fused_forward", "swiglu_fused_backward", "plan",
           "sub_tile", "launch_config", "KNOBS", "default_evict", "EVICT_MAX_BYTES"]

_INT32_MAX = 2**31 - 1
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
_SUPPORTED = (torch.float32, torch.bfloat16, torch.float16)
_SMS: dict = {}


@triton.jit
def _span(r0, c0, n_rows, n_cols, R: tl.constexpr, C: tl.constexpr):
    """Row and column indices of the R x C span at (r0, c0), and its in-bounds mask."""
    rows = r0 + tl.arange(0, R)
    cols = c0 + tl.arange(0, C)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    return rows[:, None], cols[None, :], mask


@triton.jit
def _rowoff(r0, R: tl.constexpr, s, o, A: tl.constexpr):
    """Offsets from the base pointer of the first elements of rows r0 .. r0 + R - 1: o + r * s,
    [R, 1] (a scalar when R is 1). A > 1 is the launch's word (`_launch`) that A divides o, s
    and the base's address in elements; said to the compiler (`tl.multiple_of`), a row's columns
    load and store A elements at a time. Without it Triton knows an integer argument's
    divisibility only when it is a multiple of 16, and nothing of the fused layout's I-column
    rows at I not a multiple of 16."""
    if R == 1:  # a scalar: the [1, 1] form folds to one, and a 2-D hint on it fails to compile
        ro = o + r0 * s
        if A > 1:
            ro = tl.multiple_of(ro, A)
    else:
        ro = o + (r0 + tl.arange(0, R))[:, None] * s
        if A > 1:
            ro = tl.multiple_of(ro, [A, A])
    return ro


@triton.jit
def _ld(P, off, mask, EVEN: tl.constexpr, EVICT: tl.constexpr):
    if EVEN:
        return tl.load(P + off, eviction_policy=EVICT)
    return tl.load(P + off, mask=mask, other=0.0, eviction_policy=EVICT)


@triton.jit
def _st(P, off, v, mask, EVEN: tl.constexpr, STORE: tl.constexpr):
    if EVEN:
        tl.store(P + off, v, cache_modifier=STORE)
    else:
        tl.store(P + off, v, mask=mask, cache_modifier=STORE)


@triton.jit
def _fwd_span(G, U, Y, r0, c0, n_rows, n_cols, sg, su, sy, og, ou, oy, R: tl.constexpr, C: tl.constexpr,
              EVEN: tl.constexpr, EVICT: tl.constexpr, STORE: tl.constexpr, A: tl.constexpr):
    r, c, mask = _span(r0, c0, n_rows, n_cols, R, C)
    g = _ld(G, _rowoff(r0, R, sg, og, A) + c, mask, EVEN, EVICT).to(tl.float32)
    u = _ld(U, _rowoff(r0, R, su, ou, A) + c, mask, EVEN, EVICT)
    s = (g * tl.sigmoid(g)).to(u.dtype)
    y = (s.to(tl.float32) * u.to(tl.float32)).to(Y.dtype.element_ty)
    _st(Y, _rowoff(r0, R, sy, oy, A) + c, y, mask, EVEN, STORE)


@triton.jit
def _bwd_span(DY, G, U, DG, DU, r0, c0, n_rows, n_cols, sdy, sg, su, sdg, sdu, ody, og, ou, odg, odu,
              R: tl.constexpr, C: tl.constexpr, EVEN: tl.constexpr, EVICT: tl.constexpr, STORE: tl.constexpr,
              A: tl.constexpr):
    r, c, mask = _span(r0, c0, n_rows, n_cols, R, C)
    dy = _ld(DY, _rowoff(r0, R, sdy, ody, A) + c, mask, EVEN, EVICT).to(tl.float32)
    g = _ld(G, _rowoff(r0, R, sg, og, A) + c, mask, EVEN, EVICT).to(tl.float32)
    u = _ld(U, _rowoff(r0, R, su, ou, A) + c, mask, EVEN, EVICT).to(tl.float32)
    sig = tl.sigmoid(g)
    silu = g * sig
    du = dy * silu
    dg = dy * u * (sig * (1.0 + g * (1.0 - sig)))
    _st(DG, _rowoff(r0, R, sdg, odg, A) + c, dg.to(DG.dtype.element_ty), mask, EVEN, STORE)
    _st(DU, _rowoff(r0, R, sdu, odu, A) + c, du.to(DU.dtype.element_ty), mask, EVEN, STORE)


@triton.jit
def _origin(pid, n_rows, n_cols, n_col_blocks, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
            I64: tl.constexpr, EVEN: tl.constexpr):
    """A tile's first row and column, and whether it lies wholly inside the tensor (always so
    when EVEN: `| EVEN` folds the test away at compile time)."""
    if I64:  # offsets past 2^31 - 1 elements (a collapsed row of more than 2^31 elements too)
        pid = pid.to(tl.int64)
    r0 = (pid // n_col_blocks) * BLOCK_R
    c0 = (pid % n_col_blocks) * BLOCK_C
    full = ((r0 + BLOCK_R <= n_rows) & (c0 + BLOCK_C <= n_cols)) | EVEN
    return r0, c0, full


@triton.jit
def _fwd_tile(G, U, Y, pid, n_rows, n_cols, n_col_blocks, sg, su, sy, og, ou, oy, BLOCK_R: tl.constexpr,
              BLOCK_C: tl.constexpr, SUB_R: tl.constexpr, SUB_C: tl.constexpr, I64: tl.constexpr,
              EVEN: tl.constexpr, EVICT: tl.constexpr, STORE: tl.constexpr, A: tl.constexpr):
    r0, c0, full = _origin(pid, n_rows, n_cols, n_col_blocks, BLOCK_R, BLOCK_C, I64, EVEN)
    if full:  # unmasked: A-element vectors (16 bytes wherever the rows allow; see _rowoff)
        _fwd_span(G, U, Y, r0, c0, n_rows, n_cols, sg, su, sy, og, ou, oy, BLOCK_R, BLOCK_C, True, EVICT, STORE, A)
    else:  # an edge tile, masked, in SUB_R x SUB_C steps (see _bwd_tile)
        for s in range(0, (BLOCK_R // SUB_R) * (BLOCK_C // SUB_C)):
            _fwd_span(G, U, Y, r0 + (s // (BLOCK_C // SUB_C)) * SUB_R, c0 + (s % (BLOCK_C // SUB_C)) * SUB_C,
                      n_rows, n_cols, sg, su, sy, og, ou, oy, SUB_R, SUB_C, False, EVICT, STORE, A)


@triton.jit(do_not_specialize=["n_rows"])
def _fwd(G, U, Y, n_rows, n_cols, n_col_blocks, sg, su, sy, og, ou, oy,
         BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, SUB_R: tl.constexpr, SUB_C: tl.constexpr,
         I64: tl.constexpr, EVEN: tl.constexpr, EVICT: tl.constexpr = "evict_first", STORE: tl.constexpr = "",
         PERSIST: tl.constexpr = False, A: tl.constexpr = 1):
    """Pointers are the tensors' aligned bases (`_aligned_base`), og/ou/oy the element offsets of
    their [0, 0] elements, s* the row strides, A the access width they allow (`_launch`)."""
    if PERSIST:  # a grid stride over the tiles (the `persistent` knob)
        n_tiles = tl.cdiv(n_rows, BLOCK_R) * n_col_blocks
        for t in range(tl.program_id(0), n_tiles, tl.num_programs(0)):
            _fwd_tile(G, U, Y, t, n_rows, n_cols, n_col_blocks, sg, su, sy, og, ou, oy, BLOCK_R, BLOCK_C, SUB_R,
                      SUB_C, I64, EVEN, EVICT, STORE, A)
    else:
        _fwd_tile(G, U, Y, tl.program_id(0), n_rows, n_cols, n_col_blocks, sg, su, sy, og, ou, oy, BLOCK_R,
                  BLOCK_C, SUB_R, SUB_C, I64, EVEN, EVICT, STORE, A)


@triton.jit
def _bwd_tile(DY, G, U, DG, DU, pid, n_rows, n_cols, n_col_blocks, sdy, sg, su, sdg, sdu, ody, og, ou, odg, odu,
              BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, SUB_R: tl.constexpr, SUB_C: tl.constexpr,
              I64: tl.constexpr, EVEN: tl.constexpr, EVICT: tl.constexpr, STORE: tl.constexpr, A: tl.constexpr):
    r0, c0, full = _origin(pid, n_rows, n_cols, n_col_blocks, BLOCK_R, BLOCK_C, I64, EVEN)
    if full:
        _bwd_span(DY, G, U, DG, DU, r0, c0, n_rows, n_cols, sdy, sg, su, sdg, sdu, ody, og, ou, odg, odu,
                  BLOCK_R, BLOCK_C, True, EVICT, STORE, A)
    else:
        # A masked access of unknown alignment is scalar: the whole tile masked at once held
        # 139 registers in the sm_90 backward (64 unmasked), so every program of the kernel ran
        # at a third of the occupancy. In steps of one vector per thread the masked path stays
        # within the unmasked one's registers (plan's SUB_R x SUB_C).
        for s in range(0, (BLOCK_R // SUB_R) * (BLOCK_C // SUB_C)):
            _bwd_span(DY, G, U, DG, DU, r0 + (s // (BLOCK_C // SUB_C)) * SUB_R,
                      c0 + (s % (BLOCK_C // SUB_C)) * SUB_C, n_rows, n_cols, sdy, sg, su, sdg, sdu,
                      ody, og, ou, odg, odu, SUB_R, SUB_C, False, EVICT, STORE, A)


@triton.jit(do_not_specialize=["n_rows"])
def _bwd(DY, G, U, DG, DU, n_rows, n_cols, n_col_blocks, sdy, sg, su, sdg, sdu, ody, og, ou, odg, odu,
         BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, SUB_R: tl.constexpr, SUB_C: tl.constexpr,
         I64: tl.constexpr, EVEN: tl.constexpr, EVICT: tl.constexpr = "evict_first", STORE: tl.constexpr = "",
         PERSIST: tl.constexpr = False, A: tl.constexpr = 1):
    """As _fwd: aligned bases, element offsets o*, row strides s*, access width A."""
    if PERSIST:
        n_tiles = tl.cdiv(n_rows, BLOCK_R) * n_col_blocks
        for t in range(tl.program_id(0), n_tiles, tl.num_programs(0)):
            _bwd_tile(DY, G, U, DG, DU, t, n_rows, n_cols, n_col_blocks, sdy, sg, su, sdg, sdu, ody, og, ou, odg,
                      odu, BLOCK_R, BLOCK_C, SUB_R, SUB_C, I64, EVEN, EVICT, STORE, A)
    else:
        _bwd_tile(DY, G, U, DG, DU, tl.program_id(0), n_rows, n_cols, n_col_blocks, sdy, sg, su, sdg, sdu,
                  ody, og, ou, odg, odu, BLOCK_R, BLOCK_C, SUB_R, SUB_C, I64, EVEN, EVICT, STORE, A)


# --------------------------------------------------------------------------------------
# Launch model
# --------------------------------------------------------------------------------------


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132  # the interpreter: any count gives the same arithmetic
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SMS:
        _SMS[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return _SMS[idx]


#: A column block padding at most this fraction of the row is taken as it is (the largest such
#: block); otherwise the block that pads least. Without it a collapsed contiguous call (one long
#: row) whose length is not a multiple of the full tile fell to the smallest block, a 512-byte
#: tile per program in one warp: 1.5-1.7x slower than torch.compile on the seed-1217 shapes of
#: 2026-12-03 (e.g. 6042 x 22592 forward, 324.4 against 187.8 us).
WASTE_OK = 1 / 64


#: A one-row launch (a collapsed contiguous call) that would have fewer than SMALL_GRID_PER_SM
#: programs per SM at the 2 KB tile takes the largest tile up to SMALL_TILE_MAX bytes that keeps
#: at least SMALL_MIN_PER_SM programs per SM, on up to 8 warps. H200 size-class sweep of
#: 2026-12-04 (lab/swiglu/NOTES.md): at 10-20 MB (7-25 programs per SM at 2 KB) 4-8 KB tiles on
#: 8 warps were 3-6 % faster (233 x 11501 forward 5.01 against 5.33 us; 8 KB there, with 2.5
#: programs per SM, 6.07); from ~600 MB up (hundreds per SM) 8 KB was 0.3-1.6 % slower than 2 KB.
#: Nothing was measured between, so the threshold stays near the measured gains.
SMALL_GRID_PER_SM = 32
SMALL_TILE_MAX = 8192
SMALL_MIN_PER_SM = 3


def plan(n_rows: int, n_cols: int, elsize: int, sms: int, tile_bytes: int = 2048) -> dict:
    """Tile and warps for an [n_rows, n_cols] element-wise pass (see the module docstring)."""
    vec = 16 // elsize                       # elements per 16-byte vector
    target = tile_bytes // elsize            # elements per tensor per program
    if n_rows == 1 and triton.cdiv(n_cols, target) < SMALL_GRID_PER_SM * sms:
        while 2 * target * elsize <= SMALL_TILE_MAX and triton.cdiv(n_cols, 2 * target) >= SMALL_MIN_PER_SM * sms:
            target *= 2
    min_tile = vec * 32                      # one warp, one vector per thread
    cols_p2 = triton.next_power_of_2(n_cols)
    best = None
    c = min(cols_p2, target)
    while c >= min(cols_p2, max(vec, target // 16)):
        waste = (triton.cdiv(n_cols, c) * c - n_cols) / n_cols
        if waste <= WASTE_OK:  # the largest block that pads at most WASTE_OK of the row
            best = (c, waste)
            break
        if best is None or waste < best[1] - 1e-9:
            best = (c, waste)
        c //= 2
    block_c = best[0]
    block_r = max(1, min(target // block_c, triton.next_power_of_2(n_rows)))

    def programs(br, bc):
        return triton.cdiv(n_rows, br) * triton.cdiv(n_cols, bc)

    while programs(block_r, block_c) < 2 * sms and block_r * block_c > min_tile:
        if block_r > 1:
            block_r //= 2
        else:
            block_c //= 2
    tile = block_r * block_c
    num_warps = max(1, min(8, tile // (vec * 32)))  # one 16-byte vector per thread per tensor
    even = n_rows % block_r == 0 and n_cols % block_c == 0
    return {"BLOCK_R": block_r, "BLOCK_C": block_c, "num_warps": num_warps, "EVEN": even,
            "programs": programs(block_r, block_c), **sub_tile(block_r, block_c, elsize, num_warps)}


def sub_tile(block_r: int, block_c: int, elsize: int, num_warps: int) -> dict:
    """The step of an edge tile's masked path: one 16-byte vector per thread (columns first)."""
    per_step = (16 // elsize) * 32 * num_warps
    sub_c = min(block_c, per_step)
    return {"SUB_R": max(1, min(block_r, per_step // sub_c)), "SUB_C": sub_c}


#: Passes moving at least this many bytes load without the evict_first hint. H200 sweep of
#: 2026-12-03 (lab/swiglu/NOTES.md): the hint costs 3-7 % from ~150 MB up (e.g. 8192 x 14336
#: forward 173.1 against 164.3 us) and saves 9-15 % at 52-69 MB (the fused backward at 3412 x
#: 1531: 21.97 against 25.36 us). The second sweep (2026-12-04, call 6) put the edge lower: at
#: 95 MB (fused 1021 x 9280 backward) no hint 25.01 against 26.07 us, at 112 MB (1048 x 17756
#: forward) 27.74 against 29.55, while at 52 and 69 MB the hint still won.
EVICT_MAX_BYTES = 80 << 20


def default_evict(moved_bytes: int) -> str:
    """The shipped launch's load hint for a pass moving `moved_bytes` (see EVICT_MAX_BYTES)."""
    return "evict_first" if moved_bytes < EVICT_MAX_BYTES else ""


#: The launch knobs and their defaults (today's launch; see the module docstring).
KNOBS = {"tile_bytes": 2048, "num_warps": None, "evict": "auto", "store": "", "num_stages": 1,
         "layout": "tile", "persistent": 0}
_CHOICES = {"evict": ("auto", "evict_first", "", "evict_last"), "store": ("", ".cs", ".cg", ".wt"),
            "layout": ("tile", "row")}


def _knobs(cfg) -> dict:
    """KNOBS overridden by `cfg` (None or a dict of some of KNOBS' keys), checked."""
    k = dict(KNOBS)
    if not cfg:
        return k
    unknown = sorted(set(cfg) - set(KNOBS))
    if unknown:
        raise ValueError(f"unknown launch knob(s) {unknown}; known: {sorted(KNOBS)}")
    k.update(cfg)
    if k["evict"] in ("none", None):
        k["evict"] = ""
    if k["store"] in ("none", None):
        k["store"] = ""
    for name, allowed in _CHOICES.items():
        if k[name] not in allowed:
            raise ValueError(f"launch knob {name}={k[name]!r}: use one of {allowed}")
    tb = k["tile_bytes"]
    if not isinstance(tb, int) or tb < 16 or tb & (tb - 1):
        raise ValueError(f"tile_bytes must be a power of two >= 16, got {tb!r}")
    nw = k["num_warps"]
    if nw is not None and (not isinstance(nw, int) or nw < 1 or nw > 32 or nw & (nw - 1)):
        raise ValueError(f"num_warps must be None or a power of two in 1..32, got {nw!r}")
    if not isinstance(k["num_stages"], int) or k["num_stages"] < 1:
        raise ValueError(f"num_stages must be an int >= 1, got {k['num_stages']!r}")
    if not isinstance(k["persistent"], int) or k["persistent"] < 0:
        raise ValueError(f"persistent must be an int >= 0 (programs per SM), got {k['persistent']!r}")
    return k


def launch_config(n_rows: int, n_cols: int, elsize: int, sms: int, cfg=None) -> dict:
    """The whole launch of an [n_rows, n_cols] pass (after any collapse) under the knobs `cfg`:
    plan()'s tile (or the row layout's), warps, stages, the constexpr hints and the grid. With
    cfg None this is plan() plus the defaults, the launch of today exactly."""
    k = _knobs(cfg)
    if k["layout"] == "row":
        vec = 16 // elsize
        block_c = triton.next_power_of_2(n_cols)
        if block_c > 65536:
            raise ValueError(f"layout 'row' holds a whole row in one program: at most 65536 columns, got {n_cols}")
        nw = max(1, min(32, block_c // (vec * 4 * 32)))
        out = {"BLOCK_R": 1, "BLOCK_C": block_c, "num_warps": nw, "EVEN": block_c == n_cols, "programs": n_rows,
               **sub_tile(1, block_c, elsize, nw)}
    else:
        out = plan(n_rows, n_cols, elsize, sms, k["tile_bytes"])
    if k["num_warps"] is not None:
        out["num_warps"] = k["num_warps"]
        out.update(sub_tile(out["BLOCK_R"], out["BLOCK_C"], elsize, out["num_warps"]))
    out["num_stages"] = k["num_stages"]
    out["EVICT"], out["STORE"] = k["evict"], k["store"]
    out["PERSIST"] = k["persistent"] > 0
    out["grid"] = min(out["programs"], k["persistent"] * sms) if out["PERSIST"] else out["programs"]
    out["collapse"] = k["layout"] == "tile"
    return out


# --------------------------------------------------------------------------------------
# Host side
# --------------------------------------------------------------------------------------


def _check(name: str, t, shape=None, dtype=None, device=None):
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor")
    if t.dtype not in _SUPPORTED:
        raise ValueError(f"{name} has dtype {t.dtype}; use float32, float16 or bfloat16")
    if shape is not None and tuple(t.shape) != tuple(shape):
        raise ValueError(f"{name} has shape {tuple(t.shape)}, expected {tuple(shape)}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} has dtype {t.dtype}, expected {dtype}")
    if device is not None and t.device != device:
        raise ValueError(f"{name} is on {t.device}, expected {device}")
    if t.device.type != "cuda" and not _INTERPRET:
        raise ValueError(f"{name} must be a CUDA tensor (or run under TRITON_INTERPRET=1)")


def _as_rows(t: torch.Tensor) -> torch.Tensor:
    """A 2-D [rows, cols] view with unit column stride (a copy only if no such view exists)."""
    if t.dim() == 0:
        raise ValueError("tensors must have at least one dimension (..., cols)")
    t2 = t.reshape(1, t.shape[0]) if t.dim() == 1 else t.reshape(-1, t.shape[-1])
    if t2.shape[1] > 1 and t2.stride(1) != 1:
        t2 = t2.contiguous()
    return t2


def _collapse(tensors, enabled: bool = True):
    """All contiguous [rows, cols]: one long row (purely element-wise); else as they are."""
    if enabled and all(t.is_contiguous() for t in tensors):
        n = tensors[0].numel()
        return [t.view(1, n) for t in tensors]
    return tensors


def _aligned_base(t: torch.Tensor, es: int, max_offset: int = _INT32_MAX):
    """(base, offset, align) of t, whose elements are `es` bytes: t's first element lies `offset`
    elements past the tensor `base`, whose address is a multiple of `align` elements (a power of
    two, at most 16 bytes' worth). The base is the root of t's views when that has t's dtype, is
    16-byte aligned and lies at most `max_offset` elements before t (the fused layout's up half:
    gate_up's start, offset I), else t itself (offset 0). Triton knows a pointer's alignment only
    when it is 16 bytes: passed as is, the up half at I not a multiple of 8 bf16 is known to be
    only 2-byte aligned, while from gate_up's start the offset I allows 8 bytes at I = 4 mod 8
    and 4 at I = 2 or 6 mod 8. Integer operations on the tensors as they are (the decode path's
    host time: no new tensors)."""
    p = t.data_ptr()
    b = t._base
    if b is not None and b.dtype is t.dtype:
        q = b.data_ptr()
        if q <= p and not q & 15 and p - q <= max_offset * es:
            return b, (p - q) // es, 16 // es
    lo = p & 15
    return t, 0, (lo & -lo) // es if lo else 16 // es


def _launch(kernel, tensors2d, n_rows, n_cols, cfg=None):
    t0 = tensors2d[0]
    es = t0.element_size()
    vec = 16 // es
    lc = launch_config(n_rows, n_cols, es, _sm_count(t0.device), cfg)
    # one row (a collapsed call, or one token): its row stride is never used, and passed as is it
    # is the row's length, which Triton's divisibility analysis would take for the offsets'
    # alignment (no 16-byte vectors at lengths not a multiple of 16; measured 1.3-1.6x slower)
    bases, offsets, strides = [], [], []
    bits = max_off = 0
    for t in tensors2d:
        st = t.stride(0) if n_rows > 1 else 0
        extent = (n_rows - 1) * abs(st) + n_cols
        # a root far before t (a view into a large buffer) is not taken where only its offset
        # would need 64-bit offsets (I64)
        b, o, align = _aligned_base(t, es, max(0, _INT32_MAX - extent))
        bases.append(b)
        offsets.append(o)
        strides.append(st)
        bits |= o | st | (align & (vec - 1))  # an alignment of vec (16 bytes) constrains nothing
        max_off = max(max_off, o + extent)
    # A: the widest access, in elements, that every offset, stride and base allows (_rowoff)
    access = min(vec, bits & -bits) if bits else vec
    n_col_blocks = triton.cdiv(n_cols, lc["BLOCK_C"])
    evict = lc["EVICT"]
    if evict == "auto":  # the shipped launch's hint: by the bytes the pass moves (default_evict)
        evict = default_evict(len(tensors2d) * n_rows * n_cols * es)
    kernel[(lc["grid"],)](*bases, n_rows, n_cols, n_col_blocks, *strides, *offsets, BLOCK_R=lc["BLOCK_R"],
                          BLOCK_C=lc["BLOCK_C"], SUB_R=lc["SUB_R"], SUB_C=lc["SUB_C"], I64=max_off > _INT32_MAX,
                          EVEN=lc["EVEN"], EVICT=evict, STORE=lc["STORE"], PERSIST=lc["PERSIST"], A=access,
                          num_warps=lc["num_warps"], num_stages=lc["num_stages"])


def _collapses(cfg) -> bool:
    return not cfg or _knobs(cfg)["layout"] == "tile"


def _device_ctx(t):
    return torch.cuda.device(t.device) if t.device.type == "cuda" else _Null()


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def swiglu_forward(gate: torch.Tensor, up: torch.Tensor, *, cfg: dict | None = None) -> torch.Tensor:
    """y = silu(gate) * up (HF rounding, see the module docstring); a new tensor of gate's shape.
    `cfg`: launch knobs (KNOBS; None: today's launch)."""
    _check("gate", gate)
    _check("up", up, gate.shape, gate.dtype, gate.device)
    y = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    if y.numel() == 0:
        return y
    g2, u2, y2 = _collapse([_as_rows(gate), _as_rows(up), y.view(-1, y.shape[-1]) if y.dim() > 1 else y.view(1, -1)],
                           _collapses(cfg))
    with _device_ctx(y):
        _launch(_fwd, [g2, u2, y2], g2.shape[0], g2.shape[1], cfg)
    return y


def swiglu_backward(dy: torch.Tensor, gate: torch.Tensor, up: torch.Tensor, *,
                    cfg: dict | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(dgate, dup) of y = silu(gate) * up, from dy; new tensors, inputs unmodified. `cfg`: knobs."""
    _check("gate", gate)
    _check("up", up, gate.shape, gate.dtype, gate.device)
    _check("dy", dy, gate.shape, gate.dtype, gate.device)
    dg = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    du = torch.empty_like(dg)
    if dg.numel() == 0:
        return dg, du
    rows = [_as_rows(dy), _as_rows(gate), _as_rows(up), _as_rows(dg), _as_rows(du)]
    rows = _collapse(rows, _collapses(cfg))
    with _device_ctx(dg):
        _launch(_bwd, rows, rows[0].shape[0], rows[0].shape[1], cfg)
    return dg, du


def _split_gate_up(gate_up: torch.Tensor):
    _check("gate_up", gate_up)
    if gate_up.shape[-1] % 2:
        raise ValueError(f"gate_up's last dimension must be even (2 x intermediate), got {gate_up.shape[-1]}")
    gu = _as_rows(gate_up)
    i = gu.shape[1] // 2
    return gu, i


def swiglu_fused_forward(gate_up: torch.Tensor, *, cfg: dict | None = None) -> torch.Tensor:
    """y = silu(gate_up[..., :I]) * gate_up[..., I:]; y has shape [..., I]. `cfg`: launch knobs."""
    gu, i = _split_gate_up(gate_up)
    y = torch.empty((*gate_up.shape[:-1], i), dtype=gate_up.dtype, device=gate_up.device)
    if y.numel() == 0:
        return y
    y2 = y.view(-1, i)
    with _device_ctx(y):
        _launch(_fwd, [gu[:, :i], gu[:, i:], y2], gu.shape[0], i, cfg)
    return y


def swiglu_fused_backward(dy: torch.Tensor, gate_up: torch.Tensor, *, cfg: dict | None = None) -> torch.Tensor:
    """d gate_up [..., 2I] (dgate in the first half, dup in the second) from dy [..., I]. `cfg`: knobs."""
    gu, i = _split_gate_up(gate_up)
    _check("dy", dy, (*gate_up.shape[:-1], i), gate_up.dtype, gate_up.device)
    dgu = torch.empty(gate_up.shape, dtype=gate_up.dtype, device=gate_up.device)
    if dgu.numel() == 0:
        return dgu
    d2 = dgu.view(-1, 2 * i)
    with _device_ctx(dgu):
        _launch(_bwd, [_as_rows(dy), gu[:, :i], gu[:, i:], d2[:, :i], d2[:, i:]], gu.shape[0], i, cfg)
    return dgu
