"""Issue 15, run 2's sweep: our new variants and candidate configurations beside torch.compile
and Liger, timed the runner's way (site_builder.runner.measure.measure_one: checked against the
float64 reference, then CUDA-graph replay over rotating input sets, cold L2), on the H200:

    python3 lab/norms/sweep2.py --out $OUT/sweep2.json [--budget 200] [--rounds 1] [--random 3]
    python3 lab/norms/sweep2.py --prewarm SHARD SHARDS      # first calls only (compile caches)
    TRITON_INTERPRET=1 python3 lab/norms/sweep2.py --dry-run --out /tmp/s.json   # CPU, tiny rows

What it decides (lab/norms/NOTES.md, "2026-12-02 run 2 and changes"):

* rmsnorm backward at hidden 16384 / 32768: the long-row kernel (`_bwd_long`, chunks, no row
  in registers; the rule above hidden 8192) with its chunk, warps, pipelining stages and
  programs per SM, beside the register kernel of run 2 at 16384 (kind "rows"); the register
  kernel at 8192 against the long one (where the threshold belongs).
* rmsnorm forward at 5120 / 7168: the split kernel (power-of-two pieces, the rule now) against
  run 2's masked power-of-two block and the chunked loop with 1024 / 2048 chunks; 32768: warps
  and the chunked loop.
* layernorm forward at 8192 (4096 and 16384 rows): weight and bias now loaded after the
  reductions (the rule, 16 warps) with 8 / 32 warps and the chunked loop (Inductor's looped
  shape); 768 (split vs masked, rows per program), 32768 x 1024 (rows per program, warps),
  4096 x 4096 float32 (warps).
* layernorm backward at 2048 x 32768 (ad hoc; the record has no long row): the long kernel.
* a few random shapes of each family's `sample_shapes` hook, seed 21 (a seed used nowhere
  else): the rules as they are, beside the peers.

Each item: the rule first, then the peers, then the other candidates (so that a budget cut
keeps the comparisons that matter); items in order of importance: the run-2 workloads, then the
random shapes (--only indexes this order: 0-11, the random ones, then the extras), then the
extras (layernorm 4096 x 4096 bf16 and 3072, rmsnorm 2048 x 1024). No measurement starts after
--budget seconds (SWEEP_BUDGET, default 200). The table goes to stdout, the JSON (every
sample, each candidate's configuration, the copy bandwidth) to --out after every item.
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

T0 = time.monotonic()
TUNE_SEED = 21

OURS = {"rmsnorm": "kr-triton-rmsnorm", "layernorm": "kr-triton-layernorm"}
PEERS = {"rmsnorm": ("rmsnorm-torch-compile", "liger-rms-norm"),
         "layernorm": ("layernorm-torch-compile", "liger-layer-norm")}


def _long(block, warps, stages=1, ctas=None):
    return {"kind": "long", "BLOCK": block, "ROWS": 1, "MASK_COLS": True, "num_warps": warps, "num_stages": stages,
            "CTAS": ctas}


def _rows(block, rows, warps, masked, ctas=None, late=None):
    """A rows-kind configuration; late: the forward's LATE_W (None: the family's default, rmsnorm
    False, layernorm True)."""
    c = {"kind": "rows", "BLOCK": block, "ROWS": rows, "MASK_COLS": masked, "num_warps": warps}
    if ctas is not None:
        c["CTAS"] = ctas
    if late is not None:
        c["LATE_W"] = late
    return c


def _chunked(block, warps):
    return {"kind": "chunked", "BLOCK": block, "num_warps": warps}


def _split(n, rows, warps, kr):
    b1, b2, b3 = kr.split_pieces(n)
    return {"kind": "split", "B1": b1, "B2": b2, "B3": b3, "BLOCK": 1 << (n - 1).bit_length(), "ROWS": rows,
            "MASK_COLS": b1 + b2 + b3 != n, "num_warps": warps}


def items(kr: dict) -> list[dict]:
    """(family, workloads, override key, candidates) in order of importance; a candidate None
    is the rule as it is in kr_triton.py."""
    r, ln = kr["rmsnorm"], kr["layernorm"]
    return [
        {"family": "rmsnorm", "workloads": ["bwd-r2048-h32768-bf16"], "key": ("bwd", 32768, 2),
         "cands": {"rule": None, "long-b4096-w16": _long(4096, 16), "long-b2048-w8": _long(2048, 8),
                   "long-b4096-w16-s2": _long(4096, 16, 2), "long-b4096-w8": _long(4096, 8),
                   "long-b4096-w16-c2": _long(4096, 16, 1, 2), "long-b8192-w16": _long(8192, 16),
                   "long-b2048-w8-s3": _long(2048, 8, 3), "long-b8192-w16-s2": _long(8192, 16, 2),
                   "long-b4096-w16-s3": _long(4096, 16, 3), "long-b8192-w32-s2": _long(8192, 32, 2),
                   "long-b8192-w32-c2": _long(8192, 32, 1, 2)}},
        {"family": "rmsnorm", "workloads": ["bwd-r2048-h16384-bf16"], "key": ("bwd", 16384, 2),
         "cands": {"rule": None, "run2-rows-w32": _rows(16384, 1, 32, False, 1),
                   "long-b2048-w8": _long(2048, 8), "long-b4096-w16-s2": _long(4096, 16, 2),
                   "long-b4096-w16-c2": _long(4096, 16, 1, 2), "long-b4096-w16-c4": _long(4096, 16, 1, 4),
                   "long-b8192-w16": _long(8192, 16), "long-b4096-w16": _long(4096, 16)}},
        {"family": "layernorm", "workloads": ["r4096-h8192-bf16", "r16384-h8192-bf16"], "key": ("fwd", 8192, 2),
         "cands": {"rule": None, "run2-early-w16": _rows(8192, 1, 16, False, late=False),
                   "rows-w8": _rows(8192, 1, 8, False), "rows-w32": _rows(8192, 1, 32, False),
                   "rows-r2-w16": _rows(8192, 2, 16, False), "rows-r2-w32": _rows(8192, 2, 32, False),
                   "chunked-b2048-w8": _chunked(2048, 8), "chunked-b4096-w16": _chunked(4096, 16)}},
        {"family": "rmsnorm", "workloads": ["r4096-h5120-bf16"], "key": ("fwd", 5120, 2),
         "cands": {"rule": None, "run2-masked-w16": _rows(8192, 1, 16, True), "split-w8": _split(5120, 1, 8, r),
                   "chunked-b1024-w4": _chunked(1024, 4), "chunked-b2048-w8": _chunked(2048, 8)}},
        {"family": "rmsnorm", "workloads": ["r4096-h7168-bf16"], "key": ("fwd", 7168, 2),
         "cands": {"rule": None, "run2-masked-w16": _rows(8192, 1, 16, True), "split-w8": _split(7168, 1, 8, r),
                   "chunked-b1024-w4": _chunked(1024, 4), "chunked-b2048-w8": _chunked(2048, 8)}},
        {"family": "rmsnorm", "workloads": ["r2048-h32768-bf16"], "key": ("fwd", 32768, 2),
         "cands": {"rule": None, "late-w16": _rows(32768, 1, 16, False, late=True),
                   "rows-w32": _rows(32768, 1, 32, False), "late-w32": _rows(32768, 1, 32, False, late=True),
                   "chunked-b8192-w16": _chunked(8192, 16), "chunked-b4096-w8": _chunked(4096, 8)}},
        {"family": "rmsnorm", "workloads": ["r4096-h8192-bf16", "r2048-h8192-bf16"], "key": ("fwd", 8192, 2),
         "cands": {"rule": None, "late-w16": _rows(8192, 1, 16, False, late=True),
                   "late-w8": _rows(8192, 1, 8, False, late=True)}},
        {"family": "rmsnorm", "workloads": ["bwd-r4096-h8192-bf16", "bwd-r2048-h8192-bf16"], "key": ("bwd", 8192, 2),
         "cands": {"rule": None, "long-b8192-w32": _long(8192, 32), "long-b4096-w16": _long(4096, 16),
                   "long-b4096-w16-c2": _long(4096, 16, 1, 2)}},
        {"family": "layernorm", "workloads": ["r4096-h768-bf16"], "key": ("fwd", 768, 2),
         "cands": {"rule": None, "run2-masked-r4-w8": _rows(1024, 4, 8, True), "split-r8-w8": _split(768, 8, 8, ln),
                   "split-r2-w4": _split(768, 2, 4, ln), "split-r4-w4": _split(768, 4, 4, ln)}},
        {"family": "layernorm", "workloads": ["r32768-h1024-bf16"], "key": ("fwd", 1024, 2),
         "cands": {"rule": None, "run2-early-r4-w8": _rows(1024, 4, 8, False, late=False),
                   "rows-r8-w8": _rows(1024, 8, 8, False), "rows-r4-w4": _rows(1024, 4, 4, False),
                   "rows-r2-w2": _rows(1024, 2, 2, False), "rows-r16-w16": _rows(1024, 16, 16, False)}},
        {"family": "layernorm", "workloads": ["r4096-h4096-fp32"], "key": ("fwd", 4096, 4),
         "cands": {"rule": None, "run2-early-w16": _rows(4096, 1, 16, False, late=False),
                   "rows-w8": _rows(4096, 1, 8, False), "rows-w32": _rows(4096, 1, 32, False)}},
        {"family": "layernorm", "workloads": ["bwd:2048x32768:bf16"], "key": ("bwd", 32768, 2),
         "cands": {"rule": None, "long-b4096-w16": _long(4096, 16), "long-b4096-w16-s2": _long(4096, 16, 2)}},
        {"family": "layernorm", "workloads": ["r4096-h4096-bf16"], "key": ("fwd", 4096, 2),
         "cands": {"rule": None, "rows-w4": _rows(4096, 1, 4, False), "rows-w16": _rows(4096, 1, 16, False),
                   "rows-r2-w8": _rows(4096, 2, 8, False)}},
        {"family": "layernorm", "workloads": ["r4096-h3072-bf16"], "key": ("fwd", 3072, 2),
         "cands": {"rule": None, "run2-masked-w8": _rows(4096, 1, 8, True), "split-w4": _split(3072, 1, 4, ln),
                   "split-r2-w8": _split(3072, 2, 8, ln)}},
        {"family": "rmsnorm", "workloads": ["r2048-h1024-bf16"], "key": ("fwd", 1024, 2),
         "cands": {"rule": None, "rows-r8-w8": _rows(1024, 8, 8, False), "rows-r4-w4": _rows(1024, 4, 4, False),
                   "rows-r2-w2": _rows(1024, 2, 2, False)}},
    ]


#: the item list this run measures: `items` here; lab/norms/sweep3.py puts its own
ITEMS = items


def random_items(families: dict, n: int) -> list[dict]:
    out = []
    for fid in ("rmsnorm", "layernorm"):
        for s in families[fid].sample_shapes(n, TUNE_SEED):
            spec = f"{'bwd' if s.kind == 'backward' else 'fwd'}:{s.sizes['rows']}x{s.sizes['hidden']}:{s.dtype}"
            out.append({"family": fid, "workloads": [spec], "key": None, "cands": {"rule": None}})
    return out


def make_case(record, wid: str, rows_cap: int | None = None, hidden_cap: int | None = None):
    """The record's workload `wid`, or an ad-hoc `fwd|bwd:ROWSxHIDDEN:DTYPE` (a workload of a copy
    of the record, as `kernel-records bench` measures one). rows_cap and hidden_cap (the CPU dry
    run) cut rows and hidden, in float32."""
    from site_builder.records.schema import Workload
    from site_builder.runner.bench import family_variant
    from site_builder.runner.family import Case

    by_id = {w.id: w for w in record.workloads}
    if wid in by_id and rows_cap is None:
        return Case.from_record(record, by_id[wid])
    if wid in by_id:
        w = by_id[wid]
        kind, rows, hidden, dtype = w.kind, w.sizes["rows"], w.sizes["hidden"], w.dtype
    else:
        try:
            k, size, dtype = wid.split(":")
            rows, hidden = (int(v) for v in size.split("x"))
            kind = {"fwd": "forward", "bwd": "backward"}[k]
        except (ValueError, KeyError):
            raise SystemExit(f"workload {wid!r}: neither a workload id of {record.id} nor fwd|bwd:ROWSxHIDDEN:DTYPE") \
                from None
    dtype = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}.get(dtype, dtype)
    if rows_cap is not None:  # the CPU dry run: the interpreter is reliable in float32 only
        rows, dtype = min(rows, rows_cap), "float32"
    if hidden_cap is not None:
        hidden = min(hidden, hidden_cap)
    short = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}[dtype]
    w = Workload(id=f"x-{'bwd-' if kind == 'backward' else ''}r{rows}-h{hidden}-{short}", dtype=dtype, kind=kind,
                 rows=rows, hidden=hidden)
    return Case.from_record(family_variant(record, {}, [w]), w)


def todo_items(kr: dict, fams: dict, n_random: int) -> list[dict]:
    """The items in the order they run: ITEMS (this sweep's `items`, or the one a later sweep
    put there) with, for this sweep, the random shapes after its first 12 items."""
    core = ITEMS(kr)
    if ITEMS is not items:
        return core + random_items(fams, n_random)
    return core[:12] + random_items(fams, n_random) + core[12:]


def prewarm(shard: int, shards: int, n_random: int = 3) -> int:
    """First calls of every implementation the sweep times, on one input set each (compile caches
    on disk: Inductor's and Triton's), every shards-th workload; nothing timed."""
    import torch

    from site_builder.records.load import load_catalog
    from site_builder.runner.families import KERNELS_ROOT, import_module, load_family

    fams = {f: load_family(KERNELS_ROOT, f) for f in OURS}
    kr = {f: import_module(f, "kr_triton") for f in OURS}
    records = load_catalog(ROOT / "records").families
    todo = [(it, wid) for it in todo_items(kr, fams, n_random) for wid in it["workloads"]]
    if not torch.cuda.is_available():  # a CPU check of the plan: the cases build, nothing runs
        cases = [make_case(records[it["family"]], wid) for it, wid in todo]
        print(f"[{shard}] no CUDA: {len(cases)} workloads planned, {sum(len(it['cands']) for it, _ in todo)} "
              "configurations of ours; nothing run", flush=True)
        return 0
    for i, (it, wid) in enumerate(todo):
        if i % shards != shard:
            continue
        fid = it["family"]
        case = make_case(records[fid], wid)
        inputs = fams[fid].make_inputs(case, 1234, "cuda")
        runs = [(OURS[fid], c) for c in it["cands"].values()] + [(p, None) for p in PEERS[fid]]
        for impl_id, cfg in runs:
            impl = fams[fid].registry[impl_id]
            if impl.missing():
                continue
            t0 = time.monotonic()
            try:
                _configure(kr[fid], it["key"], cfg)
                impl.factory({k: v.clone() for k, v in inputs.items()}, case)()
                torch.cuda.synchronize()
                print(f"[{shard}] {fid} {wid} {impl_id} {cfg}: {time.monotonic() - t0:.1f} s", flush=True)
            except Exception as exc:  # noqa: BLE001 - the sweep records it properly
                print(f"[{shard}] {fid} {wid} {impl_id} {cfg}: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
        _configure(kr[fid], it["key"], None)
        del inputs
        torch.cuda.empty_cache()
    return 0


def fit(cfg, n: int, kr):
    """A candidate made for hidden n' fitted to hidden n <= n' (the CPU dry run's cut rows):
    split pieces recomputed, blocks masked where they no longer match."""
    if not cfg:
        return cfg
    cfg = dict(cfg)
    if cfg["kind"] == "split":
        b1, b2, b3 = kr.split_pieces(n)
        cfg.update(B1=b1, B2=b2, B3=b3, BLOCK=1 << (n - 1).bit_length(), MASK_COLS=b1 + b2 + b3 != n)
    elif cfg["kind"] == "rows":
        cfg["BLOCK"] = 1 << (n - 1).bit_length()
        cfg["MASK_COLS"] = cfg["BLOCK"] != n
    return cfg


KERNELS = ("_fwd", "_fwd_split", "_fwd_chunked", "_bwd", "_bwd_long", "_bwd_parts", "_reduce", "_reduce2")


def kernel_stats(kr) -> list[dict]:
    """Every kernel of one kr_triton module compiled so far: registers, spills, shared memory,
    warps, stages, and its cache key (specialization and constexprs), for reading the sweep's
    times against occupancy. Best effort: Triton's cache layout differs between versions."""
    out = []
    for name in KERNELS:
        fn = getattr(kr, name, None)
        for entry in list((getattr(fn, "device_caches", None) or {}).values()):
            cache = entry[0] if isinstance(entry, tuple) else entry
            if not isinstance(cache, dict):
                continue
            for key, ck in list(cache.items()):
                try:
                    ck._init_handles()
                except Exception:  # noqa: BLE001 - statistics only
                    pass
                md = getattr(ck, "metadata", None)
                out.append({"kernel": name, "num_warps": getattr(md, "num_warps", None),
                            "num_stages": getattr(md, "num_stages", None), "shared": getattr(md, "shared", None),
                            "n_regs": getattr(ck, "n_regs", None), "n_spills": getattr(ck, "n_spills", None),
                            "key": str(key)[-400:]})
    return out


def _configure(kr, key, cfg) -> None:
    """Candidate `cfg` in place of the rule for `key` (None: the rule); the forward's lean
    launch path forgotten, so that the next call launches the configured kernel."""
    if key is not None:
        if cfg is None:
            kr.OVERRIDE.pop(key, None)
        else:
            kr.OVERRIDE[key] = dict(cfg)
    kr._FAST.clear()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--budget", type=float, default=float(os.environ.get("SWEEP_BUDGET", "200")))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--random", type=int, default=3, help="random shapes per family (seed 21)")
    ap.add_argument("--prewarm", nargs=2, type=int, metavar=("SHARD", "SHARDS"))
    ap.add_argument("--dry-run", action="store_true", help="CPU, TRITON_INTERPRET=1, rows cut to 2, hidden to "
                    "--dry-hidden, float32, ours only")
    ap.add_argument("--dry-hidden", type=int, default=1100)
    ap.add_argument("--only", default=None, help="comma-separated item indices (0-based) to run")
    args = ap.parse_args()
    if args.prewarm:
        return prewarm(*args.prewarm, n_random=args.random)
    if not args.out:
        ap.error("--out is needed")

    import torch

    from site_builder.records.load import load_catalog
    from site_builder.runner import measure as m
    from site_builder.runner.families import KERNELS_ROOT, import_module, load_family
    from site_builder.runner.family import declared_bytes
    from site_builder.runner.measure import measure_one
    from site_builder.runner.protocol import CPU_SETTINGS, GPU_SETTINGS, SEED

    dry = args.dry_run
    if dry and os.environ.get("TRITON_INTERPRET", "0") in ("", "0"):
        raise SystemExit("--dry-run needs TRITON_INTERPRET=1 (our kernels interpreted on the CPU)")
    fams = {f: load_family(KERNELS_ROOT, f) for f in OURS}
    kr = {f: import_module(f, "kr_triton") for f in OURS}
    records = load_catalog(ROOT / "records").families
    if dry:
        device = torch.device("cpu")
        job = {"protocol": CPU_SETTINGS, "seed": SEED, "l2_bytes": 0, "device": "cpu", "timing_cpu": None}
        for f in OURS:  # our impls refuse CPU tensors outside their tests: let them run interpreted
            import_module(f, "impl_kr_triton").require_cuda = lambda *a, **k: None
        bw = None
    else:
        device = torch.device("cuda")
        props = torch.cuda.get_device_properties(device)
        job = {"protocol": GPU_SETTINGS, "seed": SEED, "l2_bytes": props.L2_cache_size, "device": "cuda",
               "timing_cpu": m.pick_timing_cpu()}
        bw = m.copy_bandwidth_gbps(device, 2**31)
        print(f"{props.name}, {props.multi_processor_count} SMs, copy bandwidth {bw:.0f} GB/s, timing CPU "
              f"{job['timing_cpu']}", flush=True)
    todo = todo_items(kr, fams, args.random)
    if args.only:
        keep = {int(v) for v in args.only.split(",")}
        todo = [it for i, it in enumerate(todo) if i in keep]
    report = {"bandwidth_gbps": bw, "seed": SEED, "random_seed": TUNE_SEED, "budget_s": args.budget,
              "items": [], "cut": []}

    def spent() -> bool:
        return time.monotonic() - T0 > args.budget

    for it in todo:
        fid = it["family"]
        names = list(it["cands"])
        for wid in it["workloads"]:
            case = make_case(records[fid], wid, rows_cap=2 if dry else None, hidden_cap=args.dry_hidden if dry else None)
            key = it["key"]
            if dry and key:  # the override for the cut row, each candidate fitted to it
                key = (key[0], case.sizes["hidden"], 4)
            runs = [("rule", OURS[fid], None)] + ([] if dry else [(p, p, None) for p in PEERS[fid]]) + \
                   [(n, OURS[fid], fit(it["cands"][n], case.sizes["hidden"], kr[fid]) if dry else it["cands"][n])
                    for n in names if n != "rule"]
            mb = declared_bytes(case) / 1e6
            entry = {"family": fid, "workload": wid, "case": case.id, "kind": case.kind, "MB": round(mb, 2),
                     "floor_us": round(declared_bytes(case) / (bw * 1e3), 2) if bw else None,
                     "key": list(it["key"]) if it["key"] else None,
                     "configs": {n: it["cands"][n] for n in names},
                     "rule_config": None, "times": {}}
            try:
                el = torch.empty(0, dtype=getattr(torch, case.dtype)).element_size()
                n = case.sizes["hidden"]
                entry["rule_config"] = (kr[fid].fwd_config if case.kind == "forward" else kr[fid].bwd_config)(n, el)
            except Exception as exc:  # noqa: BLE001 - reported, not fatal
                entry["rule_config"] = f"{type(exc).__name__}: {exc}"
            for rnd in range(args.rounds):
                order = runs[:1] + runs[1:][rnd % max(1, len(runs) - 1):] + runs[1:][:rnd % max(1, len(runs) - 1)]
                for label, impl_id, cfg in order:
                    if spent():
                        report["cut"].append(f"{fid} {wid} {label} round {rnd}")
                        continue
                    _configure(kr[fid], key, cfg)
                    impl = fams[fid].registry[impl_id]
                    res = measure_one(fams[fid], impl, case, job)
                    t = entry["times"].setdefault(label, {"device": [], "e2e": [], "status": None, "error": None})
                    t["status"], t["error"] = res.get("status"), res.get("error")
                    if res.get("status") == "ok":
                        t["device"].append(res["device_us"]["median"])
                        t["e2e"].append(res["e2e_us"]["median"])
                    else:
                        print(f"  {fid} {wid} {label}: {res.get('status')} {str(res.get('error'))[:300]}", flush=True)
                    if res.get("fatal"):
                        report["items"].append(entry)
                        _write(args.out, report)
                        raise SystemExit(f"the device is unusable after {fid} {wid} {label}")
                    m.sync(device)
                    if device.type == "cuda":
                        torch.cuda.empty_cache()
                _configure(kr[fid], key, None)
            report["items"].append(entry)
            _write(args.out, report)
            print(_line(entry), flush=True)
    try:
        report["kernels"] = {f: kernel_stats(kr[f]) for f in OURS}
        report["launch_choices"] = {f: kr[f].launch_choices() for f in OURS}
        _write(args.out, report)
        for f in OURS:
            for k in report["kernels"][f]:
                if k["kernel"] in KERNELS[:-2]:  # the reductions left out
                    print(f"  {f} {k['kernel']}: warps {k['num_warps']} stages {k['num_stages']} regs {k['n_regs']} "
                          f"spills {k['n_spills']} shared {k['shared']}", flush=True)
    except Exception as exc:  # noqa: BLE001 - statistics only
        print(f"kernel statistics: {type(exc).__name__}: {exc}", flush=True)
    print(_table(report), flush=True)
    if report["cut"]:
        print(f"budget {args.budget:.0f} s spent: {len(report['cut'])} measurements not started "
              f"(first: {report['cut'][0]})", flush=True)
    print(f"sweep done after {time.monotonic() - T0:.0f} s", flush=True)
    return 0


def tuned_main(items_fn, tune_shapes_fn) -> int:
    """The entry point of a sweep over tune shapes (sweeps 8, 9): `--list` prints the shapes
    tune_shapes_fn draws from both norm families (no GPU); otherwise main() over items_fn's
    items, without sweep 2's random shapes unless --random is given."""
    if "--list" in sys.argv:
        from site_builder.runner.families import KERNELS_ROOT, load_family

        for row in tune_shapes_fn({f: load_family(KERNELS_ROOT, f) for f in ("rmsnorm", "layernorm")}):
            print(*row[:3])
        return 0
    global ITEMS
    ITEMS = items_fn
    if "--random" not in sys.argv:
        sys.argv += ["--random", "0"]
    return main()


def _med(t) -> float | None:
    return statistics.median(t["device"]) if t and t["device"] else None


def _line(e: dict) -> str:
    parts = [f"{e['family']} {e['workload']} ({e['MB']:.0f} MB, floor {e['floor_us']})"]
    for label, t in e["times"].items():
        v = _med(t)
        parts.append(f"{label} {v:.2f}" if v is not None else f"{label} {t['status']}")
    return " | ".join(parts)


def _table(report: dict) -> str:
    """Per workload: floor, the rule, the best candidate, the fastest peer, rule / peer and best / peer."""
    rows = ["| family | workload | MB | floor | rule | best candidate | fastest peer | rule/peer | best/peer |",
            "|---|---|---|---|---|---|---|---|---|"]
    for e in report["items"]:
        fid = e["family"]
        med = {k: _med(t) for k, t in e["times"].items()}
        peers = {k: v for k, v in med.items() if k in PEERS[fid] and v is not None}
        ours = {k: v for k, v in med.items() if k not in PEERS[fid] and v is not None}
        rule = med.get("rule")
        best = min(ours.items(), key=lambda kv: kv[1]) if ours else None
        peer = min(peers.items(), key=lambda kv: kv[1]) if peers else None

        def ratio(a):
            return f"{a / peer[1]:.3f}" if a is not None and peer else "-"

        rows.append(f"| {fid} | {e['workload']} | {e['MB']:.0f} | {e['floor_us'] if e['floor_us'] else '-'} | "
                    f"{f'{rule:.2f}' if rule is not None else '-'} | "
                    f"{f'{best[0]} {best[1]:.2f}' if best else '-'} | "
                    f"{f'{peer[0]} {peer[1]:.2f}' if peer else '-'} | {ratio(rule)} | "
                    f"{ratio(best[1] if best else None)} |")
    return "\n".join(rows)


def _write(path, report) -> None:
    Path(path).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    sys.exit(main())
