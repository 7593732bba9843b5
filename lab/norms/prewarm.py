"""Fill the compile caches (Inductor's FX graph cache, Triton's kernel cache, both on disk) for
the rmsnorm and layernorm runs, in several processes at once, before the runner times anything:

    python3 lab/norms/prewarm.py SHARD SHARDS
    KR_PREWARM_RANDOM=12:1217 python3 lab/norms/prewarm.py SHARD SHARDS   # and the random report's shapes

Each process takes every SHARDS-th workload of the two families and makes each implementation's
first call on one input set, exactly as the runner's worker does (load_family, Case.from_record,
make_inputs, the registered factory). Nothing is timed; the runner's own checks and timings are
unchanged, only its compiles find their results cached (torch.compile compiles per shape).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEVICE = os.environ.get("KR_PREWARM_DEVICE", "cuda")  # cpu: a dry run of this script
#: "N:SEED": also the random-shape report's cases (lab/random_shapes/device_report.sh)
RANDOM = os.environ.get("KR_PREWARM_RANDOM", "")
sys.path.insert(0, str(ROOT))


def main(shard: int, shards: int) -> int:
    import torch

    from site_builder.runner.families import KERNELS_ROOT, load_family
    from site_builder.runner.family import Case
    from site_builder.records.schema import Family

    todo = []
    for fid in ("rmsnorm", "layernorm"):
        rec = Family.model_validate(yaml.safe_load((ROOT / "records" / "families" / f"{fid}.yaml").read_text()))
        plugin = load_family(KERNELS_ROOT, fid)
        todo += [(plugin, Case.from_record(rec, w)) for w in rec.workloads]
        if RANDOM:  # the random-shape report's cases, built as `kernel-records bench --random N --seed S` does
            from site_builder.runner.bench import plan_groups

            n, seed = (int(v) for v in RANDOM.split(":"))
            shapes = [(f"random-{seed}", s.to_json()) for s in plugin.sample_shapes(n, seed)]
            for g in plan_groups(rec, [], shapes):
                if g["ids"]:
                    by_id = {w.id: w for w in g["family"].workloads}
                    todo += [(plugin, Case.from_record(g["family"], by_id[i])) for i in g["ids"]]
    failures = 0
    for i, (plugin, case) in enumerate(todo):
        if i % shards != shard:
            continue
        inputs = plugin.make_inputs(case, 1234, DEVICE)
        for impl_id in plugin.implementations():
            impl = plugin.registry[impl_id]
            if impl.missing():
                continue
            t0 = time.monotonic()
            try:
                fresh = {k: v.clone() for k, v in inputs.items()}
                impl.factory(fresh, case)()
                if DEVICE == "cuda":
                    torch.cuda.synchronize()
                print(f"[{shard}] {plugin.id} {case.id} {impl_id}: {time.monotonic() - t0:.1f} s", flush=True)
            except Exception as exc:  # noqa: BLE001 - the runner records it properly
                failures += 1
                print(f"[{shard}] {plugin.id} {case.id} {impl_id}: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
        del inputs
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2])))
