"""lab/softmax/tables.py on a run record this test writes (two workloads of the softmax
family record it writes, ours and two peers, one declined)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import CPU_HARDWARE, implementation_record

SOFTMAX = """
schema_version: 1
id: softmax
title: Softmax (test)
tag: softmax
summary: A test record.
semantics:
  axes: {rows: variable, cols: variable}
  inputs: {x: {dtype: float, shape: [rows, cols]}}
  outputs: {y: {dtype: float, shape: [rows, cols]}}
  definition: y = softmax(x)
  kinds:
    backward:
      inputs: {y: {dtype: float, shape: [rows, cols]}, dy: {dtype: float, shape: [rows, cols]}}
      outputs: {dx: {dtype: float, shape: [rows, cols]}}
baseline: softmax-eager
headline: f-fp32
scaling: {axis: cols}
workloads:
  - {id: f-fp32, rows: 5, cols: 1001, dtype: float32}
  - {id: b-fp32, kind: backward, rows: 5, cols: 1001, dtype: float32}
"""



ROOT = Path(__file__).resolve().parents[1]

RUN = """
schema_version: 1
family: softmax
hardware: cpu
trust: measured
observed: 2026-11-30T10:00:00Z
protocol: {id: p, version: 1, clock: device, timing: cuda-graph}
environment: {gpu: test, copy_bandwidth_gbps: 1000}
results:
  - {implementation: kr-triton-softmax, workload: f-fp32, status: ok, device_us: {median: 50}}
  - {implementation: torch-softmax, workload: f-fp32, status: ok, device_us: {median: 60}}
  - {implementation: liger-softmax, workload: f-fp32, status: unsupported, error: too long}
  - {implementation: kr-triton-softmax, workload: b-fp32, status: ok, device_us: {median: 90}}
  - {implementation: torch-softmax, workload: b-fp32, status: ok, device_us: {median: 80}}
  - {implementation: liger-softmax, workload: b-fp32, status: ok, device_us: {median: 100}}
"""


def test_table_and_targets(tmp_path):
    records = tmp_path / "records"
    for sub, name, text in [("hardware", "cpu", CPU_HARDWARE), ("families", "softmax", SOFTMAX),
                            *[("implementations", i, implementation_record(i)) for i in
                              ("softmax-eager", "kr-triton-softmax", "torch-softmax", "liger-softmax")]]:
        (records / sub).mkdir(parents=True, exist_ok=True)
        (records / sub / f"{name}.yaml").write_text(text.lstrip())
    run = records / "runs" / "softmax" / "cpu" / "2026-11-30T10-00-00-abcdef.yaml"
    run.parent.mkdir(parents=True)
    run.write_text(RUN.lstrip())
    out = subprocess.run([sys.executable, str(ROOT / "lab" / "softmax" / "tables.py"), str(run), "--records",
                          str(records)], capture_output=True, text=True, cwd=str(ROOT), timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    rows = {line.split(" | ")[0].strip("| "): line for line in text.splitlines() if line.startswith("| f-") or line.startswith("| b-")}
    # f-fp32: 5 x 1001 fp32 in and out = 40040 bytes: floor 0.04 us at 1000 GB/s
    assert "| f-fp32 | forward | 0 | 0.0 | 50.0 | 60.0 | unsup. | 0.83 |" in rows["f-fp32"]
    assert "| 0.83 | 1248.75 |" in rows["f-fp32"]  # 50 us over 0.04004 us
    assert "| b-fp32 | backward | 0 | 0.1 | 90.0 | 80.0 | 100.0 | 1.12 |" in rows["b-fp32"]
    assert "geometric-mean speed-up over the fastest peer ≥ 1.05: 1.033 — MISSED" in text
    # both workloads are under 8 MB: no workload is held to the 1.00x target, none to the floor's
    assert "at every workload over 8 MB: held (2 workloads" in text
    assert "≤ 1.10× the floor at ≥ 256 MB: MISSED (0 workloads" in text
