"""`kernel-records run --plan`: what a run with the same options would measure, per family
and implementation, and why (missing.py's rules when `--missing` is given), printed without
touching a GPU. It reads the kernel hashes from the source (records/kernel_hash.py, no import:
it works without CUDA or torch) and the hardware from `--hardware`, or else from the GPUs
nvidia-smi lists here.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Sequence

from ..errors import UserError
from ..records.kernel_hash import registered, sha_of
from ..records.load import load_catalog
from .devices import choose_gpus, list_gpus, parse_gpu_list, visible
from .families import KERNELS_ROOT
from .missing import NO_RESULT, mark_current
from .protocol import protocol_for
from .run import _match_hardware, pick_families, plan_families


def source_registry(kernels_root: Path, family_id: str) -> list[dict]:
    """The family's registry as the probe reports it (id, kernel_sha), read from the source."""
    out = []
    for impl_id, entry in registered(kernels_root, family_id).items():
        sha = sha_of(entry.sources) if all(p.is_file() for p in entry.sources) else None
        out.append({"id": impl_id, "kernel_sha": sha, "missing": None})
    return out


def plan_hardware(catalog, hardware: str | None, device: str | None, gpus) -> tuple[list[str], str]:
    """The hardware ids a plan is for, and the device (hence the protocol) it measures on."""
    if hardware is not None:
        if hardware not in catalog.hardware:
            raise UserError(f"--hardware {hardware!r}: no such hardware record — use one of "
                            f"{', '.join(sorted(catalog.hardware))} (records/hardware/<id>.yaml)")
        return [hardware], device or ("cpu" if "cpu" in catalog.hardware[hardware].device_names else "cuda")
    if device == "cpu":
        return [_match_hardware(catalog, "cpu")], "cpu"
    found = list_gpus()
    if found is not None:
        found = visible(found, os.environ.get("CUDA_VISIBLE_DEVICES")) or None
    if not found:
        raise UserError("--plan without --hardware reads the GPU model from nvidia-smi, and it lists no GPU "
                        "here: add --hardware ID for the GPU the run is for (e.g. --hardware h200; one of "
                        f"{', '.join(sorted(catalog.hardware))}), or --device cpu for a CPU run")
    if isinstance(gpus, str):
        gpus = parse_gpu_list(gpus)
    chosen = choose_gpus(gpus, found) if gpus else found
    ids = list(dict.fromkeys(_match_hardware(catalog, g.name or "") for g in chosen))
    return ids, device or "cuda"


def plan_run(records: Path = Path("records"), *, family: str | Sequence[str] | None = None, implementations=(), workloads=(),
             device: str | None = None, hardware: str | None = None, gpus=None, missing: bool = False,
             retry_failed: bool = False, budget_s: float | None = None, kernels_root: Path = KERNELS_ROOT,
             ray_address: str | None = None, **_ignored) -> str:
    """What `kernel-records run` with these options would measure, as text; runs nothing."""
    catalog = load_catalog(records)
    families = [catalog.families[f] for f in pick_families(catalog, family, kernels_root)]
    hw_ids, device = plan_hardware(catalog, hardware, device, gpus)
    registry_of = {f.id: source_registry(kernels_root, f.id) for f in families}
    plans = plan_families(catalog, families, registry_of, implementations, workloads)
    registries = {fid: {r["id"]: r for r in reg} for fid, reg in registry_of.items()}
    if missing:
        mark_current(plans, catalog, hw_ids, device, registries, retry_failed)
    protocol = protocol_for(device)
    where = f" on the Ray cluster at {ray_address}" if ray_address else ""
    lines = [f"Plan of `kernel-records run`{where} (--plan: nothing is measured, no record written); "
             f"protocol {protocol['id']} v{protocol['version']}"
             + ("; --missing: pairs with a current result are skipped" if missing else "")
             + ("; failed results are retried" if missing and retry_failed else "") + "."]
    pairs = impls_running = 0
    for f in families:
        plan = plans[f.id]
        filtered = len(f.workloads) - len(plan.workloads)
        for hw in hw_ids:
            lines.append("")
            lines.append(f"{f.id} on {hw}: {len(plan.implementations)} implementation"
                         f"{'s' if len(plan.implementations) != 1 else ''}, {len(f.workloads)} workloads"
                         + (f" ({filtered} filtered out by --workload)" if filtered else ""))
            for impl_id in plan.implementations:
                todo = plan.todo(hw, impl_id)
                known = plan.standing.get(hw, {})
                current = Counter(known[(impl_id, w["id"])].why for w in plan.workloads
                                  if (impl_id, w["id"]) in known and known[(impl_id, w["id"])].settled)
                skipped = [f"{sum(current.values())} current"
                           + (f" ({_counts(current)})" if current else "")] if missing else []
                if filtered:
                    skipped.append(f"{filtered} filtered")
                lines.append(f"  {impl_id}: {len(todo)} of {len(f.workloads)} to run"
                             + (f"; skipped: {', '.join(skipped)}" if skipped else ""))
                if todo and missing:
                    why = Counter(known[(impl_id, w['id'])].why if (impl_id, w["id"]) in known else NO_RESULT
                                  for w in todo)
                    lines.append(f"    why they run: {_counts(why)}")
                if todo:
                    lines.append(f"    run: {' '.join(w['id'] for w in todo)}")
                    pairs += len(todo)
                    impls_running += 1
            left_out = [r["id"] for r in registry_of[f.id] if r["id"] not in plan.implementations]
            if left_out and implementations:
                lines.append(f"  filtered out by --implementation: {', '.join(left_out)}")
    lines.append("")
    if not pairs:
        lines.append("Nothing to run: every selected implementation × workload has a current result"
                     + (" (--missing)." if missing else "."))
    else:
        lines.append(f"Total: {pairs} implementation × workload pair{'s' if pairs != 1 else ''} to run, "
                     f"{impls_running} implementation job{'s' if impls_running != 1 else ''}"
                     + (f"; --budget {budget_s:g} s, shared evenly by those jobs (about "
                        f"{budget_s / impls_running:.0f} s each on one GPU)" if budget_s else "") + ".")
    return "\n".join(lines)


def _counts(counter: Counter) -> str:
    return ", ".join(f"{why} {n}" for why, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))
