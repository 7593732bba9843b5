"""`kernel-records run --missing`.

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

A run uses the hashes its probe worker reports (what it will record); `--plan` (plan.py) uses
these rules with the hashes read from the source.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rich.console import Console

from ..derive.check import version_mismatch
from ..derive.entries import build_entries
from ..records.kernel_hash import same_kernel
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
