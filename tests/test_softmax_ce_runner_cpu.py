"""The softmax and cross-entropy family packages through the runner in CPU mode, on family
records this test writes (tiny workloads of every kind and dtype): the CPU-capable
implementations pass the correctness gate, the GPU-only ones are recorded as declined."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("torch")

from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner import run_all  # noqa: E402

from conftest import CPU_HARDWARE, implementation_record  # noqa: E402

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
  - {id: f-bf16, rows: 3, cols: 4099, dtype: bfloat16}
  - {id: b-fp32, kind: backward, rows: 5, cols: 1001, dtype: float32}
  - {id: b-bf16, kind: backward, rows: 1, cols: 777, dtype: bfloat16}
"""

CE = """
schema_version: 1
id: cross-entropy
title: Cross-entropy (test)
tag: ce
summary: A test record.
semantics:
  axes: {tokens: variable, vocab: variable, valid_pct: variable}
  inputs: {logits: {dtype: float, shape: [tokens, vocab]}, target: {dtype: int64, shape: [tokens]}}
  outputs: {loss: {dtype: float, shape: []}}
  definition: mean cross-entropy
  parameters: {ignore_index: -100}
  kinds:
    forward+backward:
      inputs: {logits: {dtype: float, shape: [tokens, vocab]}, target: {dtype: int64, shape: [tokens]}}
      outputs: {loss: {dtype: float, shape: []}, dlogits: {dtype: float, shape: [tokens, vocab]}}
baseline: ce-eager
headline: f-fp32
scaling: {axis: vocab}
workloads:
  - {id: f-fp32, tokens: 16, vocab: 1001, valid_pct: 100, dtype: float32}
  - {id: f-bf16-ign, tokens: 40, vocab: 3001, valid_pct: 75, dtype: bfloat16}
  - {id: fb-fp32-ign, kind: forward+backward, tokens: 16, vocab: 1001, valid_pct: 50, dtype: float32}
  - {id: fb-bf16, kind: forward+backward, tokens: 8, vocab: 2049, valid_pct: 100, dtype: bfloat16}
"""

IMPLS = ["softmax-eager", "torch-softmax", "liger-softmax", "kr-triton-softmax", "softmax-torch-compile",
         "ce-eager", "liger-cross-entropy", "kr-triton-cross-entropy", "ce-torch-compile"]




@pytest.fixture
def records(tmp_path) -> Path:
    root = tmp_path / "records"
    for sub, name, text in [("hardware", "cpu", CPU_HARDWARE), ("families", "softmax", SOFTMAX),
                            ("families", "cross-entropy", CE), *[("implementations", i, implementation_record(i)) for i in IMPLS]]:
        (root / sub).mkdir(parents=True, exist_ok=True)
        (root / sub / f"{name}.yaml").write_text(text.lstrip(), encoding="utf-8")
    return root


def _results(path: Path) -> dict:
    return {(r["implementation"], r["workload"]): r for r in yaml.safe_load(path.read_text())["results"]}


@pytest.mark.parametrize("family,cpu_impls,gpu_impls", [
    ("softmax", ["softmax-eager", "torch-softmax"], ["kr-triton-softmax", "liger-softmax"]),
    ("cross-entropy", ["ce-eager"], ["kr-triton-cross-entropy", "liger-cross-entropy"]),
])
def test_family_through_the_runner_on_cpu(records, family, cpu_impls, gpu_impls):
    [path] = run_all(records, family=family, implementations=cpu_impls + gpu_impls, device="cpu", timeout=300)
    results = _results(path)
    workloads = {w.id for w in load_catalog(records).families[family].workloads}
    for impl in cpu_impls:
        for w in workloads:
            r = results[(impl, w)]
            assert r["status"] == "ok" and r["correctness"]["passed"], (impl, w, r)
    for impl in gpu_impls:  # GPU-only (or not installed here): declined with a reason, never failed
        for w in workloads:
            r = results[(impl, w)]
            assert r["status"] in ("unsupported", "not-installed"), (impl, w, r)
            assert r["error"]
    assert any(r.run.family == family for r in load_catalog(records).runs)  # the record loads
