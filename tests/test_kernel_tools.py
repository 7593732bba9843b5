"""The fused add + RMSNorm kernel's CPU-side tools on committed data: targets.py against the
committed H200 run records, and bench.py's table from a saved benchmark (no GPU needed)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KDIR = ROOT / "kernels" / "fused_add_rmsnorm"
RUNS = ROOT / "records" / "runs" / "fused-add-rmsnorm" / "h200"


def run(*args):
    return subprocess.run([sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=300)


def table_row(stdout: str, workload: str) -> list[str]:
    """The cells of the Markdown table row of one workload in a tool's output."""
    row = next(line for line in stdout.splitlines() if line.startswith(f"| {workload} |"))
    return [c.strip() for c in row.strip("|").split("|")]


def test_targets_report_the_miss_of_each_final_run():
    a = run(KDIR / "targets.py", RUNS / "2026-12-01T07-59-16-ba299e.yaml")
    assert a.returncode == 1, a.stderr
    assert "| r2048-h131072-bf16 | 2147.7 | 506.40 | 534.80 | 1.056 | quack | 526.40 | 1.016 |" in a.stdout
    assert "MISSED:\n  r2048-h4096-bf16: 1.013x torch-compile (at most 1.01)\n" in a.stdout
    assert "1.126 (24 workloads" in a.stdout
    b = run(KDIR / "targets.py", RUNS / "2026-12-01T08-13-23-06582b.yaml")
    assert b.returncode == 1, b.stderr
    assert "MISSED:\n  r1-h4096-bf16: end-to-end 36.55 µs > torch-rms-norm's 30.14 µs\n" in b.stdout


def test_bench_table_from_saved_results():
    p = run(KDIR / "bench.py", "--table", KDIR / "sweeps" / "results" / "final.json")
    assert p.returncode == 0, p.stderr
    cells = table_row(p.stdout, "32768x8192:fp32")
    assert cells[3].startswith("1074.00") and cells[5] == "liger" and cells[6] == "1032.43"
    assert cells[8] == "1032.02" and cells[9] == "1033.42 (liger)" and cells[10] == "0.999"
    assert "(us_seq): 1.130 (24 workloads)" in p.stdout


def test_targets_on_the_version_8_and_9_runs():
    """Run C (version 8): every target held; run E (version 9): its two end-to-end misses."""
    c = run(KDIR / "targets.py", RUNS / "2026-12-01T09-43-07-bc750f.yaml")
    assert c.returncode == 0, c.stdout + c.stderr
    assert c.stdout.rstrip().endswith("every target held")
    assert "| r2048-h4096-bf16 | 67.1 | 15.88 | 17.25 | 1.086 | torch-compile | 18.27 | 0.944 |" in c.stdout
    assert "1.141 (24 workloads" in c.stdout
    e = run(KDIR / "targets.py", RUNS / "2026-12-01T10-02-03-1cc0dd.yaml")
    assert e.returncode == 1
    assert ("MISSED:\n  r1-h8192-bf16: end-to-end 36.3 µs > quack's 26.71 µs\n"
            "  r16-h8192-bf16: end-to-end 29.57 µs > quack's 23.8 µs\n") in e.stdout


def test_bench_table_of_the_version_9_benchmark():
    p = run(KDIR / "bench.py", "--table", KDIR / "sweeps" / "results" / "final4.json")
    assert p.returncode == 0, p.stderr
    cells = table_row(p.stdout, "2048x65536:bf16")
    assert cells[3].startswith("275.41") and cells[5] == "quack" and cells[8] == "275.30"
    assert "(us): 1.129 (24 workloads)" in p.stdout


def test_targets_on_the_final_run():
    """Run F (version 9, protocol v4, the committed kernel): every target held, decode
    end-to-end included."""
    f = run(KDIR / "targets.py", RUNS / "2026-12-01T11-58-43-ad789b.yaml")
    assert f.returncode == 0, f.stdout + f.stderr
    assert f.stdout.rstrip().endswith("every target held")
    assert "| r1-h4096-bf16 | 0.0 | 0.01 | 1.49 | 151.706 | liger-fused | 2.32 | 0.643 | 21.1 | 21.9 (quack) |" \
        in f.stdout
    assert "| r32768-h8192-fp32 | 4295.0 | 1029.19 | 1040.00 | 1.011 | liger-fused | 1038.00 | 1.002 |" in f.stdout
    assert "1.143 (24 workloads" in f.stdout
    assert "r2048-h65536-bf16: kr 1.032x QuACK" in f.stdout
