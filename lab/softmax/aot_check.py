"""Compile the softmax and cross-entropy Triton kernels for sm_90 here, without a GPU, and print
each variant's registers, stack (spills) and 16-byte global accesses (ptxas and cuobjdump ship
with the triton wheel). What costs no device time: run it before a device call.

    python lab/softmax/aot_check.py            # everything
    python lab/softmax/aot_check.py --softmax  # the softmax long-row layouts only
    python lab/softmax/aot_check.py --ce       # the cross-entropy fwd+bwd candidates only
                                               # (lab/cross_entropy/sweep.py's, issue 16)
"""
import re
import sys
from pathlib import Path

from site_builder.runner.families import import_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sm90 import compile_sm90, cuobjdump  # noqa: E402

sm = import_module("softmax", "kr_triton")
ce = import_module("cross-entropy", "kr_triton")


def comp(fn, sig, cexpr, warps, label, maxnreg=0):
    try:
        k = compile_sm90(fn, sig, cexpr, warps, divisible=("N",), maxnreg=maxnreg)
        out = cuobjdump(k, "-res-usage")
        m = re.search(r"REG:(\d+).*?STACK:(\d+).*?SHARED:(\d+).*?LOCAL:(\d+)", out)
        print(f"{label}: {m.group(0) if m else out[-300:]}")
        if m:  # the residency model: programs per SM (64 warps, 65536 registers, 32 blocks)
            regs = -(-int(m.group(1)) // 8) * 8
            progs = min(64 // warps, 65536 // (regs * 32 * warps), 32)
            print(f"   resident: {progs} programs/SM, {progs * cexpr.get('BLOCK', 0)} columns/SM")
        ptx = k.asm["ptx"]
        print("   ld.global.v4:", len(re.findall(r"ld\.global[^ ]*\.v4", ptx)), "st.global.v4:", len(re.findall(r"st\.global[^ ]*\.v4", ptx)), "local:", len(re.findall(r"\.local", ptx)),
              "eviction hints:", sorted(set(re.findall(r"(?:ld|st)\.global[.a-zA-Z0-9:_]*?(?:cache_hint|evict_[a-z]+|\.cs)(?:\.L2::cache_hint)?", ptx))))
    except Exception as e:
        print(label, "FAILED", type(e).__name__, str(e)[:1500])


# the layouts plan() picks: whole rows up to MAX_ROW (forward) / MAX_ROW_BWD (backward, CE
# fwd+bwd: they hold more per element), split rows in 8192 or (few rows) 2048-column parts
FWD = [(32768, 1, 32), (8192, 16, 16), (2048, 128, 4), (1024, 1, 2)]
BWD = [(16384, 1, 32), (8192, 16, 16), (2048, 128, 4), (1024, 1, 2)]
# the long-row layouts of 2026-12-02 (kr_triton.LONG) and the sweep2 candidates beside them
LONG_FWD = {"bf16": [(8192, 32, 16), (8192, 32, 4), (8192, 32, 8), (16384, 16, 8), (4096, 64, 4), (4096, 64, 2)],
            "fp32": [(8192, 16, 16), (4096, 64, 4), (4096, 32, 8), (8192, 16, 8), (2048, 64, 2)]}
LONG_BWD = {"bf16": [(8192, 32, 16), (8192, 32, 8), (8192, 32, 4), (4096, 64, 4), (16384, 16, 16)],
            "fp32": [(4096, 32, 8), (4096, 32, 4), (2048, 64, 4)]}
ONLY_SOFTMAX = "--softmax" in sys.argv
# softmax access width G (kr_triton.access_granularity): the rows here are 16-byte aligned (N is
# declared a multiple of 16 below), so one 16-byte vector, as Triton found before G existed
G = {"bf16": 8, "fp32": 4}
CE_FB = {"X": "*{dt}", "T": "*i64", "WS": "*i64", "DX": "*{dt}", "LOSSROW": "*fp32", "SLOTS": "*i64", "DEP": "*i64",
         "stride_x": "i32", "stride_dx": "i32", "split": "i32", "ignore_index": "i32", "N": "i32"}
if "--ce" in sys.argv:
  for dt in ("bf16", "fp32"):
    fb = {k: v.format(dt=dt) for k, v in CE_FB.items()}
    # (BLOCK, SPLIT_P2, warps, PAIR): the split layouts of the sweep's exchange candidates, and
    # the whole rows of 16384 (16 warps) and 32768 (32 warps)
    for BLOCK, P2, w, pair in [(8192, 32, 16, 0), (8192, 32, 16, 1), (8192, 32, 8, 1), (4096, 64, 4, 1),
                               (4096, 64, 8, 1), (2048, 128, 4, 1), (16384, 16, 16, 1), (16384, 1, 16, 0),
                               (32768, 1, 32, 0)]:
      comp(ce._fwd_bwd, fb, {"BLOCK": BLOCK, "SPLIT_P2": P2, "CONTIG": True, "PHASE": 0, "PAIR": bool(pair),
                            "EXP1": False}, w, f"ce fb {dt} B{BLOCK} P{P2} w{w} pair{pair}")
    # the rule's register cap (xregs, ptxas .maxnreg) on the 4096-column parts and the caps beside
    # it: STACK > 0 is a spill. Triton 3.6 here gave 76 registers uncapped, a 48-byte stack at 64,
    # 8 at 72, none at 80; Nsight Compute on the H100 agreed at 64 (lab/device-2026-12-07d/)
    for cap in (64, 72, 80):
      comp(ce._fwd_bwd, fb, {"BLOCK": 4096, "SPLIT_P2": 64, "CONTIG": True, "PHASE": 0, "PAIR": True,
                            "EXP1": False}, 4, f"ce fb {dt} B4096 P64 w4 pair1 maxnreg {cap}", maxnreg=cap)
    for BLOCK, P2, w in [(4096, 64, 4), (2048, 128, 4), (8192, 32, 8)]:  # one exp an element (xexp)
      comp(ce._fwd_bwd, fb, {"BLOCK": BLOCK, "SPLIT_P2": P2, "CONTIG": True, "PHASE": 0, "PAIR": True,
                            "EXP1": True}, w, f"ce fb {dt} B{BLOCK} P{P2} w{w} pair1 exp1")
    for GB, w in [(4096, 8), (8192, 8), (4096, 4), (2048, 4)]:
      comp(ce._grad_tiles, {"X": f"*{dt}", "T": "*i64", "WS": "*i64", "DX": f"*{dt}", "PM": "*fp32", "PS": "*fp32",
                            "stride_x": "i32", "stride_dx": "i32", "split": "i32", "nblk": "i32", "ntiles": "i32",
                            "ignore_index": "i32", "N": "i32"},
           {"BLOCK": GB, "SPLIT_P2": 16, "CONTIG": True, "REVERSE": True, "EVICT": ""}, w, f"ce grad tiles {dt} B{GB} w{w}")
    rl = {"X": f"*{dt}", "T": "*i64", "WS": "*i64", "DX": f"*{dt}", "LOSSROW": "*fp32",
          "stride_x": "i32", "stride_dx": "i32", "ignore_index": "i32", "N": "i32"}
    for RB, w in [(4096, 8), (8192, 16), (4096, 4)]:
      comp(ce._rowloop, rl, {"BLOCK": RB, "CONTIG": True, "VEC": 0, "EV1": "", "EV2": "", "SCM": ""}, w,
           f"ce rowloop {dt} B{RB} w{w}")
    comp(ce._rowloop, rl, {"BLOCK": 4096, "CONTIG": True, "VEC": 0, "EV1": "evict_last", "EV2": "evict_first",
                           "SCM": ".cs"}, 4, f"ce rowloop evict {dt} B4096 w4")
    # path "pipe" (sweep.py pipe*): the persistent pipeline, chunks held (or read again)
    pp = dict(rl, SLOTS="*i64", ntiles="i32", nsteps="i32")
    vec = 8 if dt == "bf16" else 4
    for PB, w, hold in [(8192, 8, 1), (4096, 4, 1), (4096, 8, 1), (16384, 16, 1), (8192, 8, 0), (4096, 4, 2),
                        (8192, 8, 2), (4096, 8, 2)]:
      comp(ce._pipe, pp, {"P": 16, "P_P2": 16, "BLOCK": PB, "LAG": 1, "HOLD": hold, "CONTIG": True, "VEC": vec,
                          "EV1": "evict_first", "EV2": "evict_first", "SCM": ".cs"}, w,
           f"ce pipe {dt} B{PB} w{w} hold{int(hold)}")
    comp(ce._lse_parts, {"X": f"*{dt}", "T": "*i64", "PM": "*fp32", "PS": "*fp32", "XT": "*fp32", "stride_x": "i32",
                         "split": "i32", "ignore_index": "i32", "N": "i32"},
         {"BLOCK": 4096, "PART": 16384, "CONTIG": True, "EVICT": "", "VEC": 0}, 8, f"ce lse {dt}")
    comp(ce._lse_parts, {"X": f"*{dt}", "T": "*i64", "PM": "*fp32", "PS": "*fp32", "XT": "*fp32", "stride_x": "i32",
                         "split": "i32", "ignore_index": "i32", "N": "i32"},
         {"BLOCK": 4096, "PART": 16384, "CONTIG": True, "EVICT": "evict_last", "VEC": 0}, 8, f"ce lse {dt} evict_last")
    comp(ce._grad_tiles, {"X": f"*{dt}", "T": "*i64", "WS": "*i64", "DX": f"*{dt}", "PM": "*fp32", "PS": "*fp32",
                          "stride_x": "i32", "stride_dx": "i32", "split": "i32", "nblk": "i32", "ntiles": "i32",
                          "ignore_index": "i32", "N": "i32"},
         {"BLOCK": 4096, "SPLIT_P2": 16, "CONTIG": False, "REVERSE": False, "EVICT": "evict_first"}, 8,
         f"ce grad tiles {dt} B4096 w8 evict_first, strided")
  sys.exit(0)
for dt in ("bf16", "fp32"):
  for BLOCK, P2, w in LONG_FWD[dt]:
    comp(sm._fwd, {"X": f"*{dt}", "Y": f"*{dt}", "SLOTS": "*i64", "DEP": "*i32", "stride_x": "i32", "stride_y": "i32", "split": "i32", "N": "i32"},
         {"BLOCK": BLOCK, "SPLIT_P2": P2, "CONTIG": True, "PHASE": 0, "G": G[dt]}, w, f"sm fwd long {dt} B{BLOCK} P{P2} w{w}")
  for BLOCK, P2, w in LONG_BWD[dt]:
    comp(sm._bwd, {"Yp": f"*{dt}", "DY": f"*{dt}", "DX": f"*{dt}", "SLOTS": "*i64", "DEP": "*i32", "stride_y": "i32", "stride_dy": "i32", "stride_dx": "i32", "split": "i32", "N": "i32"},
         {"BLOCK": BLOCK, "SPLIT_P2": P2, "CONTIG": True, "PHASE": 0, "G": G[dt]}, w, f"sm bwd long {dt} B{BLOCK} P{P2} w{w}")
if ONLY_SOFTMAX:
  sys.exit(0)
for dt in ("bf16", "fp32"):
  for BLOCK, P2, w in FWD:
    comp(sm._fwd, {"X": f"*{dt}", "Y": f"*{dt}", "SLOTS": "*i64", "DEP": "*i32", "stride_x": "i32", "stride_y": "i32", "split": "i32", "N": "i32"},
         {"BLOCK": BLOCK, "SPLIT_P2": P2, "CONTIG": True, "PHASE": 0, "G": G[dt]}, w, f"sm fwd {dt} B{BLOCK} P{P2} w{w}")
  for BLOCK, P2, w in BWD:
    comp(sm._bwd, {"Yp": f"*{dt}", "DY": f"*{dt}", "DX": f"*{dt}", "SLOTS": "*i64", "DEP": "*i32", "stride_y": "i32", "stride_dy": "i32", "stride_dx": "i32", "split": "i32", "N": "i32"},
         {"BLOCK": BLOCK, "SPLIT_P2": P2, "CONTIG": True, "PHASE": 0, "G": G[dt]}, w, f"sm bwd {dt} B{BLOCK} P{P2} w{w}")
    comp(ce._fwd_bwd, {"X": f"*{dt}", "T": "*i64", "WS": "*i64", "DX": f"*{dt}", "LOSSROW": "*fp32", "SLOTS": "*i64", "DEP": "*i64", "stride_x": "i32", "stride_dx": "i32", "split": "i32", "ignore_index": "i32", "N": "i32"},
         {"BLOCK": BLOCK, "SPLIT_P2": P2, "CONTIG": True, "PHASE": 0, "PAIR": P2 > 1, "EXP1": False}, w, f"ce fb {dt} B{BLOCK} P{P2} w{w}")
  comp(ce._lse_parts, {"X": f"*{dt}", "T": "*i64", "PM": "*fp32", "PS": "*fp32", "XT": "*fp32", "stride_x": "i32", "split": "i32", "ignore_index": "i32", "N": "i32"},
       {"BLOCK": 4096, "PART": 131072, "CONTIG": True, "EVICT": ""}, 8, f"ce lse {dt}")
comp(ce._finish, {"PM": "*fp32", "PS": "*fp32", "XT": "*fp32", "LOSSROW": "*fp32", "T": "*i64", "OUT": "*bf16", "BSUM": "*fp32", "BCNT": "*fp32", "WS": "*i64", "rows": "i32", "split": "i32", "ignore_index": "i32", "nblocks": "i32"},
     {"FROM_PARTS": True, "R": 256, "SPLIT_P2": 16, "NB_P2": 128}, 4, "ce finish parts")
comp(ce._finish, {"PM": "*fp32", "PS": "*fp32", "XT": "*fp32", "LOSSROW": "*fp32", "T": "*i64", "OUT": "*bf16", "BSUM": "*fp32", "BCNT": "*fp32", "WS": "*i64", "rows": "i32", "split": "i32", "ignore_index": "i32", "nblocks": "i32"},
     {"FROM_PARTS": False, "R": 256, "SPLIT_P2": 1, "NB_P2": 128}, 4, "ce finish rows")
comp(ce._count, {"T": "*i64", "WS": "*i64", "rows": "i32", "ignore_index": "i32"}, {"R": 1024}, 4, "ce count")
