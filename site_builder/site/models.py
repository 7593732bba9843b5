"""Typed page models: what each template receives, one dataclass per page kind.

Fields are the values the page shows, ready-made (templates do no arithmetic). Rows inside
them are mappings whose keys are listed by the TypedDicts below. `plain()` turns a model into
JSON-ready data (the page's JSON twin, and the content its cache key hashes); charts become
their key in the hash and are left out of the JSON.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, TypedDict

from .charts import Chart


class EntryRow(TypedDict, total=False):
    """One result as a row (views.entry_view); ranked rows add `rank`."""

    implementation: str
    name: str
    time_us: float | None
    run_url: str
    trust: str
    trust_label: str
    eligible: bool
    rank: int


class NavFamily(TypedDict):
    title: str
    url: str


@dataclass(frozen=True)
class FamilyPage:
    id: str
    title: str
    tag: str
    summary: str
    eligible_results: int  # results that rank (eligible)
    eligible_runs: int  # runs with at least one eligible result
    runs_total: int
    results_total: int
    headline_workload: dict
    fastest: dict | None
    by_language: list
    matrix: dict
    source_native: list
    floors: list
    leaderboards: list
    charts: list
    implementations: list
    semantics: dict
    sources: list
    json_url: str
    csv_url: str
    baseline: str
    kinds: list  # the workload kinds present, when the family names kinds; else empty
    sources_total: int = 0  # `sources` holds the most recent ones
    # the GPUs with results, primary first ({id, name, url, hardware_url, workloads, ranked})
    gpus: list = dataclasses.field(default_factory=list)
    # the GPU whose floors, leaderboards and charts this page shows (None: no results anywhere)
    detail_gpu: dict | None = None
    gpu_page: bool = False  # a family's page on one GPU (families/<id>/<gpu>.html)
    # workloads whose leaderboards this page leaves to the GPU pages (the family page ranks the
    # headline workload only, so that its weight does not grow with the workloads)
    leaderboards_elsewhere: int = 0
    # scaling charts of this GPU that the family page leaves to the GPU's page (it shows the
    # first FAMILY_PAGE_CHARTS: a family with many held-constant groups, GEMM's ten (N, K)
    # shapes, would otherwise carry every drawing)
    charts_elsewhere: int = 0


@dataclass(frozen=True)
class RunPage:
    id: str
    path: str
    family: str
    family_title: str
    hardware: str
    hardware_name: str
    trust: str
    trust_label: str
    trust_note: str
    observed: str
    protocol: dict
    source: dict | None
    environment: dict | None
    seed: int | None
    notes: str | None
    groups: list  # results by workload: [{workload, label, kind, rows}]
    results: int
    implementations: list
    json_url: str
    yaml_url: str


@dataclass(frozen=True)
class HistoryPage:
    family: str
    family_title: str
    workload: str
    workload_label: str
    hardware: str
    hardware_name: str
    url: str
    json_url: str
    csv_url: str
    rows: list  # the most recent window, oldest first
    shown: int
    total: int
    first_observed: str | None
    summary: list  # per implementation: results, best, latest
    records: list
    current: list
    chart: Chart | None


@dataclass(frozen=True)
class ComparePage:
    family: str
    family_title: str
    url: str
    a: dict | None
    b: dict | None
    groups: list
    impls: list
    others: list
    default: bool
    default_url: str
    pair_pattern: str
    summary: dict | None
    swap_url: str | None = None


@dataclass(frozen=True)
class ImplementationPage:
    record: dict
    id: str
    name: str
    usable: bool
    families: list
    code: list
    results: int
    superseded: int


@dataclass(frozen=True)
class HardwarePage:
    record: dict
    id: str
    name: str
    copy_bandwidth_gbps: float | None
    copy_fraction: float | None
    runs: list  # the most recent RECENT_RUNS, newest first
    runs_total: int
    families: list


def plain(obj, charts: bool = False) -> Any:
    """JSON-ready data of a model: dataclasses as dicts; a Chart as its key when `charts`, else left out."""
    if isinstance(obj, Chart):
        return obj.key
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {k: plain(v, charts) for k, v in obj.items() if charts or not isinstance(v, Chart)}
    if isinstance(obj, (list, tuple)):
        return [plain(v, charts) for v in obj]
    return obj


def _json_default(obj):
    """What `plain(obj)` makes of a value json cannot write, one level at a time (the C encoder
    walks the dicts and lists): a model is its fields without the charts, a chart its key."""
    if isinstance(obj, Chart):
        return obj.key
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: v for f in dataclasses.fields(obj) if not isinstance(v := getattr(obj, f.name), Chart)}
    return str(obj)


_DATA_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_json_default)


def dumps_data(obj) -> str:
    """The site's JSON of a model or of plain data, compact and deterministic (keys sorted):
    `json.dumps(plain(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)`
    whenever no chart sits directly in a mapping (models hold charts as fields, which are left
    out; a chart anywhere else is written as its key), made by json's C encoder in one pass."""
    return _DATA_ENCODER.encode(obj)
