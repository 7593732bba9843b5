"""Issue 14's tables and targets from `kernel-records bench --json` files (no GPU, no torch):

    python lab/fused_add_rmsnorm/issue14_tables.py OUT/family.json OUT/report.json OUT/models.json ...

One table per shape set found in the files (the rows' `sets`: `record`, `random-<seed>`,
`models`, ...): per shape the floor (bytes over the copy bandwidth measured in the same bench),
kr-triton, each peer (Liger-Kernel, QuACK, torch.compile, add + F.rms_norm), kr / fastest peer,
kr / floor, and the end-to-end times; then the targets of issue 14 for that set, each `held` or
`MISSED` (with the shapes that miss), and which shapes were not measured (failed, not installed,
out of the bench's budget).
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict

KR = "kr-triton"
PEERS = ("liger-fused", "quack", "torch-compile", "torch-rms-norm")
SHORT = {"liger-fused": "liger", "quack": "quack", "torch-compile": "compile", "torch-rms-norm": "frms"}
MB8 = 8e6


def floor_band(nbytes: float) -> float | None:
    if nbytes >= 256e6:
        return 1.05
    if nbytes >= 64e6:
        return 1.10
    if nbytes >= 8e6:
        return 1.25
    return None


NOT_RUN: list[str] = []


def load(paths):
    """{set: {workload: {impl: row}}}, in order of appearance (NOT_RUN: workloads a bench's
    budget left out)."""
    sets: dict = defaultdict(dict)
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        NOT_RUN.extend(f"{path}: {w}" for w in data.get("not_run", []))
        for row in data["rows"]:
            for s in row.get("sets") or ["record"]:
                sets[s].setdefault(row["workload"], {})[row["implementation"]] = row
    return sets


def label(row) -> str:
    sizes = row.get("sizes") or {}
    dt = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}.get(row.get("dtype"), row.get("dtype"))
    extra = "+w fp32" if (row.get("tensors") or {}).get("weight") == "float32" else ""
    return f"{sizes.get('rows')} × {sizes.get('hidden')} {dt}{extra}" if sizes else row["workload"]


def us(row):
    return row["device_us"]["median"] if row and row.get("status") == "ok" else None


def e2e(row):
    return (row.get("e2e_us") or {}).get("median") if row and row.get("status") == "ok" else None


def table(name: str, shapes: dict) -> list[str]:
    out = [f"### {name} ({len(shapes)} shapes)", "",
           "| shape | MB | floor µs | kr µs | " + " | ".join(f"{SHORT[p]} µs" for p in PEERS)
           + " | kr / fastest | kr / floor | kr e2e µs | fastest e2e µs |",
           "|---|---|---|---|" + "---|" * len(PEERS) + "---|---|---|---|"]
    missed, speedups, unmeasured = [], [], []
    for wid, impls in shapes.items():
        kr = impls.get(KR)
        any_row = next(iter(impls.values()))
        nbytes, floor = any_row["bytes"], any_row["floor_us"]
        t = us(kr)
        peers = {p: us(impls.get(p)) for p in PEERS}
        ok = {p: v for p, v in peers.items() if v is not None}
        if t is None:
            why = (kr or {}).get("status", "absent")
            unmeasured.append(f"{label(any_row)}: kr-triton {why} {(kr or {}).get('error', '')[:120]}")
        fastest = min(ok, key=ok.get) if ok else None
        ratio = t / ok[fastest] if (t and fastest) else None
        e2e_peers = {p: e2e(impls.get(p)) for p in ok}
        e2e_peers = {p: v for p, v in e2e_peers.items() if v is not None}
        best_e2e = min(e2e_peers.values()) if e2e_peers else None
        cells = [label(any_row), f"{nbytes / 1e6:.1f}", f"{floor:.2f}", f"{t:.2f}" if t else (kr or {}).get("status", "—")]
        cells += [f"{v:.2f}" if v is not None else (impls.get(p) or {}).get("status", "—") for p, v in peers.items()]
        cells += [f"{ratio:.3f} ({SHORT[fastest]})" if ratio else "—", f"{t / floor:.3f}" if t else "—",
                  f"{e2e(kr):.1f}" if e2e(kr) else "—", f"{best_e2e:.1f}" if best_e2e else "—"]
        out.append("| " + " | ".join(cells) + " |")
        if t is None or fastest is None:
            continue
        speedups.append(ok[fastest] / t)
        if nbytes > MB8 and ratio > 1.0:
            missed.append(f"{label(any_row)}: {ratio:.3f}× {fastest} (> 8 MB: at most 1.00)")
        if nbytes <= MB8:
            if ratio > 1.0:
                missed.append(f"{label(any_row)}: device {ratio:.3f}× {fastest} (below 8 MB: at most 1.00)")
            if e2e(kr) and best_e2e and e2e(kr) > best_e2e:
                missed.append(f"{label(any_row)}: end-to-end {e2e(kr):.1f} µs > fastest peer's {best_e2e:.1f}")
        band = floor_band(nbytes)
        if band and t / floor > band:
            missed.append(f"{label(any_row)}: {t / floor:.3f}× floor (band {band})")
        hidden = (any_row.get("sizes") or {}).get("hidden")
        if hidden in (65536, 131072):
            q = ok.get("quack")
            if q is None:
                missed.append(f"{label(any_row)}: QuACK not measured, the ≤ 1.00× QuACK target is unchecked")
            elif t > q:
                missed.append(f"{label(any_row)}: {t / q:.3f}× QuACK (at most 1.00)")
    out.append("")
    if speedups:
        g = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        out.append(f"geometric-mean speed-up over the fastest peer: {g:.3f} over {len(speedups)} shapes "
                   f"(target at least 1.03): {'held' if g >= 1.03 else 'MISSED'}")
    verdict = "MISSED:" if missed else ("every per-shape target held" if not unmeasured
                                        else "no per-shape target missed among the measured shapes")
    out += ["", verdict, *[f"  {m}" for m in missed]]
    if unmeasured:
        out += ["", "not measured:", *[f"  {u}" for u in unmeasured]]
    out.append("")
    return out


def main(paths) -> int:
    if not paths:
        print(__doc__)
        return 2
    for name, shapes in load(paths).items():
        print("\n".join(table(name, shapes)))
    if NOT_RUN:
        print(f"not run (a bench's budget was spent before their group): {len(NOT_RUN)} shapes")
        print("\n".join(f"  {w}" for w in NOT_RUN))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
