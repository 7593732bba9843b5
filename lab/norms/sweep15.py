"""Issue 15, sweep 15 (written 2026-12-07, eighth session; not run yet): what sweep 14 and its
held-out run (lab/device-2026-12-07c/) left, with the norms' unrolled aligned loops
(lab/pending/norms-unrolled-aligned-loop.patch applied: the sweep says so where it is not).

* Class O (both norms, 2 bytes, the rows above 4096 whose rule is the aligned loop, 16 rows or
  fewer; lab/pending/norms-unrolled-aligned-loop.patch gives both aligned loops UNROLL). Sweep 14: the masked block of 8192 was 0.65-0.82x the loop at 4 x 7219 bf16
  and 4 x 4575 fp16, but it changes a row's arithmetic, so it cannot be a rule by row count; the
  plain loop was 0.73x at 2 x 16342 fp16. Seed 7321: 3 x 6980 bf16 1.28x FlashInfer. The
  unrolled aligned loop keeps the loop's bits (tests/test_norms_cpu.py,
  tests/gpu/test_norms_gpu.py), so a rule may take it at decode rows only. LayerNorm's may
  differ from its loop in the last bit on a GPU, as its plain loop's UNROLL did, so a LayerNorm
  rule takes it by hidden and type only: class T decides there. Candidates: the rule
  unrolled, at half and twice its chunk, and the masked block (where n < 8192) for scale.
* Class T (both norms, the same rows at 1024 rows or more): the unrolled loop at training rows,
  where the rule stays unless it wins there too.
* Class L (RMSNorm, every type, rows of 129-640 at 512 rows or more): the weight after the
  reduction (LATE_W). Seed 14071 (held out): 0.85-0.92x at three 2-byte shapes of 192-227.
* Class S (RMSNorm, 2 bytes, rows of 129-255 at any row count; in held-out runs only, not in
  the default classes, where such rows are class L's): the late weight load that sweep 15 gave
  those rows.
* Class W (LayerNorm, 17-128 rows at 4096 elements or more): the early weight load of the
  decode rule. Seed 14071: 0.94x at 98 x 6208 bf16.
* Class V (LayerNorm, 16 rows or fewer below 1024 elements): the decode rule's early weight load
  below its 1024. Seed 7321: 6 x 320 fp16 2.43 us against torch.compile's 2.00.

Tune shapes: the families' samplers with TUNE_SEED (15013, used nowhere else), PER_CLASS a
class. Hold out on another seed (SWEEP15_SEED) before a rule lands.

    python3 lab/norms/sweep15.py --list
    python3 lab/norms/sweep15.py --out $OUT/sweep15.json [--budget 200]
    TRITON_INTERPRET=1 python3 lab/norms/sweep15.py --dry-run --out /tmp/s15.json
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sweep2  # noqa: E402
import sweep10  # noqa: E402
from sweep2 import _rows  # noqa: E402

TUNE_SEED = int(os.environ.get("SWEEP15_SEED", "15013"))
PER_CLASS = {c: n for c, n in {"O": 4, "T": 3, "L": 3, "W": 3, "V": 3, "S": 4}.items()
             if c in os.environ.get("SWEEP15_CLASSES", "OTLWV")}
DRAWS = 8000


def _odd(fid: str, n: int, es: int) -> bool:
    """2-byte rows above 4096 that the rule sends to the aligned loop: off 16-byte multiples
    (RMSNorm; LayerNorm above 8192), odd (LayerNorm between 4096 and 8192, _ALIGN_LOOP_ODD)."""
    if es != 2 or n <= 4096:
        return False
    return bool(n % 2) if fid == "layernorm" and n < 8192 else bool(n % 8)


def _class(fid: str, n: int, es: int, rows: int) -> str | None:
    if _odd(fid, n, es) and rows <= 16:
        return "O"
    if _odd(fid, n, es) and rows >= 1024:
        return "T"
    if fid == "rmsnorm" and 128 < n < 256 and es == 2 and "S" in PER_CLASS:
        return "S"
    if fid == "rmsnorm" and 128 < n <= 640 and rows >= 512:
        return "L"
    if fid == "layernorm" and 17 <= rows <= 128 and n >= 4096:
        return "W"
    if fid == "layernorm" and rows <= 16 and n < 1024:
        return "V"
    return None


def tune_shapes(fams: dict) -> list[tuple[str, str, str, int, int]]:
    return sweep10.draw_by_class(fams, TUNE_SEED, DRAWS, PER_CLASS, _class)


def _unrolled(kr, rule: dict) -> dict:
    if "UNROLL" not in kr._fwd_chunked_aligned.arg_names:
        print("no unrolled aligned loop (lab/pending/norms-unrolled-aligned-loop.patch not applied)")
        return {}
    out = {"unroll": {**rule, "UNROLL": True}}
    for label, block in (("unroll-half", rule["BLOCK"] // 2), ("unroll-twice", rule["BLOCK"] * 2)):
        out[label] = {**rule, "BLOCK": block, "UNROLL": True}
    return out


def _toggle_late_w(rule: dict, default: bool) -> dict:
    """The rule with its weight load moved: "late-w" where the rule loads it early, "early-w"
    where it loads it late (a held-out run of a rule that took the candidate measures the rule
    before it this way). `default`: the kernel's LATE_W where a rule does not name it (RMSNorm
    False, LayerNorm True)."""
    late = bool(rule.get("LATE_W", default))
    return {("early-w" if late else "late-w"): {**rule, "LATE_W": not late}}


def _cands(mod, c: str, rule: dict, n: int, es: int) -> dict:
    cands = {"rule": None}
    if c in ("O", "T") and rule.get("ALIGN"):
        if rule.get("UNROLL"):  # a rule that took the unrolled loop: the plain loop beside it
            cands["loop"] = {**rule, "UNROLL": False}
        else:
            cands.update(_unrolled(mod, rule))
        if n < 8192:
            cands["masked8192-w8"] = _rows(8192, 1, 8, True, late=False)
    elif c in ("L", "S") and rule["kind"] == "rows":  # (RMSNorm's `_fwd_split` has no LATE_W)
        cands.update(_toggle_late_w(rule, False))
    elif c in ("W", "V") and rule["kind"] == "rows":
        cands.update(_toggle_late_w(rule, True))
    return cands


def items(kr: dict) -> list[dict]:
    return sweep10.items_by(kr, tune_shapes, lambda fid, c, rule, n, es: _cands(kr[fid], c, rule, n, es))


if __name__ == "__main__":
    sys.exit(sweep2.tuned_main(items, tune_shapes))
