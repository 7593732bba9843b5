"""The closing-note table of a random-shape report (`kernel-records bench --json`, written by
lab/random_shapes/device_report.sh): per shape its kind, MB moved, floor, ours, each peer, ours /
the fastest peer that has a result, ours / floor; then the geometric mean and the shapes where a
peer or ours read not run (a budget cut) — a ratio over the peers that ran is marked with *.

    python lab/random_shapes/table.py lab/device-2026-12-04b/final/random-rmsnorm-1217.json
"""

from __future__ import annotations

import json
import math
import sys


def fmt(v):
    return "not run" if v is None else (f"{v:.3g}" if v < 100 else f"{v:.0f}")


def table(path: str) -> str:
    d = json.load(open(path))
    by: dict[str, dict] = {}
    meta: dict[str, dict] = {}
    for r in d["rows"]:
        by.setdefault(r["workload"], {})[r["implementation"]] = r
        meta[r["workload"]] = r
    impls = list(dict.fromkeys(r["implementation"] for r in d["rows"]))
    ours = next(i for i in impls if i.startswith("kr-triton"))
    peers = [i for i in impls if i != ours]
    head = ["shape", "dtype", "kind", "MB", "floor", "ours", *peers, "ours / fastest", "ours / floor"]
    lines = [f"{d['family']}, seed {d['seed']} (copy bandwidth {d.get('copy_bandwidth_gbps', 0):.0f} GB/s; "
             "device µs, median, cold L2)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratios, partial = [], 0
    for wid, cells in by.items():
        m = meta[wid]

        def us(i):
            c = cells.get(i) or {}
            v = c.get("device_us")
            return (v.get("median") if isinstance(v, dict) else v) if c.get("status") == "ok" else None

        o = us(ours)
        got = {p: us(p) for p in peers}
        ran = {p: v for p, v in got.items() if v is not None}
        cut = len(ran) < len(peers)
        ratio = o / min(ran.values()) if o is not None and ran else None
        if ratio is not None:
            ratios.append(ratio)
            partial += cut
        floor = m.get("floor_us")
        sizes = " x ".join(str(v) for v in m["sizes"].values())
        lines.append("| " + " | ".join([sizes, m["dtype"], m["kind"], f"{m['bytes'] / 1e6:.1f}",
                                        fmt(floor) if floor else "-", fmt(o), *(fmt(got[p]) for p in peers),
                                        (f"{ratio:.3f}" + ("*" if cut else "")) if ratio else "-",
                                        f"{o / floor:.2f}" if o and floor else "-"]) + " |")
    if ratios:
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        lines += ["", f"geomean ours / fastest peer {g:.3f} over {len(ratios)} shapes "
                      f"({partial} of them against only the peers that ran: *); ours fastest at "
                      f"{sum(r < 1 for r in ratios)}; {len(by) - len(ratios)} shapes without ours or any peer"]
    return "\n".join(lines)


if __name__ == "__main__":
    print("\n\n".join(table(p) for p in sys.argv[1:]))
