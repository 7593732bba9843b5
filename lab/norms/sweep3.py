"""Issue 15, sweep 3 (2026-12-04): the rows split across programs ("parts" kernels, exchanging
their partial sums through L2: kernels/rmsnorm/kr_parts.py) against the long-row kernels they
replace and against the peers, and the short-row launches that missed in run 3:

    python3 lab/norms/sweep3.py --out $OUT/sweep3.json [--budget 200] [--rounds 2]
    python3 lab/norms/sweep3.py --prewarm SHARD SHARDS      # first calls only (compile caches)

The machinery (timing the runner's way, overrides, table) is sweep 2's (lab/norms/sweep2.py);
this file only lists what it measures. Each item: the rule first, then the peers, then the other
candidates, in order of importance. Ad-hoc workloads are `fwd|bwd:ROWSxHIDDEN:DTYPE`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sweep2  # noqa: E402
from sweep2 import _long, _rows  # noqa: E402


def _parts(block, warps):
    """A parts configuration (the row across programs of `block` columns) for its item's hidden
    size, filled in by `_fit_parts` (PARTS and MASK_COLS depend on the row)."""
    return {"kind": "parts", "BLOCK": block, "num_warps": warps}


def _fit_parts(cfg, n):
    if cfg and cfg.get("kind") == "parts":
        parts = -(-n // cfg["BLOCK"])
        return {**cfg, "PARTS": parts, "MASK_COLS": parts * cfg["BLOCK"] != n}
    return cfg


def it(family, workloads, key, cands):
    """One sweep item: the workloads of one (kind, hidden, element size) key and its candidates,
    the parts ones fitted to the key's hidden size."""
    return {"family": family, "workloads": workloads, "key": key,
            "cands": {k: _fit_parts(v, key[1]) for k, v in cands.items()}}


def items(kr: dict) -> list[dict]:
    long_bf16 = _long(8192, 32)  # the long rule before sweep 3
    return [
        it("rmsnorm", ["bwd-r2048-h32768-bf16"], ("bwd", 32768, 2),
           {"rule": None, "long-b8192-w32": long_bf16, "parts-2048-w4": _parts(2048, 4),
            "parts-8192-w16": _parts(8192, 16), "parts-4096-w4": _parts(4096, 4), "parts-4096-w8": _parts(4096, 8)}),
        it("rmsnorm", ["bwd-r2048-h16384-bf16"], ("bwd", 16384, 2),
           {"rule": None, "parts-4096-w8": _parts(4096, 8), "parts-2048-w4": _parts(2048, 4),
            "parts-8192-w16": _parts(8192, 16)}),
        it("layernorm", ["bwd:2048x32768:bfloat16"], ("bwd", 32768, 2),
           {"rule": None, "long-b8192-w32": long_bf16, "parts-2048-w4": _parts(2048, 4),
            "parts-8192-w16": _parts(8192, 16), "parts-4096-w8": _parts(4096, 8)}),
        it("layernorm", ["r4096-h4096-bf16", "r1-h4096-bf16"], ("fwd", 4096, 2),
           {"rule": None, "rows-w8": _rows(4096, 1, 8, False), "rows-w16": _rows(4096, 1, 16, False),
            "rows-w2": _rows(4096, 1, 2, False)}),
        it("rmsnorm", ["r2048-h32768-bf16"], ("fwd", 32768, 2),
           {"rule": None, "parts-8192-w8": _parts(8192, 8), "parts-16384-w16": _parts(16384, 16),
            "parts-4096-w4": _parts(4096, 4), "rows-w32": _rows(32768, 1, 32, False)}),
        it("rmsnorm", ["r2048-h1024-bf16"], ("fwd", 1024, 2),
           {"rule": None, "rows-r8-w8": _rows(1024, 8, 8, False), "rows-r4-w4": _rows(1024, 4, 4, False),
            "rows-r2-w2": _rows(1024, 2, 2, False), "rows-r8-w4": _rows(1024, 8, 4, False),
            "rows-r16-w8": _rows(1024, 16, 8, False)}),
        it("layernorm", ["bwd:2048x16384:bfloat16"], ("bwd", 16384, 2),
           {"rule": None, "long-b8192-w32": long_bf16, "parts-2048-w4": _parts(2048, 4),
            "parts-8192-w16": _parts(8192, 16)}),
        it("rmsnorm", ["bwd-r4096-h8192-bf16"], ("bwd", 8192, 2),
           {"rule": None, "parts-4096-w8": _parts(4096, 8), "parts-2048-w4": _parts(2048, 4)}),
        it("layernorm", ["bwd-r4096-h8192-bf16"], ("bwd", 8192, 2),
           {"rule": None, "parts-4096-w8": _parts(4096, 8), "parts-2048-w4": _parts(2048, 4)}),
        it("layernorm", ["fwd:2048x32768:bfloat16"], ("fwd", 32768, 2),
           {"rule": None, "parts-8192-w8": _parts(8192, 8), "parts-16384-w16": _parts(16384, 16)}),
        it("rmsnorm", ["bwd:1024x32768:float32"], ("bwd", 32768, 4),
           {"rule": None, "long-b4096-w32": _long(4096, 32), "parts-1024-w4": _parts(1024, 4),
            "parts-4096-w16": _parts(4096, 16)}),
        it("rmsnorm", ["bwd:2048x9000:bfloat16"], ("bwd", 9000, 2),
           {"rule": None, "parts-4096-w8": _parts(4096, 8), "parts-2048-w4": _parts(2048, 4)}),
    ]


if __name__ == "__main__":
    sweep2.ITEMS = items
    if "--random" not in sys.argv:
        sys.argv += ["--random", "0"]
    sys.exit(sweep2.main())
