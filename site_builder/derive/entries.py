"""From the catalog to ranked results: entries, cohorts, eligibility, leaderboards.

A cohort is (family, workload, hardware, protocol id): results are ranked only against results
of the same cohort. Within a cohort the newest result of each implementation ranks; older ones
are superseded and stay visible in history.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from dataclasses import dataclass, field

from .floors import Floor, floor, measured_peak
from ..records.load import Catalog, LoadedRun
from ..records.schema import Family, Hardware, Implementation, Result, Stat, Workload

TRUST_ORDER = {"measured": 0, "reported": 1}


@dataclass(frozen=True)
class CohortKey:
    family: str
    workload: str
    hardware: str
    protocol: str

    @property
    def slug(self) -> str:
        return f"{self.workload}--{self.hardware}--{self.protocol}"


@dataclass
class Entry:
    """One result in its context. `time_us` is the median of the protocol's ranking clock."""

    lr: LoadedRun
    index: int
    result: Result
    family: Family
    workload: Workload
    hardware: Hardware
    implementation: Implementation
    floor: Floor
    measured_floor: Floor | None
    stat: Stat | None
    reasons: list[str] = field(default_factory=list)  # why it is not ranked
    superseded_by: "Entry | None" = None

    @property
    def run(self):
        return self.lr.run

    @property
    def cohort(self) -> CohortKey:
        return CohortKey(self.family.id, self.workload.id, self.hardware.id, self.run.protocol.id)

    @property
    def time_us(self) -> float | None:
        return self.stat.median if self.stat else None

    @property
    def eligible(self) -> bool:
        return not self.reasons and self.superseded_by is None

    @property
    def observed(self) -> dt.datetime:
        return self.run.observed_at

    @property
    def anchor(self) -> str:
        return f"r{self.index}"


def build_entries(catalog: Catalog) -> list[Entry]:
    entries: list[Entry] = []
    floors: dict[tuple, Floor] = {}  # a floor depends on these only: computed once for all runs

    def floor_of(family, workload, hardware, copy_bw=None, launch=None, peak=None) -> Floor:
        key = (family.id, workload.id, hardware.id, copy_bw, launch, peak)
        if key not in floors:
            floors[key] = floor(family, workload, hardware, copy_bw, launch, peak)
        return floors[key]

    for lr in catalog.runs:
        run = lr.run
        family = catalog.families[run.family]
        hardware = catalog.hardware[run.hardware]
        workloads = {w.id: w for w in family.workloads}
        copy_bw = run.environment.copy_bandwidth_gbps if run.environment else None
        launch = run.environment.launch_floor_us if run.environment else None
        clock = "device_us" if run.protocol.clock == "device" else "e2e_us"
        peak = _run_peak(run, family, hardware, workloads, clock)
        for i, result in enumerate(run.results):
            workload = workloads[result.workload]
            entry = Entry(
                lr=lr, index=i, result=result, family=family, workload=workload,
                hardware=hardware, implementation=catalog.implementations[result.implementation],
                floor=floor_of(family, workload, hardware),
                measured_floor=floor_of(family, workload, hardware, copy_bw, launch, peak) if copy_bw else None,
                stat=getattr(result, clock),
            )
            entry.reasons.extend(_ineligible(entry))
            entries.append(entry)
    _mark_superseded(entries)
    return entries


def _run_peak(run, family: Family, hardware: Hardware, workloads: dict, clock: str) -> float | None:
    """The run's measured peak (floors.measured_peak) over its results that passed their check
    (a measured run's result without a check does not count); None unless the family asks."""
    if family.arithmetic is None or family.arithmetic.measured_peak == "none":
        return None
    timed = [(workloads[r.workload], getattr(r, clock).median) for r in run.results
             if r.status == "ok" and getattr(r, clock) is not None
             and (r.correctness.passed if r.correctness is not None else run.trust != "measured")]
    return measured_peak(family, hardware, timed)


#: An error that says the GPU ran out of memory (PyTorch's, CUDA's, Triton's wording).
_OUT_OF_MEMORY = re.compile(r"OutOfMemoryError|out of memory|CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation",
                            re.IGNORECASE)


def _ineligible(entry: Entry) -> list[str]:
    r = entry.result
    if r.status != "ok":
        reasons = [f"status: {r.status}"]
        if r.status in ("failed", "crashed") and r.error and _OUT_OF_MEMORY.search(r.error):
            reasons.append("out of GPU memory in this run (a memory limit, not a wrong result)")
        return reasons
    reasons = []
    if entry.run.trust == "measured" and r.correctness is None:
        reasons.append("no correctness check on record")
    if r.correctness is not None and not r.correctness.passed:
        reasons.append("failed correctness")
    if entry.time_us is not None and entry.time_us < entry.floor.us:
        reasons.append(f"faster than the physical floor ({entry.floor.us:.3g} µs): impossible")
    return reasons


def _mark_superseded(entries: list[Entry]) -> None:
    """The newest result of each implementation in a cohort is current; older ones are history.
    A `not-run` result (the run's budget ended before the workload) says nothing about the code:
    it never replaces a result that does, and any later result replaces it."""
    newest: dict[tuple, Entry] = {}
    for e in sorted(entries, key=lambda e: (e.observed, e.lr.path, e.index)):
        key = (e.cohort, e.implementation.id)
        if key in newest:
            if e.result.status == "not-run" and newest[key].result.status != "not-run":
                e.superseded_by = newest[key]  # the earlier result stands
                continue
            newest[key].superseded_by = e
        newest[key] = e


def cohorts(entries: list[Entry]) -> dict[CohortKey, list[Entry]]:
    """Every cohort's entries: eligible ones first, fastest first; then the rest, newest first."""
    out: dict[CohortKey, list[Entry]] = defaultdict(list)
    for e in entries:
        out[e.cohort].append(e)
    for key, group in out.items():
        ranked = sorted((e for e in group if e.eligible), key=lambda e: (e.time_us, e.implementation.id))
        rest = sorted((e for e in group if not e.eligible),
                      key=lambda e: (-e.observed.timestamp(), e.implementation.id))
        out[key] = ranked + rest
    return dict(out)


def cohort_priority(key: CohortKey, group: list[Entry]) -> tuple:
    """Which cohort speaks first for a workload: measured here, then most results, then name."""
    trust = min(TRUST_ORDER[e.run.trust] for e in group)
    eligible = sum(e.eligible for e in group)
    return (trust, -eligible, key.hardware, key.protocol)


def ranked(group: list[Entry]) -> list[Entry]:
    return [e for e in group if e.eligible]


def usable(impl: Implementation) -> bool:
    """Usable today: it can be installed and its license is known."""
    return bool(impl.install) and impl.license.lower() not in ("unknown", "none")
