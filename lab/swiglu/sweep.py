"""Issue 17's SwiGLU sweep: launch knobs of kr_triton (kernels/swiglu/kr_triton.py, `cfg`) beside
the peers, both families (`swiglu`: gate and up separate; `swiglu-fused`: one gate_up), forward
and backward, under the runner's own protocol (`site_builder.runner.measure.measure_one`:
correctness against the float64 reference first, then cold-L2 CUDA-graph device time), as
lab/fused_add_rmsnorm/runner_sweep.py and lab/softmax/sweep2.py do.

Candidates (`CANDS`, a name -> cfg of kr_triton.KNOBS; `model` is the shipped implementation
itself, cfg None): tile bytes per tensor, warps, the loads' eviction hint, the stores' cache
modifier, the row layout (one program per row, the whole row: both halves of gate_up in the
fused layout) and a persistent grid-stride launch. A candidate whose launch on a shape equals
one measured already there (same tile, warps, hints, grid) is not re-timed (`same_as`).

Workloads, in this order (a budget cut loses the last): the tune set (each family's
`sample_shapes` hook, seed 41, the draws above MIN_MB), the report set (seed 42), and a sample of
both records' workloads above MIN_MB (per family and kind, spread over the sizes). Within a
workload: the candidates, then eager and Liger, then torch.compile (a compile per shape).

Output (`--out`, default $OUT; rewritten after every workload, so a call cut short keeps what
it measured): swiglu-sweep.json and swiglu-sweep.md (per workload: every candidate's and peer's
device median in µs, the best candidate, its ratio to the fastest peer and to the copy floor;
then, per candidate, the geometric mean over the tune set of candidate / fastest peer, overall
and per family and kind, and the same over the report set and the records).

SWEEP_BUDGET (seconds, default 270): no measurement starts after it. End-to-end time is not the
point here: each measurement takes E2E_SAMPLES (default 10) end-to-end samples instead of the
protocol's 300 (device time: the protocol unchanged).

    python lab/swiglu/sweep.py --out "$OUT"                 # on the GPU (lab/swiglu/device_sweep.sh)
    python lab/swiglu/sweep.py --out /tmp/sw --dry-run      # here: the plan only, no GPU
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "lab"))

import sweep_tables  # noqa: E402  (lab/sweep_tables.py)
from sweep_cases import mb as _mb, random_cases, record_cases  # noqa: E402  (lab/sweep_cases.py)

FAMILIES = ("swiglu", "swiglu-fused")
SHORT_FAM = {"swiglu": "sep", "swiglu-fused": "fused"}
TUNE_SEED, REPORT_SEED = 41, 42
MIN_MB = 8.0
OURS = "kr-triton-swiglu"
PEERS = ["swiglu-eager", "liger-swiglu", "swiglu-torch-compile"]
SHORT = {"swiglu-eager": "eager", "liger-swiglu": "liger", "swiglu-torch-compile": "compile"}
SLOW = ("swiglu-torch-compile",)

# name -> cfg (kr_triton.KNOBS keys); None: the shipped launch. Bytes are per tensor per program;
# bf16 has 8 elements to a 16-byte vector, so 2048 B on 4 warps is one vector per thread per
# tensor (Inductor's pointwise shape: 1024 elements, 4 warps), 8192 B on 4 warps four.
CANDS: dict[str, dict | None] = {
    "model": None,
    "t2k-w4": {"tile_bytes": 2048, "num_warps": 4},
    "t2k-w4-nohint": {"tile_bytes": 2048, "num_warps": 4, "evict": ""},
    "t4k-w4-nohint": {"tile_bytes": 4096, "num_warps": 4, "evict": ""},
    "t8k-nohint": {"evict": ""},
    "t16k-w8-nohint": {"tile_bytes": 16384, "num_warps": 8, "evict": ""},
    "t8k-cs": {"store": ".cs"},
    "row": {"layout": "row"},
    "persist16-t2k": {"persistent": 16, "tile_bytes": 2048, "num_warps": 4, "evict": ""},
    # measured only when named with --cands
    "t2k-w4-last": {"tile_bytes": 2048, "num_warps": 4, "evict": "evict_last"},
    "t2k-w4-cs": {"tile_bytes": 2048, "num_warps": 4, "evict": "", "store": ".cs"},
    "t1k-w2-nohint": {"tile_bytes": 1024, "num_warps": 2, "evict": ""},
    "t4k-w2-nohint": {"tile_bytes": 4096, "num_warps": 2, "evict": ""},
    "row-nohint": {"layout": "row", "evict": ""},
    "persist8-t4k": {"persistent": 8, "tile_bytes": 4096, "num_warps": 4, "evict": "", "num_stages": 2},
    # 2026-12-04, the size-class sweep (hint "auto": the shipped rule by bytes moved)
    "t4k-w4": {"tile_bytes": 4096, "num_warps": 4},
    "t4k-w2": {"tile_bytes": 4096, "num_warps": 2},
    "t2k-w2": {"tile_bytes": 2048, "num_warps": 2},
    "t8k-w8": {"tile_bytes": 8192, "num_warps": 8},
    "t16k-w8": {"tile_bytes": 16384, "num_warps": 8},
    "t16k-w4": {"tile_bytes": 16384, "num_warps": 4},
    # 2026-12-04, after the seed-2718 report: the hint's threshold and the small-grid growth
    # (`_module`: kr_triton constants set during the call, so the kernel source is unchanged)
    "hint-first": {"evict": "evict_first"},
    "hint-none": {"evict": ""},
    "no-grow": {"_module": {"SMALL_GRID_PER_SM": 0}},
    "grow-4k": {"_module": {"SMALL_TILE_MAX": 4096}},
    "grow-min6": {"_module": {"SMALL_MIN_PER_SM": 6}},
}
SIZE_CANDS = ["model", "t2k-w4", "t2k-w2", "t4k-w4", "t4k-w2", "t8k-w8", "t16k-w8", "t16k-w4"]
DEFAULT_CANDS = ["model", "t2k-w4", "t2k-w4-nohint", "t4k-w4-nohint", "t8k-nohint", "t16k-w8-nohint",
                 "t8k-cs", "row", "persist16-t2k"]


# --- workloads ---------------------------------------------------------------------------------


def plan_workloads(args, records, plugins) -> list[dict]:
    """[{"family", "set", "case"}] in measuring order: tune, report, records."""
    rows = []
    for set_name, seed, n in (("tune", TUNE_SEED, args.tune), ("report", REPORT_SEED, args.report)):
        for fam_id in FAMILIES:
            for c in random_cases(records[fam_id], plugins[fam_id], n, seed, args.min_mb,
                                  pool=args.pool, max_mb=args.max_mb):
                rows.append({"family": fam_id, "set": set_name, "case": c})
    for fam_id in FAMILIES:
        for c in record_cases(records[fam_id], args.records, args.min_mb):
            rows.append({"family": fam_id, "set": "record", "case": c})
    return rows


def key(row) -> str:
    return f"{SHORT_FAM[row['family']]}:{row['case'].id}"


# --- candidates ----------------------------------------------------------------------------


def knobs_of(cfg):
    """The launch knobs of a candidate (its cfg without the `_module` constants)."""
    if cfg is None:
        return None
    return {k: v for k, v in cfg.items() if k != "_module"}


@contextlib.contextmanager
def patched(kr, cfg):
    """The candidate's `_module` constants of kr_triton (e.g. SMALL_GRID_PER_SM) set while inside:
    a plan rule measured without a kernel source change (which would re-hash the kernel)."""
    consts = (cfg or {}).get("_module", {})
    old = {k: getattr(kr, k) for k in consts}
    for k, v in consts.items():
        setattr(kr, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(kr, k, v)


def candidate_impl(fam_id: str, base, kr, name: str, cfg):
    """The registered kr-triton implementation of the family with its launch knobs set to cfg
    (the same calls as kernels/swiglu/impl_kr_triton.py and kernels/swiglu_fused/impl_kr_triton.py)."""
    if cfg is None:
        return base
    knobs = knobs_of(cfg)

    def within(fn):
        def call():
            with patched(kr, cfg):  # the launch is fixed when a CUDA graph captures it
                return fn()
        return call

    if fam_id == "swiglu":
        def factory(inputs, case):
            g, u = inputs["gate"], inputs["up"]
            if "dy" in inputs:
                dy = inputs["dy"]
                return within(lambda: kr.swiglu_backward(dy, g, u, cfg=knobs))
            return within(lambda: kr.swiglu_forward(g, u, cfg=knobs))
    else:
        def factory(inputs, case):
            g3 = inputs["gate_up"]  # [tokens, 2, intermediate]
            gu = g3.view(g3.shape[0], -1)
            if "dy" in inputs:
                dy = inputs["dy"]
                return within(lambda: kr.swiglu_fused_backward(dy, gu, cfg=knobs).view(g3.shape))
            return within(lambda: kr.swiglu_fused_forward(gu, cfg=knobs))
    return dataclasses.replace(base, id=f"{OURS}:{name}", factory=factory)


def launch_sig(kr, fam_id: str, case, cfg, sms: int) -> tuple:
    """What the kernel launch on this case would be: (rows, cols after any collapse, the launch)."""
    t, i = case["tokens"], case["intermediate"]
    knobs = knobs_of(cfg)
    with patched(kr, cfg):
        lc0 = kr.launch_config(1, 1, 2, sms, knobs)  # only for `collapse`
        if fam_id == "swiglu" and lc0["collapse"]:
            rows, cols = 1, t * i
        else:
            rows, cols = t, i
        es = 4 if case.dtype == "float32" else 2
        lc = kr.launch_config(rows, cols, es, sms, knobs)
    return (case.kind, rows, cols, tuple(sorted(lc.items())))


# --- tables (lab/sweep_tables.py) ----------------------------------------------------------


def table(report: dict) -> str:
    return sweep_tables.table(report, 'SwiGLU sweep (issue 17)', SHORT, SHORT_FAM)


def _write(out: Path, report: dict) -> None:
    sweep_tables.write(out, 'swiglu', report, 'SwiGLU sweep (issue 17)', SHORT, SHORT_FAM)


# --- main ------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--tune", type=int, default=4, help="tune-set shapes per family (seed 41)")
    ap.add_argument("--report", type=int, default=2, help="report-set shapes per family (seed 42)")
    ap.add_argument("--records", type=int, default=2, help="record workloads per family and kind")
    ap.add_argument("--min-mb", type=float, default=MIN_MB, help="only workloads above this many MB")
    ap.add_argument("--max-mb", type=float, default=float("inf"), help="only random workloads up to this many MB")
    ap.add_argument("--pool", type=int, default=64, help="draws per family the random sets pick from")
    ap.add_argument("--cands", default=",".join(DEFAULT_CANDS), help=f"comma list of {', '.join(CANDS)}")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--e2e-samples", type=int, default=int(os.environ.get("E2E_SAMPLES", "10")))
    ap.add_argument("--dry-run", action="store_true", help="print the plan (no GPU needed)")
    args = ap.parse_args()
    budget = float(os.environ.get("SWEEP_BUDGET", "270"))
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
    kr = import_module("swiglu", "kr_triton")  # the runner's copy: the one both families' impls call
    for c in cands:
        kr._knobs(knobs_of(CANDS[c]))  # a bad knob fails here, not after the imports on the GPU
        for k in (CANDS[c] or {}).get("_module", {}):
            if not hasattr(kr, k):
                raise SystemExit(f"sweep: candidate {c!r} sets kr_triton.{k}, which does not exist")
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
                lc = dict(sig[3])
                parts.append(f"{c}={lc['BLOCK_R']}x{lc['BLOCK_C']}/w{lc['num_warps']}/g{lc['grid']}")
            n_meas += len(peers)
            print(f"{row['set']:6} {key(row)} ({case.kind}, {case['tokens']}x{case['intermediate']}, "
                  f"{_mb(case):.0f} MB [{sig[1]}x{sig[2]}]): " + " ".join(parts))
        n_compile = sum(1 for _ in rows) if "swiglu-torch-compile" in peers else 0
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
                                         "tokens": c["tokens"], "intermediate": c["intermediate"],
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
