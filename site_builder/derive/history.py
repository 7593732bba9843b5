"""Record history of a series (family, workload, hardware): every result over time, oldest
first, and the moments a record was set.

A record is set when a run's fastest eligible result beats the best eligible result of the same
protocol in earlier runs (the first run with an eligible result sets the first record). Results
of one run are simultaneous: only the run's fastest can set a record. Dates come from the
records, never from the build clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from .entries import Entry


@dataclass(frozen=True)
class Point:
    """One result of a series, with what it did to the record of its protocol."""

    entry: Entry
    record_set: bool
    previous: "Entry | None"  # the record it beat (None for the first record, or when not a record)


@dataclass(frozen=True)
class Series:
    family: str
    workload: str
    hardware: str
    points: tuple[Point, ...]  # oldest first
    records: tuple[Point, ...]  # the points that set a record, oldest first
    current: tuple[tuple[str, Point], ...]  # per protocol (sorted), the record that stands

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.family, self.workload, self.hardware)


def _is_record(e: Entry, best: dict[str, Entry]) -> bool:
    """Eligible at the time it was observed: ok, correct, not below the floor."""
    ok = e.result.status == "ok" and not e.reasons and e.time_us
    proto = e.run.protocol.id
    return bool(ok and (proto not in best or e.time_us < best[proto].time_us))


def series(key: tuple[str, str, str], entries: list[Entry]) -> Series:
    group = sorted(entries, key=lambda e: (e.observed, e.lr.path, e.index))
    best: dict[str, Entry] = {}
    holder: dict[str, Point] = {}
    points, records = [], []
    for _, batch in groupby(group, key=lambda e: e.lr.path):
        batch = list(batch)
        setters: dict[str, Entry] = {}
        for e in batch:
            proto = e.run.protocol.id
            if _is_record(e, best) and (proto not in setters or e.time_us < setters[proto].time_us):
                setters[proto] = e
        for e in batch:
            proto = e.run.protocol.id
            is_record = setters.get(proto) is e
            point = Point(e, is_record, best.get(proto) if is_record else None)
            if is_record:
                best[proto] = e
                holder[proto] = point
                records.append(point)
            points.append(point)
    return Series(*key, tuple(points), tuple(records), tuple((p, holder[p]) for p in sorted(holder)))
