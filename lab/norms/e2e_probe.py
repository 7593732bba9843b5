"""Issue 15: where ours loses end-to-end at decode sizes (run 3: rmsnorm r1-h4096 and r32-h128
38 µs per call + synchronize, QuACK 22.6 and 31.8, in the runner's interleaved pass).

    python3 lab/norms/e2e_probe.py [--rounds 10] [--block 30]

Builds each implementation's callables as the runner does (make_inputs, the registered
factory, rotating input sets), pins itself to the runner's timing CPU and times blocks of one
call + synchronize, implementations in turn (measure.wall_time_interleaved). Ours is timed on
its lean launch path and, as `kr-general`, with that path off; then the host-side pieces of
our call alone (no synchronize): the lean path's checks, torch.empty_like, a bare launch.
Prints one line per workload and implementation: median, p20, p80 µs; and the lean path's state.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner import measure as m  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, import_module, load_family  # noqa: E402
from site_builder.runner.family import Case  # noqa: E402
from site_builder.runner.protocol import SEED  # noqa: E402

OURS = {"rmsnorm": "kr-triton-rmsnorm", "layernorm": "kr-triton-layernorm"}
WORKLOADS = (("rmsnorm", "r1-h4096-bf16"), ("rmsnorm", "r32-h128-bf16"), ("layernorm", "r1-h4096-bf16"))


def q(v, f):
    v = sorted(v)
    return v[min(len(v) - 1, int(f * len(v)))]


def host_us(fn, n=2000):
    for _ in range(50):
        fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--block", type=int, default=30)
    args = ap.parse_args()
    dev = torch.device("cuda")
    records = load_catalog(ROOT / "records").families
    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    cpu = m.pick_timing_cpu()
    print(f"timing CPU {cpu}", flush=True)
    for fid, wid in WORKLOADS:
        fam = load_family(KERNELS_ROOT, fid)
        kr = import_module(fid, "kr_triton")
        w = {x.id: x for x in records[fid].workloads}[wid]
        case = Case.from_record(records[fid], w)
        groups = {}
        for impl_id in fam.registry.items:
            impl = fam.registry[impl_id]
            if impl.missing() or "eager" in impl_id or "compile" in impl_id:
                continue
            try:
                fns = []
                for i in range(8):
                    fns.append(impl.factory(fam.make_inputs(case, SEED + i, dev), case))
                for f in fns:
                    f()
                torch.cuda.synchronize()
                groups[impl_id] = fns
            except Exception as exc:  # noqa: BLE001
                print(f"{fid} {wid} {impl_id}: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
        print(f"{fid} {wid}: lean path {kr.fast_path_status()}", flush=True)

        # ours with the lean path off, beside the others
        class General:
            def __init__(self, f):
                self.f = f

            def __call__(self):
                saved = kr._FAST, kr._FAST_ENABLED
                kr._FAST, kr._FAST_ENABLED = {}, False
                try:
                    return self.f()
                finally:
                    kr._FAST, kr._FAST_ENABLED = saved

        ours = groups.get(OURS[fid], [])
        groups["kr-general"] = [General(f) for f in ours]
        with m.pinned(cpu):
            samples = m.wall_time_interleaved(groups, dev, args.rounds, args.block)
            x = fam.make_inputs(case, SEED, dev)["x"]
            pieces = {"empty_like": lambda: torch.empty_like(x), "current_device": torch.cuda.current_device,
                      "get_device": x.get_device, "sync alone": torch.cuda.synchronize}
            # every implementation's call alone (no synchronize): the host side of each
            pieces.update({f"{k} (no sync)": v[0] for k, v in groups.items() if v})
            host = {k: host_us(f) for k, f in pieces.items()}
        for k, v in samples.items():
            print(f"{fid} {wid} {k}: median {statistics.median(v):.2f} p20 {q(v, .2):.2f} p80 {q(v, .8):.2f} us",
                  flush=True)
        print(f"{fid} {wid} host pieces (us per call, 2000 calls): "
              + ", ".join(f"{k} {v:.2f}" for k, v in host.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
