"""Issue 4's targets against one committed run record (the runner's protocol):

    python lab/fused_add_rmsnorm/targets.py records/runs/fused-add-rmsnorm/h200/<run>.yaml

Prints, per workload, the floor (bytes over the copy bandwidth measured in that run), kr-triton's
device time, the fastest peer (Liger, QuACK, torch.compile, add + F.rms_norm) and the
end-to-end times, then each target with held / MISSED. Reads YAML only (no GPU, no torch).
"""

from __future__ import annotations

import math
import sys

import yaml

KR = "kr-triton"
PEERS = ("liger-fused", "quack", "torch-compile", "torch-rms-norm")
GEOMEAN_PEERS = ("liger-fused", "torch-compile", "torch-rms-norm")
DECODE = ("r1-", "r16-", "r128-")
HUGE = ("r2048-h65536-bf16", "r2048-h131072-bf16")


def size(workload: str) -> tuple[int, int, int]:
    rows, hidden, dtype = workload.split("-")
    return int(rows[1:]), int(hidden[1:]), 4 if dtype == "fp32" else 2


def floor_band(workload: str, mb: float) -> float | None:
    if workload in HUGE:
        return 1.30
    if mb >= 256:
        return 1.10
    if mb >= 64:
        return 1.20
    if mb >= 16:
        return 1.35
    return None


def main(path: str) -> int:
    with open(path) as f:
        run = yaml.safe_load(f)
    bw = run["environment"]["copy_bandwidth_gbps"]
    by = {}
    for r in run["results"]:
        by.setdefault(r["workload"], {})[r["implementation"]] = r
    missed, speedups = [], []
    print(f"run {path}: copy bandwidth {bw} GB/s; device µs, median")
    print("| workload | MB | floor µs | kr µs | kr/floor | fastest peer | peer µs | kr/peer | kr e2e µs | best peer e2e µs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for wl, impls in by.items():
        rows, hidden, el = size(wl)
        nbytes = 4 * rows * hidden * el + hidden * el
        mb = nbytes / 1e6
        floor = nbytes / (bw * 1e9) * 1e6
        kr = impls[KR]
        t = kr["device_us"]["median"]
        ok = {p: impls[p] for p in PEERS if p in impls and impls[p]["status"] == "ok"}
        best = min(ok, key=lambda p: ok[p]["device_us"]["median"])
        pt = ok[best]["device_us"]["median"]
        e2e = {p: ok[p]["e2e_us"]["median"] for p in ok}
        be = min(e2e, key=e2e.get)
        print(f"| {wl} | {mb:.1f} | {floor:.2f} | {t:.2f} | {t / floor:.3f} | {best} | {pt:.2f} | {t / pt:.3f} "
              f"| {kr['e2e_us']['median']:.1f} | {e2e[be]:.1f} ({be}) |")
        band = floor_band(wl, mb)
        if band and t / floor > band:
            missed.append(f"{wl}: {t / floor:.3f}x the floor (at most {band})")
        if wl.startswith(DECODE):
            if t / pt > 1.10:
                missed.append(f"{wl}: device {t / pt:.3f}x the best peer (at most 1.10)")
            if kr["e2e_us"]["median"] > e2e[be]:
                missed.append(f"{wl}: end-to-end {kr['e2e_us']['median']} µs > {be}'s {e2e[be]} µs")
        elif wl not in HUGE and t / pt > 1.01:
            missed.append(f"{wl}: {t / pt:.3f}x {best} (at most 1.01)")
        base = [ok[p]["device_us"]["median"] for p in GEOMEAN_PEERS if p in ok]
        speedups.append(min(base) / t)
    gm = math.exp(sum(map(math.log, speedups)) / len(speedups))
    print(f"\ngeometric-mean speed-up over the fastest of {', '.join(GEOMEAN_PEERS)}: {gm:.3f} "
          f"({len(speedups)} workloads; target at least 1.05)")
    if gm < 1.05:
        missed.append(f"geometric mean {gm:.3f} < 1.05")
    for wl in HUGE:
        if wl in by and "quack" in by[wl] and by[wl]["quack"]["status"] == "ok":
            print(f"{wl}: kr {by[wl][KR]['device_us']['median'] / by[wl]['quack']['device_us']['median']:.3f}x QuACK")
    print("\n" + ("every target held" if not missed else "MISSED:\n  " + "\n  ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
