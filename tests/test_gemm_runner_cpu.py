"""The gemm family package through the runner in CPU mode, on a family record this test writes
(tiny workloads with odd M and K): F.linear passes the correctness gate on the CPU, the GPU-only
implementations are recorded as declined (or not installed), and the record loads with its
floor's compute side."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("torch")

from site_builder.derive.index import derive  # noqa: E402
from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner import run_all  # noqa: E402

from conftest import CPU_HARDWARE, implementation_record  # noqa: E402

# the CPU hardware record of the other tests, with a (tiny) dense bf16 peak for the compute floor
CPU = CPU_HARDWARE.replace("datasheet_url:", "peak_tflops: {bf16_tensor: 0.1}\ndatasheet_url:")

GEMM = """
schema_version: 1
id: gemm
title: GEMM (test)
tag: gemm
summary: A test record.
semantics:
  axes: {m: variable, n: variable, k: variable}
  inputs: {a: {dtype: float, shape: [m, k]}, b: {dtype: float, shape: [n, k]}}
  outputs: {c: {dtype: float, shape: [m, n]}}
  definition: c = a @ b.T
arithmetic: {flops_per_point: 2, over: [m, n, k], peak: bf16_tensor, measured_peak: best-in-run}
charts: [roofline]
baseline: torch-f-linear
headline: m7
scaling: {axis: m}
workloads:
  - {id: m1, m: 1, n: 96, k: 100, dtype: bfloat16}
  - {id: m7, m: 7, n: 33, k: 257, dtype: bfloat16}
  - {id: m64, m: 64, n: 64, k: 192, dtype: bfloat16}
"""

CPU_IMPLS = ["torch-f-linear"]
GPU_IMPLS = ["kr-triton-gemm", "triton-tutorial-matmul", "gemm-torch-compile-max-autotune", "quack-gemm"]




def test_gemm_through_the_runner_on_cpu(tmp_path):
    root = tmp_path / "records"
    for sub, name, text in [("hardware", "cpu", CPU), ("families", "gemm", GEMM),
                            *[("implementations", i, implementation_record(i)) for i in CPU_IMPLS + GPU_IMPLS]]:
        (root / sub).mkdir(parents=True, exist_ok=True)
        (root / sub / f"{name}.yaml").write_text(text.lstrip(), encoding="utf-8")
    [path] = run_all(root, family="gemm", implementations=CPU_IMPLS + GPU_IMPLS, device="cpu", timeout=300)
    results = {(r["implementation"], r["workload"]): r for r in yaml.safe_load(Path(path).read_text())["results"]}
    for w in ("m1", "m7", "m64"):
        r = results[("torch-f-linear", w)]
        assert r["status"] == "ok" and r["correctness"]["passed"], r
        assert r["correctness"]["atol"] > 4 * 2.0 ** -8  # the K-scaled tolerance, not the dtype default
        for impl in GPU_IMPLS:
            r = results[(impl, w)]
            assert r["status"] in ("unsupported", "not-installed") and r["error"], (impl, w, r)
    index = derive(load_catalog(root))
    entries = [e for e in index.entries if e.eligible]
    assert entries and all(e.floor.flops and e.floor.intensity for e in entries)
