"""The table printed at the end of a run: device-time medians per workload and implementation."""

from __future__ import annotations

from rich.table import Table

from ..derive.floors import bytes_moved

SHORT = {"failed": "FAIL", "crashed": "CRASH", "timeout": "TIMEOUT", "not-installed": "n/i", "not-run": "not run",
         "unsupported": "unsup."}


def summary_table(family, data: dict, hardware) -> Table:
    impls = list(dict.fromkeys(r["implementation"] for r in data["results"]))
    cells = {(r["workload"], r["implementation"]): r for r in data["results"]}
    bandwidth = data["environment"].get("copy_bandwidth_gbps")
    table = Table(title=f"{family.id} on {hardware.id}: device µs, median "
                        f"(floor at the measured copy bandwidth, {bandwidth} GB/s)")
    table.add_column("workload")
    table.add_column("floor", justify="right")
    for impl in impls:
        table.add_column(impl, justify="right")
    for w in family.workloads:
        if not any((w.id, impl) in cells for impl in impls):
            continue
        floor = f"{bytes_moved(family, w) / (bandwidth * 1e3):.1f}" if bandwidth else "—"
        row = [w.id, floor]
        for impl in impls:
            r = cells.get((w.id, impl))
            if r is None:
                row.append("")
            elif r["status"] == "ok":
                row.append(f"{r['device_us']['median']:.1f}")
            else:
                row.append(SHORT.get(r["status"], r["status"]))
        table.add_row(*row)
    return table
