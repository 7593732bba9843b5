"""Typed page models: what each template receives, one dataclass per page kind.

Fields are the values the page shows, ready-made (templates do no arithmetic). Rows inside
them are mappings whose keys are listed by the TypedDicts below. `plain()` turns a model into
JSON-ready data (the page's JSON twin, and the content its cache key hashes); charts become
their key in the hash and are left out of the JSON.
"""

from __future__ import annotations

import dataclasses
from json.encoder import encode_basestring as _encode_str  # C; what json.dumps uses with ensure_ascii=False
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
    record: dict
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


def dumps_indented(obj) -> str:
    """`json.dumps(plain(obj), sort_keys=True, indent=1, ensure_ascii=False, default=str)`, the
    same text, made in one pass: json's indenting encoder is the pure-Python one, and walking
    `plain` first doubles the work. Used for every JSON twin and data file of the site."""
    parts: list[str] = []
    _dump(obj, "\n", parts)
    return "".join(parts)


def _float(o: float) -> str:
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


_INF = float("inf")


def _key(k) -> str:
    if isinstance(k, str):
        return k
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, int):
        return int.__repr__(k)
    if isinstance(k, float):
        return _float(k)
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")


def _dump(o, nl: str, parts: list) -> None:
    if isinstance(o, str):
        parts.append(_encode_str(o))
    elif o is None:
        parts.append("null")
    elif o is True:
        parts.append("true")
    elif o is False:
        parts.append("false")
    elif isinstance(o, int):
        parts.append(int.__repr__(o))
    elif isinstance(o, float):
        parts.append(_float(o))
    elif isinstance(o, (list, tuple)):
        if not o:
            parts.append("[]")
            return
        inner = nl + " "
        parts.append("[")
        first = True
        for v in o:
            parts.append(inner if first else "," + inner)
            first = False
            _dump(v.key if isinstance(v, Chart) else v, inner, parts)
        parts.append(nl + "]")
    elif isinstance(o, dict):
        _dump_items(sorted(o.items()), nl, parts)
    elif isinstance(o, Chart):
        parts.append(_encode_str(o.key))
    elif dataclasses.is_dataclass(o) and not isinstance(o, type):
        _dump_items(sorted((f.name, getattr(o, f.name)) for f in dataclasses.fields(o)), nl, parts)
    else:
        parts.append(_encode_str(str(o)))


def _dump_items(items: list, nl: str, parts: list) -> None:
    inner = nl + " "
    first = True
    for k, v in items:
        if isinstance(v, Chart):  # charts are left out of the data
            continue
        parts.append("{" + inner if first else "," + inner)
        first = False
        parts.append(_encode_str(_key(k)))
        parts.append(": ")
        _dump(v, inner, parts)
    parts.append("{}" if first else nl + "}")

