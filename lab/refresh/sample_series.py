"""Are the two sample modes of the largest workloads the kernel's, or the GPU's state at the time?

2026-12-04 (lab/swiglu/NOTES.md): two records read a median from the slower of two modes
(swiglu t32768-i28672 forward: median 1407, p20 1281 µs; swiglu-fused bwd-t32768-i14336: 1212,
p20 1087), with 2 rotating input sets of 5-6 GB and 2 calls a sample. This script takes the
runner's own path (measure.check: correctness first, then rotating_calls; one CUDA graph per
implementation by measure.capture_graph, sampled by measure.replay_samples) for one workload
and its implementations, then samples them in ROUNDS rounds, in turn (who goes first
rotating), S samples a turn, and keeps the whole series: if the modes follow the time (all
implementations slow together in some rounds), it is the GPU's state (clocks, power, memory),
not a kernel; if they follow the implementation, the gap is the kernel's. Each input set is
also timed alone (a graph of that set's call only).

    python3 lab/refresh/sample_series.py --family swiglu --workload t32768-i28672-bf16 \\
        --impls kr-triton-swiglu,swiglu-torch-compile --out "$OUT"
    python3 lab/refresh/sample_series.py --family swiglu --workload t32768-i28672-bf16 \\
        --impls kr-triton-swiglu --dry-run

Writes sample-series-<workload>.json (every sample, in order, with its round and turn) and
prints a summary: per implementation and round the median and the share of samples within 2 %
of that implementation's fastest; per input set its median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--impls", required=True, help="comma-separated implementation ids")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--samples", type=int, default=30, help="samples a turn")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--dry-run", action="store_true", help="check the names and print the plan (no GPU)")
    args = ap.parse_args()

    from site_builder.records.load import load_catalog
    from site_builder.runner.family import Case
    from site_builder.runner.families import KERNELS_ROOT, load_family

    catalog = load_catalog(ROOT / "records")
    if args.family not in catalog.families:
        raise SystemExit(f"sample_series: no family {args.family!r} in records/families")
    record = catalog.families[args.family]
    work = {w.id: w for w in record.workloads}
    if args.workload not in work:
        raise SystemExit(f"sample_series: {args.family} has no workload {args.workload!r}; "
                         f"e.g. {', '.join(sorted(work)[:5])}")
    plugin = load_family(KERNELS_ROOT, args.family)
    impl_ids = [i for i in args.impls.split(",") if i]
    for i in impl_ids:
        if i not in plugin.registry:
            raise SystemExit(f"sample_series: {args.family} has no implementation {i!r}; "
                             f"known: {', '.join(sorted(plugin.registry.ids()))}")
    case = Case.from_record(record, work[args.workload])
    if args.dry_run:
        print(f"{args.family} {args.workload} ({case.kind}, {case.floor_bytes / 1e6:.0f} MB): "
              f"{len(impl_ids)} implementations x {args.rounds} rounds x {args.samples} samples")
        return

    import torch

    from site_builder.runner.measure import capture_graph, check, copy_bandwidth_gbps, replay_samples, rotating_calls
    from site_builder.runner.protocol import COPY_BYTES, GPU_SETTINGS, SEED

    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    job = {"device": "cuda", "seed": SEED, "protocol": GPU_SETTINGS, "l2_bytes": props.L2_cache_size}
    bw = copy_bandwidth_gbps(device, COPY_BYTES["cuda"])
    graphs, sets = {}, {}
    for i in impl_ids:
        impl = plugin.registry[i]
        fn, correctness, problems, set_bytes = check(plugin, impl, case, SEED, device)
        if problems:
            print(f"{i}: failed the check: {'; '.join(problems)[:300]}")
            continue
        fns = rotating_calls(plugin, impl, case, job, fn, set_bytes)
        graphs[i] = (capture_graph(fns, 1), len(fns))
        sets[i] = {k: statistics.median(replay_samples(capture_graph([f], 1).replay, 1, 10))
                   for k, f in enumerate(fns)}
    series = []
    t0 = time.monotonic()
    names = list(graphs)
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for turn, i in enumerate(order):
            g, calls = graphs[i]
            for k, us in enumerate(replay_samples(g.replay, calls, args.samples)):
                series.append({"round": r, "turn": turn, "impl": i, "k": k, "us": round(us, 3),
                               "t": round(time.monotonic() - t0, 4)})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"sample-series-{args.workload}.json"
    path.write_text(json.dumps({"family": args.family, "workload": args.workload, "gpu": props.name,
                                "copy_bandwidth_gbps": bw, "floor_us": case.floor_bytes / (bw * 1e3),
                                "per_set_median_us": sets, "series": series}, indent=1))
    print(f"{args.family} {args.workload}: floor {case.floor_bytes / (bw * 1e3):.1f} µs at {bw:.0f} GB/s")
    for i in names:
        mine = [s["us"] for s in series if s["impl"] == i]
        fast = min(mine)
        per_round = []
        for r in range(args.rounds):
            xs = [s["us"] for s in series if s["impl"] == i and s["round"] == r]
            per_round.append(f"{statistics.median(xs):.1f} ({sum(x <= 1.02 * fast for x in xs)}/{len(xs)} fast)")
        print(f"{i}: min {fast:.1f}, median {statistics.median(mine):.1f}; per round: " + ", ".join(per_round))
        print(f"   per input set alone: " + ", ".join(f"set {k} {v:.1f}" for k, v in sets[i].items()))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
