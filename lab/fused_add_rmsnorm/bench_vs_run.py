"""Set `kernel-records bench` beside `kernel-records run` of the same code (issue 13):

    python lab/fused_add_rmsnorm/bench_vs_run.py bench1.json bench2.json run1.yaml run2.yaml

Prints a markdown table of device-time and end-to-end medians per implementation and workload,
bench/run (means of the two of each), and the run-to-run ratios bench2/bench1 and run2/run1.
"""

from __future__ import annotations

import json
import statistics
import sys

import yaml


def main(b1: str, b2: str, r1: str, r2: str) -> None:
    benches = [{(r["implementation"], r["workload"]): r for r in json.load(open(p))["rows"] if r["status"] == "ok"}
               for p in (b1, b2)]
    runs = [{(r["implementation"], r["workload"]): r for r in yaml.safe_load(open(p))["results"] if r["status"] == "ok"}
            for p in (r1, r2)]
    keys = [k for k in benches[0] if all(k in d for d in (*benches, *runs))]
    for clock in ("device_us", "e2e_us"):
        print(f"\n{clock} (median µs)\n")
        print("| implementation | workload | bench 1 | bench 2 | run 1 | run 2 | bench/run | bench 2/1 | run 2/1 |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        ratios = {"bench/run": [], "bench 2/1": [], "run 2/1": []}
        for k in keys:
            b = [d[k][clock]["median"] for d in benches]
            r = [d[k][clock]["median"] for d in runs]
            br, bb, rr = statistics.mean(b) / statistics.mean(r), b[1] / b[0], r[1] / r[0]
            for name, v in zip(ratios, (br, bb, rr)):
                ratios[name].append(abs(v - 1))
            print(f"| {k[0]} | {k[1]} | {b[0]:g} | {b[1]:g} | {r[0]:g} | {r[1]:g} | {br:.3f} | {bb:.3f} | {rr:.3f} |")
        print()
        for name, v in ratios.items():
            print(f"- |{name} − 1|: median {statistics.median(v):.1%}, max {max(v):.1%} over {len(v)} pairs")


if __name__ == "__main__":
    main(*sys.argv[1:5])
