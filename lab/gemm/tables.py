"""The closing-note tables of the gemm family from its committed H200 run records.

    python lab/gemm/tables.py [RUN.yaml ...]      # default: every records/runs/gemm/h200/*.yaml

Per workload: the floor (the larger of 2·M·N·K over the datasheet's 989 TFLOP/s and A, B, C
once over the copy bandwidth each run measured), each implementation's device median (µs) in
the run that measured it, ours over the fastest peer *of the same run*, ours over the floor, and
our TFLOP/s. Then the issue's targets: M >= 4096 throughput against cuBLAS (each shape, and
the geometric mean), M <= 16 against the fastest peer and the memory floor.
"""

from __future__ import annotations

import glob
import math
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
OURS, BASE = "kr-triton-gemm", "torch-f-linear"
SHORT = {"kr-triton-gemm": "ours", "torch-f-linear": "cuBLAS", "gemm-torch-compile-max-autotune": "compile",
         "quack-gemm": "QuACK", "triton-tutorial-matmul": "tutorial"}
PEAK = 989e12  # the H200 datasheet's dense bf16 rate (records/hardware/h200.yaml)


def main(paths: list[str]) -> None:
    family = yaml.safe_load((ROOT / "records/families/gemm.yaml").read_text())
    sizes = {w["id"]: (w["m"], w["n"], w["k"]) for w in family["workloads"]}
    runs = []
    for p in paths or sorted(glob.glob(str(ROOT / "records/runs/gemm/h200/*.yaml"))):
        d = yaml.safe_load(Path(p).read_text())
        ok = {(r["workload"], r["implementation"]): r["device_us"]["median"]
              for r in d["results"] if r.get("status") == "ok"}
        runs.append((Path(p).name, d["environment"]["copy_bandwidth_gbps"], ok))
    impls = [i for i in SHORT if any(i == k[1] for _, _, ok in runs for k in ok)]
    print("runs: " + "; ".join(f"{i + 1}: {n} (copy {bw:,.0f} GB/s, {len(ok)} ok results)"
                                for i, (n, bw, ok) in enumerate(runs)))
    head = ["workload", "floor µs"] + [f"{SHORT[i]} µs (run)" for i in impls] + \
        ["ours / fastest peer (same run)", "ours / floor", "ours TFLOP/s"]
    print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    big, decode = [], []
    for wid, (m, n, k) in sizes.items():
        flops = 2 * m * n * k
        bw = runs[-1][1]
        floor = max(flops / PEAK, 2 * (m * k + n * k + m * n) / (bw * 1e9)) * 1e6
        cells, ours_ratio, best_ours = [], [], None
        for impl in impls:
            found = [(t, ri) for ri, (_, _, ok) in enumerate(runs) if (t := ok.get((wid, impl)))]
            cells.append(" / ".join(f"{t:,.1f} ({ri + 1})" for t, ri in found) or "—")
        for ri, (_, _, ok) in enumerate(runs):
            if (wid, OURS) not in ok:
                continue
            peers = [t for (w, i), t in ok.items() if w == wid and i != OURS]
            if peers:
                ours_ratio.append(f"{ok[(wid, OURS)] / min(peers):.3f} ({ri + 1})")
            best_ours = min(best_ours or math.inf, ok[(wid, OURS)])
            if m >= 4096 and (wid, BASE) in ok:
                big.append((wid, ok[(wid, BASE)] / ok[(wid, OURS)]))
            if m <= 16 and peers and (wid, BASE) in ok:  # against the baseline's run
                decode.append((wid, ok[(wid, OURS)] / min(peers), ok[(wid, OURS)] / floor))
        print(f"| {wid} | {floor:,.1f} | " + " | ".join(cells) + f" | {', '.join(ours_ratio) or '—'} | "
              + (f"{best_ours / floor:.2f} | {flops / best_ours / 1e6:,.0f} |" if best_ours else "— | — |"))
    if big:
        geo = math.exp(sum(math.log(r) for _, r in big) / len(big))
        worst = min(big, key=lambda x: x[1])
        print(f"\nM >= 4096, ours' throughput over cuBLAS's in the same run: worst {worst[1]:.3f} ({worst[0]}; "
              f"target >= 0.95), geometric mean {geo:.3f} over {len(big)} (target >= 1.00)")
    if decode:
        over = [d for d in decode if d[1] > 1.0]
        print(f"M <= 16: ours over the fastest peer {min(d[1] for d in decode):.3f}-{max(d[1] for d in decode):.3f} "
              f"({len(over)} of {len(decode)} above 1.00); over the memory floor "
              f"{min(d[2] for d in decode):.2f}-{max(d[2] for d in decode):.2f} (target <= 1.15)")


if __name__ == "__main__":
    main(sys.argv[1:])
