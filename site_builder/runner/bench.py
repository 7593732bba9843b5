"""`kernel-records bench`: a side-by-side benchmark of a family's implementations, measured
exactly as a run measures them, printed instead of recorded.

It calls the runner's own `measure_family` (run.py): the probe (copy bandwidth), one worker per
implementation (measure.measure_one in each: correctness first, cold L2, CUDA-graph replay,
end-to-end, CPU pinning, spread), then the interleaved end-to-end pass (measure.measure_e2e).
The only difference from `kernel-records run` is the output: a table of µs, GB/s or TFLOP/s,
the ratio to the floor and to the best peer, and optionally JSON, instead of a record in
records/ (`--append` adds the rows to a lab JSON-lines file). This process never imports torch.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..errors import UserError
from ..derive.floors import floor
from ..records.load import load_catalog
from .families import KERNELS_ROOT, has_kernels
from .protocol import SEED
from .run import measure_family


def pick_workloads(family, workloads, random_n: int | None, seed: int) -> list:
    """The family's workloads named in `workloads` (all when none), or `random_n` of them drawn
    with `seed`."""
    by_id = {w.id: w for w in family.workloads}
    unknown = [w for w in workloads if w not in by_id]
    if unknown:
        raise UserError(f"unknown workload {unknown[0]!r} for {family.id} — use one of {', '.join(by_id)}")
    chosen = [by_id[w] for w in workloads] if workloads else list(family.workloads)
    if random_n:
        chosen = random.Random(seed).sample(chosen, min(random_n, len(chosen)))
    return chosen


def bench(records: Path = Path("records"), *, family: str, workloads=(), implementations=(),
          random_n: int | None = None, seed: int = SEED, device: str | None = None, timeout: float = 600.0,
          kernels_root: Path = KERNELS_ROOT, json_out: Path | None = None, append: Path | None = None,
          console: Console | None = None, timing_cpu: int | None = None) -> dict:
    console = console or Console()
    if not console.is_terminal:
        console.width = max(console.width, 180)  # logs keep every column of the table
    catalog = load_catalog(records)
    if family not in catalog.families:
        raise UserError(f"unknown family {family!r} — use one of {', '.join(sorted(catalog.families))}")
    fam = catalog.families[family]
    if not has_kernels(kernels_root, family):
        raise UserError(f"no kernels for family {family!r} under {kernels_root}")
    chosen = pick_workloads(fam, list(workloads), random_n, seed)
    data, _, _ = measure_family(catalog, fam, implementations=implementations, workloads=[w.id for w in chosen],
                                timeout=timeout, device=device, seed=seed, kernels_root=kernels_root,
                                console=console, timing_cpu=timing_cpu, tool="kernel-records bench")
    hardware = catalog.hardware[data["hardware"]]
    bandwidth = data["environment"].get("copy_bandwidth_gbps")
    results: dict[str, dict] = {}
    for r in data["results"]:
        results.setdefault(r["workload"], {})[r["implementation"]] = r
    rows = table_rows(fam, chosen, results, hardware, bandwidth)
    console.print(render(fam, hardware, bandwidth, rows))
    out = {"family": family, "hardware": hardware.id, "observed": data["observed"], "seed": seed,
           "protocol": data["protocol"]["id"], "protocol_version": data["protocol"]["version"],
           "environment": data["environment"], "copy_bandwidth_gbps": bandwidth, "rows": rows}
    if json_out:
        Path(json_out).write_text(json.dumps(out, indent=1) + "\n")
    if append:
        with open(append, "a", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps({"observed": out["observed"], "tool": "kernel-records bench",
                                         "hardware": hardware.id, "seed": seed, "copy_bandwidth_gbps": bandwidth,
                                         **row}) + "\n")
    return out


def table_rows(family, workloads, results: dict, hardware, bandwidth: float) -> list[dict]:
    """One row per workload and implementation: device and end-to-end medians, GB/s over the
    floor's bytes, TFLOP/s over its flops, the ratio to the floor (at the measured copy
    bandwidth and the datasheet peak) and to the fastest other implementation."""
    rows = []
    for w in workloads:
        found = results.get(w.id, {})
        f = floor(family, w, hardware, bandwidth)
        ok = {i: r["device_us"]["median"] for i, r in found.items() if r.get("status") == "ok"}
        for impl, r in found.items():
            row = {"workload": w.id, "kind": w.kind, "implementation": impl, "status": r.get("status"),
                   "floor_us": round(f.us, 4), "bound": f.bound, "bytes": f.bytes, "flops": f.flops}
            if impl in ok:
                us = ok[impl]
                peers = {p: t for p, t in ok.items() if p != impl}
                best = min(peers, key=peers.get) if peers else None
                row.update(device_us=r["device_us"], e2e_us=r.get("e2e_us"),
                           gbps=float(f"{f.bytes / (us * 1e3):.4g}"),
                           tflops=float(f"{f.flops / (us * 1e6):.4g}") if f.flops else None,
                           x_floor=round(us / f.us, 3), best_peer=best,
                           x_best_peer=round(us / peers[best], 3) if best else None, note=r.get("note"))
            else:
                row["error"] = (r.get("error") or "")[:300]
            rows.append(row)
    return rows


def render(family, hardware, bandwidth: float, rows: list[dict]) -> Table:
    compute = family.arithmetic is not None
    table = Table(title=f"{family.id} on {hardware.id}: device µs, median (p20–p80); floor at the measured copy "
                        f"bandwidth {bandwidth} GB/s"
                        + (f" and the datasheet {family.arithmetic.peak} peak" if compute else ""))
    for name, justify in (("workload", "left"), ("implementation", "left"), ("device µs", "right"),
                          ("e2e µs", "right"), ("TFLOP/s" if compute else "GB/s", "right"),
                          ("× floor", "right"), ("× best peer", "right")):
        table.add_column(name, justify=justify)
    for row in rows:
        if "device_us" not in row:
            table.add_row(row["workload"], row["implementation"], row["status"], "", "", "", "")
            continue
        d = row["device_us"]
        e2e = row.get("e2e_us") or {}
        rate = row["tflops"] if compute else row["gbps"]
        peer = f"{row['x_best_peer']:.3f} ({row['best_peer']})" if row.get("best_peer") else "—"
        table.add_row(row["workload"], row["implementation"], f"{d['median']:g} ({d['p20']:g}–{d['p80']:g})",
                      f"{e2e['median']:g}" if e2e else "", f"{rate:g}" if rate is not None else "",
                      f"{row['x_floor']:.3f}", peer)
    return table
