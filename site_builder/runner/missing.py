"""`kernel-records run --missing` and `kernel-records run --plan`.

`--missing` runs only the (implementation, workload) pairs of a family on this GPU's hardware
that have no *current* result in the committed run records. The records are read as the build
reads them (records/load.py, derive/entries.py): for each implementation and workload, the
standing result is the newest one of the cohort (family, workload, hardware, the protocol id
this runner measures with); a `not-run` result never replaces an earlier one there. That
result is current, and the pair *settled* (skipped), when all of these hold:

- its run is measured, under the protocol id and version the runner measures with now;
- its status is `ok`, `unsupported` (declined by design), or `failed` (wrong output: rerunning
  the same code gives the same answer; `--retry-failed` runs those again). `not-run` (the
  budget ended first), `timeout` and `crashed` (which may be the machine's doing) and
  `not-installed` (the package was missing on that host) are never settled;
- its `kernel_sha` is the hash of the implementation's current code (the comparison of
  `kernel-records check`'s "stale kernel hash" warning; a result without a hash is not current);
- `kernel-records check` gives it no version warning: the package version in its run's
  environment is the one the implementation record describes, and the run was not observed
  before that version's release.

A run uses the hashes its probe worker reports (what it will record). `--plan` prints what a
run would do, per family and implementation, and touches no GPU: it reads the hashes from the
source (records/kernel_hash.py, no import: it works without CUDA or torch) and the hardware from
`--hardware`, or else from the GPUs nvidia-smi lists here.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from ..derive.check import version_mismatch
from ..derive.entries import build_entries
from ..errors import UserError
from ..records.kernel_hash import registered, same_kernel, sha_of
from ..records.load import load_catalog
from .devices import choose_gpus, list_gpus, parse_gpu_list, visible
from .families import KERNELS_ROOT
from .protocol import protocol_for

#: the statuses a current result may have and be settled (failed: unless --retry-failed)
SETTLED = ("ok", "failed", "unsupported")
NO_RESULT = "no result"


@dataclass(frozen=True)
class Standing:
    """A pair's standing result: settled (skipped by --missing) or, with the reason, not."""

    settled: bool
    why: str  # settled: its status; else why it runs (stale kernel hash, not-run, ...)
    path: str = ""  # the run record it comes from, relative to the records root


def standing_of(e, catalog, protocol: dict, sha: str | None, retry_failed: bool) -> Standing:
    """The standing of one result that the build shows as current (an Entry)."""
    r = e.result
    if e.run.trust != "measured":
        why = "reported, not measured"
    elif e.run.protocol.version != protocol["version"]:
        why = f"protocol version {e.run.protocol.version}"
    elif r.status not in SETTLED:
        why = r.status
    elif r.status == "failed" and retry_failed:
        why = "failed (--retry-failed)"
    elif not r.kernel_sha or not sha:
        why = "no kernel hash"
    elif not same_kernel(r.kernel_sha, sha):
        why = "stale kernel hash"
    elif version_mismatch(e, catalog):
        why = "other package version"
    else:
        return Standing(True, r.status, e.lr.path)
    return Standing(False, why, e.lr.path)


def standings(catalog, family_id: str, hardware_id: str, protocol: dict, shas: dict[str, str | None],
              retry_failed: bool = False) -> dict[tuple[str, str], Standing]:
    """The standing of every (implementation, workload) pair with a result for the family on the
    hardware under `protocol`'s id (pairs without one are absent); `shas`: the current hash of
    each implementation's code."""
    runs = [lr for lr in catalog.runs if lr.run.family == family_id and lr.run.hardware == hardware_id]
    if not runs:
        return {}
    out = {}
    for e in build_entries(dataclasses.replace(catalog, runs=runs)):
        if e.superseded_by is None and e.run.protocol.id == protocol["id"]:
            out[(e.implementation.id, e.workload.id)] = standing_of(
                e, catalog, protocol, shas.get(e.implementation.id), retry_failed)
    return out


def mark_current(plans: dict, catalog, hardware_ids: list[str], device: str, registries: dict,
                 retry_failed: bool = False, console: Console | None = None) -> None:
    """Give each plan the standings of its pairs on each hardware (Plan.todo then leaves the
    settled ones out); print one line per family and hardware saying what is skipped."""
    protocol = protocol_for(device)
    for fid, plan in plans.items():
        shas = {i: registries[fid][i].get("kernel_sha") for i in plan.implementations}
        for hw in hardware_ids:
            plan.standing[hw] = standings(catalog, fid, hw, protocol, shas, retry_failed)
            if console is not None:
                total = len(plan.implementations) * len(plan.workloads)
                left = sum(len(plan.todo(hw, i)) for i in plan.implementations)
                console.print(f"{fid} on {hw} (--missing): {total - left} of {total} implementation × workload "
                              f"pairs have a current result and are skipped; {left} to run.",
                              highlight=False, soft_wrap=True)


def nothing_left(plans: dict, registries: dict, hardware_ids: list[str]) -> bool:
    return not any(plan.todo(hw, i) for plan in plans.values() for i in plan.implementations for hw in hardware_ids)


def leave_out_current(plans: dict, catalog, hardware_ids: list[str], device: str, registries: dict,
                      retry_failed: bool, console: Console) -> bool:
    """A `--missing` run (run.py, cluster.py): the plans' standings marked (mark_current); False,
    having said so, when nothing is left to run (then no record is written)."""
    mark_current(plans, catalog, hardware_ids, device, registries, retry_failed, console)
    if nothing_left(plans, registries, hardware_ids):
        console.print("Nothing to run: every selected implementation × workload has a current result "
                      "in the run records (--missing); no record written.", highlight=False, soft_wrap=True)
        return False
    return True


def missing_tool(tool: str, retry_failed: bool) -> str:
    """The command a `--missing` run's record notes name: its record holds only the pairs that
    were left, their peers stand in earlier records."""
    return f"{tool} --missing" + (" --retry-failed" if retry_failed else "")


# --- --plan ---------------------------------------------------------------------------------


def source_registry(kernels_root: Path, family_id: str) -> list[dict]:
    """The family's registry as the probe reports it (id, kernel_sha), read from the source."""
    out = []
    for impl_id, entry in registered(kernels_root, family_id).items():
        sha = sha_of(entry.sources) if all(p.is_file() for p in entry.sources) else None
        out.append({"id": impl_id, "kernel_sha": sha, "missing": None})
    return out


def plan_hardware(catalog, hardware: str | None, device: str | None, gpus) -> tuple[list[str], str]:
    """The hardware ids a plan is for, and the device (hence the protocol) it measures on."""
    from .run import _match_hardware

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


def plan_run(records: Path = Path("records"), *, family: str | None = None, implementations=(), workloads=(),
             device: str | None = None, hardware: str | None = None, gpus=None, missing: bool = False,
             retry_failed: bool = False, budget_s: float | None = None, kernels_root: Path = KERNELS_ROOT,
             ray_address: str | None = None, **_ignored) -> str:
    """What `kernel-records run` with these options would measure, as text; runs nothing."""
    from .run import pick_families, plan_families

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
