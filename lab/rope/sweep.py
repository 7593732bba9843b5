"""RoPE launch sweep: launch knobs of kr_triton (kernels/rope/kr_triton.py, `cfg`) beside the peers
(eager, Liger, torch.compile), forward and backward, under the runner's own protocol
(`site_builder.runner.measure.measure_one`: correctness against the reference first, then
cold-L2 CUDA-graph device time), structured as lab/swiglu/sweep.py.

Workloads, in order (a budget cut loses the last): tune set (the family's `sample_shapes`, seed
41, above MIN_MB), report set (seed 42), a sample of the record's forward / backward workloads
above MIN_MB, and two decode workloads of the record (seq 1). A candidate whose launch equals one
measured already on the workload (launch_config) is not re-timed (`same_as`).

Output ($OUT, rewritten after every workload): rope-sweep.json, rope-sweep.md.

    SWEEP_BUDGET=200 python lab/rope/sweep.py --out "$OUT"   # on the GPU
    python lab/rope/sweep.py --out /tmp/rs --dry-run           # here: the plan only
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "lab"))

import sweep_tables  # noqa: E402  (lab/sweep_tables.py)
from sweep_cases import mb as _mb, random_cases, record_cases, spread  # noqa: E402  (lab/sweep_cases.py)

FAMILIES = ("rope",)
SHORT_FAM = {"rope": "rope"}
TUNE_SEED, REPORT_SEED = 41, 42
MIN_MB = 8.0
OURS = "kr-triton-rope"
PEERS = ["rope-eager", "liger-rope", "rope-torch-compile"]
SHORT = {"rope-eager": "eager", "liger-rope": "liger", "rope-torch-compile": "compile"}
SLOW = ("rope-torch-compile",)

# name -> cfg (kr_triton.KNOBS keys); None: the shipped launch (kernel _rope)
CANDS: dict[str, dict | None] = {
    "model": None,
    "kdef": {"layout": "grouped"},
    "nohint": {"evict": "", "cs_evict": ""},
    "w4": {"num_warps": 4},
    "g4k-w4": {"tile_bytes": 4096, "num_warps": 4},
    "token-w4": {"layout": "token", "tile_bytes": 16384, "num_warps": 4},
    "split": {"layout": "split"},
    "rows-2k-w4": {"layout": "rows", "tile_bytes": 2048, "num_warps": 4},
    "rows-8k": {"layout": "rows"},
    "t2": {"tokens": 2},
    "persist8": {"persistent": 8},
}
DEFAULT_CANDS = [c for c in CANDS if c not in ("g4k-w4", "t2")]  # the two cut to fit SWEEP_BUDGET=200


# --- workloads ---------------------------------------------------------------------------------


def decode_cases(record, n: int) -> list:
    """n decode workloads of the record (seq 1), spread over their sizes, whatever their MB."""
    from site_builder.runner.family import Case

    cases = sorted((Case.from_record(record, w) for w in record.workloads if w.kind == "forward"),
                   key=lambda c: c.floor_bytes)
    return spread([c for c in cases if c["seq"] == 1], n)


def plan_workloads(args, records, plugins) -> list[dict]:
    """[{"family", "set", "case"}] in measuring order: tune, report, records."""
    rows = []
    for set_name, seed, n in (("tune", TUNE_SEED, args.tune), ("report", REPORT_SEED, args.report)):
        for fam_id in FAMILIES:
            for c in random_cases(records[fam_id], plugins[fam_id], n, seed, args.min_mb):
                rows.append({"family": fam_id, "set": set_name, "case": c})
    for fam_id in FAMILIES:
        for c in record_cases(records[fam_id], args.records, args.min_mb):
            rows.append({"family": fam_id, "set": "record", "case": c})
        for c in decode_cases(records[fam_id], args.decode):
            rows.append({"family": fam_id, "set": "record", "case": c})
    return rows


def key(row) -> str:
    return f"{SHORT_FAM[row['family']]}:{row['case'].id}"


# --- candidates ----------------------------------------------------------------------------


def candidate_impl(fam_id: str, base, kr, name: str, cfg):
    """kr-triton-rope with launch knobs cfg (the calls of kernels/rope/impl_kr_triton.py)."""
    if cfg is None:
        return base

    def factory(inputs, case):
        cos, sin = inputs["cos"], inputs["sin"]
        if "dq_embed" in inputs:
            dq, dk = inputs["dq_embed"], inputs["dk_embed"]
            return lambda: kr.rope_backward(dq, dk, cos, sin, cfg=cfg)
        q, k = inputs["q"], inputs["k"]
        return lambda: kr.rope_forward(q, k, cos, sin, cfg=cfg)
    return dataclasses.replace(base, id=f"{OURS}:{name}", factory=factory)


def launch_sig(kr, fam_id: str, case, cfg, sms: int) -> tuple:
    """The launch on this case: the model (cfg None, kernel _rope) is its own signature."""
    tokens = case["batch"] * case["seq"]
    es = 4 if case.dtype == "float32" else 2
    if cfg is None:
        return (case.kind, "model")
    lc = kr.launch_config(tokens, case["heads_q"], case["heads_kv"], case["head_dim"], es, sms, cfg)
    return (case.kind, tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(lc.items())))


# --- tables (lab/sweep_tables.py) ----------------------------------------------------------


def table(report: dict) -> str:
    return sweep_tables.table(report, 'RoPE launch sweep', SHORT, SHORT_FAM)


def _write(out: Path, report: dict) -> None:
    sweep_tables.write(out, 'rope', report, 'RoPE launch sweep', SHORT, SHORT_FAM)


# --- main ------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--tune", type=int, default=3, help="tune-set shapes (seed 41)")
    ap.add_argument("--report", type=int, default=2, help="report-set shapes per family (seed 42)")
    ap.add_argument("--records", type=int, default=2, help="record workloads per kind")
    ap.add_argument("--decode", type=int, default=2, help="decode workloads of the record (seq 1)")
    ap.add_argument("--min-mb", type=float, default=MIN_MB, help="only workloads above this many MB")
    ap.add_argument("--cands", default=",".join(DEFAULT_CANDS), help=f"comma list of {', '.join(CANDS)}")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--e2e-samples", type=int, default=int(os.environ.get("E2E_SAMPLES", "10")))
    ap.add_argument("--dry-run", action="store_true", help="print the plan (no GPU needed)")
    args = ap.parse_args()
    budget = float(os.environ.get("SWEEP_BUDGET", "200"))
    t0 = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cands = [c for c in args.cands.split(",") if c]
    for c in cands:
        if c not in CANDS:
            raise SystemExit(f"sweep: unknown candidate {c!r}; known: {', '.join(CANDS)}")
    peers = [p for p in args.peers.split(",") if p]

    from site_builder.records.load import load_catalog
    from site_builder.runner.families import KERNELS_ROOT, import_module, load_family

    catalog = load_catalog(ROOT / "records")
    records = {f: catalog.families[f] for f in FAMILIES}
    plugins = {f: load_family(KERNELS_ROOT, f) for f in FAMILIES}
    kr = import_module("rope", "kr_triton")  # the runner's copy
    for c in cands:
        kr._knobs(CANDS[c])  # a bad knob fails here, not after the imports on the GPU
    rows = plan_workloads(args, records, plugins)
    for p in peers:
        for f in FAMILIES:
            if p not in plugins[f].registry:
                raise SystemExit(f"sweep: {f} has no implementation {p!r}")

    if args.dry_run:
        n_meas = 0
        for row in rows:
            case, fam_id = row["case"], row["family"]
            seen, parts = {}, []
            for c in cands:
                sig = launch_sig(kr, fam_id, case, CANDS[c], 132)
                if sig in seen:
                    parts.append(f"{c}=({seen[sig]})")
                    continue
                seen[sig] = c
                n_meas += 1
                if sig[1] == "model":
                    parts.append(f"{c}=_rope")
                else:
                    lc = dict(sig[1])
                    parts.append(f"{c}={lc['layout']}/w{lc['num_warps']}/g{'+'.join(map(str, lc['grids']))}")
            n_meas += len(peers)
            print(f"{row['set']:6} {key(row)} ({case.kind}, b{case['batch']} s{case['seq']} hq{case['heads_q']} "
                  f"hk{case['heads_kv']} d{case['head_dim']}, {_mb(case):.1f} MB): " + " ".join(parts))
        n_compile = sum(1 for _ in rows) if "rope-torch-compile" in peers else 0
        est = 25 + 0.7 * n_meas + 4 * n_compile + 1.0 * 4 * len(cands)
        counts = ", ".join(f"{s}: {sum(r['set'] == s for r in rows)}" for s in ("tune", "report", "record"))
        print(f"{len(rows)} workloads ({counts}), "
              f"{len(cands)} candidates + {len(peers)} peers: {n_meas} measurements, {n_compile} torch.compile shapes; "
              f"rough estimate {est:.0f} s (0.7 s a measurement, 4 s a compile, 25 s start); budget {budget:.0f} s")
        return

    import torch

    from site_builder.runner import measure as m
    from site_builder.runner.measure import measure_one
    from site_builder.runner.protocol import COPY_BYTES, GPU_SETTINGS

    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    sms = props.multi_processor_count
    proto = {**GPU_SETTINGS, "e2e_samples": args.e2e_samples}
    job = {"protocol": proto, "seed": 1234, "l2_bytes": props.L2_cache_size, "device": "cuda",
           "timing_cpu": m.pick_timing_cpu()}
    bw = m.copy_bandwidth_gbps(device, COPY_BYTES["cuda"])
    import triton

    report = {"device": props.name, "sms": sms, "torch": torch.__version__, "triton": triton.__version__,
              "bandwidth_gbps": bw, "cands": cands, "peers": peers, "cand_cfgs": {c: CANDS[c] for c in cands},
              "knob_defaults": kr.KNOBS, "timing_cpu": job["timing_cpu"], "budget_s": budget,
              "e2e_samples": args.e2e_samples, "workloads": {}, "times": {}, "stopped": None}
    try:
        import liger_kernel  # noqa: F401

        from importlib.metadata import version

        report["liger"] = version("liger-kernel")
    except Exception as exc:  # noqa: BLE001
        report["liger"] = f"not importable: {exc}"
    for row in rows:
        c = row["case"]
        report["workloads"][key(row)] = {"family": row["family"], "set": row["set"], "kind": c.kind,
                                         **{s: c[s] for s in ("batch", "heads_q", "heads_kv", "seq", "head_dim")},
                                         "mb": round(_mb(c), 2), "floor_us": round(c.floor_bytes / (bw * 1e3), 3)}
        report["times"][key(row)] = {}
    print(f"start: {len(rows)} workloads, bandwidth {bw} GB/s, {time.monotonic() - t0:.1f} s", flush=True)
    impls = {f: {c: candidate_impl(f, plugins[f].registry[OURS], kr, c, CANDS[c]) for c in cands} for f in FAMILIES}
    try:
        for row in rows:
            fam_id, case, wkey = row["family"], row["case"], key(row)
            plugin = plugins[fam_id]
            per = report["times"][wkey]
            seen = {}
            order = cands + [p for p in peers if p not in SLOW] + [p for p in peers if p in SLOW]
            for name in order:
                if time.monotonic() - t0 > budget:
                    report["stopped"] = f"SWEEP_BUDGET {budget:.0f} s reached before {wkey} {name}"
                    raise StopIteration
                if name in CANDS:
                    sig = launch_sig(kr, fam_id, case, CANDS[name], sms)
                    if sig in seen:
                        per[name] = {"same_as": seen[sig]}
                        continue
                    seen[sig] = name
                    impl = impls[fam_id][name]
                else:
                    impl = plugin.registry[name]
                ts = time.monotonic()
                res = measure_one(plugin, impl, case, job)
                cell = per[name] = {"device": [], "e2e": [], "s": round(time.monotonic() - ts, 2)}
                if res.get("status") != "ok":
                    cell["status"] = res.get("status")
                    cell["error"] = (res.get("error") or "")[:300]
                    print(f"{wkey} {name}: {cell['status']} {cell['error'][:160]}", flush=True)
                else:
                    cell["device"].append(res["device_us"]["median"])
                    cell["p20_p80"] = [res["device_us"]["p20"], res["device_us"]["p80"]]
                    cell["e2e"].append(res["e2e_us"]["median"])
                    fl = report["workloads"][wkey]["floor_us"]
                    print(f"{wkey} {name}: {res['device_us']['median']:.2f} µs ({res['device_us']['median'] / fl:.3f}x floor, "
                          f"{cell['s']} s)", flush=True)
                if res.get("fatal"):
                    report["stopped"] = f"fatal after {wkey} {name}"
                    raise StopIteration
            m.sync(device)
            torch.cuda.empty_cache()
            report["elapsed_s"] = round(time.monotonic() - t0, 1)
            _write(out, report)
    except StopIteration:
        pass
    report["elapsed_s"] = round(time.monotonic() - t0, 1)
    _write(out, report)
    print(table(report))
    print(report["stopped"] or "all measured", f"in {report['elapsed_s']} s")


if __name__ == "__main__":
    main()
