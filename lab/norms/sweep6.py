"""Issue 15, sweep 6 (written 2026-12-04, not run yet): the misses of run 4's random report at
small and odd calls. Its shapes came from the report's seed 1217, so the next report must draw
another seed (e.g. 4099): these are tune shapes now.

* run 4's floor misses first: rmsnorm forward 4096 x 4096 and 4096 x 5120 bf16 (1.11x the
  floor), layernorm 4096 x 4096 bf16 (1.13x): warps, rows a program, chunk sizes;
* RMSNorm forward at a 2496-row (split class: 2048 + 256 + 256 pieces, 4 warps): 14 rows 3.07 us
  against Liger's 2.12 — more warps, or the masked 4096 block as Liger holds it; beside 4096
  rows, where the split was chosen;
* LayerNorm forward 24887 x 1252 fp16 at 1.85x the floor (split 1024 + 128 + 128): the masked
  2048 block, more rows a program;
* RMSNorm backward at small calls (70 x 512 fp16 5.72 us against torch.compile's 3.57; 65 x 5608
  fp16 6.27 against 5.54): rows a program and warps of the register kernel, the parts kernel;
* RMSNorm float32 backward 200 x 9792 (the register kernel's masked 16384 block, 1.10x compile):
  the parts kernel for float32 rows above 8192.

    python3 lab/norms/sweep6.py --out $OUT/sweep6.json [--budget 200] [--rounds 2]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sweep2  # noqa: E402
from sweep2 import _chunked, _rows, _split  # noqa: E402
from sweep3 import _parts, it  # noqa: E402


def _bwd_rows(block, rows, warps, ctas):
    return {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": True, "num_warps": warps, "CTAS": ctas}


def items(kr: dict) -> list[dict]:
    r, ln = kr["rmsnorm"], kr["layernorm"]
    return [
        # run 4's floor misses (1.11x / 1.11x / 1.13x the floor; target 1.10 at 64-256 MB)
        it("rmsnorm", ["r4096-h4096-bf16", "r2048-h4096-bf16"], ("fwd", 4096, 2),
           {"rule": None, "w4": _rows(4096, 1, 4, False), "w16": _rows(4096, 1, 16, False),
            "r2-w16": _rows(4096, 2, 16, False), "late-w8": _rows(4096, 1, 8, False, late=True)}),
        it("rmsnorm", ["r4096-h5120-bf16"], ("fwd", 5120, 2),
           {"rule": None, "chunked-1024-w4": _chunked(1024, 4), "chunked-2048-w4": _chunked(2048, 4),
            "chunked-8192-w16": _chunked(8192, 16), "split-w8": _split(5120, 1, 8, r)}),
        it("layernorm", ["r4096-h4096-bf16"], ("fwd", 4096, 2),
           {"rule": None, "w4": _rows(4096, 1, 4, False, late=True), "w16": _rows(4096, 1, 16, False, late=True),
            "r2-w8": _rows(4096, 2, 8, False, late=True)}),
        it("rmsnorm", ["fwd:14x2496:bfloat16", "fwd:4096x2496:bfloat16"], ("fwd", 2496, 2),
           {"rule": None, "split-w8": _split(2496, 1, 8, r), "masked-w8": _rows(4096, 1, 8, True),
            "masked-w4": _rows(4096, 1, 4, True)}),
        it("layernorm", ["fwd:24887x1252:float16"], ("fwd", 1252, 2),
           {"rule": None, "masked-w4": _rows(2048, 1, 4, True), "masked-r2-w4": _rows(2048, 2, 4, True),
            "split-r2-w4": _split(1252, 2, 4, ln), "split-w2": _split(1252, 1, 2, ln)}),
        it("rmsnorm", ["bwd:70x512:float16", "bwd:20281x512:float16"], ("bwd", 512, 2),
           {"rule": None, "rows-r1-w2": _bwd_rows(512, 1, 2, 4), "rows-r2-w4": _bwd_rows(512, 2, 4, 4),
            "rows-r8-w8": _bwd_rows(512, 8, 8, 2)}),
        it("rmsnorm", ["bwd:65x5608:float16"], ("bwd", 5608, 2),
           {"rule": None, "parts-2048-w4": _parts(2048, 4), "rows-w16": _bwd_rows(8192, 1, 16, 1)}),
        it("rmsnorm", ["bwd:200x9792:float32", "bwd:2048x9792:float32"], ("bwd", 9792, 4),
           {"rule": None, "parts-1024-w4": _parts(1024, 4), "parts-2048-w8": _parts(2048, 8)}),
    ]


if __name__ == "__main__":
    sweep2.ITEMS = items
    if "--random" not in sys.argv:
        sys.argv += ["--random", "0"]
    sys.exit(sweep2.main())
