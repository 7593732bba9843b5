"""Check the protocol's device times against Nsight Compute's kernel durations.

Two steps, on a GPU machine with `ncu`:

    ncu --clock-control none --profile-from-start off --metrics gpu__time_duration.sum \\
        --csv --page raw --log-file ncu.csv \\
        python -m site_builder.runner.ncu_check profile --out cases.json [--implementation I ...] [--workload W ...]
    python -m site_builder.runner.ncu_check compare ncu.csv cases.json RUN.yaml

`profile` calls each implementation `--calls` times per workload with the profiler on (ncu
flushes the caches before every kernel by default, so each call starts with a cold L2, as the
protocol's rotation does) and launches a one-element int64 fill between cases as a marker.
`compare` sums the kernel durations of each case, divides by the calls and sets the result
beside the run record's device-time median. Only this module's `profile` step imports torch.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

MARKERS = ("FillFunctor<long>", "FillFunctorIl")  # demangled or mangled kernel names
UNITS = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6, "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def profile(args) -> None:
    import torch

    from ..records.load import load_catalog
    from .families import KERNELS_ROOT, load_family
    from .family import Case
    from .protocol import SEED

    catalog = load_catalog(args.records)
    family = catalog.families[args.family]
    module = load_family(KERNELS_ROOT, family.id)
    workloads = {w.id: Case.from_record(family, w) for w in family.workloads}
    device = torch.device("cuda")
    cases = []
    for impl_id in args.implementation:
        impl = module.registry[impl_id]
        if impl.missing():
            print(f"{impl_id}: not installed, skipped", file=sys.stderr)
            continue
        for wid in args.workload:
            inputs = module.make_inputs(workloads[wid], SEED, device)
            try:
                fn = impl.factory(inputs, workloads[wid])
                for _ in range(3):
                    fn()
                torch.cuda.synchronize()
            except Exception as exc:  # noqa: BLE001 - skipped and said so
                print(f"{impl_id} {wid}: skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
                continue
            torch.cuda.profiler.start()
            torch.full((1,), len(cases), dtype=torch.int64, device=device)  # the case's marker
            for _ in range(args.calls):
                fn()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            cases.append({"implementation": impl_id, "workload": wid, "calls": args.calls})
            del fn, inputs
            torch.cuda.empty_cache()
    Path(args.out).write_text(json.dumps(cases, indent=1))


def read_ncu_csv(path: Path) -> list[tuple[str, float]]:
    """(kernel name, duration µs) per profiled kernel, in launch order."""
    lines = Path(path).read_text(errors="replace").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(lines[start:]))
    header = rows[0]
    name_col, time_col = header.index("Kernel Name"), header.index("gpu__time_duration.sum")
    if rows[1][time_col] in UNITS:  # a row of units under the header
        scale, data = UNITS[rows[1][time_col]], rows[2:]
    else:
        scale, data = UNITS["nsecond"], rows[1:]
    return [(r[name_col], float(r[time_col].replace(",", "")) * scale) for r in data if len(r) > time_col]


def per_case(kernels: list[tuple[str, float]], cases: list[dict]) -> list[dict]:
    groups: list[list[float]] = []
    for name, us in kernels:
        if any(m in name for m in MARKERS):
            groups.append([])
        elif groups:
            groups[-1].append(us)
    out = []
    for case, durations in zip(cases, groups):
        calls = case["calls"]
        per_kernel = len(durations) // calls if calls else 0
        if per_kernel == 0:
            continue
        per_call = [sum(durations[i * per_kernel:(i + 1) * per_kernel]) for i in range(calls)]
        out.append({**case, "kernels_per_call": per_kernel, "ncu_median_us": statistics.median(per_call),
                    "ncu_min_us": min(per_call), "ncu_max_us": max(per_call)})
    return out


def compare(args) -> None:
    import yaml

    measured = per_case(read_ncu_csv(args.ncu_csv), json.loads(Path(args.cases).read_text()))
    run = yaml.safe_load(Path(args.run).read_text())
    protocol = {(r["implementation"], r["workload"]): r.get("device_us", {}).get("median")
                for r in run["results"] if r.get("status") == "ok"}
    print("| implementation | workload | kernels/call | ncu median µs (min–max) | protocol median µs | protocol / ncu |")
    print("|---|---|---:|---:|---:|---:|")
    for m in measured:
        p = protocol.get((m["implementation"], m["workload"]))
        ratio = f"{p / m['ncu_median_us']:.3f}" if p else "—"
        print(f"| {m['implementation']} | {m['workload']} | {m['kernels_per_call']} | "
              f"{m['ncu_median_us']:.2f} ({m['ncu_min_us']:.2f}–{m['ncu_max_us']:.2f}) | "
              f"{p if p is not None else '—'} | {ratio} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("profile")
    p.add_argument("--records", type=Path, default=Path("records"))
    p.add_argument("--family", required=True)
    p.add_argument("--implementation", action="append", required=True)
    p.add_argument("--workload", action="append", required=True)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("ncu_csv", type=Path)
    c.add_argument("cases", type=Path)
    c.add_argument("run", type=Path)
    args = parser.parse_args(argv)
    (profile if args.step == "profile" else compare)(args)


if __name__ == "__main__":
    main()
