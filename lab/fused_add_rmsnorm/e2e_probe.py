"""Where the runner's end-to-end spread at decode sizes comes from (NOTES.md, version 8).

The runner times one Python call + synchronize 300 times in a row, one implementation at a
time. Its medians jump between about 22 and 40 µs from one workload to the next, for every
implementation. This probe builds the runner's own callables (the family's make_inputs and
registered factories, the same rotating input sets) and times blocks of call + synchronize,
implementations in turn, recording each block's median, the CPU it ran on and when:

    python lab/fused_add_rmsnorm/e2e_probe.py --out e2e.json [--blocks 40] [--per-block 50]

Phases: "free" (the scheduler places the process), "pinned" (os.sched_setaffinity to one CPU),
then "runner-like" (each implementation's 300 calls in a row, three times in rotated order).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from runner_sweep import workload  # noqa: E402  (beside this script)

from site_builder.runner import measure as m  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, load_family  # noqa: E402
from site_builder.runner.protocol import SEED  # noqa: E402

_libc = ctypes.CDLL(None)


def cpu_now() -> int:
    return _libc.sched_getcpu()  # not in Python's os module


def build(family, impl_id, workload, device, l2):
    impl = family.registry[impl_id]
    inputs = family.make_inputs(workload, SEED, device)
    fn = impl.factory(inputs, workload)
    outs = m.outputs_by_name(fn(), list(workload.outputs)).values()
    set_bytes = sum(t.nbytes for t in inputs.values()) + sum(t.nbytes for t in outs)  # as the worker counts
    count = m.n_sets(set_bytes, l2, 3.0, 8192)
    fns = [fn] + [impl.factory(family.make_inputs(workload, SEED + i, device), workload)
                  for i in range(1, count)]
    for f in fns[:8]:
        f()
    torch.cuda.synchronize()
    return fns


def block(fns, start, n):
    out = []
    for i in range(n):
        f = fns[(start + i) % len(fns)]
        t0 = time.perf_counter()
        f()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--impls", default="kr-triton,torch-rms-norm,liger-fused,quack")
    ap.add_argument("--workloads", default="r1-h4096-bf16,r1-h8192-bf16,r16-h4096-bf16")
    ap.add_argument("--blocks", type=int, default=40)
    ap.add_argument("--per-block", type=int, default=50)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    device = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(device).L2_cache_size
    family = load_family(KERNELS_ROOT, "fused-add-rmsnorm")
    report = {"cpus": os.cpu_count(), "affinity": sorted(os.sched_getaffinity(0)), "workloads": {}}
    for wid in args.workloads.split(","):
        wl = workload(wid)
        fns = {}
        for impl_id in args.impls.split(","):
            try:
                fns[impl_id] = build(family, impl_id, wl, device, l2)
            except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
                print(f"{wid} {impl_id}: {type(e).__name__}: {str(e)[:200]}", flush=True)
        rep = report["workloads"][wid] = {}
        all_cpus = sorted(os.sched_getaffinity(0))
        for phase in ("free", "pinned"):
            if phase == "pinned":
                os.sched_setaffinity(0, {all_cpus[len(all_cpus) // 2]})
            series = {k: [] for k in fns}
            t_start = time.perf_counter()
            for b in range(args.blocks):
                names = list(fns)
                names = names[b % len(names):] + names[:b % len(names)]
                for k in names:
                    med = block(fns[k], b * args.per_block, args.per_block)
                    series[k].append((round(time.perf_counter() - t_start, 4), cpu_now(), round(med, 2)))
            os.sched_setaffinity(0, set(all_cpus))
            rep[phase] = series
        runs = {k: [] for k in fns}
        for rnd in range(3):
            names = list(fns)
            names = names[rnd % len(names):] + names[:rnd % len(names)]
            for k in names:
                fs = fns[k]
                for f in fs[:3]:
                    f()
                torch.cuda.synchronize()
                runs[k].append(round(block(fs, 0, 300), 2))
        rep["runner-like"] = runs
        for phase in ("free", "pinned"):
            line = [f"{wid} {phase:6}"]
            for k, s in rep[phase].items():
                meds = sorted(v[2] for v in s)
                cpus = sorted({v[1] for v in s})
                line.append(f"{k}: med {statistics.median(meds):.1f} [{meds[0]:.1f}..{meds[-1]:.1f}] cpus {cpus}")
            print(" | ".join(line), flush=True)
        print(f"{wid} runner-like: " + " | ".join(f"{k}: {v}" for k, v in runs.items()), flush=True)
        del fns
        torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
