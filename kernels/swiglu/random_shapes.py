"""Ours against the peers on random shapes from a seed never used for tuning (issue 17's last
target), for SwiGLU (separate gate/up) and RoPE, forward and backward. GPU only.

    python kernels/swiglu/random_shapes.py --seed 917 --per-kind 3 --out random.json

Shapes: SwiGLU tokens in [256, 16384], intermediate a multiple of 64 in [1024, 30016]; RoPE one
of the family's head layouts with batch x seq drawn so that 256..16384 tokens. Each time is the
median over 15 replays of a CUDA graph of calls over rotating input sets (at least 3x the L2:
cold L2), per call, in µs; floor = declared bytes over the copy bandwidth given (--bw, GB/s).
Peers: the eager formula, torch.compile of it (per shape) and Liger-Kernel 0.8.5 (in place on
its own input sets, as in the families' records).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from site_builder.load import load_catalog  # noqa: E402
from site_builder.runner.families import load_family  # noqa: E402
from site_builder.runner.family import Case  # noqa: E402
from site_builder.schema import Workload  # noqa: E402

L2 = 60e6


def _time(make_call, set_bytes: float) -> float:
    n = max(1, min(64, math.ceil(3 * L2 / set_bytes)))
    calls = [make_call(i) for i in range(n)]
    for c in calls:
        c()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for c in calls:
            c()
    for _ in range(3):
        g.replay()
    samples = []
    for _ in range(15):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b) * 1e3 / n)
    return statistics.median(samples)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=917)
    p.add_argument("--per-kind", type=int, default=3)
    p.add_argument("--bw", type=float, default=4200.0)
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args(argv)
    rng = random.Random(a.seed)
    dev = torch.device("cuda")
    catalog = load_catalog(ROOT / "records")
    sw = load_family(ROOT / "kernels", "swiglu")
    rp = load_family(ROOT / "kernels", "rope")
    layouts = [(32, 8, 128), (64, 8, 128), (28, 4, 128), (128, 1, 64)]
    rows = []
    for fam, name in ((sw, "swiglu"), (rp, "rope")):
        for kind in ("forward", "backward"):
            for j in range(a.per_kind):
                if name == "swiglu":
                    w = {"tokens": rng.randint(256, 16384), "intermediate": 64 * rng.randint(16, 469)}
                    label = f"t{w['tokens']}-i{w['intermediate']}"
                else:
                    hq, hk, d = rng.choice(layouts)
                    seq = rng.choice([512, 1024, 2048, 4096, 8192])
                    b = max(1, rng.randint(256, 16384) // seq)
                    w = {"batch": b, "seq": seq, "heads_q": hq, "heads_kv": hk, "head_dim": d, "pos_batch": 1}
                    label = f"b{b}-s{seq}-{hq}/{hk}/{d}"
                case = Case.from_record(catalog.families[name], Workload(
                    id=f"random-{name}-{kind}-{j}", dtype="bfloat16", kind=kind, **w))
                nbytes = fam.bytes_moved(case)
                row = {"family": name, "kind": kind, "shape": label, "MB": nbytes / 1e6,
                       "floor": nbytes / (a.bw * 1e3)}
                for impl in fam.registry.ids():
                    factory = fam.registry[impl].factory
                    try:
                        row[impl] = _time(lambda i: factory(fam.make_inputs(case, a.seed + i, dev), case), nbytes)
                    except Exception as exc:  # noqa: BLE001 - recorded, not hidden
                        row[impl] = f"failed: {type(exc).__name__}: {str(exc)[:120]}"
                rows.append(row)
                print(json.dumps(row), flush=True)
    if a.out:
        a.out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
