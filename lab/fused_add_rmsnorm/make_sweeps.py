"""Writes sweep<N>-cands.json: the configurations timed by sweeps 6, 7 and 8 (NOTES.md).

    python lab/fused_add_rmsnorm/make_sweeps.py 6|7|8
    python kernels/fused_add_rmsnorm/bench.py --impls kr,liger --sweep \
        --cands lab/fused_add_rmsnorm/candidates/sweep7-cands.json --workloads <its keys> --write-tuned t.json

Sweep 6: wide rows (the split kernel against the chunked and in-register ones), the rows-32768
workloads, and every hidden size with more than one rows bucket among the issue's workloads
(4096 and 8192 bf16: decode, 2048 and 32768 rows), so that one reduction layout is chosen for
all its buckets. Sweep 7: smaller split programs (sweep 6 found fewer warps per program better)
and several rows per program at hidden 8192 fp32. Sweep 8: every workload whose configuration
had streaming hints (HINTS 2), again with hints that read the same whether or not the kernel
follows itself (HINTS 0 and 3), timed interleaved (bench.py --interleave-cfgs).

The committed sweep<N>-cands.json are the inputs as swept: each also holds the configuration
that was in kr_triton._TUNED at the time, so running this again after _TUNED changed writes
different files.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from site_builder.runner.families import import_module  # noqa: E402

kr = import_module("fused-add-rmsnorm", "kr_triton")


class _Current(dict):
    """kr._TUNED as these sweeps read it: an override if a tuning run set one, else the model's
    configuration (issue 14 replaced the exact-workload table by kr.model_config)."""

    def __missing__(self, key):
        return kr._TUNED.get(key) or kr.model_config(*key)


CURRENT = _Current()

KNOBS = [dict(HINTS=h, PDL=p, W_EARLY=we) for h in (0, 1, 2) for p in (True, False) for we in (False, True)]
KNOBS_8 = [dict(HINTS=h, PDL=p, W_EARLY=we) for h in (0, 2) for p in (True, False) for we in (False, True)]
KNOBS_ROBUST = [dict(HINTS=h, PDL=p, W_EARLY=we) for h in (0, 3) for p in (True, False) for we in (False, True)]
KNOBS_SHORT = [dict(HINTS=h, PDL=True, W_EARLY=we) for h in (0, 2) for we in (False, True)] + [
    dict(HINTS=2, PDL=False, W_EARLY=False)]


def variants(layouts, knobs):
    return [dict(c, **k) for c in layouts for k in knobs]


def split_layouts(n, elsize, blocks):
    vec = 16 // elsize
    out = []
    for b in blocks:
        for w in (8, 16, 32):
            if vec <= b // (w * 32) <= 32:
                out.append(kr._split_cfg(n, b, w))
    return out


def sweep6():
    cands = {}
    for n, dt, el in ((65536, "bf16", 2), (131072, "bf16", 2)):
        cands[f"2048x{n}:{dt}"] = variants(split_layouts(n, el, (8192, 16384, 32768)), KNOBS_SHORT) + [
            kr._chunked_cfg(16384, 32)]
    for n, dt, el in ((32768, "fp32", 4), (32768, "bf16", 2), (16384, "fp32", 4), (16384, "bf16", 2)):
        cur = CURRENT[(n, el)]
        cands[f"2048x{n}:{dt}"] = variants(split_layouts(n, el, (4096, 8192, 16384)), KNOBS_SHORT) + [cur]
    cands["32768x8192:fp32"] = variants([kr._row1_cfg(8192, 32), kr._row1_cfg(8192, 16)], KNOBS) + variants(
        split_layouts(8192, 4, (4096,)), KNOBS_SHORT)
    cands["2048x8192:fp32"] = variants([kr._row1_cfg(8192, 32), kr._row1_cfg(8192, 16)], KNOBS)
    # 4096 and 8192 bf16: one layout for decode, 2048 and 32768 rows
    l4096 = [kr._rows_cfg([4096], False, 1, w) for w in (4, 8)] + [kr._row1_cfg(4096, w) for w in (4, 8, 16)]
    l8192 = [kr._rows_cfg([8192], False, 1, w) for w in (8, 16)] + [kr._row1_cfg(8192, w) for w in (16, 32)]
    for rows in (1, 16, 128, 2048, 32768):
        cands[f"{rows}x4096:bf16"] = variants(l4096, KNOBS_SHORT)
    for rows in (1, 16, 128, 2048):
        cands[f"{rows}x8192:bf16"] = variants(l8192, KNOBS_SHORT)
    return cands


def sweep7():
    cands = {}
    for n in (65536, 131072):
        lays = [kr._split_cfg(n, b, w) for b, w in ((2048, 4), (4096, 4), (4096, 8), (8192, 4), (8192, 8),
                                                     (16384, 8))]
        cands[f"2048x{n}:bf16"] = variants(lays, KNOBS_8) + [kr._chunked_cfg(16384, 32)]
    for n, dt, el in ((32768, "fp32", 4), (32768, "bf16", 2), (16384, "bf16", 2)):
        lays = [kr._split_cfg(n, b, w) for b, w in ((4096, 4), (4096, 8), (8192, 8), (8192, 4))]
        cands[f"2048x{n}:{dt}"] = variants(lays, KNOBS_SHORT) + [CURRENT[(n, el)]]
    lays = [kr._rows_cfg([8192], False, rows, w) for rows, w in ((2, 32), (2, 16), (1, 32), (1, 16))]
    for wl in ("32768x8192:fp32", "2048x8192:fp32"):
        cands[wl] = variants(lays, KNOBS) + [CURRENT[(8192, 4)]]
    return cands


def sweep8():
    cands = {}
    for n in (65536, 131072):
        lays = [kr._split_cfg(n, b, w) for b, w in ((4096, 4), (8192, 4), (8192, 8), (16384, 8))]
        cands[f"2048x{n}:bf16"] = variants(lays, KNOBS_ROBUST) + [CURRENT[(n, 2)]]
    lays = [kr._split_cfg(32768, b, w) for b, w in ((4096, 4), (4096, 8), (8192, 4), (8192, 8))]
    cands["2048x32768:fp32"] = variants(lays, KNOBS_ROBUST) + [CURRENT[(32768, 4)]]
    for n, dt, el in ((32768, "bf16", 2), (16384, "fp32", 4)):
        lays = [kr._row1_cfg(n, 32), kr._row1_cfg(n, 16)]
        cands[f"2048x{n}:{dt}"] = variants(lays, KNOBS_ROBUST) + [CURRENT[(n, el)]]
    lays = [kr._rows_cfg([8192], False, 1, 32), kr._row1_cfg(8192, 32), kr._row1_cfg(8192, 16)]
    for wl in ("32768x8192:fp32", "2048x8192:fp32"):
        cands[wl] = variants(lays, KNOBS_ROBUST)
    # 4096 bf16 keeps its layout (chosen over decode, 2048 and 32768 rows): knobs for 32768 rows
    cands["32768x4096:bf16"] = variants([CURRENT[(4096, 2)]], KNOBS_ROBUST + [dict(HINTS=2, PDL=True,
                                                                                       W_EARLY=True)])
    return cands


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "7"
    cands = {"6": sweep6, "7": sweep7, "8": sweep8}[which]()
    with open(os.path.join(HERE, "candidates", f"sweep{which}-cands.json"), "w") as f:
        json.dump(cands, f, indent=0, default=list)
    print(",".join(cands), sum(len(v) for v in cands.values()))
