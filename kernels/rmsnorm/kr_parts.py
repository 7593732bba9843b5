"""Rows split across PARTS programs that exchange partial sums: the pieces shared by the row-norm
families' "parts" kernels (kernels/rmsnorm/kr_triton.py, kernels/layernorm/kr_triton.py).

A row too long for one program's registers is cut into PARTS column blocks, each held by its
own program; the programs of a row publish their partial sums and wait for each other, so that
the row is read from memory once (what QuACK does with a thread-block cluster, done here through
L2, which Triton can express).

Exchange protocol, per row, in a workspace that is all zeros between calls:

* `publish(slots, part, value)`: slot `part` of the row receives (1 << 32) | float32 bits of
  the value in ONE atomic exchange, so the flag and the value arrive together (no fence).
* `gather(slots, PARTS)`: spin on the row's PARTS slots (volatile loads, not L1) until all are
  flagged, then sum them in a fixed order: every part of the row gets the same total, and it
  does not depend on timing (deterministic, and a row's bits do not depend on the rows beside it).
* `count_out(dep, slots, NSLOTS)`: after its last read of the slots, each program adds one to
  the row's counter; the last one zeroes the row's slots and counter for the next call (kernels
  on one stream never overlap).

Forward progress needs the programs of a row to be resident together or dispatched in order of
program id, as NVIDIA GPUs do; the host checks PARTS <= SMs and never runs these kernels under
the interpreter (which runs programs one after another: a wait would never end).
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


@triton.jit
def publish(slots, part, value):
    bits = value.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF
    tl.atomic_xchg(slots + part, bits | 0x100000000, sem="relaxed")


@triton.jit
def gather(slots, PARTS: tl.constexpr, SP: tl.constexpr):
    """The row's total: wait until its PARTS slots (of SP >= PARTS, a power of two) are flagged,
    then sum them in a fixed order."""
    k = tl.arange(0, SP)
    km = k < PARTS
    got = tl.load(slots + k, mask=km, other=0x100000000, volatile=True)
    while tl.min((got >> 32).to(tl.int32), axis=0) == 0:
        got = tl.load(slots + k, mask=km, other=0x100000000, volatile=True)
    return tl.sum(got.to(tl.int32).to(tl.float32, bitcast=True), axis=0)


@triton.jit
def count_out(dep, slots, PARTS: tl.constexpr, NSLOTS: tl.constexpr):
    """Count this program out of its row; the last of the PARTS zeroes the row's NSLOTS slots
    (a power of two) and its counter for the next call."""
    left = tl.atomic_add(dep, 1, sem="relaxed")
    if left == PARTS - 1:
        tl.store(slots + tl.arange(0, NSLOTS), tl.zeros([NSLOTS], dtype=tl.int64))
        tl.store(dep, 0)


def parts_config(n: int, block: int, warps: int) -> dict:
    """A row of n across PARTS = ceil(n / block) programs of `block` columns (a power of two)
    each (kind "parts": `_fwd_parts`, `_bwd_parts`), the last one masked where block does not
    divide n."""
    block = min(int(block), triton.next_power_of_2(n))
    parts = triton.cdiv(n, block)
    return {"kind": "parts", "BLOCK": block, "PARTS": parts, "MASK_COLS": parts * block != n, "num_warps": int(warps)}


@triton.jit
def load_pair(X, DY, row, sx, sdy, cols, m, MASKED: tl.constexpr):
    """x and dy of one row's block as stored, read once (evict_first); `m` masks columns (and a
    prefetch past the last row) where MASKED."""
    if MASKED:
        x = tl.load(X + row * sx + cols, mask=m, other=0.0, eviction_policy="evict_first")
        dy = tl.load(DY + row * sdy + cols, mask=m, other=0.0, eviction_policy="evict_first")
    else:
        x = tl.load(X + row * sx + cols, eviction_policy="evict_first")
        dy = tl.load(DY + row * sdy + cols, eviction_policy="evict_first")
    return x, dy


@triton.jit
def bwd_start(W, N: tl.constexpr, BLOCK: tl.constexpr, PARTS: tl.constexpr, MASK_COLS: tl.constexpr,
              PDL: tl.constexpr):
    """The prologue of a parts backward: (group g, part, the part's columns, their mask, the
    weight's block in float32). Program p = g * PARTS + part."""
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    g = pid // PARTS
    part = pid % PARTS
    cols = part * BLOCK + tl.arange(0, BLOCK)
    cm = cols < N
    if MASK_COLS:
        w = tl.load(W + cols, mask=cm, other=0.0).to(tl.float32)
    else:
        w = tl.load(W + cols).to(tl.float32)
    return g, part, cols, cm, w


@triton.jit
def row_index(r, I64: tl.constexpr):
    """Row r as the index type of the row offsets (int64 where rows x stride may pass 2^31)."""
    row = r
    if I64:
        row = row.to(tl.int64)
    return row


@triton.jit
def first_pair(X, DY, g, n_rows, sx, sdy, cols, cm, I64: tl.constexpr, PREFETCH: tl.constexpr):
    """Before a parts backward's row loop: where PREFETCH, x and dy of the program's first row
    (masked when the group has no row); else placeholders the loop carries unused."""
    if PREFETCH:
        x_n, dy_n = load_pair(X, DY, row_index(g, I64), sx, sdy, cols, cm & (g < n_rows), True)
    else:
        x_n = 0.0
        dy_n = 0.0
    return x_n, dy_n


@triton.jit
def row_pair(X, DY, row, groups, n_rows, sx, sdy, cols, cm, x_n, dy_n, MASK_COLS: tl.constexpr,
             PREFETCH: tl.constexpr):
    """x and dy of `row` in float32, and the pair the next iteration takes: where PREFETCH the
    row's pair was loaded the iteration before (x_n, dy_n) and the next row's (row + groups) is
    loaded now, so its wait overlaps this row's exchange; else the row is loaded here."""
    if PREFETCH:
        x = x_n.to(tl.float32)
        dy = dy_n.to(tl.float32)
        nxt = row + groups
        x_n, dy_n = load_pair(X, DY, nxt, sx, sdy, cols, cm & (nxt < n_rows), True)
    else:
        xr, dyr = load_pair(X, DY, row, sx, sdy, cols, cm, MASK_COLS)
        x = xr.to(tl.float32)
        dy = dyr.to(tl.float32)
    return x, dy, x_n, dy_n


@triton.jit
def store_row(DX, row, sdx, cols, cm, dx, MASK_COLS: tl.constexpr):
    """dx of one row's block, rounded to DX's dtype."""
    if MASK_COLS:
        tl.store(DX + row * sdx + cols, dx.to(DX.dtype.element_ty), mask=cm)
    else:
        tl.store(DX + row * sdx + cols, dx.to(DX.dtype.element_ty))


_WS: dict = {}


def workspace(device: torch.device, n_rows: int, slots_per_row: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(slots int64 [n_rows * slots_per_row], counters int32 [n_rows]), all zeros: the stream's
    cached workspace (grown when too small; the kernels leave it zeroed), or a fresh one while a
    CUDA graph is being captured (a captured call keeps its own)."""
    def zeroed(rows, per_row):
        return (torch.zeros(rows * per_row, dtype=torch.int64, device=device),
                torch.zeros(rows, dtype=torch.int32, device=device))

    if torch.cuda.is_current_stream_capturing():
        return zeroed(n_rows, slots_per_row)
    key = (device.index, torch.cuda.current_stream(device).cuda_stream)
    ws = _WS.get(key)
    if ws is None or ws[0].numel() < n_rows * slots_per_row or ws[1].numel() < n_rows:
        rows = max(n_rows, 2 * ws[1].numel() if ws is not None else 0)
        ws = _WS[key] = zeroed(rows, max(slots_per_row, 16))
    return ws


def possible(device: torch.device, parts: int) -> bool:
    """Whether PARTS programs of a row can wait for each other here: compiled Triton on a CUDA
    device with at least `parts` SMs."""
    if _INTERPRET or device.type != "cuda":
        return False
    idx = device.index if device.index is not None else torch.cuda.current_device()
    return torch.cuda.get_device_properties(idx).multi_processor_count >= parts


def resident_programs(ck, num_warps: int, device: torch.device, cap: int = 16) -> int:
    """Programs of a compiled kernel one SM holds at once (registers, threads, shared memory),
    1 to `cap`; 1 when the kernel's statistics are unavailable."""
    try:
        ck._init_handles()
        props = torch.cuda.get_device_properties(device)
        threads = num_warps * 32
        regs = max(8, (int(ck.n_regs) + 7) // 8 * 8) * threads
        smem = int(getattr(ck.metadata, "shared", 0) or 0)
        fit = min(int(getattr(props, "regs_per_multiprocessor", 65536)) // regs,
                  int(getattr(props, "max_threads_per_multi_processor", 2048)) // threads,
                  int(getattr(props, "shared_memory_per_multiprocessor", 233472)) // (smem + 1024) if smem else cap,
                  cap)
        return max(1, fit)
    except Exception:  # noqa: BLE001 - statistics only
        return 1
