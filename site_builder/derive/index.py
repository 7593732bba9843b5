"""The derived index: everything the pages show, computed once from the catalog.

`derive(catalog)` makes every entry (a result in its context, with its floors and why it does
not rank), groups them by family, run, implementation and hardware, ranks every cohort, orders
each workload's cohorts, takes the newest measured copy bandwidth per GPU and computes every
record history. The index is frozen: page builders read it and never re-filter the entries.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

from ..records.load import Catalog, LoadedRun
from ..records.schema import Family, Workload
from .entries import CohortKey, Entry, build_entries, cohort_priority, cohorts
from .floors import Floor, floor
from .history import Series, series


@dataclass(frozen=True)
class Cohort:
    """Results ranked against each other: one family, workload, hardware and protocol."""

    key: CohortKey
    entries: tuple[Entry, ...]  # eligible first, fastest first; then the rest, newest first
    ranked: tuple[Entry, ...]  # the eligible ones, in rank order
    copy_bandwidth_gbps: float | None  # measured in one of its ranked runs, else the GPU's newest
    launch_floor_us: float | None = None  # an empty kernel's device time, measured in one of its ranked runs
    measured_peak_tflops: float | None = None  # the best compute rate of one of its ranked runs (floors.measured_peak)

    @property
    def first(self) -> Entry | None:
        return self.ranked[0] if self.ranked else None

    @property
    def unranked(self) -> tuple[Entry, ...]:
        return self.entries[len(self.ranked):]

    def measured_floor(self) -> Floor | None:
        e0 = self.entries[0]
        bw = self.copy_bandwidth_gbps
        return floor(e0.family, e0.workload, e0.hardware, bw, self.launch_floor_us,
                     self.measured_peak_tflops) if bw else None


@dataclass(frozen=True)
class SiteIndex:
    catalog: Catalog
    entries: tuple[Entry, ...]
    by_family: Mapping[str, tuple[Entry, ...]]
    by_run: Mapping[str, tuple[Entry, ...]]  # by the run's path
    by_implementation: Mapping[str, tuple[Entry, ...]]
    by_hardware: Mapping[str, tuple[Entry, ...]]
    cohorts: Mapping[CohortKey, Cohort]
    workload_cohorts: Mapping[tuple[str, str], tuple[Cohort, ...]]  # (family, workload): priority order
    copy_bandwidths: Mapping[str, float]  # the newest measured copy bandwidth per hardware id
    history: Mapping[tuple[str, str, str], Series]  # (family, workload, hardware), sorted by key

    def family(self, fid: str) -> Family:
        return self.catalog.families[fid]

    def family_entries(self, fid: str) -> tuple[Entry, ...]:
        return self.by_family.get(fid, ())

    def cohorts_of(self, fid: str, wid: str) -> tuple[Cohort, ...]:
        return self.workload_cohorts.get((fid, wid), ())

    def leading_cohort(self, fid: str, wid: str) -> Cohort | None:
        """The cohort that speaks for a workload: its first (in priority order) with a ranked
        result, else its first; None when it has none. Its GPU's page holds the leaderboard that
        the family page's records table and search link."""
        cohorts = self.cohorts_of(fid, wid)
        return next((c for c in cohorts if c.first), cohorts[0] if cohorts else None)

    def workload(self, fid: str, wid: str) -> Workload:
        return next(w for w in self.catalog.families[fid].workloads if w.id == wid)

    def run_entries(self, lr: LoadedRun) -> tuple[Entry, ...]:
        return self.by_run.get(lr.path, ())

    def family_inputs(self, fid: str) -> str | None:
        """A digest of everything a family's own pages can read: the family record, the bytes
        of its run files, every hardware and implementation record file, and the copy bandwidth
        of each of its cohorts (one whose runs measured none takes the GPU's newest, which may
        come from another family's run). Entries, cohorts, floors and history of a family are
        functions of these alone. None when a run's
        bytes are not known (a catalog not read from files): then nothing may be taken as kept."""
        return self._family_inputs[fid]

    @cached_property
    def _family_inputs(self) -> dict[str, str]:
        catalog = self.catalog
        digests = catalog.digests
        if not digests:
            return {fid: None for fid in catalog.families}
        shared = hashlib.sha256()
        for path in sorted(digests):
            if path.startswith(("hardware/", "implementations/")):
                shared.update(f"{path}\0{digests[path]}\0".encode())
        runs: dict[str, list[str]] = defaultdict(list)
        unknown = set()
        for lr in catalog.runs:
            if lr.path not in digests:
                unknown.add(lr.run.family)
            runs[lr.run.family].append(f"{lr.path}\0{digests.get(lr.path)}")
        bandwidths: dict[str, list] = defaultdict(list)
        for key, cohort in self.cohorts.items():  # sorted by key
            bandwidths[key.family].append([key.workload, key.hardware, key.protocol, cohort.copy_bandwidth_gbps])
        out = {}
        for fid, family in catalog.families.items():
            if fid in unknown:
                out[fid] = None
                continue
            h = shared.copy()
            h.update(b"\1" + family.model_dump_json().encode() + b"\1")
            h.update(json.dumps(bandwidths.get(fid, [])).encode())
            for line in sorted(runs.get(fid, ())):
                h.update(line.encode() + b"\0")
            out[fid] = h.hexdigest()
        return out


def _grouped(entries, key) -> Mapping[str, tuple[Entry, ...]]:
    out: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        out[key(e)].append(e)
    return MappingProxyType({k: tuple(v) for k, v in sorted(out.items())})


def copy_bandwidths(catalog: Catalog) -> dict[str, float]:
    """The newest measured copy bandwidth per hardware id (runs are sorted oldest first)."""
    out = {}
    for lr in catalog.runs:
        env = lr.run.environment
        if env and env.copy_bandwidth_gbps:
            out[lr.run.hardware] = env.copy_bandwidth_gbps
    return out


def derive(catalog: Catalog, entries: list[Entry] | None = None) -> SiteIndex:
    entries = build_entries(catalog) if entries is None else entries
    copy_bw = copy_bandwidths(catalog)
    ranked_cohorts: dict[CohortKey, Cohort] = {}
    per_workload: dict[tuple[str, str], list[Cohort]] = defaultdict(list)
    for key, group in sorted(cohorts(entries).items(), key=lambda kg: (kg[0].family, kg[0].workload,
                                                                       kg[0].hardware, kg[0].protocol)):
        rows = tuple(e for e in group if e.eligible)
        own_bw = next((e.run.environment.copy_bandwidth_gbps for e in rows
                       if e.run.environment and e.run.environment.copy_bandwidth_gbps), None)
        launch = next((e.run.environment.launch_floor_us for e in rows
                       if e.run.environment and e.run.environment.launch_floor_us), None)
        peak = next((e.measured_floor.measured_peak_tflops for e in rows
                     if e.measured_floor and e.measured_floor.measured_peak_tflops), None)
        cohort = Cohort(key, tuple(group), rows, own_bw or copy_bw.get(key.hardware), launch, peak)
        ranked_cohorts[key] = cohort
        per_workload[(key.family, key.workload)].append(cohort)
    for items in per_workload.values():
        items.sort(key=lambda c: cohort_priority(c.key, list(c.entries)))
    by_series: dict[tuple, list[Entry]] = defaultdict(list)
    for e in entries:
        by_series[(e.family.id, e.workload.id, e.hardware.id)].append(e)
    return SiteIndex(
        catalog=catalog,
        entries=tuple(entries),
        by_family=_grouped(entries, lambda e: e.family.id),
        by_run=_grouped(entries, lambda e: e.lr.path),
        by_implementation=_grouped(entries, lambda e: e.implementation.id),
        by_hardware=_grouped(entries, lambda e: e.hardware.id),
        cohorts=MappingProxyType(ranked_cohorts),
        workload_cohorts=MappingProxyType({k: tuple(v) for k, v in per_workload.items()}),
        copy_bandwidths=MappingProxyType(copy_bw),
        history=MappingProxyType({k: series(k, v) for k, v in sorted(by_series.items())}),
    )
