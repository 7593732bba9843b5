"""`kernel-records run --plan`: what a run with the same options would measure, per family
and implementation, and why (missing.py's rules when `--missing` is given), printed without
touching a GPU. It reads the kernel hashes from the source (records/kernel_hash.py, no import:
it works without CUDA or torch) and the hardware from `--hardware`, or else from the GPUs
nvidia-smi lists here.
"""

from __future__ import annotations

import os
import re
import statistics
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


#: the run-level seconds in a measured record's notes (run.py's _notes: "Measured by `...` in 246 s")
_RUN_SECONDS = re.compile(r"^Measured by `[^`]*` in (\d+(?:\.\d+)?) s")


def past_seconds(catalog, family_id: str, hardware: str, protocol_id: str) -> dict:
    """What the family's measured runs on `hardware` (under `protocol_id`) say a result costs in
    runner seconds: {"pair": {(impl, workload): the newest result's runner_s}, "impl": {impl:
    median runner_s}, "run": seconds per result of the newest run whose notes give its total
    (records written before results carried runner_s)}."""
    runs = sorted((lr for lr in catalog.runs if lr.run.family == family_id and lr.run.hardware == hardware
                   and lr.run.trust == "measured" and lr.run.protocol.id == protocol_id), key=lambda lr: lr.id)
    pair: dict = {}
    per_run = None
    for lr in runs:  # oldest first: newer results overwrite
        for r in lr.run.results:
            if r.runner_s is not None:
                pair[(r.implementation, r.workload)] = r.runner_s
        m = _RUN_SECONDS.match(lr.run.notes or "")
        if m and lr.run.results:
            per_run = float(m.group(1)) / len(lr.run.results)
    by_impl: dict = {}
    for (impl, _), sec in pair.items():
        by_impl.setdefault(impl, []).append(sec)
    return {"pair": pair, "impl": {k: statistics.median(v) for k, v in by_impl.items()}, "run": per_run}


def estimate(past: dict, impl_id: str, workload_ids) -> tuple[float | None, Counter]:
    """Runner seconds for these pairs from `past` (past_seconds), and how each was estimated:
    its own last time, the implementation's median, the run-level average, or unknown (None)."""
    total, how = 0.0, Counter()
    for wid in workload_ids:
        if (impl_id, wid) in past["pair"]:
            total += past["pair"][(impl_id, wid)]
            how["its last time"] += 1
        elif impl_id in past["impl"]:
            total += past["impl"][impl_id]
            how["the implementation's median"] += 1
        elif past["run"] is not None:
            total += past["run"]
            how["a run's average per result"] += 1
        else:
            how["unknown"] += 1
    return (None if how["unknown"] == sum(how.values()) else total), how


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
    seconds, unknown, past = 0.0, 0, {}
    for f in families:
        plan = plans[f.id]
        filtered = len(f.workloads) - len(plan.workloads)
        for hw in hw_ids:
            past[(f.id, hw)] = past_seconds(catalog, f.id, hw, protocol["id"])
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
                    sec, how = estimate(past[(f.id, hw)], impl_id, [w["id"] for w in todo])
                    unknown += how["unknown"]
                    if sec is not None:
                        seconds += sec
                        lines.append(f"    about {sec:.0f} s of runner time, from past runs ({_counts(how)})")
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
        if seconds:
            lines.append(f"Estimated from past runs on this hardware: about {seconds:.0f} s of runner time on one GPU "
                         f"(measuring only: add the GPU's start, the probe and the end-to-end pass)"
                         + (f"; {unknown} pair{'s' if unknown != 1 else ''} with no past time not counted" if unknown else "")
                         + (f"; more than the --budget of {budget_s:g} s: the pairs it does not reach are recorded "
                            "as not-run" if budget_s and seconds > budget_s else "") + ".")
    return "\n".join(lines)


def _counts(counter: Counter) -> str:
    return ", ".join(f"{why} {n}" for why, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))
