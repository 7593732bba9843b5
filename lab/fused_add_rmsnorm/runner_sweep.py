"""Candidate configurations of kr-triton timed under the runner's own protocol (NOTES.md, v8).

bench.py's graphs hold a few calls each; the runner's hold ~2 ms of calls, so fixed launch and
tail costs weigh differently, and a choice between configurations within 1 % is better made
the runner's way. This script runs the runner's worker code (verify, then time: device and
end-to-end) in one process for each candidate layout of one (hidden, element size) key, with
peers beside them, in rounds (the order rotating), and prints medians per workload:

    python lab/fused_add_rmsnorm/runner_sweep.py --key 4096,2 \
        --cands lab/fused_add_rmsnorm/candidates/runner8-cands.json \
        --workloads r2048-h4096-bf16,r1-h4096-bf16 --peers torch-compile,liger-fused --out rs.json
    python lab/fused_add_rmsnorm/runner_sweep.py --cands lab/fused_add_rmsnorm/candidates/issue14-cands.json \
        --peers torch-compile,liger-fused,quack --out issue14-sweep.json   # its workloads: ad-hoc shapes

--cands: a JSON file {"<hidden>,<elsize>": [cfg, ...]} (as kr_triton._TUNED entries).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner import measure as m  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, import_module, load_family  # noqa: E402
from site_builder.runner.family import Case  # noqa: E402
from site_builder.runner.measure import measure_one  # noqa: E402
from site_builder.runner.protocol import GPU_SETTINGS, SEED  # noqa: E402

FAMILY = "fused-add-rmsnorm"


def workload(wid: str) -> Case:
    """The family record's workload `wid` as the runner gives it to the family, or an ad-hoc
    shape `ROWSxHIDDEN:DTYPE` (e.g. 2x46592:fp16) as `kernel-records bench` measures one: a
    workload of a copy of the record (site_builder.runner.bench.family_variant)."""
    from site_builder.records.schema import Workload
    from site_builder.runner.bench import family_variant

    record = load_catalog(ROOT / "records").families[FAMILY]
    by_id = {w.id: w for w in record.workloads}
    if wid in by_id:
        return Case.from_record(record, by_id[wid])
    try:
        size, dtype = wid.split(":")
        rows, hidden = (int(v) for v in size.split("x"))
    except ValueError:
        raise SystemExit(f"workload {wid!r}: neither a workload id of the record nor ROWSxHIDDEN:DTYPE") from None
    full = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}.get(dtype, dtype)
    w = Workload(id=f"x-rows{rows}-hidden{hidden}-{dtype}", dtype=full, kind="forward", rows=rows, hidden=hidden)
    return Case.from_record(family_variant(record, {}, [w]), w)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cands", required=True)
    ap.add_argument("--workloads", default=None, help="per key: key=wl,wl;key=wl (or one list for all keys); "
                    "a workload is a record id or ROWSxHIDDEN:DTYPE; default: the --cands file's own")
    ap.add_argument("--peers", default="torch-compile,liger-fused")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    family = load_family(KERNELS_ROOT, FAMILY)
    kr_impl = family.registry["kr-triton"]
    kr = import_module(FAMILY, "kr_triton")  # the runner's copy
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    job = {"protocol": GPU_SETTINGS, "seed": SEED, "l2_bytes": props.L2_cache_size, "device": "cuda",
           "timing_cpu": m.pick_timing_cpu()}
    cands = json.loads(Path(args.cands).read_text())
    if "cands" in cands:  # {"cands": {...}, "workloads": "key=wl,...;..."} (make_issue14_cands.py)
        args.workloads = args.workloads or cands.get("workloads")
        cands = cands["cands"]
    if not args.workloads:
        raise SystemExit("--workloads is needed: the --cands file names none")
    if ";" in args.workloads or "=" in args.workloads:
        wl_by_key = dict(part.split("=") for part in args.workloads.split(";"))
    else:
        wl_by_key = {k: args.workloads for k in cands}
    report = {"timing_cpu": job["timing_cpu"], "keys": {}}
    for key, cfgs in cands.items():
        n, el = (int(v) for v in key.split(","))
        original = kr._TUNED.get((n, el))
        names = [f"cfg{i}" for i in range(len(cfgs))] + args.peers.split(",")
        times = {wid: {name: {"device": [], "e2e": []} for name in names} for wid in wl_by_key[key].split(",")}
        for rnd in range(args.rounds):
            order = names[rnd % len(names):] + names[:rnd % len(names)]
            for name in order:
                if name.startswith("cfg"):
                    cfg = dict(cfgs[int(name[3:])])
                    if "S" in cfg:
                        cfg["S"] = tuple(cfg["S"])
                    kr._TUNED[(n, el)] = cfg
                    kr._FAST.clear()
                    impl = kr_impl
                else:
                    impl = family.registry[name]
                for wid in times:
                    res = measure_one(family, impl, workload(wid), job)
                    if res.get("status") != "ok":
                        print(f"{key} {name} {wid}: {res.get('status')} {res.get('error')}", flush=True)
                        continue
                    times[wid][name]["device"].append(res["device_us"]["median"])
                    times[wid][name]["e2e"].append(res["e2e_us"]["median"])
                m.sync(device)
                torch.cuda.empty_cache()
        if original is None:  # back to the configuration model
            kr._TUNED.pop((n, el), None)
        else:
            kr._TUNED[(n, el)] = original
        kr._FAST.clear()
        report["keys"][key] = {"cfgs": cfgs, "times": times}
        Path(args.out).write_text(json.dumps(report, indent=1))  # a call cut short keeps the keys done
        for wid, per in times.items():
            line = [f"{key} {wid}:"]
            for name, t in per.items():
                if t["device"]:
                    line.append(f"{name} {statistics.median(t['device']):.3f} ({'/'.join(f'{v:.2f}' for v in t['device'])})"
                                f" e2e {statistics.median(t['e2e']):.1f}")
            print(" | ".join(line), flush=True)
    for key, cfgs in cands.items():
        for i, c in enumerate(cfgs):
            print(f"{key} cfg{i}: {c}")
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
