"""`kernel-records bench`: a side-by-side benchmark of a family's implementations, measured by
the timing core (measure.py) exactly as a run measures them, printed instead of recorded.

One worker process (worker.py, job kind "bench") measures the copy bandwidth, then for each
workload checks and times each implementation in turn (measure.measure_one, the runner's own
function: correctness first, cold L2, CUDA-graph replay, end-to-end, CPU pinning) and re-times
end-to-end with the implementations interleaved (measure.measure_e2e), as the runner does at the
end of a run. The difference from a run: all implementations share one process, and nothing is
written to records/ (`--json` writes the results, `--append` adds them to a lab JSON-lines file).
This process never imports torch.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..errors import UserError
from ..floors import floor
from ..load import load_catalog
from .families import KERNELS_ROOT, has_kernels
from .family import Case
from .protocol import COPY_BYTES, SEED, settings_for
from .run import _match_hardware, cuda_available
from .spawn import Worker, WorkerTimeout


def pick_workloads(family, workloads, random_n: int | None, seed: int):
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
          random_n: int | None = None, seed: int = SEED, device: str | None = None, timeout: float = 1800.0,
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
    device = device or ("cuda" if cuda_available() else "cpu")
    job = {"kind": "bench", "kernels_root": str(kernels_root), "family": family, "device": device, "seed": seed,
           "protocol": settings_for(device), "copy_bytes": COPY_BYTES[device], "timing_cpu": timing_cpu,
           "implementations": list(implementations), "workloads": [Case.from_record(fam, w).to_json() for w in chosen]}
    worker = Worker(job)
    results: dict[str, dict] = {}
    info: dict = {}
    try:
        while True:
            event = worker.next_event(timeout)
            if event is None:
                break
            if event["event"] == "info":
                info = event
                console.print(f"{family} on {info['device_name']}: copy bandwidth {info['copy_bandwidth_gbps']} GB/s; "
                              f"implementations {', '.join(info['implementations'])}", highlight=False)
            elif event["event"] == "error":
                raise UserError(event["error"])
            elif event["event"] == "result":
                results[event["workload"]] = event["results"]
                console.print(f"{event['workload']}: " + ", ".join(
                    f"{i} {_short(r)}" for i, r in event["results"].items()), highlight=False, soft_wrap=True)
    except WorkerTimeout:
        worker.kill()
        raise UserError(f"the bench gave no answer within {timeout:.0f} s") from None
    finally:
        tail = worker.log_tail()
        worker.close()
    if not info:
        raise UserError(f"the bench worker failed:\n{tail}")
    hardware = catalog.hardware[_match_hardware(catalog, info["device_name"])]
    rows = table_rows(fam, chosen, results, hardware, info["copy_bandwidth_gbps"])
    console.print(render(fam, hardware, info, rows))
    out = {"family": family, "hardware": hardware.id, "observed": dt.datetime.now(dt.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ"), "seed": seed, "environment": info.get("environment", {}),
        "copy_bandwidth_gbps": info["copy_bandwidth_gbps"], "rows": rows}
    if json_out:
        Path(json_out).write_text(json.dumps(out, indent=1) + "\n")
    if append:
        with open(append, "a", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps({"observed": out["observed"], "hardware": hardware.id, "seed": seed,
                                         "copy_bandwidth_gbps": out["copy_bandwidth_gbps"], **row}) + "\n")
    return out


def _short(r: dict) -> str:
    if r.get("status") == "ok":
        return f"{r['device_us']['median']:g} µs"
    return f"{r.get('status')} ({(r.get('error') or '')[:80]})"


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


def render(family, hardware, info: dict, rows: list[dict]) -> Table:
    compute = family.arithmetic is not None
    table = Table(title=f"{family.id} on {hardware.id}: device µs, median (p20–p80); floor at the measured copy "
                        f"bandwidth {info['copy_bandwidth_gbps']} GB/s"
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
