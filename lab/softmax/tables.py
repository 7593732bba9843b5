"""The closing-note table of a softmax or cross-entropy run record, and issue 16's targets.

    python lab/softmax/tables.py records/runs/softmax/h200/<run>.yaml [--ours kr-triton-softmax]
    python lab/softmax/tables.py records/runs/cross-entropy/h200/<run>.yaml
    python lab/softmax/tables.py --log lab/softmax/logs/run_softmax.log --family softmax \
        --bandwidth 4223   # from a runner log whose run wrote no record (medians only)

Per workload: bytes the floor counts, the floor (those bytes over the copy bandwidth the run
measured, site_builder/floors.py), our device time (median, µs), every peer's (or its status),
ours / fastest peer and ours / floor; then the targets, each held or MISSED. Reads the records
with the engine's loader (no GPU, no torch). Failed, declined and unreached results are shown
by status and never count as a peer's time.
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from types import SimpleNamespace

from site_builder import floors
from site_builder.load import load_catalog

OURS = {"softmax": "kr-triton-softmax", "cross-entropy": "kr-triton-cross-entropy"}
SHORT = {"not-installed": "n/i", "unsupported": "unsup.", "failed": "FAILED", "crashed": "CRASHED",
         "timeout": "not run"}


def _fmt(us: float) -> str:
    return f"{us:.1f}" if us < 1000 else f"{us:.0f}"


_LOG_LINE = re.compile(r"^(?P<impl>[a-z0-9][\w.\-]*) · (?P<wid>[\w.\-]+): (?P<status>[a-z\-]+)(?: (?P<us>[\d.]+) µs)?")


def results_from_log(path: Path) -> list:
    """The per-result lines a runner log prints (`impl · workload: ok 12.3 µs`, `...: failed (...)`)."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        m = _LOG_LINE.match(line)
        if m:
            us = float(m["us"]) if m["us"] else None
            out.append(SimpleNamespace(implementation=m["impl"], workload=m["wid"], status=m["status"],
                                       device_us=SimpleNamespace(median=us) if us is not None else None))
    return out


def table(records: Path, run_path: Path | None, ours: str | None = None, *, log: Path | None = None,
          family_id: str | None = None, hardware_id: str = "h200", bandwidth: float | None = None) -> str:
    catalog = load_catalog(records)
    if log is None:
        rel = run_path.resolve().relative_to(records.resolve()).as_posix()
        [loaded] = [r for r in catalog.runs if r.path == rel]
        run = loaded.run
        family_id, hardware_id, results = run.family, run.hardware, run.results
        bw = run.environment.copy_bandwidth_gbps if run.environment else None
        head = (f"Run `{rel}` ({run.environment.gpu if run.environment else run.hardware}; floor = bytes over "
                f"{bw:.0f} GB/s copy bandwidth measured in the run; device time, median µs)")
    else:
        results, bw = results_from_log(log), bandwidth
        head = (f"From the runner log `{log}` (no run record: medians as the log printed them; floor = bytes "
                f"over {bw:.0f} GB/s, the copy bandwidth of the same machine's next run; device time, µs)")
    family = catalog.families[family_id]
    hardware = catalog.hardware[hardware_id]
    ours = ours or OURS[family_id]
    impls = list(dict.fromkeys(r.implementation for r in results))
    peers = [i for i in impls if i != ours]
    by = {(r.implementation, r.workload): r for r in results}
    lines = [head, "",
             "| workload | kind | MB | floor | ours | " + " | ".join(peers) + " | ours / fastest peer | ours / floor |",
             "|---" * (7 + len(peers)) + "|"]
    speedups, misses, floor_rows, fb_rows = [], [], [], []

    def t(impl, wid):
        r = by.get((impl, wid))
        if r is None:
            return None, "—"
        if r.status == "ok" and r.device_us is not None:
            return r.device_us.median, _fmt(r.device_us.median)
        return None, SHORT.get(r.status, r.status)

    for w in family.workloads:
        fl = floors.floor(family, w, hardware, bw)
        mb = fl.bytes / 1e6
        mine, mine_txt = t(ours, w.id)
        cells, best = [], None
        for p in peers:
            v, txt = t(p, w.id)
            cells.append(txt)
            if v is not None and (best is None or v < best):
                best = v
        vs_peer = mine / best if (mine is not None and best is not None) else None
        vs_floor = mine / fl.us if mine is not None else None
        row = [w.id, w.kind, f"{mb:.0f}", _fmt(fl.us), mine_txt, *cells,
               f"{vs_peer:.2f}" if vs_peer is not None else "—", f"{vs_floor:.2f}" if vs_floor is not None else "—"]
        lines.append("| " + " | ".join(row) + " |")
        if vs_peer is not None:
            speedups.append(1 / vs_peer)
            if mb > 8 and vs_peer > 1.0:
                misses.append(f"{w.id} ({vs_peer:.2f}×)")
        if vs_floor is not None and mb >= 256:
            floor_rows.append((w.id, vs_floor))
        if w.kind == "forward+backward" and w.sizes.get("vocab", 0) >= 128256:
            fb_rows.append((w, fl))
    lines += ["", "Targets (issue 16):"]
    n_cmp = len(speedups)
    lines.append(f"- ours ≤ 1.00× the fastest peer at every workload over 8 MB: "
                 + ("held" if not misses and n_cmp else "MISSED") + f" ({n_cmp} workloads with ours and a peer"
                 + (f"; over: {', '.join(misses)}" if misses else "") + ")")
    if speedups:
        gm = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        lines.append(f"- geometric-mean speed-up over the fastest peer ≥ 1.05: {gm:.3f} — "
                     + ("held" if gm >= 1.05 else "MISSED"))
    over = [f"{i} ({v:.2f})" for i, v in floor_rows if v > 1.10]
    lines.append(f"- ours ≤ 1.10× the floor at ≥ 256 MB: " + ("held" if floor_rows and not over else "MISSED")
                 + f" ({len(floor_rows)} workloads" + (f"; over: {', '.join(over)}" if over else "") + ")")
    if fb_rows:
        lines.append("- forward + backward at vocab ≥ 128256, time / floor (logits read once, dlogits written once):")
        for w, fl in fb_rows:
            parts = []
            for impl in [ours, *peers]:
                v, txt = t(impl, w.id)
                parts.append(f"{impl} {v / fl.us:.2f}" if v is not None else f"{impl} {txt}")
            v, _ = t(ours, w.id)
            verdict = "held" if v is not None and v / fl.us <= 1.10 else "MISSED"
            lines.append(f"  - {w.id}: " + ", ".join(parts) + f" — ours ≤ 1.10: {verdict}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, nargs="?")
    parser.add_argument("--records", type=Path, default=Path("records"))
    parser.add_argument("--ours", default=None)
    parser.add_argument("--log", type=Path, default=None, help="a runner log instead of a run record")
    parser.add_argument("--family", default=None, help="with --log: the family id")
    parser.add_argument("--bandwidth", type=float, default=None, help="with --log: copy bandwidth, GB/s")
    args = parser.parse_args(argv)
    if (args.run is None) == (args.log is None) or (args.log and not (args.family and args.bandwidth)):
        parser.error("give a run record, or --log with --family and --bandwidth")
    print(table(args.records, args.run, args.ours, log=args.log, family_id=args.family, bandwidth=args.bandwidth))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
