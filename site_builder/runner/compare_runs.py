"""How far two runs of the same protocol differ: `python -m site_builder.runner.compare_runs A.yaml B.yaml`.

Prints a markdown table of device-time and end-to-end medians per implementation and workload
that are `ok` in both runs, with B/A, and a summary of |B/A - 1| per clock.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import yaml


def _ok(path: Path) -> dict:
    data = yaml.safe_load(Path(path).read_text())
    return {(r["implementation"], r["workload"]): r for r in data["results"] if r["status"] == "ok"}


def compare(a_path: Path, b_path: Path) -> str:
    a, b = _ok(a_path), _ok(b_path)
    keys = [k for k in a if k in b]
    lines = ["| implementation | workload | device µs A | device µs B | B/A | e2e µs A | e2e µs B | B/A |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    spread = {"device_us": [], "e2e_us": []}
    for impl, wid in keys:
        cells = []
        for clock in ("device_us", "e2e_us"):
            x, y = a[(impl, wid)][clock]["median"], b[(impl, wid)][clock]["median"]
            spread[clock].append(abs(y / x - 1))
            cells += [f"{x:g}", f"{y:g}", f"{y / x:.3f}"]
        lines.append(f"| {impl} | {wid} | " + " | ".join(cells) + " |")
    lines.append("")
    for clock, values in spread.items():
        if values:
            within = sum(v <= 0.02 for v in values)
            lines.append(f"- {clock}: {len(values)} pairs; |B/A − 1| median {statistics.median(values):.1%}, "
                         f"max {max(values):.1%}; {within} of {len(values)} within 2 %")
    return "\n".join(lines)


if __name__ == "__main__":
    print(compare(Path(sys.argv[1]), Path(sys.argv[2])))
