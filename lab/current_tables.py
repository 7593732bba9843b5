"""Ours against the fastest peer per workload, as the built site stands (every implementation's
current result, whichever run holds it), for one family on one hardware:

    .venv/bin/kernel-records build --no-run      # writes output/families/<family>.csv
    python lab/current_tables.py softmax [--ours kr-triton-softmax] [--hardware h200] [--out output]

Unlike the per-run tables (lab/norms/targets.py, lab/softmax/tables.py, lab/swiglu/tables.py),
a ratio here may compare results of different runs: after a `--missing` run that measured only
ours, that is what the site shows. Each peer cell names the run date of the result; the summary
counts how many ratios are same-run. Reads the site's CSV and the family record (no torch).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from site_builder.derive import floors  # noqa: E402
from site_builder.records.load import load_catalog  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("family")
    p.add_argument("--ours", default=None, help="our implementation id (default: the kr-triton one)")
    p.add_argument("--hardware", default="h200")
    p.add_argument("--out", type=Path, default=ROOT / "output")
    p.add_argument("--records", type=Path, default=ROOT / "records")
    a = p.parse_args(argv)
    path = a.out / "families" / f"{a.family}.csv"
    if not path.exists():
        sys.exit(f"{path} not found: build the site first (kernel-records build --no-run)")
    rows = [r for r in csv.DictReader(path.open(encoding="utf-8"))
            if r["hardware"] == a.hardware and r["status"] == "ok" and r["trust"] == "measured"]
    catalog = load_catalog(a.records)
    family = catalog.families[a.family]
    impls = list(dict.fromkeys(r["implementation"] for r in rows))
    ours = a.ours or next((i for i in impls if i.startswith("kr-triton")), None)
    if ours is None:
        sys.exit(f"no kr-triton implementation among {impls}: pass --ours")
    by = {(r["workload"], r["implementation"]): r for r in rows}
    print(f"{a.family} on {a.hardware}: current results (the site's), device µs median; "
          f"a peer's result from another run than ours is marked *\n")
    print("| workload | kind | MB | ours | fastest peer | its µs | ours / fastest peer | ours / floor |")
    print("|---|---|---|---|---|---|---|---|")
    ratios, big, misses, same, fastest, n = [], [], [], 0, 0, 0
    for w in family.workloads:
        mine = by.get((w.id, ours))
        peers = [(float(r["time_us"]), i, r) for (wid, i), r in by.items() if wid == w.id and i != ours]
        mb = floors.bytes_moved(family, w) / 1e6
        if mine is None or not peers:
            print(f"| {w.id} | {w.kind} | {mb:.1f} | {'—' if mine is None else mine['time_us']} | — | — | — | — |")
            continue
        t = float(mine["time_us"])
        best_t, best_i, best_r = min(peers)
        other = best_r["run_url"].split("#")[0] != mine["run_url"].split("#")[0]
        same += not other
        ratio = t / best_t
        n += 1
        fastest += ratio <= 1.0
        ratios.append(ratio)
        if mb > 8:
            big.append(ratio)
            if ratio > 1.0:
                misses.append(f"{w.id} {ratio:.3f}× {best_i}")
        ff = mine.get("floor_fraction")
        vs_floor = f"{1 / float(ff):.2f}" if ff not in (None, "", "0", "0.0") else "—"
        print(f"| {w.id} | {w.kind} | {mb:.1f} | {t:.4g} | {best_i} | {best_t:.4g}{'*' if other else ''} | "
              f"{ratio:.3f} | {vs_floor} |")

    def gm(xs):
        return math.exp(-sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    print(f"\nours fastest at {fastest} of {n}; geometric-mean speed-up over the fastest peer {gm(ratios):.3f} "
          f"(all {n}), {gm(big):.3f} (the {len(big)} over 8 MB); {same} of {n} ratios same-run")
    print("over 8 MB and slower than a peer: " + ("; ".join(misses) if misses else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
