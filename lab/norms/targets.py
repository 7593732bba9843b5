"""Issue 15's tables and targets from one committed run record of the rmsnorm or layernorm family:

    python lab/norms/targets.py records/runs/rmsnorm/h200/<run>.yaml [more runs ...]
    python lab/norms/targets.py <run>.yaml --with <older run>.yaml [--with ...]

`--with`: peers that the run did not measure (or did not reach: not-run) are taken from the older
runs of the same family, the first that has an ok result; such a cell is marked `*` (another run:
not a same-run ratio, the GPU's state may differ by a few per cent).

Per workload: bytes, the floor (the family record's bytes, site_builder.floors.bytes_moved, over
the copy bandwidth measured in that run), ours (kr-triton-<family>), each peer, ours / fastest
peer, ours / floor, and end-to-end times at decode sizes; then each target, held or MISSED.
Reads YAML only (no GPU, no torch).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from site_builder.derive import floors  # noqa: E402
from site_builder.records.schema import Family  # noqa: E402

SHORT = {"eager": "eager", "torch-compile": "compile", "torch-f": "F.*", "liger": "Liger"}


def _short(impl: str) -> str:
    for k, v in SHORT.items():
        if impl.startswith(k) or impl.endswith(k) or f"-{k}" in impl:
            return v
    return impl


def main(paths: list[str], others: list[str] = ()) -> int:
    missed_total = 0
    older = [yaml.safe_load(Path(p).read_text()) for p in others]
    for path in paths:
        run = yaml.safe_load(Path(path).read_text())
        fam_id = run["family"]
        family = Family.model_validate(yaml.safe_load((ROOT / "records" / "families" / f"{fam_id}.yaml").read_text()))
        ours = f"kr-triton-{fam_id}"
        bw = float(run["environment"]["copy_bandwidth_gbps"])
        by: dict[str, dict] = {}
        for r in run["results"]:
            by.setdefault(r["workload"], {})[r["implementation"]] = r
        impls = list(dict.fromkeys(r["implementation"] for r in run["results"]))
        borrowed: set = set()  # (workload, implementation) taken from an older run
        for other in older:
            if other["family"] != fam_id:
                continue
            for r in other["results"]:
                cur = by.setdefault(r["workload"], {}).get(r["implementation"])
                if r["implementation"] != ours and r.get("status") == "ok" and (cur is None or cur.get("status") != "ok"):
                    by[r["workload"]][r["implementation"]] = r
                    borrowed.add((r["workload"], r["implementation"]))
                    impls.append(r["implementation"])
        impls = list(dict.fromkeys(impls))
        peers = [i for i in impls if i != ours]
        print(f"\n### {fam_id}: run {Path(path).name}, copy bandwidth {bw:.0f} GB/s; device µs, median, cold L2\n")
        head = ["workload", "kind", "MB", "floor"] + ["ours"] + [_short(p) for p in peers] + ["ours / fastest peer",
                                                                                            "ours / floor"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        missed, fwd_ratios, e2e_lines = [], [], []
        for w in family.workloads:
            res = by.get(w.id, {})
            nbytes = floors.bytes_moved(family, w)
            mb = nbytes / 1e6
            floor = nbytes / (bw * 1e3)

            def dev(i):
                r = res.get(i)
                return r["device_us"]["median"] if r and r.get("status") == "ok" and r.get("device_us") else None

            t = dev(ours)
            cells = [w.id, w.kind, f"{mb:.1f}", f"{floor:.1f}",
                     f"{t:.1f}" if t else res.get(ours, {}).get("status", "–")]
            ok = {}
            for p in peers:
                v = dev(p)
                if v is None:
                    cells.append(res.get(p, {}).get("status", "–") if p in res else "–")
                else:
                    ok[p] = v
                    cells.append(f"{v:.1f}" + ("*" if (w.id, p) in borrowed else ""))
            best = min(ok, key=ok.get) if ok else None
            ratio = t / ok[best] if (t and best) else None
            cells.append(f"{ratio:.3f} ({_short(best)})" if ratio else "–")
            cells.append(f"{t / floor:.2f}" if t else "–")
            print("| " + " | ".join(cells) + " |")
            if t is None or ratio is None:
                missed.append(f"{w.id}: no comparison (ours {res.get(ours, {}).get('status')})")
                continue
            decode = w.sizes["rows"] <= 128
            if w.kind == "forward":
                if mb > 8:
                    fwd_ratios.append(ratio)
                    if ratio > 1.0:
                        missed.append(f"{w.id}: forward {ratio:.3f}x the fastest peer ({best}) at {mb:.0f} MB")
                band = 1.05 if mb >= 256 else (1.10 if mb >= 64 else None)
                if band and t / floor > band:
                    missed.append(f"{w.id}: {t / floor:.2f}x the floor, target {band}")
            else:
                if ratio > 1.0:
                    missed.append(f"{w.id}: backward {ratio:.3f}x the fastest peer ({best})")
            if decode:
                e2e = {i: r["e2e_us"]["median"] for i, r in res.items() if r.get("status") == "ok" and r.get("e2e_us")}
                if ours in e2e:
                    pe = {i: v for i, v in e2e.items() if i != ours}
                    bp = min(pe, key=pe.get) if pe else None
                    e2e_lines.append(f"{w.id}: e2e ours {e2e[ours]:.1f} µs, best peer {_short(bp)} {pe[bp]:.1f} µs; "
                                     f"device ours {t:.2f}, best peer {ok[best]:.2f}")
                    if pe and e2e[ours] > pe[bp]:
                        missed.append(f"{w.id}: decode end-to-end {e2e[ours]:.1f} µs > {bp} {pe[bp]:.1f} µs")
                    if ratio > 1.0 and w.kind == "forward" and mb <= 8:
                        missed.append(f"{w.id}: decode device time {ratio:.3f}x {best}")
        if fwd_ratios:
            gm = math.exp(-sum(math.log(r) for r in fwd_ratios) / len(fwd_ratios))
            print(f"\nforward geometric-mean speed-up over the fastest peer (workloads > 8 MB, {len(fwd_ratios)}): "
                  f"{gm:.3f} (target >= 1.03: {'held' if gm >= 1.03 else 'MISSED'})")
            if gm < 1.03:
                missed.append(f"forward geometric-mean speed-up {gm:.3f} < 1.03")
        if e2e_lines:
            print("\ndecode sizes (rows <= 128), end-to-end median per call:\n")
            for line in e2e_lines:
                print("- " + line)
        print(f"\ntargets: {'all held' if not missed else str(len(missed)) + ' MISSED'}")
        for m in missed:
            print("- MISSED " + m)
        missed_total += len(missed)
    return 1 if missed_total else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    args, withs = [], []
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--with":
            withs.append(next(it))
        else:
            args.append(a)
    sys.exit(main(args, withs))
