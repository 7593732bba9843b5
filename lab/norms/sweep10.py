"""Issue 15, sweep 10 (written 2026-12-06, fourth session; not run yet): what the seed-7321
reports and the index's runs left behind FlashInfer once sweep 9's rules landed (H100,
2026-12-06; lab/device-2026-12-06e/README.md):

* LayerNorm rows off 16-byte multiples between 4096 and 16384 at 2 bytes (class H): 5090 x
  13183 bf16 forward 1.34x FlashInfer on seed 7321. RMSNorm takes the aligned loop there (sweep
  9: 0.76x / 0.80x its old rule at 6117 / 7885 fp16); LayerNorm had no draw of that class.
  Candidates: sweep 9's class-D set (the aligned loop at three chunk sizes, the in-register
  aligned kernel, the plain loop).
* RMSNorm forwards of aligned rows at mid sizes (class I: 2 bytes, 768 <= n <= 8192, a multiple
  of 8, 512 rows or more, 8 MB or more): FlashInfer 1.003-1.025x faster at 6 of the index's
  forwards (2048 x 1024, 4096 x 7168, 2048 x 8192: 1.025x, 1.017x, 1.018x). Candidates around
  the rule's own configuration: half and twice its warps, LATE_W the other way, twice and half
  its rows per program where it holds several, and for the chunked loop between 4096 and 8192
  the masked block of 8192 and other chunk sizes.

Peers: sweep 2's (torch.compile, Liger) and, where their packages import, FlashInfer and QuACK
(the peers that lead at these sizes). Tune shapes: draws of the families' own samplers with
TUNE_SEED (used nowhere else); reports on seed 7321 and a fresh one judge the rules chosen.

    python3 lab/norms/sweep10.py --list                      # the tune shapes, per class (no GPU)
    python3 lab/norms/sweep10.py --out $OUT/sweep10.json     # on the GPU (sweep2's harness)
    TRITON_INTERPRET=1 python3 lab/norms/sweep10.py --dry-run --out /tmp/s10.json   # CPU
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sweep2  # noqa: E402
import sweep9  # noqa: E402
from sweep2 import _chunked, _rows  # noqa: E402
from sweep3 import it  # noqa: E402

TUNE_SEED = 10103  # a seed used nowhere else (reports: 1217, 3141, 4099, 5153, 6007, 7321; sweeps 8181, 9209)
PER_CLASS = {"H": 3, "I": 6}
DRAWS = 6000
MIN_BYTES = 8e6
EXTRA_PEERS = {"rmsnorm": (("flashinfer", "flashinfer-rmsnorm"), ("quack", "quack-rmsnorm")),
               "layernorm": (("flashinfer", "flashinfer-layernorm"), ("quack", "quack-layernorm"))}


def _class(fid: str, kind: str, n: int, elsize: int, rows: int) -> str | None:
    if kind != "forward" or elsize != 2:
        return None
    if fid == "layernorm" and n % 8 and 4096 <= n <= 16384:
        return "H"
    if fid == "rmsnorm" and n % 8 == 0 and 768 <= n <= 8192 and rows >= 512:
        return "I"
    return None


def tune_shapes(fams: dict) -> list[tuple[str, str, str, int, int]]:
    """(family, class, workload spec, hidden, element size), PER_CLASS a class, in the order each
    family's sampler drew them."""
    size = {"bfloat16": 2, "float16": 2, "float32": 4}
    out, seen = [], {}
    for fid in ("rmsnorm", "layernorm"):
        for s in fams[fid].sample_shapes(DRAWS, TUNE_SEED):
            n, es, rows = s.sizes["hidden"], size[s.dtype], s.sizes["rows"]
            c = _class(fid, s.kind, n, es, rows)
            if c is None or seen.get(c, 0) >= PER_CLASS[c] or 2 * rows * n * es < MIN_BYTES:
                continue
            seen[c] = seen.get(c, 0) + 1
            out.append((fid, c, f"fwd:{rows}x{n}:{s.dtype}", n, es))
    return out


def _around(rule: dict, n: int, es: int) -> dict:
    """Class I: candidates around the rule's configuration for hidden n."""
    kind = rule["kind"]
    cap = 32 if es == 4 else 16
    out = {}
    if kind in ("rows", "split"):
        w = rule["num_warps"]
        for label, ww in (("half-warps", w // 2), ("twice-warps", w * 2)):
            if 1 <= ww <= cap:
                out[label] = {**rule, "num_warps": ww}
        if kind == "rows":
            out["late-w" if not rule.get("LATE_W") else "early-w"] = {**rule, "LATE_W": not rule.get("LATE_W")}
            if rule["ROWS"] > 1:
                out["half-rows"] = {**rule, "ROWS": rule["ROWS"] // 2, "num_warps": max(1, rule["num_warps"] // 2)}
            if rule["ROWS"] * rule["BLOCK"] <= 4096:
                out["twice-rows"] = {**rule, "ROWS": rule["ROWS"] * 2, "num_warps": min(cap, rule["num_warps"] * 2)}
    else:  # the chunked loop between 4096 and 8192
        out.update({"masked8192-w8": _rows(8192, 1, 8, True), "masked8192-w16": _rows(8192, 1, 16, True),
                    "chunk1024-w4": _chunked(1024, 4), "chunk4096-w8": _chunked(4096, 8),
                    "chunk8192-w16": _chunked(8192, 16)})
    return out


def items(kr: dict) -> list[dict]:
    from site_builder.runner.families import KERNELS_ROOT, load_family

    for fid, extra in EXTRA_PEERS.items():
        got = tuple(impl for pkg, impl in extra if importlib.util.find_spec(pkg) is not None)
        sweep2.PEERS[fid] = tuple(dict.fromkeys(sweep2.PEERS[fid] + got))
    fams = {f: load_family(KERNELS_ROOT, f) for f in ("rmsnorm", "layernorm")}
    out = []
    for fid, c, spec, n, es in tune_shapes(fams):
        if c == "H":
            cands = sweep9._cands(fid, "D", n, es)
        else:
            cands = {"rule": None, **_around(kr[fid].fwd_config(n, es), n, es)}
        out.append(it(fid, [spec], ("fwd", n, es), cands))
    return out


if __name__ == "__main__":
    sys.exit(sweep2.tuned_main(items, tune_shapes))
