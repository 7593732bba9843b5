"""Sweep 2 (NOTES.md, 2026-12-02: one-read long rows): the long-row layouts of kr_triton
(parts of BLOCK columns on W warps, SPLIT = ceil(cols / BLOCK)) timed beside the first
version's layout (8192 columns on 16 warps, `v1`), torch.softmax, Liger and torch.compile,
under the runner's own protocol (`site_builder.runner.measure.measure_one`: correctness
gate first, then cold-L2 CUDA-graph device time and end-to-end time), as
lab/fused_add_rmsnorm/runner_sweep.py does.

Workloads: the family record's workloads with cols > 16384 (the long rows), then random shapes
drawn with the tune seed (31): the softmax family has no random-shape hook
(kernels/softmax/shapes.py does not exist), so `random_shapes()` below draws them (cols
uniform in [16385, 300000], with the primes 131071 and 65521 forced in; rows from
{1, 7, 64, 512, 4096}, at most 2 GB a tensor; bf16 or fp32; forward or backward).

Since sweep 2's first call (2026-12-02): the few-row shapes within the whole-row limit (`FEW`,
ids f-...), where the candidate `fewsplit` (the first version's few-row split, whose bits follow
the row count; measured only) prices the row-count-independent layout; `fwd32-w8` (the fp32
forward LONG entry before the sweep); `--kind` / `--select` to give each device call a share
(lab/softmax/device_sweep2.sh fwd | bwd).

SWEEP_BUDGET (seconds, default 240): no measurement starts after it; JSON and a markdown
table are written after every workload (a cut-short call keeps what it measured).

    python lab/softmax/sweep2.py --out "$OUT"            # on the GPU
    python lab/softmax/sweep2.py --out /tmp/s2 --dry-run  # here: the plan of the sweep only
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

FAMILY = "softmax"
TUNE_SEED = 31
PEERS = ["torch-softmax", "liger-softmax", "softmax-torch-compile"]
SHORT_NAMES = {"torch-softmax": "torch", "liger-softmax": "liger", "softmax-torch-compile": "compile"}

# Candidates: name -> {(kind, elem_size): (BLOCK, warps)} replacing kr_triton.LONG, plus optional
# MAX_ROW (forward: rows above it split; 16384 sends bf16 32000 through the split layout).
V1 = {("forward", 2): (8192, 16), ("forward", 4): (8192, 16),
      ("backward", 2): (8192, 16), ("backward", 4): (8192, 16)}
CANDS: dict[str, dict] = {
    "v1": {"LONG": V1},
    "model": {},  # kr_triton.LONG as committed
    "b8k-w4": {"LONG": {("forward", 2): (8192, 4), ("forward", 4): (4096, 4),
                        ("backward", 2): (8192, 8), ("backward", 4): (4096, 8)}},
    "b4k-w4": {"LONG": {("forward", 2): (4096, 4), ("forward", 4): (2048, 4),
                        ("backward", 2): (4096, 4), ("backward", 4): (2048, 4)}},
    "b16k-w8": {"LONG": {("forward", 2): (16384, 8), ("forward", 4): (8192, 8),
                         ("backward", 2): (8192, 8), ("backward", 4): (4096, 8)}},
    "b4k-w2": {"LONG": {("forward", 2): (4096, 2), ("forward", 4): (2048, 2),
                        ("backward", 2): (4096, 8), ("backward", 4): (2048, 8)}},
    "model-max16k": {"MAX_ROW": 16384},  # forward bf16/fp32 32000 split too
    # the fp32 forward LONG entry before sweep 2 (4096 on 8 warps; now 4096 on 4)
    "fwd32-w8": {"LONG": {("forward", 4): (4096, 8)}},
    # the cost of the row-count-independent layout (2026-12-02, sweep 2): the first version's
    # rule for rows within the whole-row limit, split when the rows are too few to fill the
    # GPU (its bits follow the row count; measured only, never shipped again)
    "fewsplit": {"FEWSPLIT": True},
    # 2026-12-04: the backward row kept whole up to 32768 columns (one program of 32 warps a row,
    # as Liger's single-block backward; ptxas reports a small spill stack there), against the
    # split layout from 16384 (MAX_ROW_BWD): at 4096 x 32000 bf16 Liger ran 182.9 us, ours 230.3
    "bwd-whole32k": {"MAX_ROW_BWD": 32768},
    # 2026-12-07e: odd long rows (one element an access): more warps or shorter parts
    "bwd2k-w4": {"LONG": {("backward", 2): (2048, 4), ("backward", 4): (1024, 4)}},
    "bwd4k-w16": {"LONG": {("backward", 2): (4096, 16), ("backward", 4): (2048, 16)}},
    "fwd4k-w8": {"LONG": {("forward", 2): (4096, 8), ("forward", 4): (2048, 8)}},
    # 2026-12-07f: rows off 16-byte multiples (G below one vector) load an element an access,
    # and the LONG parts then take 130-198 registers a thread (bf16 backward 4096 on 4 warps:
    # 198, two programs an SM; lab/sm90.py): more warps a part, or shorter parts. g1-mid's
    # 2-byte parts landed as kr_triton.LONG_NARROW (G = 1 only)
    "g1-w16": {"LONG": {("forward", 2): (8192, 16), ("forward", 4): (4096, 8),
                        ("backward", 2): (4096, 16), ("backward", 4): (2048, 16)}},
    "g1-mid": {"LONG": {("forward", 2): (4096, 8), ("forward", 4): (4096, 8),
                        ("backward", 2): (2048, 4), ("backward", 4): (1024, 4)}},
    # 2026-12-07f: with lab/pending/softmax-aligned-forward.patch applied, "model" runs 2-byte
    # G = 1 forward rows from their first 16-byte boundary in whole vectors (LONG_NARROW's
    # parts, the sum in fixed point); "plainfwd" is the committed one-element-an-access forward
    # on the same parts; "al-8k" the aligned forward on LONG's 8192. (The whole-wide backward
    # patch of the same session was rejected; its "nowide" candidate went with it.)
    "plainfwd": {"ALIGNED_FWD": False},
    "al-8k": {"LONG_NARROW": {("forward", 2): (8192, 8)}},
    # 2026-12-07g: whole rows (up to MAX_ROW / MAX_ROW_BWD) take warps from ELEMS_PER_THREAD
    # (16: 32768 columns on 32 warps); at odd lengths the forward trailed Liger 1.15-1.30x on the
    # H100 (4096 x 27011, 8192 x 4097): more elements a thread (fewer warps), or fewer
    "ept32": {"ELEMS_PER_THREAD": 32},
    "ept8": {"ELEMS_PER_THREAD": 8},
    # 2026-12-07g: whole rows at G = 1 (`_fwd` / `_bwd`, one element an access) split past
    # MAX_ROW_G1 (the whole-row layouts spill above it; with lab/pending/softmax-int32-columns
    # .patch they no longer do): "g1whole" keeps them whole up to MAX_ROW / MAX_ROW_BWD (before
    # 82f79a1), "g1-4k" splits from 4096, "g1-8k" from 8192. One length for both kinds; where
    # the kernel's MAX_ROW_G1 is a dict by kind (lab/pending/softmax-g1-forward-whole-aligned-
    # warps.patch), set_candidate gives it to both.
    "g1whole": {"MAX_ROW_G1": 1 << 20},
    "g1-8k": {"MAX_ROW_G1": 8192},
    "g1-4k": {"MAX_ROW_G1": 4096},
    # 2026-12-07g, with the g1 patch above applied: the aligned forward's whole rows (YSAME) on
    # half the warps (ALIGNED_EPT 32, chosen on seed 4401's ept32 wins at 8192 x 4097 / 13189
    # bf16) against ELEMS_PER_THREAD's
    "alw16": {"ALIGNED_EPT": 16},
    # 2026-12-07e: the backward's row loop (one program a row, two passes, the second from the
    # L2; kernels/softmax BWD_LOOP of commit 70c13db, reverted) beat the split layout at 4
    # of 23 shapes (lab/device-2026-12-07e/README.md); its candidates went with it
}
# the part tables a candidate may amend, and the module switches it may set (each only where the
# kernel version has it)
TABLES = ("LONG", "LONG_NARROW")
KNOBS = ("ALIGNED_FWD", "ELEMS_PER_THREAD", "MAX_ROW_G1", "ALIGNED_EPT")
MIN_SPLIT_BLOCK = 2048  # the first version's finest few-row part

# few-row shapes within the whole-row limit: where "fewsplit" differs from the model
FEW = [("forward", 1, 32000, "bfloat16"), ("forward", 16, 32000, "bfloat16"),
       ("forward", 64, 16384, "float32"), ("forward", 1, 8192, "float32"),
       ("backward", 1, 16384, "bfloat16"), ("backward", 16, 16000, "float32")]


def few_shapes() -> list[dict]:
    short = {"bfloat16": "bf16", "float32": "fp32"}
    return [{"id": f"f-{k[0]}wd-r{r}-c{c}-{short[d]}", "rows": r, "cols": c, "dtype": d, "kind": k}
            for k, r, c, d in FEW]


def fewsplit_plan(orig):
    """kr_triton.plan with the first version's few-row rule for rows within max_row."""
    def plan(n, rows=0, sms=132, max_row=None, elem_size=2, kind="forward"):
        import triton

        limit = max_row if max_row is not None else (orig.__globals__["MAX_ROW"] if kind == "forward"
                                                     else orig.__globals__["MAX_ROW_BWD"])
        if n > limit or rows >= sms or n < 2 * MIN_SPLIT_BLOCK:
            return orig(n, rows, sms, max_row, elem_size, kind)
        want = max(1, -(-2 * sms // max(rows, 1)))
        split = max(1, min(want, n // MIN_SPLIT_BLOCK, sms))
        block = triton.next_power_of_2(-(-n // split))
        split = -(-n // block)
        if split == 1:
            return orig(n, rows, sms, max_row, elem_size, kind)
        w = max(1, min(32, block // (32 * 16)))
        return {"BLOCK": block, "SPLIT": split, "SPLIT_P2": triton.next_power_of_2(split),
                "num_warps": 1 << (w.bit_length() - 1)}
    return plan


def random_shapes(n: int, seed: int = TUNE_SEED) -> list[dict]:
    rng = random.Random(seed)
    out = []
    forced = [131071, 65521]
    for i in range(n):
        cols = forced[i] if i < len(forced) else rng.randint(16385, 300000)
        dtype = rng.choice(["bfloat16", "float32"])
        kind = rng.choice(["forward", "backward"])
        es = 4 if dtype == "float32" else 2
        rows = rng.choice([1, 7, 64, 512, 4096])
        while rows > 1 and rows * cols * es > 2 << 30:
            rows //= 2
        short = {"bfloat16": "bf16", "float32": "fp32"}[dtype]
        out.append({"id": f"x-{kind[:3]}-r{rows}-c{cols}-{short}", "rows": rows, "cols": cols,
                    "dtype": dtype, "kind": kind})
    return out


def explicit_shapes(spec: str) -> list[dict]:
    """`--shapes`: "bwd-4096x32000-bf16,fwd-7x65521-fp32" -> workload dicts (ids s-...)."""
    out = []
    for item in (t for t in spec.split(",") if t):
        try:
            k, size, dt = item.split("-")
            rows, cols = (int(v) for v in size.split("x"))
            kind = {"fwd": "forward", "bwd": "backward"}[k]
            dtype = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}[dt]
        except (ValueError, KeyError):
            raise SystemExit(f"sweep2: --shapes item {item!r}: write KIND-ROWSxCOLS-DTYPE, e.g. bwd-4096x32000-bf16")
        out.append({"id": f"s-{item}", "rows": rows, "cols": cols, "dtype": dtype, "kind": kind})
    return out


def workloads(record, n_random: int, few: bool = True, kind: str = "all", select: str = "",
              seed: int = TUNE_SEED, shapes: str = "") -> list:
    from site_builder.records.schema import Workload
    from site_builder.runner.bench import family_variant
    from site_builder.runner.family import Case

    mine = [w for w in record.workloads if w.sizes["cols"] > 16384] if not shapes else []
    mine.sort(key=lambda w: w.sizes["rows"] < 4096)  # the many-row ones (furthest from the floor) first
    extra = ([Workload(**w) for w in explicit_shapes(shapes)] if shapes else
             [Workload(**w) for w in random_shapes(n_random, seed) + (few_shapes() if few else [])])
    fam = family_variant(record, {}, extra) if extra else record
    cases = [Case.from_record(fam, w) for w in mine + extra]
    if kind != "all":
        cases = [c for c in cases if c.kind == kind]
    if select:
        import re

        cases = [c for c in cases if re.search(select, c.id)]
    return cases


def set_candidate(kr, base: dict, cand: dict) -> None:
    for table in TABLES:  # the base's entries, then the candidate's
        if table in base:
            getattr(kr, table).clear()
            getattr(kr, table).update(base[table])
            getattr(kr, table).update(cand.get(table, {}))
    kr.MAX_ROW = cand.get("MAX_ROW", base["MAX_ROW"])
    kr.MAX_ROW_BWD = cand.get("MAX_ROW_BWD", base["MAX_ROW_BWD"])
    kr.plan = fewsplit_plan(base["plan"]) if cand.get("FEWSPLIT") else base["plan"]
    for knob in KNOBS:  # the kernel's switches that this version has
        if knob in base:
            value = cand.get(knob, base[knob])
            if isinstance(base[knob], dict) and not isinstance(value, dict):
                value = dict.fromkeys(base[knob], value)  # one value for every key (kind)
            setattr(kr, knob, value)


def floor_us(case, bandwidth_gbps: float) -> float:
    es = 4 if case.dtype == "float32" else 2
    tensors = 2 if case.kind == "forward" else 3
    return tensors * case["rows"] * case["cols"] * es / (bandwidth_gbps * 1e3)


def table(report: dict) -> str:
    bw = report["bandwidth_gbps"]
    names = report["names"]
    lines = [f"sweep2: device µs (median over rounds), floor at {bw:.0f} GB/s; best kr candidate in bold",
             "", "| workload | floor | " + " | ".join(SHORT_NAMES.get(n, n) for n in names)
             + " | best kr | best kr / floor | best kr / fastest peer |",
             "|" + "---|" * (len(names) + 5)]
    for wid, per in report["times"].items():
        med = {n: statistics.median(v["device"]) for n, v in per.items() if v.get("device")}
        kr = {n: t for n, t in med.items() if n in CANDS}
        peers = {n: t for n, t in med.items() if n not in CANDS}
        best = min(kr, key=kr.get) if kr else None
        fl = report["floors"][wid]
        cells = []
        for n in names:
            if n in med:
                cell = f"{med[n]:.1f}"
                cells.append(f"**{cell}**" if n == best else cell)
            elif per.get(n, {}).get("same_as"):
                cells.append(f"= {per[n]['same_as']}")
            else:
                cells.append(per.get(n, {}).get("status", "—"))
        ratio_peer = f"{kr[best] / min(peers.values()):.3f}" if best and peers else "—"
        lines.append(f"| {wid} | {fl:.1f} | " + " | ".join(cells) + f" | {best or '—'} | "
                     + (f"{kr[best] / fl:.3f}" if best else "—") + f" | {ratio_peer} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--random", type=int, default=6, help="random shapes (tune seed 31)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--cands", default=",".join(CANDS), help="comma list of candidate names")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--kind", default="all", choices=["all", "forward", "backward"],
                    help="only the workloads of one kind (a call's share of the sweep)")
    ap.add_argument("--select", default="", help="only the workloads whose id matches this regex")
    ap.add_argument("--no-few", action="store_true", help="leave out the few-row whole-row shapes")
    ap.add_argument("--seed", type=int, default=TUNE_SEED, help="the random shapes' seed")
    ap.add_argument("--shapes", default="", help="only these shapes, e.g. bwd-4096x32000-bf16,fwd-7x65521-fp32 "
                    "(instead of the record's and the random ones)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan (no GPU needed)")
    args = ap.parse_args()
    budget = float(os.environ.get("SWEEP_BUDGET", "240"))
    t0 = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from site_builder.records.load import load_catalog
    from site_builder.runner.families import KERNELS_ROOT, import_module, load_family

    record = load_catalog(ROOT / "records").families[FAMILY]
    family = load_family(KERNELS_ROOT, FAMILY)
    kr = import_module(FAMILY, "kr_triton")  # the runner's copy: the one its implementation calls
    base = {"MAX_ROW": kr.MAX_ROW, "MAX_ROW_BWD": kr.MAX_ROW_BWD, "plan": kr.plan}
    base.update({table: dict(getattr(kr, table)) for table in TABLES if hasattr(kr, table)})
    base.update({knob: getattr(kr, knob) for knob in KNOBS if hasattr(kr, knob)})
    cands = [c for c in args.cands.split(",") if c]
    for c in cands:
        if c not in CANDS:
            raise SystemExit(f"sweep2: unknown candidate {c!r}; known: {', '.join(CANDS)}")
    peers = [p for p in args.peers.split(",") if p]
    cases = workloads(record, args.random, not args.no_few, args.kind, args.select, args.seed, args.shapes)
    names = cands + peers

    if args.dry_run:
        for case in cases:
            line = [f"{case.id} ({case.kind}, {case['rows']}x{case['cols']} {case.dtype}):"]
            for c in cands:
                set_candidate(kr, base, CANDS[c])
                p = _case_plan(kr, case, 132)
                line.append(f"{c}=B{p['BLOCK']}xS{p['SPLIT']}/w{p['num_warps']}")
            print(" ".join(line))
        set_candidate(kr, base, {})
        if hasattr(kr, "MAX_ROW_G1"):
            print("(plans at MAX_ROW / MAX_ROW_BWD: the entry points lower the whole-row limit of G = 1 "
                  "rows to MAX_ROW_G1, which this listing does not show)")
        print(f"{len(cases)} workloads x {len(names)} implementations x {args.rounds} rounds; budget {budget:.0f} s")
        return

    import torch

    from site_builder.runner import measure as m
    from site_builder.runner.measure import measure_one
    from site_builder.runner.protocol import GPU_SETTINGS

    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    job = {"protocol": GPU_SETTINGS, "seed": 1234, "l2_bytes": props.L2_cache_size, "device": "cuda",
           "timing_cpu": m.pick_timing_cpu()}
    bw = float(os.environ.get("COPY_GBPS", "0")) or _copy_bandwidth(torch)
    kr_impl = family.registry["kr-triton-softmax"]
    report = {"bandwidth_gbps": bw, "names": names, "cands": {c: _jsonable(CANDS[c]) for c in cands},
              "base": _jsonable(base), "timing_cpu": job["timing_cpu"], "budget_s": budget,
              "times": {}, "floors": {}, "stopped": None}
    for case in cases:
        report["floors"][case.id] = floor_us(case, bw)
        report["times"][case.id] = {n: {"device": [], "e2e": []} for n in names}
    seen: dict = {}
    try:
        # torch.compile (a compile per shape: the slowest) after everything else, so that a
        # call cut short by SWEEP_BUDGET loses it first
        slow = [n for n in names if n == "softmax-torch-compile"]
        groups = [[n for n in names if n not in slow]] + ([slow] if slow else [])
        for rnd in range(args.rounds):
          for group in groups:
            for case in cases:
                order = group[rnd % len(group):] + group[:rnd % len(group)]
                for name in order:
                    if time.monotonic() - t0 > budget:
                        report["stopped"] = f"SWEEP_BUDGET {budget:.0f} s reached before {case.id} {name} (round {rnd})"
                        raise StopIteration
                    if name in CANDS:
                        set_candidate(kr, base, CANDS[name])
                        impl = kr_impl
                        sig = _plan_sig(kr, case)
                        twin = seen.setdefault(case.id, {}).get(sig)
                        if twin is not None:  # the same launch as a candidate measured already
                            report["times"][case.id][name]["same_as"] = twin
                            continue
                        seen[case.id][sig] = name
                    else:
                        impl = family.registry[name]
                    res = measure_one(family, impl, case, job)
                    cell = report["times"][case.id][name]
                    if res.get("status") != "ok":
                        cell["status"] = res.get("status")
                        cell["error"] = (res.get("error") or "")[:300]
                        print(f"{case.id} {name}: {res.get('status')} {cell['error'][:160]}", flush=True)
                    else:
                        cell["device"].append(res["device_us"]["median"])
                        cell["e2e"].append(res["e2e_us"]["median"])
                        print(f"{case.id} {name}: {res['device_us']['median']:.2f} µs "
                              f"({res['device_us']['median'] / report['floors'][case.id]:.3f}x floor)", flush=True)
                    if res.get("fatal"):
                        report["stopped"] = f"fatal after {case.id} {name}"
                        raise StopIteration
                m.sync(device)
                torch.cuda.empty_cache()
                _write(out, report)
    except StopIteration:
        pass
    finally:
        set_candidate(kr, base, {})
    report["elapsed_s"] = round(time.monotonic() - t0, 1)
    _write(out, report)
    print(table(report))
    print(report["stopped"] or "all measured", f"in {report['elapsed_s']} s")


def _case_plan(kr, case, sms: int) -> dict:
    """The kernel's plan for a contiguous row of the case at MAX_ROW / MAX_ROW_BWD."""
    es = 4 if case.dtype == "float32" else 2
    limit = kr.MAX_ROW if case.kind == "forward" else kr.MAX_ROW_BWD
    return kr.plan(case["cols"], case["rows"], sms, limit, es, case.kind, **_g_arg(kr, case))


def _plan_sig(kr, case) -> tuple:
    knobs = tuple((k, _hashable(getattr(kr, k))) for k in KNOBS if hasattr(kr, k))
    return knobs + tuple(sorted(_case_plan(kr, case, kr._sm_count(__import__("torch").device("cuda"))).items()))


def _hashable(v):
    """A knob's value as a dict key part (MAX_ROW_G1 may be a dict by kind)."""
    return tuple(sorted(v.items())) if isinstance(v, dict) else v


def _g_arg(kr, case) -> dict:
    """{"g": G} for the plan: the kernel's `access_granularity` of a contiguous row of the case's
    length (an empty tensor stands for the dtype; fresh tensors are 16-byte aligned)."""
    import torch

    n = case["cols"]
    return {"g": kr.access_granularity(n, (n,), (torch.empty(0, dtype=getattr(torch, case.dtype)),))}


def _copy_bandwidth(torch) -> float:
    """GB/s of a device-to-device copy of 1 GiB (read + write), median of 10."""
    a = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ts = []
    for _ in range(12):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        b.copy_(a)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    del a, b
    return 2 * (1 << 30) / (statistics.median(ts[2:]) * 1e-3) / 1e9


def _jsonable(cand: dict) -> dict:
    return {k: ({f"{kk[0]},{kk[1]}": vv for kk, vv in v.items()} if isinstance(v, dict) else v)
            for k, v in cand.items() if not callable(v)}


def _write(out: Path, report: dict) -> None:
    (out / "sweep2.json").write_text(json.dumps(report, indent=1))
    (out / "sweep2.md").write_text(table(report))


if __name__ == "__main__":
    main()
