"""Issue 15, sweep 7 (2026-12-04, third session): what sweep 6 found, tried beyond the shapes it
found it on, before the rules change.

Sweep 6 (lab/device-2026-12-04c/call1): the RMSNorm backward at 512 columns was fastest with
one-row tiles on 2 warps (70 rows 3.46 us against the rule's 5.75; 20281 rows 22.78 against
28.65), the split forward with a masked third piece lost to the masked block (2496: 1.41 / 10.26
against 3.13 / 13.25; LayerNorm 1252: masked 2 rows on 4 warps 40.42 against 54.59), and the
RMSNorm forward at 4096 bf16 gained from the weight loaded after the reduction (17.19 against
17.56; 2048 rows 8.22 against 8.65). Here:

* backward tiles of about 512 elements (one row from 512 up) against the rule's 2048, at the
  family workloads of 128, 768, 1024 and 2048 columns, both families;
* the forward's late weight at 4096 float32 and at 2048 bf16 (RMSNorm);
* masked blocks' warps (rows x real bytes / 1 kB, as the split counts them, against the block's
  bytes) at 2496 and 1252, both families.

These shapes are tune shapes (sweep 6's came from seed 1217's report): the next report draws
another seed (4099).

    python3 lab/norms/sweep7.py --out $OUT/sweep7.json [--budget 200] [--rounds 2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sweep2  # noqa: E402
from sweep2 import _rows, _split  # noqa: E402
from sweep3 import it  # noqa: E402


def _bwd_rows(block, rows, warps, ctas, masked=False):
    return {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": masked, "num_warps": warps, "CTAS": ctas}


def items(kr: dict) -> list[dict]:
    r, ln = kr["rmsnorm"], kr["layernorm"]
    return [
        it("rmsnorm", ["bwd-r2048-h1024-bf16"], ("bwd", 1024, 2),
           {"rule": None, "r1-w4": _bwd_rows(1024, 1, 4, 4), "r1-w2": _bwd_rows(1024, 1, 2, 4)}),
        it("rmsnorm", ["bwd-r131072-h128-bf16"], ("bwd", 128, 2),
           {"rule": None, "r4-w2": _bwd_rows(128, 4, 2, 4), "r8-w4": _bwd_rows(128, 8, 4, 4)}),
        it("rmsnorm", ["bwd-r4096-h2048-bf16", "bwd-r2048-h2048-bf16"], ("bwd", 2048, 2),
           {"rule": None, "r1-w4": _bwd_rows(2048, 1, 4, 4)}),
        it("layernorm", ["bwd-r4096-h768-bf16"], ("bwd", 768, 2),
           {"rule": None, "r1-w4": _bwd_rows(1024, 1, 4, 4, True), "r1-w2": _bwd_rows(1024, 1, 2, 4, True)}),
        it("layernorm", ["bwd-r32768-h1024-bf16"], ("bwd", 1024, 2),
           {"rule": None, "r1-w4": _bwd_rows(1024, 1, 4, 4), "r1-w2": _bwd_rows(1024, 1, 2, 4)}),
        it("layernorm", ["bwd:6560x256:float16"], ("bwd", 256, 2),
           {"rule": None, "r2-w2": _bwd_rows(256, 2, 2, 4), "r4-w4": _bwd_rows(256, 4, 4, 4)}),
        it("rmsnorm", ["r4096-h4096-fp32"], ("fwd", 4096, 4),
           {"rule": None, "late-w16": _rows(4096, 1, 16, False, late=True)}),
        it("rmsnorm", ["r4096-h2048-bf16"], ("fwd", 2048, 2),
           {"rule": None, "late": _rows(2048, 2, 8, False, late=True)}),
        it("rmsnorm", ["fwd:24887x1252:float16"], ("fwd", 1252, 2),
           {"rule": None, "masked-r2-w4": _rows(2048, 2, 4, True), "masked-r2-w2": _rows(2048, 2, 2, True)}),
        it("rmsnorm", ["fwd:4096x2496:bfloat16", "fwd:14x2496:bfloat16"], ("fwd", 2496, 2),
           {"masked-w4": _rows(4096, 1, 4, True), "masked-w2": _rows(4096, 1, 2, True)}),
        it("layernorm", ["fwd:4096x2496:bfloat16", "fwd:14x2496:bfloat16"], ("fwd", 2496, 2),
           {"rule": None, "masked-w4": _rows(4096, 1, 4, True), "masked-w8": _rows(4096, 1, 8, True)}),
        it("layernorm", ["fwd:24887x1252:float16"], ("fwd", 1252, 2),
           {"masked-r2-w4": _rows(2048, 2, 4, True), "masked-r2-w2": _rows(2048, 2, 2, True),
            "split-r2-w2": _split(1252, 2, 2, ln)}),
    ]


if __name__ == "__main__":
    sweep2.ITEMS = items
    if "--random" not in sys.argv:
        sys.argv += ["--random", "0"]
    sys.exit(sweep2.main())
