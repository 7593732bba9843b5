"""The closing-note table of an element-wise family's run record, and the issue's targets.

    python lab/swiglu/tables.py records/runs/swiglu/h200/<run>.yaml [--ours kr-triton-swiglu]
    python lab/swiglu/tables.py --family swiglu kernels/swiglu/results/runner-swiglu.log

The second form reads a runner's console log instead (its `impl · workload: ok T µs` lines and
the copy bandwidth of its summary's title), for a run whose record did not come back; it has
device medians only (no end-to-end times).

Per workload: the floor (bytes of every declared tensor of the workload's kind, once, over the
run's measured copy bandwidth: site_builder.floors), ours, each peer (device time, median, µs),
ours / fastest peer and ours / floor; then the geometric-mean speed-up over the fastest peer and
the targets of issue 17 (at most 1.00x the fastest peer above 8 MB; at most 1.10x the floor at
64-256 MB and 1.05x at 256 MB and more; decode (seq 1) end-to-end at most the best peer's).
Reads YAML and the family record only: no torch.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from site_builder.floors import bytes_moved  # noqa: E402
from site_builder.schema import Family  # noqa: E402


def _fmt(v):
    if v is None:
        return "–"
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def _from_log(path: Path, family: str) -> dict:
    """A run-record-like dict from a runner console log: device medians and statuses only."""
    text = path.read_text()
    bw = re.search(r"copy bandwidth, ([0-9.]+) GB/s", text)
    if not bw:
        raise SystemExit(f"{path}: no 'copy bandwidth, N GB/s' in the summary title")
    results = []
    for m in re.finditer(r"^([a-z0-9.-]+) · ([a-z0-9.-]+): (ok|failed|timeout|crashed|unsupported|not-installed)"
                         r"(?: ([0-9.]+) µs)?", text, re.M):
        impl, wid, status, t = m.groups()
        r = {"implementation": impl, "workload": wid, "status": status}
        if status == "ok" and t:
            r["device_us"] = {"median": float(t)}
        results.append(r)
    return {"family": family, "environment": {"copy_bandwidth_gbps": float(bw.group(1))}, "results": results}


def table(run_path: Path, ours: str | None = None, family: str | None = None) -> str:
    run = _from_log(run_path, family) if family else yaml.safe_load(run_path.read_text())
    fam = Family.model_validate(yaml.safe_load((ROOT / "records" / "families" / f"{run['family']}.yaml").read_text()))
    bw = run["environment"]["copy_bandwidth_gbps"]
    res: dict = {}
    for r in run["results"]:
        res.setdefault(r["workload"], {})[r["implementation"]] = r
    impls = list(dict.fromkeys(r["implementation"] for r in run["results"]))
    if ours is None:
        ours = next(i for i in impls if i.startswith("kr-triton"))
    peers = [i for i in impls if i != ours]

    def dev(r):
        return r["device_us"]["median"] if r and r.get("status") == "ok" and r.get("device_us") else None

    def e2e(r):
        return r["e2e_us"]["median"] if r and r.get("status") == "ok" and r.get("e2e_us") else None

    head = ["workload", "MB", "floor", f"ours ({ours})", *peers, "ours / fastest peer", "ours / floor"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratios, misses = [], []
    for w in fam.workloads:
        if w.id not in res:
            continue
        mb = bytes_moved(fam, w) / 1e6
        floor = bytes_moved(fam, w) / (bw * 1e3)
        row = res[w.id]
        o = dev(row.get(ours))
        times = {p: dev(row.get(p)) for p in peers}
        ok = [t for t in times.values() if t]
        best = min(ok) if ok else None
        vs_peer = o / best if o and best else None
        vs_floor = o / floor if o else None
        if vs_peer:
            ratios.append(vs_peer)
        cells = [w.id, f"{mb:.1f}", _fmt(floor), _fmt(o),
                 *[_fmt(t) if t else (row.get(p, {}).get("status") or "–") for p, t in times.items()],
                 f"{vs_peer:.3f}" if vs_peer else "–", f"{vs_floor:.3f}" if vs_floor else "–"]
        lines.append("| " + " | ".join(cells) + " |")
        if o is None:
            misses.append(f"{w.id}: ours has no time ({(row.get(ours) or {}).get('status', 'not run')})")
            continue
        if mb > 8 and vs_peer and vs_peer > 1.0:
            misses.append(f"{w.id}: {vs_peer:.3f}x the fastest peer (> 1.00, {mb:.0f} MB)")
        if mb >= 256 and vs_floor > 1.05:
            misses.append(f"{w.id}: {vs_floor:.3f}x the floor (> 1.05 at >= 256 MB)")
        elif 64 <= mb < 256 and vs_floor > 1.10:
            misses.append(f"{w.id}: {vs_floor:.3f}x the floor (> 1.10 at 64-256 MB)")
        if w.sizes.get("seq") == 1:
            oe = e2e(row.get(ours))
            pe = [e2e(row.get(p)) for p in peers]
            pe = [t for t in pe if t]
            if oe and pe and oe > min(pe):
                misses.append(f"{w.id}: end-to-end {oe:.1f} us > best peer's {min(pe):.1f} us")
            if o and best and o > best and mb <= 8:  # above 8 MB the first target already says so
                misses.append(f"{w.id}: decode device time {o:.2f} us > best peer's {best:.2f} us")
    geo = math.exp(sum(-math.log(r) for r in ratios) / len(ratios)) if ratios else None
    src = "runner log" if family else "run record"
    out = [f"{src} {run_path.name}: {run['family']}, copy bandwidth {bw:.1f} GB/s; device time, median, µs.", "",
           *lines, ""]
    if geo:
        out.append(f"Geometric-mean speed-up of ours over the fastest peer: {geo:.3f} (target >= 1.03) over "
                   f"{len(ratios)} workloads.")
    out.append("Targets missed: " + ("none" if not misses else "") )
    out += [f"- {m}" for m in misses]
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", type=Path)
    p.add_argument("--ours", default=None)
    p.add_argument("--family", default=None, help="read runner console logs of this family instead of records")
    a = p.parse_args(argv)
    for r in a.runs:
        print(table(r, a.ours, a.family))
        print()


if __name__ == "__main__":
    main()
