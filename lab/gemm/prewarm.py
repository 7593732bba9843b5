"""Warm Inductor's caches for gemm-torch-compile-max-autotune and time each shape's cold compile.

    TORCHINDUCTOR_CACHE_DIR=/tmp/kr-inductor python3 lab/gemm/prewarm.py I N OUT.jsonl

Process I of N takes every N-th workload of records/families/gemm.yaml (largest first, so the
slowest compiles start early), compiles it exactly as the implementation does (its factory:
dynamo reset, fullgraph, static shapes, mode="max-autotune"), and appends one JSON line per
shape: {"workload", "shape": [m, n, k], "compile_s"} (the first call, autotuning included).
The runner's later compile of the same shape then reads the FX-graph and autotune caches; the
implementation's note reports both times when KR_GEMM_COMPILE_TIMES names this file.
Several processes at once share the GPU while autotuning, so their candidate timings (and so
the templates picked) carry more noise than one process alone: the notes say how many ran.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from site_builder.records.load import load_catalog  # noqa: E402
from site_builder.runner.families import KERNELS_ROOT, load_family  # noqa: E402
from site_builder.runner.family import Case  # noqa: E402


def main():
    index, count, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    record = load_catalog(ROOT / "records").families["gemm"]
    family = load_family(KERNELS_ROOT, "gemm")
    impl = family.registry["gemm-torch-compile-max-autotune"]
    work = sorted(record.workloads, key=lambda w: -w.sizes["m"] * w.sizes["n"] * w.sizes["k"])[index::count]
    for w in work:
        case = Case.from_record(record, w)
        inputs = family.make_inputs(case, 1234, "cuda")
        t0 = time.perf_counter()
        try:
            fn = impl.factory(inputs, case)
            fn()
            torch.cuda.synchronize()
            line = {"workload": w.id, "shape": [w.sizes["m"], w.sizes["n"], w.sizes["k"]],
                    "compile_s": round(time.perf_counter() - t0, 2), "processes": count}
        except Exception as exc:  # noqa: BLE001 - recorded, the next shape goes on
            line = {"workload": w.id, "error": f"{type(exc).__name__}: {exc}"[:300]}
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        print(json.dumps(line), flush=True)
        del inputs
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
