"""The configuration sweep of kr-triton-gemm: tune on one seed's random shapes, report on another's.

    python3 lab/gemm/sweep.py --tune-seed 11 --report-seed 12 --n 24 --out sweep.json \
        [--cands lab/gemm/candidates.json] [--budget 520]

Shapes come from the family's `sample_shapes` hook (kernels/gemm/shapes.py), so tuning and
report never share a shape. Every time is the runner's own measurement (measure.measure_one:
checked against the float64 reference, then CUDA-graph replay over rotating input sets, cold
L2). Tune: each shape of the tune seed is put in its class (kr_triton.shape_class: decode M ≤ 16;
small: M ≤ 128 or fewer 128 x 128 tiles than SMs; large: the rest); every candidate of that class (a
KR_GEMM_CONFIG, lab/gemm/candidates.json) is timed on the class's shapes beside cuBLAS
(torch-f-linear); a class's winner has the smallest geometric mean of ours / cuBLAS
({"model": true} is the model itself; the tune stops starting candidates at --tune-share of
the budget, so the report always runs). Report:
the report seed's shapes, timed with the model as it is in kr_triton.py and with each class's
winner forced, beside cuBLAS: ours / cuBLAS per shape, the geometric mean per class, and ours /
memory floor at decode sizes (bytes once over the copy bandwidth measured here). Winners go
into kr_triton.config_for by hand, with the sweep's numbers in lab/gemm/NOTES.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.records.schema import Workload  # noqa: E402
from site_builder.runner import measure as m  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, import_module, load_family  # noqa: E402
from site_builder.runner.family import Case  # noqa: E402
from site_builder.runner.protocol import GPU_SETTINGS, SEED  # noqa: E402

T0 = time.monotonic()


def case_of(record, shape) -> Case:
    s = shape.sizes
    w = Workload(id=f"x-m{s['m']}-n{s['n']}-k{s['k']}-bf16", dtype=shape.dtype, m=s["m"], n=s["n"], k=s["k"])
    return Case.from_record(record, w)


def klass(kr, case, sms) -> str:
    s = case.sizes
    return kr.shape_class(s["m"], s["n"], s["k"], sms)


def timed(family, impl, case, job, config=None):
    if config is None or config.get("model"):  # {"model": true}: the model, no override
        os.environ.pop("KR_GEMM_CONFIG", None)
    else:
        os.environ["KR_GEMM_CONFIG"] = json.dumps(config)
    try:
        res = m.measure_one(family, impl, case, job)
    finally:
        os.environ.pop("KR_GEMM_CONFIG", None)
    torch.cuda.empty_cache()
    if res.get("status") != "ok":
        print(f"  {impl.id} {case.id} {config}: {res.get('status')} {res.get('error')}", flush=True)
        return None
    return res["device_us"]["median"]


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tune-seed", type=int, required=True)
    ap.add_argument("--report-seed", type=int, required=True)
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--cands", default=str(ROOT / "lab/gemm/candidates.json"))
    ap.add_argument("--budget", type=float, default=1e9, help="seconds; stop starting measurements after")
    ap.add_argument("--tune-share", type=float, default=0.55,
                    help="fraction of the budget the tune may use, so the report on the other seed always runs")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.tune_seed == args.report_seed:
        sys.exit("--tune-seed and --report-seed must differ: the report is on shapes not tuned on")
    record = load_catalog(ROOT / "records").families["gemm"]
    family = load_family(KERNELS_ROOT, "gemm")
    kr = import_module("gemm", "kr_triton")
    ours, cublas = family.registry["kr-triton-gemm"], family.registry["torch-f-linear"]
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    sms = props.multi_processor_count
    job = {"protocol": GPU_SETTINGS, "seed": SEED, "l2_bytes": props.L2_cache_size, "device": "cuda",
           "timing_cpu": m.pick_timing_cpu()}
    copy_gbps = m.copy_bandwidth_gbps(device, 2**31)
    cands = {k: v for k, v in json.loads(Path(args.cands).read_text()).items() if k != "about"}
    over = lambda: time.monotonic() - T0 > args.budget
    tune_over = lambda: time.monotonic() - T0 > args.tune_share * args.budget
    report = {"tune_seed": args.tune_seed, "report_seed": args.report_seed, "copy_gbps": copy_gbps,
              "tune": {}, "winners": {}, "report": []}

    tune = [case_of(record, s) for s in family.sample_shapes(args.n, args.tune_seed)]
    by_class: dict[str, list[Case]] = {}
    for c in tune:
        by_class.setdefault(klass(kr, c, sms), []).append(c)
    for cls, cases in sorted(by_class.items()):
        base = {c.id: timed(family, cublas, c, job) for c in cases}
        scores = []
        for i, cfg in enumerate(cands.get(cls, [])):
            if tune_over():
                print(f"tune budget reached: {cls} stops before candidate {i}", flush=True)
                break
            ratios = [(t / base[c.id]) if (t := timed(family, ours, c, job, cfg)) and base[c.id] else None
                      for c in cases]
            g = geomean(ratios)
            scores.append({"cand": i, "config": cfg, "geomean_vs_cublas": g, "ratios": ratios})
            print(f"tune {cls} cand {i}: geomean ours/cuBLAS {g if g is None else round(g, 3)} {cfg}", flush=True)
        report["tune"][cls] = {"shapes": [c.id for c in cases], "cublas_us": base, "scores": scores}
        ok = [s for s in scores if s["geomean_vs_cublas"]]
        if ok:
            report["winners"][cls] = min(ok, key=lambda s: s["geomean_vs_cublas"])["config"]

    print(f"\nreport on seed {args.report_seed} (shapes not tuned on); copy bandwidth {copy_gbps:,.0f} GB/s", flush=True)
    print(f"{'shape':>28} {'class':>6} {'cuBLAS µs':>10} {'model/cuB':>9} {'winner/cuB':>10} {'model/floor':>11}")
    per_class: dict[str, dict[str, list]] = {}
    for s in family.sample_shapes(args.n, args.report_seed):
        if over():
            print("budget reached: the report stops here", flush=True)
            break
        c = case_of(record, s)
        cls = klass(kr, c, sms)
        base = timed(family, cublas, c, job)
        model = timed(family, ours, c, job)
        win = timed(family, ours, c, job, report["winners"].get(cls)) if cls in report["winners"] else None
        floor_us = c.floor_bytes / (copy_gbps * 1e3)
        row = {"shape": c.id, "class": cls, "cublas_us": base, "model_us": model, "winner_us": win,
               "floor_us": floor_us, "tflops_model": (c.floor_flops / (model * 1e6)) if model else None}
        report["report"].append(row)
        r = lambda a, b: f"{a / b:.3f}" if (a and b) else "—"
        print(f"{c.id:>28} {cls:>6} {base or float('nan'):>10.1f} {r(model, base):>9} {r(win, base):>10} "
              f"{r(model, floor_us):>11}", flush=True)
        per_class.setdefault(cls, {"model": [], "winner": []})
        per_class[cls]["model"].append(model / base if model and base else None)
        per_class[cls]["winner"].append(win / base if win and base else None)
    for cls, d in sorted(per_class.items()):
        print(f"geomean ours/cuBLAS, {cls}: model {geomean(d['model'])}, winner {geomean(d['winner'])}")
    print("winners:", json.dumps(report["winners"]))
    Path(args.out).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
