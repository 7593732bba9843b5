"""Side-by-side benchmark of Kernel Records' Triton fused add + RMSNorm and its peers.

    python kernels/fused_add_rmsnorm/bench.py [--workloads 2048x4096:bf16,...] [--impls kr,liger,...]
                                              [--out results.json] [--sweep] [--no-compile]

Device time: median (p20, p80) over replays of a CUDA graph that holds K calls, each on its
own input set; the input sets rotate through more than 3x the 60 MB L2, so every call reads
its inputs from DRAM (cold L2); outputs are kept alive during capture so each call writes
fresh memory. The published figure replays the graphs of all implementations in turn, round
after round (--rounds; in each, one untimed replay then --per-round timed ones), so a drift of
the GPU's clocks or of the machine during the run weighs on all alike; each implementation's
own back-to-back figure is kept as us_seq.
e2e: per-call wall time of a plain Python loop (host throughput). sync: one call followed by a
synchronize (latency, what the runner records as end-to-end), interleaved across implementations.
Floor: 4 x rows x hidden x elsize + hidden x w_elsize bytes over the device-to-device copy
bandwidth (bytes read + written) of a >= 1 GiB tensor .copy_ timed with events OUTSIDE a
graph, in the same run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_kr():
    """kr_triton.py loaded by path (the package's __init__ pulls in the site builder)."""
    import importlib.util
    if "kr_triton" in sys.modules:
        return sys.modules["kr_triton"]
    spec = importlib.util.spec_from_file_location("kr_triton", os.path.join(HERE, "kr_triton.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["kr_triton"] = mod
    spec.loader.exec_module(mod)
    return mod


kr = _load_kr()

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
L2_BYTES = 60 * 2**20
EPS = 1e-6

DEFAULT_WORKLOADS = (
    [f"2048x{n}:{d}" for d in ("fp32", "bf16") for n in (1024, 2048, 4096, 8192, 16384, 32768)]
    + ["2048x5120:bf16", "2048x7168:bf16", "2048x65536:bf16", "2048x131072:bf16",
       "32768x4096:bf16", "32768x8192:fp32"]
    + [f"{r}x{n}:bf16" for n in (4096, 8192) for r in (1, 16, 128)]
)
PEERS = ("eager", "compile", "frms", "liger", "quack")


def parse_workload(s):
    shape, dt = s.split(":")
    rows, n = (int(v) for v in shape.lower().split("x"))
    return rows, n, DTYPES[dt]


def hf_eager(x, r, w, eps=EPS):
    """Hugging Face LlamaRMSNorm after the residual add (the eager baseline)."""
    h = x + r
    hs = h.to(torch.float32)
    var = hs.pow(2).mean(-1, keepdim=True)
    hs = hs * torch.rsqrt(var + eps)
    return w * hs.to(x.dtype), h


def add_frms(x, r, w, eps=EPS):
    h = x + r
    return F.rms_norm(h, (h.shape[-1],), w, eps), h


def kr_with(knobs):
    """kr with its configuration's launch knobs overridden (through Triton's normal launch)."""
    def call(x, r, w):
        n = x.shape[-1]
        cfg = dict(kr._config_for(n, x.element_size(), x.numel() // n, x.device), **knobs)
        return kr._run_cfg(cfg, x, r, w, EPS)
    return call


def make_impls(names, log):
    impls = {}
    for name in names:
        try:
            if name == "kr":
                impls[name] = lambda x, r, w: kr.fused_add_rmsnorm(x, r, w, EPS)
            elif name == "kr_nopdl":
                impls[name] = kr_with({"PDL": False})
            elif name.startswith("kr@"):
                # kr with launch knobs overridden, e.g. kr@HINTS=0 or kr@HINTS=1+PDL=0 (tuning)
                impls[name] = kr_with({k: int(v) for k, v in (kv.split("=") for kv in name[3:].split("+"))})
            elif name == "eager":
                impls[name] = hf_eager
            elif name == "frms":
                impls[name] = add_frms
            elif name == "compile":
                import torch._dynamo
                cfg = torch._dynamo.config
                cfg.cache_size_limit = 4096
                if hasattr(cfg, "recompile_limit"):
                    cfg.recompile_limit = 4096
                if hasattr(cfg, "accumulated_cache_size_limit"):
                    cfg.accumulated_cache_size_limit = 8192
                if hasattr(cfg, "accumulated_recompile_limit"):
                    cfg.accumulated_recompile_limit = 8192
                impls[name] = torch.compile(hf_eager, dynamic=False)
            elif name == "liger":
                from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction as LF

                def liger(x, r, w, _f=LF.apply):
                    return _f(x, r, w, EPS, 0.0, "llama", False)
                impls[name] = liger
            elif name == "quack":
                from quack.rmsnorm import rmsnorm_fwd

                def quack(x, r, w, _f=rmsnorm_fwd):
                    out = _f(x, w, residual=r, eps=EPS)
                    return out
                impls[name] = quack
        except Exception as e:  # noqa: BLE001
            log(f"# {name}: not available ({type(e).__name__}: {e})")
    return impls


def outputs_of(name, out):
    """(y, residual_out) from whatever an implementation returns."""
    if name == "quack":
        if isinstance(out, (tuple, list)):
            return out[0], out[1]
        return out, None
    return out[0], out[1]


# ------------------------------------------------------------------------------ timing

def copy_bandwidth(nbytes=2 * 2**30, reps=10):
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").uniform_()
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        dst.copy_(src)
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3)
    del src, dst
    torch.cuda.empty_cache()
    t = statistics.median(ts)
    return 2 * nbytes / t / 1e9, t


def pct(vals, q):
    s = sorted(vals)
    k = (len(s) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def capture(fn, sets, w, k_calls):
    """A CUDA graph of k_calls calls over the rotating input sets (after warm-up, also on a side
    stream), replayed once; returns (graph, outputs kept alive)."""
    for i in range(min(len(sets), 3)):
        fn(sets[i][0], sets[i][1], w)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(min(len(sets), 3)):
            fn(sets[i][0], sets[i][1], w)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    keep = []
    with torch.cuda.graph(g):
        for i in range(k_calls):
            x, r = sets[i % len(sets)]
            keep.append(fn(x, r, w))
    g.replay()
    torch.cuda.synchronize()
    return g, keep


def replay_us(g, k_calls):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    g.replay()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e3 / k_calls


def device_time(fn, sets, w, k_calls, replays):
    """Median/p20/p80 µs per call over CUDA-graph replays of k_calls rotating calls."""
    g, keep = capture(fn, sets, w, k_calls)
    ts = [replay_us(g, k_calls) for _ in range(replays)]
    del g, keep
    return statistics.median(ts), pct(ts, 0.2), pct(ts, 0.8)


def rotated(names, k):
    """names starting at position k (mod len): who goes first changes from round to round."""
    k %= len(names)
    return names[k:] + names[:k]


def device_times_interleaved(fns, sets, w, k_calls, rounds, per_round):
    """As device_time, for several implementations at once: every graph is captured first,
    then each round takes each implementation in turn (the order rotating) for one untimed
    replay and per_round timed ones, so that drifts of the clocks or of the machine weigh on
    all alike, while each is still timed after a replay of its own, as in device_time and the
    runner (NOTES.md: streaming-store hints read faster after their own kernel than after
    another's, and one untimed replay does not remove that). {name: (median, p20, p80)}."""
    graphs = {name: capture(fn, sets, w, k_calls) for name, fn in fns.items()}
    names = list(graphs)
    ts = {name: [] for name in names}
    for k in range(rounds):
        for name in rotated(names, k):
            g = graphs[name][0]
            g.replay()
            ts[name].extend(replay_us(g, k_calls) for _ in range(per_round))
    del graphs
    return {name: (statistics.median(v), pct(v, 0.2), pct(v, 0.8)) for name, v in ts.items()}


def e2e_time(fn, sets, w, calls):
    for i in range(3):
        fn(sets[i % len(sets)][0], sets[i % len(sets)][1], w)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(calls):
        x, r = sets[i % len(sets)]
        fn(x, r, w)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


def e2e_sync_interleaved(fns, sets, w, rounds):
    """Latency of one Python call followed by a device synchronize (what the runner records as
    end-to-end), in rounds that take every implementation in turn, so that a slower or busier
    host at one moment weighs on all of them alike. Median µs per implementation."""
    for fn in fns.values():
        for i in range(3):
            fn(sets[i % len(sets)][0], sets[i % len(sets)][1], w)
    torch.cuda.synchronize()
    ts = {name: [] for name in fns}
    names = list(fns)
    for k in range(rounds):
        x, r = sets[k % len(sets)]
        for name in rotated(names, k):
            t0 = time.perf_counter()
            fns[name](x, r, w)
            torch.cuda.synchronize()
            ts[name].append((time.perf_counter() - t0) * 1e6)
    return {name: statistics.median(v) for name, v in ts.items()}


# ------------------------------------------------------------------------------ checks

def ref64(x, r, w, eps=EPS):
    h = x + r  # rounded in the input dtype, as the convention says
    hd = h.double()
    rstd = torch.rsqrt(hd.pow(2).mean(-1, keepdim=True) + eps)
    return w.double() * (hd * rstd), h


def rel_err(a, b):
    a = a.double()
    b = b.double()
    if not torch.isfinite(a).all():
        return float("inf")
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


# ------------------------------------------------------------------------------ main

def host_profile(log, rows=16, n=8192, dt=torch.bfloat16, calls=3000):
    """Per-call host cost of the pieces of a decode-size call (µs, median of 5 loops)."""
    x = torch.randn(rows, n, device="cuda", dtype=dt)
    r = torch.randn(rows, n, device="cuda", dtype=dt)
    w = torch.randn(n, device="cuda", dtype=dt)
    kr.fused_add_rmsnorm(x, r, w)
    kr.fused_add_rmsnorm(x, r, w)
    entry = [v for v in kr._FAST.values() if v]
    pieces = {
        "empty_like x2": lambda: (torch.empty_like(x), torch.empty_like(x)),
        "x + r": lambda: x + r,
        "add + F.rms_norm": lambda: add_frms(x, r, w),
        "kr.fused_add_rmsnorm": lambda: kr.fused_add_rmsnorm(x, r, w),
        "kr general path": lambda: kr._general(x, r, w, EPS),
        "torch._C._cuda_getDevice": lambda: torch._C._cuda_getDevice(),
        "raw stream": lambda: torch._C._cuda_getCurrentRawStream(0),
    }
    if entry:
        ck, rpp, _split, tail, ydt = entry[0]  # a row1 kernel at this size (no workspace)
        y, h = torch.empty_like(x), torch.empty_like(x)
        st = torch._C._cuda_getCurrentRawStream(0)
        pieces["ck.run only"] = lambda: ck.run(rows, 1, 1, st, ck.function, ck.packed_metadata, None, None, None,
                                               x, r, w, y, h, rows, n, n, n, n, EPS, *tail)
    log(f"# fast path: {kr.fast_path_status()}")
    for name, f in pieces.items():
        ts = []
        for _ in range(5):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            torch.cuda.synchronize()
            ts.append((time.perf_counter() - t0) / calls * 1e6)
        log(f"# host {name:28s} {statistics.median(ts):7.2f} µs/call")


def _precompile_worker(jobs):
    import torch as _t
    _kr = _load_kr()
    n_ok = 0
    for n, dt_name, cfg in jobs:
        dt = DTYPES[dt_name]
        x = _t.randn(2, n, device="cuda", dtype=dt)
        try:
            _kr._run_cfg(cfg, x, x.clone(), _t.ones(n, device="cuda", dtype=dt))
            n_ok += 1
        except Exception:  # noqa: BLE001
            pass
    _t.cuda.synchronize()
    return n_ok


def precompile(jobs, procs):
    """Compile Triton variants in parallel processes into the on-disk cache."""
    import multiprocessing as mp
    if procs <= 1 or len(jobs) < 4:
        return
    ctx = mp.get_context("spawn")
    chunks = [jobs[i::procs] for i in range(procs)]
    with ctx.Pool(procs) as pool:
        pool.map(_precompile_worker, [c for c in chunks if c])


def choose_tuned(results):
    """From a sweep: per (hidden, element size) the reduction layout with the smallest worst
    ratio to the best time at each swept workload of that key (a row's bits must not depend on
    its rows bucket, kr_triton._TUNED), then per rows bucket the launch knobs that are fastest
    with that layout. Returns KR_TRITON_CONFIGS entries."""
    by_key = {}
    for rec in results:
        if "cfgs" not in rec:
            continue
        el = 4 if rec["dtype"] == "float32" else 2
        by_key.setdefault((rec["hidden"], el), []).append(rec)
    out = []
    for (n, el), recs in sorted(by_key.items()):
        # time[layout][workload] = (best µs, its config)
        table = {}
        for rec in recs:
            for name, cfg in rec["cfgs"].items():
                v = rec["impls"].get(name, {})
                if "us" not in v:
                    continue
                lay = kr.reduction_layout(cfg)
                cur = table.setdefault(lay, {}).get(rec["workload"])
                if cur is None or v["us"] < cur[0]:
                    table[lay][rec["workload"]] = (v["us"], cfg)
        wls = [rec["workload"] for rec in recs]
        nbytes = {rec["workload"]: rec["bytes"] for rec in recs}
        best = {w: min(t[w][0] for t in table.values() if w in t) for w in wls}
        full = {lay: t for lay, t in table.items() if all(w in t for w in wls)}
        if not full:
            continue
        lay = min(full, key=lambda lay_: max(full[lay_][w][0] / best[w] for w in wls))
        base = full[lay][max(wls, key=nbytes.get)][1]
        out.append({"key": [n, el], "cfg": base,
                    "worst_ratio": round(max(full[lay][w][0] / best[w] for w in wls), 4)})
        buckets = {}
        for rec in recs:
            buckets.setdefault(kr._bucket(rec["rows"]), []).append(rec["workload"])
        for b, bw in sorted(buckets.items()):
            # the knobs of the fastest variant of this layout at the bucket's largest workload
            w = max(bw, key=nbytes.get)
            cfg = full[lay][w][1]
            knobs = {k: cfg[k] for k in kr._KNOB_NAMES if k in cfg}
            if any(knobs.get(k) != base.get(k) for k in knobs):
                out.append({"key": [n, el, b], "knobs": knobs, "workload": w, "us": full[lay][w][0]})
    return out


def best_peer(rec, key="us"):
    """The peer with the lowest `key` among those that passed the accuracy check, or None."""
    ok = {p: v for p, v in rec["impls"].items() if p in PEERS and key in v and v.get("rel_err_y", 1.0) < 2e-2}
    return min(ok, key=lambda p: ok[p][key]) if ok else None


def summary(results, bw, env):
    """The markdown table (and geometric mean) of a run: device time as published (interleaved
    unless --no-interleave) and each implementation's own sequential figure (seq), the best peer
    by each, and the host-side figures. Also `bench.py --table results.json`."""

    fmt = lambda v, f=".1f": "–" if v is None else format(v, f)  # noqa: E731
    hdr = ("| workload | MB | floor µs | kr µs (p20–p80) | kr/floor | best peer | peer µs | kr/peer "
           "| kr seq µs | best peer seq | kr/peer seq | kr e2e µs | peer e2e µs | kr sync µs | best peer sync µs |")
    md = [f"copy bandwidth: {bw:.0f} GB/s; env: {json.dumps(env)}", "",
          "device µs: median over CUDA-graph replays, cold L2, implementations interleaved round by round; seq: each "
          "implementation's graph replayed back to back (the runner's way); e2e: per call in a 300-call loop (host "
          "throughput); sync: one call + synchronize, interleaved with the peers (latency; best peer = lowest sync)",
          "", hdr, "|" + "---|" * 15]
    speedups = {"us": [], "us_seq": []}
    for rec in results:
        k = rec["impls"].get("kr", {})
        if "us" not in k:
            md.append(f"| {rec['workload']} | | | {k.get('error', 'n/a')} |")
            continue
        bp, bs, be = best_peer(rec, "us"), best_peer(rec, "us_seq"), best_peer(rec, "e2e_sync_us")
        pv = rec["impls"].get(bp, {}) if bp else {}
        ps = rec["impls"].get(bs, {}) if bs else {}
        md.append(
            f"| {rec['workload']} | {rec['bytes'] / 1e6:.1f} | {rec['floor_us']:.2f} | {k['us']:.2f} "
            f"({k['p20']:.2f}–{k['p80']:.2f}) | {k['us'] / rec['floor_us']:.3f} | {bp} | "
            + (f"{pv['us']:.2f} | {k['us'] / pv['us']:.3f}" if pv else "– | –")
            + (f" | {k['us_seq']:.2f} | {ps['us_seq']:.2f} ({bs}) | {k['us_seq'] / ps['us_seq']:.3f}"
               if ps and "us_seq" in k else " | – | – | –")
            + f" | {fmt(k.get('e2e_us'))} | {fmt(pv.get('e2e_us'))} | {fmt(k.get('e2e_sync_us'))} | "
            + (f"{rec['impls'][be]['e2e_sync_us']:.1f} ({be})" if be else "–") + " |")
        for key in speedups:
            base = [rec["impls"][p][key] for p in ("liger", "compile", "frms") if key in rec["impls"].get(p, {})]
            if base and key in k:
                speedups[key].append(min(base) / k[key])
    md.append("")
    for key, sp in speedups.items():
        if sp:
            gm = math.exp(sum(math.log(s) for s in sp) / len(sp))
            md.append(f"geomean speed-up of kr over the best of liger/compile/frms ({key}): {gm:.3f} ({len(sp)} workloads)")
    return md


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", default=",".join(DEFAULT_WORKLOADS),
                    help="comma-separated ROWSxHIDDEN:DTYPE (fp32|bf16|fp16)")
    ap.add_argument("--impls", default="kr," + ",".join(PEERS))
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile (saves minutes)")
    ap.add_argument("--sweep", action="store_true", help="also time every candidate config of kr")
    ap.add_argument("--replays", type=int, default=15)
    ap.add_argument("--e2e-calls", type=int, default=300)
    ap.add_argument("--no-interleave", dest="interleave", action="store_false",
                    help="publish each implementation's own sequential graph timing instead of the interleaved one")
    ap.add_argument("--interleave-cfgs", type=int, default=0, metavar="G",
                    help="with --sweep: time the candidates interleaved too, G at a time beside kr "
                         "(their back-to-back times stay as us_seq)")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of interleaved graph replays")
    ap.add_argument("--per-round", type=int, default=3, help="timed replays per implementation and round")
    ap.add_argument("--sync-rounds", type=int, default=300, help="rounds of the interleaved call + synchronize "
                    "latency (0: skip)")
    ap.add_argument("--cold-bytes", type=int, default=200 * 2**20, help="input bytes rotated per graph (> 3x L2)")
    ap.add_argument("--max-calls", type=int, default=12000)
    ap.add_argument("--procs", type=int, default=12, help="parallel compile processes for --sweep")
    ap.add_argument("--cands", default=None, help="JSON {workload: [cfg, ...]}: configs to sweep instead of "
                    "kr.candidate_configs")
    ap.add_argument("--write-tuned", default=None, help="with --sweep: write the best config per (hidden, "
                    "elsize, rows bucket) as a KR_TRITON_CONFIGS file")
    ap.add_argument("--host-profile", action="store_true", help="time the host side of a decode-size call")
    ap.add_argument("--out", default=None, help="write JSON here (and a .md table beside it)")
    ap.add_argument("--table", default=None, help="print the summary table of a results JSON written by --out, "
                    "and exit (no GPU needed)")
    args = ap.parse_args(argv)
    if args.table:
        with open(args.table) as f:
            saved = json.load(f)
        print("\n".join(summary(saved["results"], saved["copy_gbps"], saved["env"])))
        return

    lines = []

    def log(s=""):
        print(s, flush=True)
        lines.append(s)

    names = [s for s in args.impls.split(",") if s]
    if args.no_compile and "compile" in names:
        names.remove("compile")
    workloads = [parse_workload(s) for s in args.workloads.split(",") if s]
    torch.manual_seed(0)
    dev = torch.cuda.get_device_properties(0)
    import triton
    env = {"gpu": dev.name, "sms": dev.multi_processor_count, "torch": torch.__version__,
           "triton": triton.__version__, "cuda": torch.version.cuda}
    for mod in ("liger_kernel", "quack"):
        try:
            import importlib.metadata as md
            env[mod] = md.version(mod.replace("_", "-") if mod != "quack" else "quack-kernels")
        except Exception:  # noqa: BLE001
            pass
    log(f"# env: {json.dumps(env)}")
    bw, tcopy = copy_bandwidth()
    log(f"# copy bandwidth (2 GiB .copy_, events, outside a graph): {bw:.0f} GB/s")

    cands = json.load(open(args.cands)) if args.cands else None

    def cands_for(rows, n, dt):
        if cands is not None:
            wl = f"{rows}x{n}:{[k for k, v in DTYPES.items() if v == dt][0]}"
            out = []
            for c in cands.get(wl, []):
                c = dict(c)
                if "S" in c:
                    c["S"] = tuple(c["S"])
                out.append(c)
            return out
        return kr.candidate_configs(n, torch.tensor([], dtype=dt).element_size())

    if args.host_profile:
        host_profile(log)
    if args.sweep:
        jobs = []
        for rows, n, dt in workloads:
            dname = [k for k, v in DTYPES.items() if v == dt][0]
            for cfg in cands_for(rows, n, dt):
                if (n, dname, cfg) not in jobs:
                    jobs.append((n, dname, cfg))
        t0 = time.time()
        precompile(jobs, args.procs)
        log(f"# precompiled {len(jobs)} variants in {time.time() - t0:.0f} s")

    impls = make_impls(names, log)
    results = []
    for rows, n, dt in workloads:
        el = torch.tensor([], dtype=dt).element_size()
        nbytes = 4 * rows * n * el + n * el
        floor_us = nbytes / (bw * 1e9) * 1e6
        in_bytes = 2 * rows * n * el
        n_sets = max(2, min(args.max_calls, math.ceil(args.cold_bytes / in_bytes)))
        k_calls = max(n_sets, min(8, args.max_calls))
        sets = [(torch.randn(rows, n, device="cuda", dtype=dt), torch.randn(rows, n, device="cuda", dtype=dt))
                for _ in range(n_sets)]
        w = (1.0 + 0.1 * torch.randn(n, device="cuda", dtype=torch.float32)).to(dt)
        x0, r0 = sets[0]
        x0c, r0c = x0.clone(), r0.clone()
        yref, href = ref64(x0, r0, w)
        wl = f"{rows}x{n}:{[k for k, v in DTYPES.items() if v == dt][0]}"
        rec = {"workload": wl, "rows": rows, "hidden": n, "dtype": str(dt).replace("torch.", ""),
               "bytes": nbytes, "floor_us": floor_us, "impls": {}}
        todo = list(impls.items())
        if args.sweep:
            for i, cfg in enumerate(cands_for(rows, n, dt)):
                todo.append((f"kr_cfg{i}", (lambda c: (lambda x, r, ww: kr._run_cfg(c, x, r, ww, EPS)))(cfg)))
                rec.setdefault("cfgs", {})[f"kr_cfg{i}"] = cfg
        for name, fn in todo:
            try:
                out = fn(x0, r0, w)
                y, h = outputs_of(name, out)
                torch.cuda.synchronize()
                err = rel_err(y, yref)
                herr = rel_err(h, href) if h is not None else None
                unmod = torch.equal(x0, x0c) and torch.equal(r0, r0c)
                med, p20, p80 = device_time(fn, sets, w, k_calls, args.replays)
                e2e = e2e_time(fn, sets, w, args.e2e_calls) if not name.startswith(("kr_cfg", "kr_nopdl", "kr@")) else None
                rec["impls"][name] = {"us": med, "p20": p20, "p80": p80, "e2e_us": e2e, "rel_err_y": err,
                                      "rel_err_h": herr, "inputs_unmodified": unmod,
                                      "gbps": nbytes / (med * 1e-6) / 1e9}
            except Exception as e:  # noqa: BLE001
                rec["impls"][name] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
            torch.cuda.synchronize()
        timed = {name: fn for name, fn in impls.items() if "us" in rec["impls"].get(name, {})}
        if args.interleave and len(timed) > 1:
            # the published device time: all implementations replayed in turn (sequential
            # medians stay as us_seq); fewer calls per graph for huge inputs, all graphs
            # being alive at once (each call's inputs are still a fresh > 3x L2 set)
            k_il = max(n_sets, min(k_calls, math.ceil(2**31 / in_bytes)))
            il = device_times_interleaved(timed, sets, w, k_il, args.rounds, args.per_round)
            for name, (med, p20, p80) in il.items():
                v = rec["impls"][name]
                v.update(us_seq=v["us"], us=med, p20=p20, p80=p80, gbps=nbytes / (med * 1e-6) / 1e9)
            torch.cuda.empty_cache()
            if args.sweep and args.interleave_cfgs:
                # the candidates too, a group at a time, each group with kr beside it (its times
                # per group in rec["kr_by_group"]: how far the groups' conditions differed)
                fn_of = dict(todo)
                swept = [k for k in rec.get("cfgs", {}) if "us" in rec["impls"].get(k, {})]
                anchor = {"kr": impls["kr"]} if "kr" in timed else {}
                for i in range(0, len(swept), args.interleave_cfgs):
                    group = swept[i:i + args.interleave_cfgs]
                    il = device_times_interleaved({**anchor, **{k: fn_of[k] for k in group}}, sets, w, k_il,
                                                  args.rounds, args.per_round)
                    for name, (med, p20, p80) in il.items():
                        if name in anchor:
                            rec.setdefault("kr_by_group", []).append(med)
                            continue
                        v = rec["impls"][name]
                        v.update(us_seq=v["us"], us=med, p20=p20, p80=p80, gbps=nbytes / (med * 1e-6) / 1e9)
                    torch.cuda.empty_cache()
        if args.sync_rounds and timed:
            for name, v in e2e_sync_interleaved(timed, sets, w, args.sync_rounds).items():
                rec["impls"][name]["e2e_sync_us"] = v
        del sets
        torch.cuda.empty_cache()
        rec["best_peer"] = best_peer(rec)
        if args.sweep:
            swept = {k: v for k, v in rec["impls"].items() if k.startswith("kr_cfg") and "us" in v}
            if swept:
                bk = min(swept, key=lambda k: swept[k]["us"])
                rec["best_cfg"] = rec["cfgs"][bk]
                rec["best_cfg_us"] = swept[bk]["us"]
        results.append(rec)
        msg = f"{wl:>20} floor {floor_us:8.2f}"
        for k, v in rec["impls"].items():
            if k.startswith("kr_cfg"):
                continue
            msg += f" | {k} " + (f"{v['us']:.2f}" if "us" in v else "ERR")
        if args.sweep and "best_cfg" in rec:
            msg += f" | sweep best {rec['best_cfg_us']:.2f} {rec['best_cfg']}"
        log(msg)

    if args.sweep and args.write_tuned:
        tuned = choose_tuned(results)
        with open(args.write_tuned, "w") as f:
            json.dump(tuned, f, indent=1, default=list)
        log(f"# wrote {len(tuned)} tuned entries to {args.write_tuned}")
        for item in tuned:
            log(f"#   {item}")

    log("")
    for line in summary(results, bw, env):
        log(line)
    if args.out:
        out = {"env": env, "copy_gbps": bw, "results": results}
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1, default=str)
        with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
