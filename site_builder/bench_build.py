"""The scale benchmark: `python -m site_builder.bench_build [--size NAME ...]`.

Writes synthetic but valid record trees (families × implementations × workloads × GPUs × runs)
into a temporary folder and times, each in a fresh process: a cold full build (no cache), a
rebuild with nothing changed, and a rebuild after one run file is added. Prints a table:
results, full s, no-change s, one-run-added s, peak RSS of the build process, output MB,
largest HTML page and largest JSON file. Nothing here knows a real family.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from .records.yamlio import _FLOAT_12, _INT_12

SIZES = {  # name: (families, implementations, workloads, gpus, runs)
    "1x40runs": (1, 6, 24, 1, 40),
    "20x10k": (20, 5, 20, 1, 5),
    "20x100k": (20, 5, 20, 2, 25),
    "tiny": (2, 3, 6, 1, 3),
}
START = dt.datetime(2024, 1, 1, 8, 0, tzinfo=dt.timezone.utc)

class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """PyYAML's (fast) writer, quoting every text that the records' YAML 1.2 reading takes for a
    number (`1234e5678`, `0902661409858470`: possible hex kernel_shas), as records/yamlio's does."""


Dumper.add_implicit_resolver("tag:yaml.org,2002:int", _INT_12, list("-+0123456789"))
Dumper.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+.0123456789"))


def _dump(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True), encoding="utf-8")


def workloads(n: int) -> list[dict]:
    """`n` workloads: rows 1, 4, 16, ... at a few column sizes, bfloat16 and float32."""
    out = []
    cols = [1024, 2048, 4096, 8192]
    rows = [1, 4, 16, 64, 256, 1024, 4096, 16384]
    for i in range(n):
        c, r = cols[(i // len(rows)) % len(cols)], rows[i % len(rows)]
        dtype = "bfloat16" if (i // (len(rows) * len(cols))) % 2 == 0 else "float32"
        out.append({"id": f"r{r}-c{c}-{'bf16' if dtype == 'bfloat16' else 'fp32'}-{i}", "dtype": dtype,
                    "rows": r, "cols": c})
    return out


def write_tree(root: Path, families: int, impls: int, nworkloads: int, gpus: int, runs: int,
               backward: bool = False) -> int:
    """Write a records tree; returns the number of results. With `backward`, every workload has
    a backward twin (kind: backward, its own tensors under semantics.kinds)."""
    for g in range(gpus):
        _dump(root / "hardware" / f"bench-gpu-{g}.yaml", {
            "schema_version": 1, "id": f"bench-gpu-{g}", "name": f"Bench GPU {g}", "vendor": "Bench",
            "memory_gb": 80, "memory_bandwidth_gbps": 3000 + 500 * g, "peak_tflops": {"fp32": 60},
            "sms": 132, "datasheet_url": f"https://example.com/gpu/{g}"})
    for i in range(impls):
        _dump(root / "implementations" / f"bench-impl-{i}.yaml", {
            "schema_version": 1, "id": f"bench-impl-{i}", "name": f"Bench kernel {i}",
            "project": f"Bench project {i}", "language": ["triton", "cuda", "python"][i % 3], "license": "MIT",
            "source_url": f"https://example.com/impl/{i}", "install": f"pip install bench-{i}==1.0.{i}"})
    wls = workloads(nworkloads)
    if backward:
        wls = wls + [dict(w, id=f"{w['id']}-bwd", kind="backward") for w in wls]
    total = 0
    for f in range(families):
        fid = f"bench-family-{f:02d}"
        _dump(root / "families" / f"{fid}.yaml", {
            "schema_version": 1, "id": fid, "title": f"Bench operation {f}", "tag": f"bench{f}",
            "summary": f"A synthetic row-wise operation number {f}, for the scale benchmark.",
            "semantics": {"axes": {"rows": "variable", "cols": "variable"},
                          "inputs": {"x": {"dtype": "float", "shape": ["rows", "cols"]}},
                          "outputs": {"y": {"dtype": "float", "shape": ["rows", "cols"]}},
                          "definition": "y = f(x), row by row",
                          **({"kinds": {"backward": {
                              "inputs": {"dy": {"dtype": "float", "shape": ["rows", "cols"]},
                                         "x": {"dtype": "float", "shape": ["rows", "cols"]}},
                              "outputs": {"dx": {"dtype": "float", "shape": ["rows", "cols"]}}}}}
                             if backward else {})},
            "baseline": "bench-impl-0", "headline": wls[0]["id"], "scaling": {"axis": "rows"},
            "workloads": wls})
        for g in range(gpus):
            for n in range(runs):
                total += write_run(root, fid, g, n, impls, wls)
    return total


def write_run(root: Path, fid: str, g: int, n: int, impls: int, wls: list[dict]) -> int:
    rng = random.Random(f"{fid}-{g}-{n}")
    when = START + dt.timedelta(days=n, minutes=int(fid[-2:]))
    results = []
    for w in wls:
        tensors = 3 if w.get("kind") == "backward" else 2
        nbytes = tensors * w["rows"] * w["cols"] * (2 if w["dtype"] == "bfloat16" else 4)
        floor_us = nbytes / ((3000 + 500 * g) * 1e3)
        for i in range(impls):
            median = round(floor_us * (1.2 + 0.3 * i) * (0.9 + 0.2 * rng.random()) + 2.0, 3)
            results.append({"implementation": f"bench-impl-{i}", "workload": w["id"], "status": "ok",
                            "kernel_sha": f"{rng.getrandbits(64):016x}",
                            "correctness": {"max_abs_error": 0.0039, "atol": 0.016, "rtol": 0.016, "passed": True},
                            "device_us": {"median": median, "p20": round(median * 0.98, 3),
                                          "p80": round(median * 1.03, 3), "samples": 100},
                            "e2e_us": {"median": round(median + 20, 3), "samples": 300}})
    _dump(root / "runs" / fid / f"bench-gpu-{g}" / f"{when:%Y-%m-%dT%H-%M-%S}-bench.yaml", {
        "schema_version": 1, "family": fid, "hardware": f"bench-gpu-{g}", "trust": "measured",
        "observed": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "protocol": {"id": "bench-device", "version": 1, "clock": "device", "l2": "cold", "timing": "cuda-graph",
                     "statistic": "median", "quantiles": [0.2, 0.8]},
        "environment": {"gpu": f"Bench GPU {g}", "driver": "580.1", "cuda": "13.0", "torch": "2.11.0",
                        "copy_bandwidth_gbps": 2600.0 + 400 * g},
        "seed": n, "results": results})
    return len(results)


def one_build(records: Path, out: Path, cache: Path | None) -> dict:
    """Build once in this process; the figures as a dict."""
    from .build import build

    start = time.perf_counter()
    report = build(records, out, cache=cache if cache else False)
    seconds = time.perf_counter() - start
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    rss = me.ru_maxrss  # KiB on Linux
    cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime  # on a shared machine, less noisy than wall time
    return {"seconds": seconds, "cpu_s": round(cpu, 2), "rss_mb": max(rss, kids.ru_maxrss) / 1024,
            "load": round(os.getloadavg()[0], 1), "rendered": report.rendered,
            "charts": report.charts, "files": report.files, "phases": report.phases or {}}


def _in_process(records: Path, out: Path, cache: Path | None) -> dict:
    cmd = [sys.executable, "-m", "site_builder.bench_build", "--one", str(records), str(out), str(cache or "")]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"build failed:\n{proc.stderr[-4000:]}")
    # the process's wall time: the build, plus starting Python and importing the engine
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]), process_s=round(time.perf_counter() - start, 2))


def sizes_of(out: Path) -> dict:
    total, html, js = 0, ("", 0), ("", 0)
    for path in out.rglob("*"):
        if not path.is_file():
            continue
        n = path.stat().st_size
        total += n
        rel = path.relative_to(out).as_posix()
        if rel.endswith(".html") and n > html[1]:
            html = (rel, n)
        if rel.endswith(".json") and n > js[1]:
            js = (rel, n)
    return {"output_mb": total / 1e6, "largest_html": html, "largest_json": js}


def bench(name: str, keep: Path | None = None) -> dict:
    families, impls, nw, gpus, runs = SIZES[name]
    with tempfile.TemporaryDirectory(prefix=f"kr-bench-{name}-") as tmp:
        base = Path(keep or tmp)
        records, out, cache = base / "records", base / "output", base / "cache"
        shutil.rmtree(base / "records", ignore_errors=True)
        t0 = time.perf_counter()
        results = write_tree(records, families, impls, nw, gpus, runs)
        written = time.perf_counter() - t0
        shutil.rmtree(cache, ignore_errors=True)
        full = _in_process(records, out, cache)  # cold: an empty cache, filled by this build
        same = _in_process(records, out, cache)
        wls = workloads(nw)
        write_run(records, "bench-family-00", 0, runs, impls, wls)  # the next refresh of one family
        added = _in_process(records, out, cache)
        row = {"size": name, "shape": f"{families}f x {impls}i x {nw}w x {gpus}g x {runs}r", "results": results,
               "tree_s": written, "full_s": full["seconds"], "nochange_s": same["seconds"],
               "added_s": added["seconds"], "added_pages": added["rendered"], "added_charts": added["charts"],
               "peak_rss_mb": max(full["rss_mb"], same["rss_mb"], added["rss_mb"]), "files": added["files"],
               "full_phases": full["phases"], "added_phases": added["phases"],
               "cpu_s": {"full": full["cpu_s"], "nochange": same["cpu_s"], "added": added["cpu_s"]},
               "process_s": {"full": full["process_s"], "nochange": same["process_s"], "added": added["process_s"]},
               "load": {"full": full["load"], "nochange": same["load"], "added": added["load"]},
               **sizes_of(out)}
    return row


def table(rows: list[dict]) -> str:
    head = ("| size | shape | results | full s | no-change s | one-run-added s (pages, charts re-rendered) | "
            "peak RSS MB | output MB | largest HTML | largest JSON |")
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        (hp, hn), (jp, jn) = r["largest_html"], r["largest_json"]
        lines.append(f"| {r['size']} | {r['shape']} | {r['results']:,} | {r['full_s']:.1f} | {r['nochange_s']:.2f} | "
                     f"{r['added_s']:.1f} ({r['added_pages']}, {r['added_charts']}) | {r['peak_rss_mb']:.0f} | "
                     f"{r['output_mb']:.1f} | {hn / 1e3:.0f} KB {hp} | {jn / 1e3:.0f} KB {jp} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m site_builder.bench_build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", action="append", choices=sorted(SIZES),
                        help="tree sizes to run (repeatable; default: 1x40runs and 20x10k)")
    parser.add_argument("--keep", type=Path, default=None, help="write the tree and site here instead of a temp folder")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows as JSON")
    parser.add_argument("--one", nargs=3, metavar=("RECORDS", "OUT", "CACHE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        records, out, cache = args.one
        print(json.dumps(one_build(Path(records), Path(out), Path(cache) if cache else None)))
        return 0
    rows = []
    for name in args.size or ["1x40runs", "20x10k"]:
        rows.append(bench(name, args.keep / name if args.keep else None))
        print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(f"cores: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}, "
          f"load average at the end: {os.getloadavg()[0]:.1f}")
    print(table(rows))
    for r in rows:
        print(f"{r['size']}: seconds per step, full build {r['full_phases']}; one run added {r['added_phases']}")
        print(f"{r['size']}: CPU seconds (build process and its children) {r['cpu_s']}; "
              f"whole process, start to exit, s {r['process_s']}; load average after each build {r['load']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
