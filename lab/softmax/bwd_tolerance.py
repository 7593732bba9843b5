"""Softmax backward under the element-wise allowance (kernels/softmax/reference.py), on the device:
for each backward workload of records/families/softmax.yaml and each backward implementation
(torch.compile left out: it compiles per shape for longer than this call has), the outputs of
one input set (the runner's seed 1234) checked the runner's way (measure.verify) without and with
the family's allowance, and per element:

  bf16/fp16: excess = (|dx − ref| − atol − rtol·|ref|) / allowance  (fails where > 1)
  all:       units  = |dx − ref| / (u·y·(|dy| + Σ|y·dy|)), u the dtype's unit roundoff
             (float32: how many roundings' worth a scalar-free formula would need)

Writes $OUT/bwd_tolerance.json and prints one line per (workload, implementation).
KR_TINY=1 shrinks every workload to at most 8 x 4096 (the CPU dry run).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

import torch

from site_builder.records.load import load_catalog
from site_builder.records.schema import Workload
from site_builder.runner import measure
from site_builder.runner.families import KERNELS_ROOT, import_module, load_family
from site_builder.runner.family import Case
from site_builder.runner.registry import NotInstalled, Unsupported

SEED = 1234
U = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 2.0**-24}
SKIP = {"softmax-torch-compile"}


def cases(tiny: bool):
    record = load_catalog(Path("records")).families["softmax"]
    for w in record.workloads:
        if w.kind != "backward":
            continue
        if tiny:
            w = Workload(id=w.id, dtype=w.dtype, kind=w.kind, rows=min(w.sizes["rows"], 8),
                         cols=min(w.sizes["cols"], 4096))
        yield Case.from_record(record, w)


def stats(out, inputs, ref, tol, allowance, dtype, ref_mod) -> dict:
    """Per-element figures, in the reference's row slices (float64 temporaries bounded)."""
    y, dy = inputs["y"], inputs["dy"]
    u = U[dtype]
    worst_units, worst_excess, over = 0.0, None, {2: 0, 8: 0, 32: 0, 128: 0}
    for s in ref_mod._slices(*y.shape):
        yd, dyd, r = y[s].double(), dy[s].double(), ref[s]
        e = (out[s].double() - r).abs()
        scale = (dyd.abs() + (yd * dyd).abs().sum(-1, keepdim=True)).mul_(yd).mul_(u)
        units = e / scale.clamp_min(1e-300)
        worst_units = max(worst_units, float(units.max()))
        for c in over:
            over[c] += int((units > c).sum())
        if allowance is not None:
            x = (e - r.abs() * tol.rtol - tol.atol) / allowance[s].clamp_min(1e-300)
            worst_excess = max(worst_excess if worst_excess is not None else -1e300, float(x.max()))
    return {"max_units": round(worst_units, 3), "elements_over_units": over,
            "max_excess_over_allowance": None if worst_excess is None else round(worst_excess, 4)}


def main() -> int:
    tiny = os.environ.get("KR_TINY") == "1"
    device = "cuda" if torch.cuda.is_available() else "cpu"
    family = load_family(KERNELS_ROOT, "softmax")
    ref_mod = import_module("softmax", "reference")
    impls = [i for i in family.registry.ids() if "backward" in family.registry[i].kinds and i not in SKIP]
    rows, t_start = [], time.time()
    limit = float(os.environ.get("KR_LIMIT_S", "330"))
    for case in cases(tiny):
        if time.time() - t_start > limit:
            print(f"stopping: {limit:.0f} s spent", flush=True)
            break
        inputs = family.make_inputs(case, SEED, device)
        reference = family.reference(case, inputs)
        tol = {"dx": family.tolerance(case, "dx")}
        allowances = measure.checked_allowances(family, case, inputs, reference, tol)
        for impl_id in impls:
            impl = family.registry[impl_id]
            row = {"workload": case.id, "implementation": impl_id, "dtype": case.dtype,
                   "elements": reference["dx"].numel()}
            try:
                if impl.missing():
                    raise NotInstalled(f"{impl.missing()} not importable")
                out = measure.outputs_by_name(impl.factory(inputs, case)(), ["dx"])
                measure.sync(torch.device(device))
                c_old, p_old = measure.verify(out, reference, {}, {}, tol)
                c_new, p_new = measure.verify(out, reference, {}, {}, tol, allowances=allowances)
                row.update(passed_scalar=c_old["passed"], passed_with_allowance=c_new["passed"],
                           error_scalar=p_old[0][:400] if p_old else None,
                           error_with_allowance=p_new[0][:400] if p_new else None,
                           **stats(out["dx"], inputs, reference["dx"], tol["dx"], allowances.get("dx"), case.dtype,
                                   ref_mod))
                del out
            except (NotInstalled, Unsupported, ModuleNotFoundError) as exc:
                row.update(status="skipped", error=str(exc)[:300])
            except Exception as exc:  # noqa: BLE001 - one implementation's failure is a row
                row.update(status="error", error=measure.short_error(exc)[:600])
                traceback.print_exc()
            rows.append(row)
            print(json.dumps({k: row.get(k) for k in ("workload", "implementation", "passed_scalar",
                                                      "passed_with_allowance", "max_excess_over_allowance",
                                                      "max_units", "elements_over_units", "status", "error")}),
                  flush=True)
        del inputs, reference, allowances
        if device == "cuda":
            torch.cuda.empty_cache()
    out_dir = Path(os.environ.get("OUT", "."))
    meta = {"device": torch.cuda.get_device_name() if device == "cuda" else "cpu", "torch": torch.__version__,
            "seed": SEED, "tiny": tiny, "seconds": round(time.time() - t_start, 1)}
    (out_dir / "bwd_tolerance.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
