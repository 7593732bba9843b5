"""Issue 15, sweep 4 (2026-12-04): the parts backward's prefetch (the next row's block loaded
before this row's exchange) and smaller programs, the threshold between the register backward
and the parts one, and tiles of short rows in the forward:

    python3 lab/norms/sweep4.py --out $OUT/sweep4.json [--budget 200] [--rounds 2]
    python3 lab/norms/sweep4.py --prewarm SHARD SHARDS

Machinery as sweep 3 (lab/norms/sweep2.py); "rule" is the rule after sweep 3.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sweep2  # noqa: E402
from sweep2 import _rows  # noqa: E402
from sweep3 import _parts, it  # noqa: E402


def _pre(block, warps):
    return {**_parts(block, warps), "PREFETCH": True}


def items(kr: dict) -> list[dict]:
    bwd_parts = {"pre-2048-w4": _pre(2048, 4), "parts-1024-w2": _parts(1024, 2), "pre-1024-w2": _pre(1024, 2),
                 "pre-4096-w8": _pre(4096, 8)}
    return [
        it("rmsnorm", ["bwd-r2048-h32768-bf16"], ("bwd", 32768, 2), {"rule": None, **bwd_parts}),
        it("rmsnorm", ["bwd-r2048-h16384-bf16"], ("bwd", 16384, 2),
           {"rule": None, **bwd_parts, "rows-w32": {"kind": "rows", "BLOCK": 16384, "ROWS": 1, "MASK_COLS": False,
                                                   "num_warps": 32, "CTAS": 1}}),
        it("layernorm", ["bwd:2048x32768:bfloat16"], ("bwd", 32768, 2), {"rule": None, **bwd_parts}),
        it("layernorm", ["bwd:2048x16384:bfloat16"], ("bwd", 16384, 2), {"rule": None, **bwd_parts}),
        it("rmsnorm", ["bwd:2048x12288:bfloat16"], ("bwd", 12288, 2),
           {"rule": None, "parts-2048-w4": _parts(2048, 4), "pre-2048-w4": _pre(2048, 4)}),
        it("rmsnorm", ["bwd:1024x32768:float32"], ("bwd", 32768, 4),
           {"rule": None, "pre-1024-w4": _pre(1024, 4), "pre-512-w2": _pre(512, 2)}),
        it("layernorm", ["bwd:4096x12288:bfloat16"], ("bwd", 12288, 2),
           {"rule": None, "pre-2048-w4": _pre(2048, 4)}),
        it("rmsnorm", ["r2048-h1024-bf16"], ("fwd", 1024, 2),
           {"rule": None, "rows-r8-w8": _rows(1024, 8, 8, False), "rows-r8-w4": _rows(1024, 8, 4, False)}),
        it("rmsnorm", ["r4096-h2048-bf16", "r2048-h2048-bf16"], ("fwd", 2048, 2),
           {"rule": None, "rows-r4-w8": _rows(2048, 4, 8, False), "rows-r4-w4": _rows(2048, 4, 4, False)}),
        it("rmsnorm", ["r131072-h128-bf16"], ("fwd", 128, 2),
           {"rule": None, "rows-r64-w8": _rows(128, 64, 8, False), "rows-r64-w4": _rows(128, 64, 4, False)}),
        it("layernorm", ["r4096-h4096-bf16", "r1-h4096-bf16"], ("fwd", 4096, 2),
           {"rule": None, "rows-w4": _rows(4096, 1, 4, False)}),
        it("rmsnorm", ["r2048-h32768-bf16"], ("fwd", 32768, 2),
           {"rule": None, "rows-w32": _rows(32768, 1, 32, False), "late-w32": _rows(32768, 1, 32, False, late=True)}),
    ]


if __name__ == "__main__":
    sweep2.ITEMS = items
    if "--random" not in sys.argv:
        sys.argv += ["--random", "0"]
    sys.exit(sweep2.main())
