"""Issue 15, sweep 14 (2026-12-07, eighth session): the classes where the seed-7321 reports of
this session (H100, lab/device-2026-12-07c/) and sweep 13 left ours behind a peer.

* Class S (both norms): short rows (at most 640 elements) at 512 rows or more. Seed 7321:
  RMSNorm 18899 x 511 bf16 17.48 us against FlashInfer's 15.24 (1.15x), 1570 x 479 bf16 3.49
  against 2.79 (1.25x); sweep 13 had a quarter of the rows per program 0.87x the rule at 18937 x
  213 bf16. Candidates: sweep 13's (around the rule, quarter-rows) and, for rows off 16-byte
  multiples, the in-register aligned kernel at the rule's rows and warps.
* Class O (RMSNorm, 2 bytes, rows off 16-byte multiples between 4096 and 8192; decode rows and
  training rows): seed 7321 had 3 x 6980 bf16 3.17 us against FlashInfer's 2.47 (1.28x). The
  rule is the aligned loop (4096-element chunks, 8 warps). Candidates: the masked block of 8192
  on 8 and 4 warps (weight loaded early), the in-register aligned kernel (8192, one row, 8
  warps), the aligned loop in 2048 and in 8192 chunks. A rule by hidden and type holds one
  configuration at every row count, so both row classes decide.
* Class D (RMSNorm, every type): decode rows (16 or fewer) of 4096 to 32768 elements, where
  LayerNorm's early weight load won 0.62-0.89x (sweep 13 class D; lab/pending's patch, landed this
  session). Candidates: sweep 13's (LATE_W the other way among them).
* Class E (LayerNorm, every type): rows the landed decode rule leaves, 17 to 128 rows at 4096 to
  32768 and 16 rows or fewer at 1024 to 4095. Candidates: sweep 13's.

Tune shapes: the families' samplers with TUNE_SEED (14009, used nowhere else), PER_CLASS a class
(and family). The held-out run (SWEEP14_SEED=14071 SWEEP14_CLASSES=QE) measures the rules this
sweep set (LayerNorm's early weight load from 1024 elements at decode rows, 4 rows a program at
2-byte rows of 129-255) against the rules before them (the candidates named before-*).

    python3 lab/norms/sweep14.py --list
    python3 lab/norms/sweep14.py --out $OUT/sweep14.json [--budget 200]
    TRITON_INTERPRET=1 python3 lab/norms/sweep14.py --dry-run --out /tmp/s14.json
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sweep2  # noqa: E402
import sweep10  # noqa: E402
import sweep13  # noqa: E402
from sweep2 import _rows  # noqa: E402
from sweep9 import _aligned, _in_regs  # noqa: E402

TUNE_SEED = int(os.environ.get("SWEEP14_SEED", "14009"))
#: Q (held-out runs only, named in SWEEP14_CLASSES): the 4-rows rule's own rows, 2 bytes, 129-255
PER_CLASS = {c: n for c, n in {"Q": 3, "S": 2, "O": 4, "D": 3, "E": 3}.items()
             if c in os.environ.get("SWEEP14_CLASSES", "SODE")}
DRAWS = 8000


def _class(fid: str, n: int, es: int, rows: int) -> str | None:
    if "Q" in PER_CLASS and es == 2 and 128 < n < 256 and rows >= 512:
        return "Q"
    if n <= 640 and rows >= 512:
        return "S"
    if fid == "rmsnorm" and es == 2 and 4096 < n < 8192 and n % 8 and (rows <= 16 or rows >= 1024):
        return "O"
    if fid == "rmsnorm" and rows <= 16 and 4096 <= n <= 32768:
        return "D"
    if fid == "layernorm" and ((17 <= rows <= 128 and 4096 <= n <= 32768) or (rows <= 16 and 1024 <= n < 4096)):
        return "E"
    return None


def tune_shapes(fams: dict) -> list[tuple[str, str, str, int, int]]:
    return sweep10.draw_by_class(fams, TUNE_SEED, DRAWS, PER_CLASS, _class, split={"O": 16})


def _cands(fid: str, c: str, rule: dict, n: int, es: int) -> dict:
    if c == "O":
        return {"rule": None, "masked8192-w8": _rows(8192, 1, 8, True, late=False),
                "masked8192-w4": _rows(8192, 1, 4, True, late=False), "inregs8192-w8": _in_regs(n, 1, 8),
                "achunk2048-w8": _aligned(2048, 8), "achunk8192-w8": _aligned(8192, 8)}
    cands = sweep13._short_cands(rule, n, es)
    if c == "S" and n % (16 // es) and rule["kind"] == "rows":
        cands["inregs"] = _in_regs(n, rule["ROWS"], rule["num_warps"])
    # the rules before this sweep, for the held-out run: 16 rows of 256 (four times the warps),
    # and the weight after the reductions at LayerNorm decode rows (the rule's LATE_W, forced)
    if c in ("S", "Q") and es == 2 and rule["kind"] == "rows" and rule["BLOCK"] == 256 and rule["ROWS"] == 4:
        cands["before-16rows"] = {**rule, "ROWS": 16, "num_warps": rule["num_warps"] * 4}
    if c == "E" and rule["kind"] == "rows" and rule.get("LATE_W"):
        cands["before-late-w"] = dict(rule)
    return cands


def items(kr: dict) -> list[dict]:
    return sweep10.items_by(kr, tune_shapes, _cands)


if __name__ == "__main__":
    sys.exit(sweep2.tuned_main(items, tune_shapes))
