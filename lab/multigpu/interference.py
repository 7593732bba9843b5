"""Issue 21, part 3: do a refresh's jobs disturb one another's measurements, and how much faster
is a refresh with N GPUs? For a multi-GPU host (two GPUs or more); writes nothing under records/.

    python lab/multigpu/interference.py interference --out DIR [--family F] [--impls I[,J]]
                                                      [--workloads A,B] [--repeats 2] [--timeout 150]
    python lab/multigpu/interference.py speedup --out DIR [--n 1,2,4,8] [--family F] [--budget S]
    python lab/multigpu/interference.py table --out DIR     # the tables again, from DIR's JSON

`interference`: the same implementations and workloads on GPU 0 (with the CPUs the scheduler
deals GPU 0 when every GPU is in use, devices.plan_slots) alone, then while every other GPU
runs the refresh's other jobs (every family, all implementations, over and over until GPU 0 is
done), then alone again, `--repeats` times; the medians of busy against the mean of the alone
runs, per workload, device and end-to-end, and alone against alone (the noise). Target: within
1 % (one GPU's run-to-run noise is 0.3 % at the median).

`speedup`: the whole refresh (every family, or --family) with the first N GPUs, for each N;
its wall time, the start-up (every slot's probe, timed alone), the speed-up against N = 1, and
the target T_N <= 1.2 T_1 / N + start-up. Each N is one refresh: run the N you can fit in one
device call per call (results accumulate in DIR/speedup.json).

Each measurement goes through the runner's own code (run.refresh, the per-host scheduler),
so it measures what `kernel-records run` does.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from rich.console import Console  # noqa: E402

from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner.devices import list_gpus, plan_slots, visible  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, has_kernels  # noqa: E402
from site_builder.runner.protocol import COPY_BYTES  # noqa: E402
from site_builder.runner.run import probe_slots, refresh  # noqa: E402


def slots_or_exit():
    import os

    gpus = list_gpus()
    gpus = visible(gpus, os.environ.get("CUDA_VISIBLE_DEVICES")) if gpus else None
    if not gpus or len(gpus) < 2:
        sys.exit(f"this needs a host with two GPUs or more; nvidia-smi lists {len(gpus or [])}")
    return plan_slots(gpus)


def medians(data: dict) -> dict:
    out = {}
    for r in data["results"]:
        if r["status"] == "ok":
            out[f"{r['implementation']} · {r['workload']}"] = {
                "device": r["device_us"]["median"], "e2e": r["e2e_us"]["median"]}
    return out


def log_console(out: Path, name: str) -> Console:
    return Console(file=open(out / f"{name}.log", "a", encoding="utf-8"), width=180)


def interference(args, catalog, out: Path) -> None:
    slots = slots_or_exit()
    families = [f for f in sorted(catalog.families) if has_kernels(KERNELS_ROOT, f)]
    family = catalog.families[args.family]
    impls = [i for i in args.impls.split(",") if i]
    workloads = [w for w in (args.workloads or "").split(",") if w]
    target, others = slots[0], slots[1:]
    print(f"measured on GPU {target.index} ({target.cpu_text()}); busy: GPUs "
          f"{', '.join(str(s.index) for s in others)}", flush=True)

    def measured(tag: str) -> dict:
        [(_, _, data, _)] = refresh(catalog, [family], [target], implementations=impls, workloads=workloads,
                                    timeout=args.timeout, device="cuda", console=log_console(out, tag))
        return data

    def background(stop: threading.Event, rounds: list) -> None:
        while not stop.is_set():
            t0 = time.monotonic()
            refresh(catalog, [catalog.families[f] for f in families], others, timeout=args.timeout, device="cuda",
                    budget_s=args.background_budget, console=log_console(out, "background"))
            rounds.append(time.monotonic() - t0)

    runs = {"alone": [], "busy": []}
    for k in range(args.repeats):
        runs["alone"].append(measured(f"alone{k}"))
        stop, rounds = threading.Event(), []
        bg = threading.Thread(target=background, args=(stop, rounds), daemon=True)
        bg.start()
        time.sleep(args.warmup)  # the other GPUs past their probes, into their jobs
        runs["busy"].append(measured(f"busy{k}"))
        stop.set()
        bg.join()
        print(f"repeat {k}: background refresh rounds {[round(r) for r in rounds]} s", flush=True)
    runs["alone"].append(measured(f"alone{args.repeats}"))
    result = {"family": family.id, "implementations": impls, "gpu": target.index, "cpus": sorted(target.cpus),
              "busy_gpus": [s.index for s in others],
              "alone": [medians(d) for d in runs["alone"]], "busy": [medians(d) for d in runs["busy"]],
              "environment": runs["alone"][0]["environment"]}
    (out / "interference.json").write_text(json.dumps(result, indent=1) + "\n")
    print(interference_table(result))


def _pct(a: float, b: float) -> float:
    return 100.0 * (a - b) / b


def interference_table(result: dict) -> str:
    alone, busy = result["alone"], result["busy"]
    keys = [k for k in alone[0] if all(k in a for a in alone) and all(k in b for b in busy)]
    lines = [f"GPU {result['gpu']} (CPUs {result['cpus']}) alone vs GPUs {result['busy_gpus']} busy; "
             "Δ = busy against the mean of the alone runs, noise = the spread of the alone runs",
             "", "| result | device alone µs | device busy µs | Δ device | noise device | e2e alone µs | "
             "e2e busy µs | Δ e2e | noise e2e |", "|---|---|---|---|---|---|---|---|---|"]
    worst = {"device": 0.0, "e2e": 0.0}
    for k in keys:
        row = [k]
        for clock in ("device", "e2e"):
            a = [x[k][clock] for x in alone]
            b = [x[k][clock] for x in busy]
            ma, mb = statistics.mean(a), statistics.mean(b)
            delta = max((_pct(x, ma) for x in b), key=abs)
            noise = _pct(max(a), min(a))
            worst[clock] = max(worst[clock], abs(delta))
            row += [f"{ma:.4g}", f"{mb:.4g}", f"{delta:+.2f} %", f"{noise:.2f} %"]
        lines.append("| " + " | ".join(row) + " |")
    ok = all(v <= 1.0 for v in worst.values())
    lines += ["", f"largest |Δ|: device {worst['device']:.2f} %, end-to-end {worst['e2e']:.2f} %: "
              f"{'within' if ok else 'NOT within'} 1 %"]
    return "\n".join(lines)


def speedup(args, catalog, out: Path) -> None:
    slots = slots_or_exit()
    ids = [args.family] if args.family_given else [f for f in sorted(catalog.families) if has_kernels(KERNELS_ROOT, f)]
    families = [catalog.families[f] for f in ids]
    path = out / "speedup.json"
    rows = json.loads(path.read_text()) if path.exists() else []
    for n in [int(x) for x in args.n.split(",")]:
        if n > len(slots):
            print(f"N = {n}: this host has {len(slots)} GPUs; skipped", flush=True)
            continue
        use = slots[:n]
        t0 = time.monotonic()
        probe_slots(use, {"kernels_root": str(KERNELS_ROOT), "device": "cuda", "family": ids[0], "families": ids,
                          "kind": "probe", "copy_bytes": COPY_BYTES["cuda"], "timing_cpu": None},
                    args.timeout, Console(file=sys.stderr))
        startup = time.monotonic() - t0
        t0 = time.monotonic()
        measured = refresh(catalog, families, use, timeout=args.timeout, device="cuda", budget_s=args.budget,
                           console=log_console(out, f"speedup-n{n}"))
        wall = time.monotonic() - t0
        statuses: dict[str, int] = {}
        for _, _, data, _ in measured:
            for r in data["results"]:
                statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        rows = [r for r in rows if r["n"] != n] + [{"n": n, "wall_s": round(wall, 1), "startup_s": round(startup, 1),
                                                     "families": ids, "records": len(measured), "statuses": statuses}]
        path.write_text(json.dumps(sorted(rows, key=lambda r: r["n"]), indent=1) + "\n")
        print(f"N = {n}: {wall:.0f} s (start-up {startup:.0f} s), {statuses}", flush=True)
    print(speedup_table(json.loads(path.read_text())))


def speedup_table(rows: list[dict]) -> str:
    one = next((r for r in rows if r["n"] == 1), None)
    lines = ["| N | wall time s | start-up s | speed-up | target: at most 1.2 T1/N + start-up, s | held |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        if one:
            bound = 1.2 * one["wall_s"] / r["n"] + r["startup_s"]
            lines.append(f"| {r['n']} | {r['wall_s']:.0f} | {r['startup_s']:.0f} | {one['wall_s'] / r['wall_s']:.2f} | "
                         f"{bound:.0f} | {'yes' if r['wall_s'] <= bound else 'NO'} |")
        else:
            lines.append(f"| {r['n']} | {r['wall_s']:.0f} | {r['startup_s']:.0f} | (no N = 1 yet) | | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["interference", "speedup", "table"])
    parser.add_argument("--out", type=Path, required=True, help="folder for the JSON results, tables and logs")
    parser.add_argument("--records", type=Path, default=REPO / "records", help="records to read (copied, never written)")
    parser.add_argument("--family", default=None, help="interference: the measured family (default fused-add-rmsnorm); "
                                                     "speedup: refresh only this family")
    parser.add_argument("--impls", default="kr-triton", help="interference: the measured implementations")
    parser.add_argument("--workloads", default=None, help="interference: workload ids (default: all)")
    parser.add_argument("--repeats", type=int, default=2, help="interference: busy runs (alone runs: one more)")
    parser.add_argument("--warmup", type=float, default=20.0, help="interference: seconds the others run first")
    parser.add_argument("--background-budget", type=float, default=120.0,
                        help="interference: seconds per background refresh round (rounds repeat until done)")
    parser.add_argument("--n", default="1,2,4,8", help="speedup: the GPU counts to time")
    parser.add_argument("--budget", type=float, default=None, help="speedup: a budget per refresh, seconds")
    parser.add_argument("--timeout", type=float, default=150.0, help="seconds one workload may take")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.part == "table":
        if (args.out / "interference.json").exists():
            print(interference_table(json.loads((args.out / "interference.json").read_text())))
        if (args.out / "speedup.json").exists():
            print(speedup_table(json.loads((args.out / "speedup.json").read_text())))
        return 0
    args.family_given = args.family is not None
    args.family = args.family or "fused-add-rmsnorm"
    scratch = Path(tempfile.mkdtemp(prefix="kr-interference-"))
    shutil.copytree(args.records, scratch / "records")
    catalog = load_catalog(scratch / "records")
    (interference if args.part == "interference" else speedup)(args, catalog, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
